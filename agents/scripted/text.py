"""Reading what the environment shows: the §3 sentences, the §10 observation text, the question
shapes of §4.2, and the answer statements a content writer leaves behind.

Everything here is a pure function of strings. The scripted agents use only public knowledge:
the sentence forms and question shapes of the SPEC and the fixed first-name lists (which name is
male or female, as any reader of English would know).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from kbgym.universe import statements
from kbgym.universe.templates import TEMPLATES
from kbgym.universe.vocab import CITIES, FEMALE_FIRST, HOBBIES, JOBS, MALE_FIRST, MONTHS

# ---------------------------------------------------------------------------------------------
# Tokens and names

_TOKEN = re.compile(r"[^\W_]+")


def tokens(text: str) -> list[str]:
    """The search tokens of ``text`` (SPEC §7): casefolded runs of letters and digits."""
    return _TOKEN.findall(text.casefold())


NAME = r"[A-Z][A-Za-z-]* [A-Z][A-Za-z-]*"
#: Overlapping matches, so a capitalised lead word (``About Felix Abernathy``) hides no name.
_NAME_RE = re.compile(rf"(?=\b({NAME})\b)")
_MALE = frozenset(MALE_FIRST)
_FEMALE = frozenset(FEMALE_FIRST)


def gender_of(name: str) -> str | None:
    """``male`` / ``female`` from the first name, ``None`` if the first name is not a known one."""
    first = name.split(" ", 1)[0]
    if first in _MALE:
        return "male"
    if first in _FEMALE:
        return "female"
    return None


def names_in(text: str) -> list[str]:
    """Full names (a known first name followed by a capitalised word) in order of appearance."""
    out: list[str] = []
    for m in _NAME_RE.finditer(text):
        name = m.group(1)
        if gender_of(name) is not None and name not in out:
            out.append(name)
    return out


def person_forms(name: str) -> tuple[tuple[str, ...], ...]:
    """The token sequences that name a person in any letter case: ``felix abernathy``,
    ``f. abernathy``, ``abernathy, felix`` and ``abernathy, f.``."""
    toks = tokens(name)
    if len(toks) < 2:
        return (tuple(toks),)
    first, last = toks[0], toks[-1]
    return (tuple(toks), (first[0], last), (last, first), (last, first[0]))


def names_person(text: str, name: str) -> bool:
    """Whether ``text`` names the person ``name`` in any of :func:`person_forms` (only where
    to look: what a note is worth is judged from its links)."""
    have = tokens(text)
    for want in person_forms(name):
        n = len(want)
        if any(tuple(have[i:i + n]) == want for i in range(len(have) - n + 1)):
            return True
    return False


def newest(ids):
    """The one conflict policy of the scripted readers: of several statements of a
    single-valued fact (a job, a hobby, a city, a birth date, a spouse, a father or mother; in
    PhantomWiki a person's list for one relation), the note with the highest id, the newest,
    wins. ``ids`` is any iterable of note ids; ``None`` when it is empty."""
    best = None
    for nid in ids:
        if best is None or id_order(nid) > id_order(best):
            best = nid
    return best


def id_order(nid: str) -> tuple[int, str]:
    """The sort key of a note id (its number: s9999 before s10000)."""
    digits = "".join(ch for ch in nid if ch.isdigit())
    return (int(digits) if digits else -1, nid)


def mentions(text: str, phrase: str) -> bool:
    """Whether ``text`` contains ``phrase`` as whole words (ignoring case)."""
    want = tokens(phrase)
    have = tokens(text)
    n = len(want)
    return n > 0 and any(have[i:i + n] == want for i in range(len(have) - n + 1))


# ---------------------------------------------------------------------------------------------
# §3 sentences


class Fact(NamedTuple):
    """What one §3 sentence states. ``kind`` is job, hobby, city, born, married, child_of,
    father_of, mother_of or friend_of; ``obj`` is a name, a value or ``YYYY-MM-DD``."""

    kind: str
    subj: str
    obj: str


_MONTH = {m: i + 1 for i, m in enumerate(MONTHS)}
_FORMS: tuple[tuple[str, re.Pattern], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("job", rf"^(?P<s>{NAME})'s job is (?P<o>[a-z][a-z ]*)\.$"),
        ("hobby", rf"^(?P<s>{NAME})'s hobby is (?P<o>[a-z][a-z ]*)\.$"),
        ("city", rf"^(?P<s>{NAME}) lives in the city of (?P<o>[A-Z][A-Za-z-]*)\.$"),
        ("born", rf"^(?P<s>{NAME}) was born on (?P<m>[A-Z][a-z]+) (?P<d>\d{{1,2}}), "
                 rf"(?P<y>\d{{4}})\.$"),
        ("married", rf"^(?P<s>{NAME}) is married to (?P<o>{NAME})\.$"),
        ("child_of", rf"^(?P<s>{NAME}) is a child of (?P<o>{NAME})\.$"),
        ("father_of", rf"^(?P<s>{NAME}) is the father of (?P<o>{NAME})\.$"),
        ("mother_of", rf"^(?P<s>{NAME}) is the mother of (?P<o>{NAME})\.$"),
        ("friend_of", rf"^(?P<s>{NAME}) is a friend of (?P<o>{NAME})\.$"),
    )
)


#: What a drifted universe puts before a changed fact (``kbgym drift``): still a §3 sentence.
LATEST = "As of the latest record, "


def parse_fact(text: str) -> Fact | None:
    """The fact a §3 sentence states, or ``None`` for any other text (an authored note). A
    drift note (``As of the latest record, X lives in the city of Y.``) states its sentence."""
    if text.startswith(LATEST):
        text = text[len(LATEST):]
    for kind, pattern in _FORMS:
        m = pattern.match(text)
        if m is None:
            continue
        if kind == "born":
            month = _MONTH.get(m.group("m"))
            if month is None:
                return None
            return Fact("born", m.group("s"),
                        f"{int(m.group('y')):04d}-{month:02d}-{int(m.group('d')):02d}")
        return Fact(kind, m.group("s"), m.group("o"))
    return None


def fact_names(f: Fact) -> tuple[str, ...]:
    """The people a fact names."""
    if f.kind in ("job", "hobby", "city", "born"):
        return (f.subj,)
    return (f.subj, f.obj)


# ---------------------------------------------------------------------------------------------
# Observation text (§10)

_REMAINING = "\n\nRemaining actions this phase: "
_RECENT = "Recent actions (oldest first):\n"
_HIT = re.compile(r"^- ([A-Za-z_]*\d+)(?: \[[^\]\n]*\])?: (.*)$")
_CALL = re.compile(r"^- ([a-z_]+|\?)\(")


@dataclass
class Entry:
    """One remembered (action, result) pair. ``args`` is ``None`` for unparseable calls."""

    name: str
    args: dict | None
    result: str


@dataclass
class Observation:
    task: str
    remaining: int | None
    entries: list[Entry] = field(default_factory=list)

    @property
    def task_lines(self) -> list[str]:
        return self.task.split("\n")

    @property
    def question(self) -> str:
        lines = self.task_lines
        return lines[1] if len(lines) > 1 else ""


def _parse_args(text: str) -> dict | None:
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(call, ast.Call) or call.args:
        return None
    try:
        return {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    except ValueError:
        return None


def _split_call(line: str) -> tuple[str, dict | None, str] | None:
    m = _CALL.match(line)
    if m is None:
        return None
    name = m.group(1)
    start = m.end()
    pos = line.find(") -> ", start)
    while pos != -1:
        args = _parse_args(line[start:pos]) if name != "?" else None
        if args is not None or name == "?":
            return name, args, line[pos + 5:]
        pos = line.find(") -> ", pos + 1)
    return name, None, line.split(") -> ", 1)[-1]


def parse_observation(text: str) -> Observation:
    """Split ``obs["text"]`` into its task block, remaining budget and remembered entries.

    Reads the §10 layout (task block, history, counter line last) and the first one
    (counter line between the task block and the history, ``kbgym/KBGym-v0``).
    """
    remaining = None
    m = _COUNTER_LAST.search(text)
    if m is not None:  # task block, history, counter
        remaining = int(m.group(1))
        task, _, lines = text[: m.start()].partition("\n\n" + _RECENT)
    else:  # the first layout: task block, counter, history
        task, _, rest = text.partition(_REMAINING)
        head, _, body = rest.partition("\n")
        if head.endswith("."):
            try:
                remaining = int(head[:-1])
            except ValueError:
                remaining = None
        _, _, lines = body.partition(_RECENT)
    obs = Observation(task, remaining)
    current: list[str] | None = None
    for line in lines.split("\n"):
        if _HIT.match(line) is None:
            call = _split_call(line)
            if call is not None:
                name, args, first = call
                current = [first]
                obs.entries.append(Entry(name, args, ""))
                obs.entries[-1].result = first
                continue
        if current is not None and obs.entries:
            obs.entries[-1].result += "\n" + line
    return obs


_COUNTER_LAST = re.compile(r"\n\nRemaining actions this phase: (-?\d+)\.\Z")


def result_hits(result: str) -> list[tuple[str, str]]:
    """The ``(id, text)`` lines of a search page or of a read's links."""
    out = []
    for line in result.split("\n"):
        m = _HIT.match(line)
        if m is not None:
            out.append((m.group(1), m.group(2)))
    return out


@dataclass
class ReadResult:
    id: str
    text: str
    links: list[tuple[str, str]]


def parse_read(result: str) -> ReadResult | None:
    """A read result: the note and its linked notes; ``None`` for an error."""
    first, _, rest = result.partition("\n")
    m = re.match(r"^([A-Za-z_]*\d+): (.*)$", first)
    if m is None or result.startswith("ERROR"):
        return None
    links = result_hits(rest) if not rest.startswith("links: (none)") else []
    return ReadResult(m.group(1), m.group(2), links)


# ---------------------------------------------------------------------------------------------
# Questions (§4.2)

_SLOTS = {
    "X": f"(?P<X>{NAME})",
    "Y": f"(?P<Y>{NAME})",
    "job": "(?P<job>[a-z]+)",
    "hobby": "(?P<hobby>[a-z][a-z ]*?)",
    "city": "(?P<city>[A-Z][A-Za-z-]*)",
}


def _question_pattern(text: str) -> re.Pattern:
    parts = re.split(r"(\{[A-Za-z]+\})", text)
    out = []
    for part in parts:
        if part.startswith("{") and part.endswith("}"):
            out.append(_SLOTS[part[1:-1]])
        else:
            out.append(re.escape(part))
    return re.compile("^" + "".join(out) + "$")


_QUESTIONS = tuple((t.name, t.category, _question_pattern(t.text)) for t in TEMPLATES)


@dataclass(frozen=True)
class ParsedQuestion:
    template: str
    category: str
    slots: dict

    @property
    def X(self) -> str | None:
        return self.slots.get("X")

    @property
    def Y(self) -> str | None:
        return self.slots.get("Y")


_EMBEDDED = tuple(re.compile(p.pattern[1:-1].replace(r"\?", r"\??")) for _, _, p in _QUESTIONS)


def embeds_question(text: str) -> bool:
    """Whether ``text`` contains one of the 26 question shapes (a note about a question)."""
    return any(p.search(text) for p in _EMBEDDED)


def parse_question(text: str) -> ParsedQuestion | None:
    """Which of the 26 shapes ``text`` has, and its slots; ``None`` if it has none of them."""
    text = text.strip()
    for name, category, pattern in _QUESTIONS:
        m = pattern.match(text)
        if m is not None:
            return ParsedQuestion(name, category, {k: v for k, v in m.groupdict().items()})
    return None


# ---------------------------------------------------------------------------------------------
# Answer statements (what the content writer writes; the reader recognises them). The forms
# are the universe's (``kbgym.universe.statements``), shared with the misinformation metric.


def statement_prefix(q: ParsedQuestion) -> str:
    """The start of the one-sentence answer to ``q``: ``The job of the spouse of X is``."""
    return statements.statement_prefix(q.template, q.slots)


def answer_statement(q: ParsedQuestion, answer: str) -> str:
    """The sentence stating the answer: ``The job of the spouse of X is baker.``"""
    return statements.answer_statement(q.template, q.slots, answer.strip().rstrip("."))


def statement_answer(q: ParsedQuestion, text: str) -> str | None:
    """The answer a note states for ``q``, when the note is ``q``'s answer statement."""
    found = parse_statement(text)
    if found is None or found[0] != q.template:
        return None
    slots = {k: v for k, v in q.slots.items() if v}
    if {k: v.casefold() for k, v in found[1].items()} != {k: v.casefold()
                                                          for k, v in slots.items()}:
        return None
    return found[2].strip() or None


parse_statement = statements.parse_statement


# ---------------------------------------------------------------------------------------------
# Index notes: authored text that names a key


_REL_WORDS = (
    ("grandchildren", ("grandchildren", "grandchild", "grandkids")),
    ("children", ("children", "child", "kids", "sons", "daughters")),
    ("friends", ("friends", "friend")),
    ("parents", ("parents", "parent")),
    ("siblings", ("siblings", "sibling", "brothers", "sisters")),
    ("spouse", ("spouse", "spouses", "married", "husband", "wife")),
)

VALUE_KINDS = (("job", tuple(JOBS)), ("hobby", tuple(HOBBIES)), ("city", tuple(CITIES)))


_REL_PREFIX = re.compile(
    r"^\s*(grandchildren|children|friends|parents|siblings|spouses?)\s+of\b", re.IGNORECASE)


def index_keys(text: str, values: tuple[tuple[str, str], ...] = ()) -> list[tuple[str, str]]:
    """The ``(relation, key)`` pairs an authored note may index, judged from its text alone.

    - One person named: ``(rel, name)`` when the text opens with a relation (``Friends of``,
      ``Children of``, ``Grandchildren of``, ``Parents of``, ``Siblings of``, ``Spouse of``) or,
      failing that, holds the words of exactly one relation; ``("hub", name)`` when it holds
      none. Words of two relations and no opening relation make it ambiguous: nothing.
    - No person named: ``(kind, value)`` for each job, hobby or city value it mentions
      (``values`` adds (kind, value) pairs to look for beyond the fixed vocabularies).
    """
    if parse_fact(text) is not None:
        return []
    toks = set(tokens(text))
    people = names_in(text)
    if len(people) == 1:
        m = _REL_PREFIX.match(text)
        if m:
            rel = m.group(1).lower()
            return [("spouse" if rel.startswith("spouse") else rel, people[0])]
        rels = [rel for rel, words in _REL_WORDS if toks.intersection(words)]
        if len(rels) > 1:
            return []
        return [(rels[0] if rels else "hub", people[0])]
    if people:
        return []
    out = []
    for kind, vocab in VALUE_KINDS:
        for v in vocab:
            if mentions(text, v):
                out.append((kind, v))
    for kind, v in values:
        if (kind, v) not in out and mentions(text, v):
            out.append((kind, v))
    return out
