"""Reading what the environment shows: the §3 sentences, the §10 observation text, the question
shapes of §4.2, and the answer statements a content writer leaves behind.

Everything here is a pure function of strings. The scripted agents use only public knowledge:
the sentence forms and question shapes of the SPEC and the fixed first-name lists (which name is
male or female, as any reader of English would know).
"""

from __future__ import annotations

import re
from functools import cache
from dataclasses import dataclass

from kbgym import protocol
from kbgym.worlds.people import statements
from kbgym.worlds.people.facts import DRIFT_PREFIX as LATEST
from kbgym.worlds.people.facts import Fact, parse_fact
from kbgym.protocol.observation import Entry, Observation, parse_observation
from kbgym.worlds.people.forms import ParsedQuestion, embeds_question, parse_question
from kbgym.protocol.tokens import tokenize as tokens
from kbgym.worlds.people.vocab import CITIES, FEMALE_FIRST, HOBBIES, JOBS, MALE_FIRST, SURNAMES

__all__ = ["LATEST", "Entry", "Fact", "Observation", "ParsedQuestion", "embeds_question",
           "parse_fact", "parse_observation", "parse_question", "tokens"]

# ---------------------------------------------------------------------------------------------
# Names

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
    to look: what a note is worth is judged from its links). A reversed form needs its comma
    and a first name that does not open a full name: ``Cedric Thistlewood, Lavinia
    Pemberton`` (or the same names in a JSON list) names no Lavinia Thistlewood."""
    have = tokens(text)
    forms = person_forms(name)
    for want in forms[:2]:
        n = len(want)
        if any(tuple(have[i:i + n]) == want for i in range(len(have) - n + 1)):
            return True
    return len(forms) > 2 and _reversed(forms[0]).search(text) is not None


_SURNAMES = "|".join(sorted(s.casefold() for s in SURNAMES))


@cache
def _reversed(toks: tuple[str, ...]) -> re.Pattern:
    """``Abernathy, Felix`` or ``Abernathy, F.``, not followed by a surname."""
    first, last = toks[0], toks[-1]
    return re.compile(rf"(?i)(?<!\w){re.escape(last)}\s*,\s*(?:{re.escape(first)}(?!\w)"
                      rf"(?!\s+(?:{_SURNAMES})(?!\w))|{re.escape(first[0])}(?!\w))")


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


def fact_names(f: Fact) -> tuple[str, ...]:
    """The people a fact names."""
    return f.names


# ---------------------------------------------------------------------------------------------
# Results, as (id, text) pairs (the parsers are the protocol's, kbgym.protocol)


def result_hits(result: str) -> list[tuple[str, str]]:
    """The ``(id, text)`` lines of a search page, of a read's links or of a locate list."""
    return [(h.id, h.text) for h in protocol.result_hits(result)]


@dataclass
class ReadResult:
    id: str
    text: str
    links: list[tuple[str, str]]


def parse_read(result: str) -> ReadResult | None:
    """A read result: the note and its linked notes; ``None`` for an error."""
    r = protocol.parse_read(result)
    return None if r is None else ReadResult(r.id, r.text, [(h.id, h.text) for h in r.links])


# ---------------------------------------------------------------------------------------------
# Answer statements (what the content writer writes; the reader recognises them). The forms
# are the universe's (``kbgym.worlds.people.statements``), shared with the misinformation metric.


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
