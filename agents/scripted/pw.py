"""Scripted agents for PhantomWiki universes (SPEC §17): a reader and an index curator.

The generated-universe agents (:mod:`kbgym_agents.scripted.reader`, :mod:`.curator`) know the 26
KBGym question shapes; PhantomWiki asks its own, over its own sentence forms. These agents
decide from ``obs["text"]`` only, with public knowledge of PhantomWiki 1.0.3:

- the article sentence forms (``The sisters of X are A, B.``, ``The occupation of X is baker.``,
  after the adapter's pronoun rewriting), read back with the adapter's public pattern table
  :func:`kbgym.worlds.phantomwiki.facts.parse_sentence`;
- its question grammar, at any ``--question-depth``: a head (``Who is``, ``What is the
  <attribute> of``, ``How many <relations> does ... have``) over a chain of any number of
  relations from a named person or "the person whose <attribute> is <value>" (``Who is the
  friend of the cousin of the niece of X?``: 8 templates at the default depth 6, 20 at depth 10,
  50 at depth 20);
- the kinship vocabulary: every relation a question names, defined over the relations the
  articles state (:data:`RELATIONS`, PhantomWiki's own rule definitions).

**Reader** (:class:`PWReader`, search/read/answer only). A question becomes a plan: a start set
(the named person, or the holders of an attribute value), the chain of relations followed one
after another, and a final step (list the people, their attribute values, or count a relation
per person). A relation is evaluated hop by hop down to *lookups* ``(person, group of stated
relations)``, each answered by one search worded like the person's own sentence (``brother
brothers sister sisters Aida Wang``), paged while the page's hits stay on topic. Attribute
values of several people are fetched with one query (``hobby Aida Wang Ryan Wang``). When the
step budget runs out first the reader answers from what it was shown and says so: ``outcome`` is
``budget`` (``complete`` when the plan ran to its answer, which is then exact).

**Index notes.** An authored note titled ``{Relations} of {Name}: ...`` (``Nieces of Aida Wang:
from the brothers and sisters.``) promises that its links are every sentence that relation's
evaluation for that person reads; ``{Values} of the {relations} of {Name}: ...`` (``Hobbies of
the nieces of ...``, ``Cousins of the nieces of ...``, ``Friends of the cousins of the nieces of
...``) covers a whole question: every relation of its chain (a count's relation last) and its
attribute. The title carries the name and the words of the first hop's search, so it ranks on
the first page of that search (the name only once, so that it stays below the sentences of
relatives who share the surname). The reader reads the index that covers the whole question or a
multi-hop relation of it right after its first search, and any index of a person whose lookup
the page left incomplete; one read shows every linked sentence, and every lookup of that
evaluation is then trusted as complete.

**Curator** (:class:`PWIndexCurator`, backward phase). It re-evaluates the question with the
reader's engine (the forward trace is in memory, so most lookups are already done), checks the
result against the gold line of the task block, and only then writes the index notes of the
question's person key: the relation index (only where the relation takes more than one search:
several people's lookups, or a friend list), and for questions with a chain of two or more
relations (counting the counted one) or an attribute the whole-question index — linking exactly
the sentences the evaluation read (precision first). An index with that title that already
exists is extended (missing links) and cleaned (links that are not part of the evaluation), or
left alone when complete. Keys without a person (questions about "the person whose ... is ...")
get nothing: PW probe keys are person names only. Then ``done()``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field

from kbgym import agent_factory
from kbgym_agents.base import Action
from kbgym_agents.scripted.curator import PlanCurator, added_id, sync_links
from kbgym_agents.scripted.knowledge import ResultLedger
from kbgym_agents.scripted.plan_reader import PlanReader
from kbgym_agents.scripted.text import names_person, newest, tokens
from kbgym.worlds.phantomwiki.grammar import parse_sentence
from kbgym.protocol.ids import id_key
from kbgym.scoring import f1_score

Plan = Generator[Action, None, object]

# ---------------------------------------------------------------------------------------------
# Vocabulary

#: Base relations the articles state, with the words their sentences use.
BASE_WORDS: dict[str, tuple[str, ...]] = {
    "mother": ("mother",), "father": ("father",),
    "son": ("son", "sons"), "daughter": ("daughter", "daughters"),
    "sister": ("sister", "sisters"), "brother": ("brother", "brothers"),
    "wife": ("wife",), "husband": ("husband",),
    "friend": ("friend", "friends"),
}
BASE_PLURAL = {"mother": "mothers", "father": "fathers", "son": "sons", "daughter": "daughters",
               "sister": "sisters", "brother": "brothers", "wife": "wives",
               "husband": "husbands", "friend": "friends"}
#: Question attribute names -> sentence predicate, and their plural for titles.
ATTRIBUTES = {"occupation": "job", "hobby": "hobby", "date of birth": "dob", "gender": "gender"}
ATTR_WORDS = {v: k for k, v in ATTRIBUTES.items()}
ATTR_PLURAL = {"job": "occupations", "hobby": "hobbies", "dob": "dates of birth",
               "gender": "genders"}

PAR, CH, SIB, MAR = (frozenset({"mother", "father"}), frozenset({"son", "daughter"}),
                     frozenset({"sister", "brother"}), frozenset({"wife", "husband"}))


def _b(*preds: str) -> frozenset:
    return frozenset(preds)


#: Relation name (as a question writes it) -> (hops, neq). A hop is a base group (a frozenset of
#: stated relations, united) or another relation's name; ``neq`` drops the start person.
#: PhantomWiki 1.0.3's definitions (rules_base.pl / rules_derived.pl).
RELATIONS: dict[str, tuple[tuple, bool]] = {
    "parent": ((PAR,), False), "mother": ((_b("mother"),), False),
    "father": ((_b("father"),), False),
    "child": ((CH,), False), "son": ((_b("son"),), False), "daughter": ((_b("daughter"),), False),
    "sibling": ((SIB,), False), "sister": ((_b("sister"),), False),
    "brother": ((_b("brother"),), False),
    "spouse": ((MAR,), False), "wife": ((_b("wife"),), False),
    "husband": ((_b("husband"),), False),
    "friend": ((_b("friend"),), False),
    "niece": (("sibling", _b("daughter")), False), "nephew": (("sibling", _b("son")), False),
    "aunt": (("parent", _b("sister")), False), "uncle": (("parent", _b("brother")), False),
    "grandparent": (("parent", "parent"), False),
    "grandmother": (("parent", _b("mother")), False),
    "grandfather": (("parent", _b("father")), False),
    "grandchild": (("child", "child"), False),
    "granddaughter": (("child", _b("daughter")), False),
    "grandson": (("child", _b("son")), False),
    "great-aunt": (("grandparent", _b("sister")), False),
    "great-uncle": (("grandparent", _b("brother")), False),
    "great-grandparent": (("grandparent", "parent"), False),
    "great-grandmother": (("grandparent", _b("mother")), False),
    "great-grandfather": (("grandparent", _b("father")), False),
    "great-grandchild": (("grandchild", "child"), False),
    "great-granddaughter": (("grandchild", _b("daughter")), False),
    "great-grandson": (("grandchild", _b("son")), False),
    "second aunt": (("great-grandparent", _b("sister")), False),
    "second uncle": (("great-grandparent", _b("brother")), False),
    "cousin": (("parent", "sibling", "child"), True),
    "female cousin": (("parent", "sibling", _b("daughter")), True),
    "male cousin": (("parent", "sibling", _b("son")), True),
    "female second cousin": (("parent", "cousin", _b("daughter")), True),
    "male second cousin": (("parent", "cousin", _b("son")), True),
    "female first cousin once removed": (("cousin", _b("daughter")), True),
    "male first cousin once removed": (("cousin", _b("son")), True),
    "mother-in-law": (("spouse", _b("mother")), False),
    "father-in-law": (("spouse", _b("father")), False),
    "son-in-law": (("child", _b("husband")), False),
    "daughter-in-law": (("child", _b("wife")), False),
    "sister-in-law": (("spouse", _b("sister")), False),
    "brother-in-law": (("spouse", _b("brother")), False),
}


def plural(rel: str) -> str:
    """``niece`` -> ``nieces``, ``child`` -> ``children``, ``sister-in-law`` ->
    ``sisters-in-law``, ``male first cousin once removed`` -> ``male first cousins once
    removed``."""
    if rel.endswith("-in-law"):
        return plural(rel[: -len("-in-law")]) + "-in-law"
    if rel.endswith(" once removed"):
        return plural(rel[: -len(" once removed")]) + " once removed"
    if rel.endswith("child"):
        return rel + "ren"
    if rel == "wife":
        return "wives"
    return rel + "s"


PLURAL_OF = {plural(r): r for r in RELATIONS}


def first_group(rel: str) -> frozenset:
    """The base group of ``rel``'s first hop."""
    hop = RELATIONS[rel][0][0]
    return hop if isinstance(hop, frozenset) else first_group(hop)


def group_query(group: Iterable[str], person: str) -> str:
    """The search for a person's own sentences of a base group: their words, then the name."""
    words = dict.fromkeys(w for p in sorted(group) for w in BASE_WORDS[p] + (BASE_PLURAL[p],))
    return " ".join(words) + " " + person


def group_phrase(group: Iterable[str]) -> str:
    return " and ".join(BASE_PLURAL[p] for p in sorted(group))


# ---------------------------------------------------------------------------------------------
# Questions


@dataclass(frozen=True)
class PWQuestion:
    """One PhantomWiki question as a plan: start (``person``, or ``attr == value``), the
    relation ``chain`` applied hop by hop from the start (innermost first, any length), then
    ``final``: ``("list",)``, ``("attr", pred)`` or ``("count", rel)``.

    phantom-wiki's grammar composes any number of relations at higher ``--question-depth``
    (``Who is the friend of the cousin of the niece of X?``); its type numbers are template
    indices that differ by depth, so a question is known by its ``shape`` instead
    (``head/hops/anchor``, as the adapter names template shapes)."""

    person: str | None
    attr: str | None
    value: str | None
    chain: tuple[str, ...]
    final: tuple

    @property
    def key(self) -> str | None:
        return self.person

    @property
    def rel(self) -> str | None:
        """The first relation from the start, if any."""
        return self.chain[0] if self.chain else None

    @property
    def shape(self) -> str:
        head = {"list": "who", "attr": "what", "count": "count"}[self.final[0]]
        return f"{head}/{len(self.chain)}/{'name' if self.person is not None else 'attribute'}"

    @property
    def index_chain(self) -> tuple[str, ...]:
        """The relations an index of the whole question follows (a count's relation last)."""
        return self.chain + ((self.final[1],) if self.final[0] == "count" else ())

    @property
    def index_attr(self) -> str | None:
        return self.final[1] if self.final[0] == "attr" else None


_ATTR_NAMES = "occupation|hobby|date of birth|gender"
_HEADS = [
    ("list", re.compile(r"^Who is (?P<r>.+)\?$")),
    ("attr", re.compile(rf"^What is the (?P<a2>{_ATTR_NAMES}) of (?P<r>.+)\?$")),
    ("count", re.compile(r"^How many (?P<r2>.+?) does (?P<r>.+) have\?$")),
]
_WHOSE = re.compile(rf"^the person whose (?P<a>{_ATTR_NAMES}) is (?P<v>.+)$")
_HOP = re.compile(r"^the (?P<r>.+?) of (?P<rest>.+)$")


def _anchor_chain(text: str):
    """``(person, attr, value, chain)`` of a phrase ``the R of the R of ... <anchor>``, chain
    innermost first; None when a relation is unknown."""
    outer: list[str] = []
    while True:
        m = _WHOSE.match(text)
        if m:
            return None, ATTRIBUTES[m.group("a")], m.group("v"), tuple(reversed(outer))
        m = _HOP.match(text)
        if m is None:
            return text, None, None, tuple(reversed(outer))
        if m.group("r") not in RELATIONS:
            return None
        outer.append(m.group("r"))
        text = m.group("rest")


def parse_pw_question(text: str) -> PWQuestion | None:
    text = " ".join(text.split())
    for kind, pat in _HEADS:
        m = pat.match(text)
        if m is None:
            continue
        g = m.groupdict()
        parsed = _anchor_chain(g["r"])
        if parsed is None:
            continue
        person, attr, value, chain = parsed
        if kind == "list" and person is not None and not chain:
            continue  # "Who is X?" is not a PhantomWiki question
        if kind == "count":
            r2 = PLURAL_OF.get(g["r2"])
            if r2 is None:
                continue
            final: tuple = ("count", r2)
        elif kind == "attr":
            final = ("attr", ATTRIBUTES[g["a2"]])
        else:
            final = ("list",)
        return PWQuestion(person, attr, value, chain, final)
    return None


# ---------------------------------------------------------------------------------------------
# Index titles


@dataclass(frozen=True)
class Title:
    """An index title: the relations ``chain`` (innermost first) followed from ``person``, and
    for an attribute index the ``attr`` read off the last relation's members. ``Nieces of X``
    is ``(("niece",), X)``, ``Hobbies of the nieces of X`` ``(("niece",), X, "hobby")``,
    ``Friends of the cousins of the nieces of X`` ``(("niece", "cousin", "friend"), X)``."""

    chain: tuple[str, ...]
    person: str
    attr: str | None = None

    @property
    def rel(self) -> str:
        return self.chain[0]

    @property
    def text(self) -> str:
        parts = ([ATTR_PLURAL[self.attr]] if self.attr else []) + [plural(r) for r in
                                                                    reversed(self.chain)]
        head = parts[0][0].upper() + parts[0][1:] + "".join(f" of the {p}" for p in parts[1:])
        return f"{head} of {self.person}: from the {group_phrase(first_group(self.chain[0]))}."


def relation_title(rel: str, person: str) -> str:
    return Title((rel,), person).text


def level2_title(final: tuple, rel: str, person: str) -> str:
    """The two-level index of ``final`` over ``rel`` of ``person`` (depth-6 questions)."""
    if final[0] == "attr":
        return Title((rel,), person, final[1]).text
    return Title((rel, final[1]), person).text


_ATTR_OF_PLURAL = {v: k for k, v in ATTR_PLURAL.items()}


def parse_title(text: str) -> Title | None:
    head, sep, _ = text.partition(": ")
    if not sep or parse_sentence(text) is not None:
        return None
    segs = head.split(" of the ")
    last, of, person = segs[-1].partition(" of ")
    if not of or not person[:1].isupper():
        return None
    segs[-1] = last
    segs[0] = segs[0][:1].lower() + segs[0][1:]
    attr = _ATTR_OF_PLURAL.get(segs[0]) if len(segs) > 1 else None
    rels = [PLURAL_OF.get(x) for x in (segs[1:] if attr else segs)]
    if not rels or None in rels:
        return None
    return Title(tuple(reversed(rels)), person, attr)


# ---------------------------------------------------------------------------------------------
# Knowledge and the evaluation engine


def _mentions(text: str, phrase: str) -> bool:
    want, have = tokens(phrase), tokens(text)
    n = len(want)
    return n > 0 and any(have[i:i + n] == want for i in range(len(have) - n + 1))


@dataclass
class PWKnowledge(ResultLedger):
    """What the agent was shown this episode: notes, the sentences' facts, pages and links."""

    record_search_errors = False

    page_size: int = 5
    notes: dict[str, str] = field(default_factory=dict)
    own: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    reverse: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (pred, obj)->subjs
    pages: dict[tuple[str, int], list[tuple[str, str]]] = field(default_factory=dict)
    links: dict[str, list[str]] = field(default_factory=dict)
    titles: dict[str, Title] = field(default_factory=dict)
    #: every note shown that is not an article sentence (authored), in the order shown
    authored: dict[str, str] = field(default_factory=dict)

    def note(self, nid: str, text: str) -> None:
        self.notes[nid] = text
        p = parse_sentence(text)
        if p is not None:
            key = (p.predicate, p.subject)
            if key not in self.own or newest((nid, self.own[key][0])) == nid:
                self.own[key] = (nid, p.objects)  # the one conflict policy: the newest wins
            for o in p.objects:
                self.reverse.setdefault((p.predicate, o), set()).add(p.subject)
            self.titles.pop(nid, None)
            self.authored.pop(nid, None)
        else:
            self.authored[nid] = text
            t = parse_title(text)
            if t is not None:
                self.titles[nid] = t

    def forget(self, nid: str) -> None:
        super().forget(nid)
        self.titles.pop(nid, None)
        self.authored.pop(nid, None)

    def objects(self, pred: str, person: str) -> tuple[str, ...]:
        row = self.own.get((pred, person))
        return row[1] if row else ()


class Engine:
    """Evaluates plans over :class:`PWKnowledge`, yielding the searches and reads it needs.

    ``fetch=False`` evaluates from what is known (a guess, or an index's dry run). Every lookup
    an evaluation makes is recorded in ``self.visited`` (for the curator's links); ``done``
    holds the ``(pred, person)`` pairs known complete, ``attr_done`` the attribute pairs."""

    MAX_PAGES = 4

    def __init__(self, kb: PWKnowledge, *, budget: Callable[[], bool] = lambda: True,
                 use_indexes: bool = True):
        self.kb = kb
        self.budget = budget
        self.use_indexes = use_indexes
        self.fetch = True
        self.done: set[tuple[str, str]] = set()
        self.attr_done: set[tuple[str, str]] = set()
        self.absorbed: set[str] = set()
        self.reads: dict[str, int] = {}  # authored notes read per person
        self.hint: set[str] = set()  # the question's relation words (order reads only)
        self.visited: set[tuple[str, str]] = set()  # (pred, person) lookups
        self.visited_attrs: set[tuple[str, str]] = set()
        self.incomplete = False

    # -- actions -----------------------------------------------------------------------
    def _search(self, query: str, page: int = 1) -> Plan:
        if (query, page) not in self.kb.pages:
            yield {"action": "search", "query": query, "page": page}

    def _read(self, nid: str) -> Plan:
        if nid not in self.kb.links:
            yield {"action": "read", "id": nid}

    def _can_fetch(self) -> bool:
        if not self.fetch:
            return False
        if not self.budget():
            self.incomplete = True
            return False
        return True

    # -- indexes -----------------------------------------------------------------------
    #: The most authored notes naming one person read for that person's lookups.
    MAX_READS = 3

    def _indexes_for(self, person: str, group: frozenset) -> list[str]:
        """Unread authored notes naming ``person`` in any wording (only these may save a
        lookup), at most :attr:`MAX_READS` read per person. Wording orders them, nothing
        more: a title that parses as an index of one of the group's relations first (a
        whole-question index before a one-relation one), then other titles of the person,
        then the rest in the order shown."""
        def rank(nid: str) -> tuple:
            t = self.kb.titles.get(nid)
            if t is not None and t.person == person and first_group(t.rel) & group:
                return (0, len(t.chain) == 1 and t.attr is None)
            return (1 if t is not None and t.person == person else 2, False)

        left = self.MAX_READS - self.reads.get(person, 0)
        out = [nid for nid, text in self.kb.authored.items()
               if nid not in self.absorbed and nid not in self.kb.links
               and names_person(text, person)]
        return sorted(out, key=lambda n: (rank(n), -self._overlap(n), id_key(n)))[:max(0, left)]

    def _overlap(self, nid: str) -> int:
        """How many of the question's relation and attribute words a note uses (an order)."""
        return len(self.hint & set(tokens(self.kb.notes.get(nid, ""))))

    def absorb(self, nid: str, person: str) -> None:
        """What a read note naming ``person`` is worth comes from the sentences its links
        show, whatever its wording (docs/protocol.md §9.6). Each sentence states a person's
        whole list for one relation. Hop by hop from ``person``, a note that links the
        sentences of relation ``r`` for some of the people the previous hop reached promises
        ``r`` for all of them: the others have none (a niece index links the daughters
        sentences of the siblings who have daughters). A relation it links for nobody of a
        hop, it promises nothing about."""
        self.absorbed.add(nid)
        kb = self.kb
        sents = {}
        for lid in kb.links.get(nid, ()):
            ps = parse_sentence(kb.notes.get(lid, ""))
            if ps is not None:
                sents[lid] = ps
        frontier, seen = {person}, {person}
        while frontier and sents:
            hop = {lid: ps for lid, ps in sents.items() if ps.subject in frontier}
            if not hop:
                break
            for pred in {ps.predicate for ps in hop.values()}:
                target = self.attr_done if pred in ATTR_WORDS else self.done
                target.update((pred, q) for q in frontier)
            for lid in hop:
                del sents[lid]
            frontier = {o for ps in hop.values() if ps.predicate not in ATTR_WORDS
                        for o in ps.objects} - seen
            seen |= frontier

    def _try_indexes(self, person: str, group: frozenset) -> Plan:
        if not self.use_indexes:
            return
        for nid in self._indexes_for(person, group):
            if all((p, person) in self.done or (p, person) in self.kb.own for p in group):
                return
            if not self._can_fetch() and nid not in self.kb.links:
                return
            self.reads[person] = self.reads.get(person, 0) + 1
            yield from self._read(nid)
            self.absorb(nid, person)

    # -- lookups -----------------------------------------------------------------------
    def _implied(self, pred: str, person: str) -> bool:
        """Whether another person's sentence shows ``person`` has a ``pred`` sentence."""
        kb = self.kb
        if pred == "friend":
            return bool(kb.reverse.get(("friend", person)))
        if pred in ("mother", "father"):
            other = "father" if pred == "mother" else "mother"
            return (other, person) in kb.own or bool(kb.reverse.get(("son", person))
                                                        or kb.reverse.get(("daughter", person)))
        if pred == "wife":
            return bool(kb.reverse.get(("husband", person)))
        if pred == "husband":
            return bool(kb.reverse.get(("wife", person)))
        return False

    def _married(self, person: str) -> bool:
        """Whether a shown sentence states a spouse of ``person``: PhantomWiki derives every
        marriage from a shared child, so that person has a son or daughter sentence."""
        kb = self.kb
        return any((p, person) in kb.own or kb.reverse.get((p, person))
                   for p in ("wife", "husband"))

    def lookup(self, person: str, group: frozenset) -> Plan:
        """The people ``person``'s own sentences of ``group`` list."""
        kb = self.kb
        for p in group:
            self.visited.add((p, person))
            if (p, person) in kb.own:
                self.done.add((p, person))
        need = [p for p in group if (p, person) not in self.done]
        if need and self._can_fetch():
            yield from self._try_indexes(person, group)
            query = group_query(group, person)
            words = {w for p in group for w in BASE_WORDS[p]}
            page = 1
            while page <= self.MAX_PAGES:
                need = [p for p in group if (p, person) not in self.done]
                if not need or not self._can_fetch():
                    break
                yield from self._search(query, page)
                hits = kb.pages.get((query, page), [])
                for p in need:
                    if (p, person) in kb.own:
                        self.done.add((p, person))
                need = [p for p in group if (p, person) not in self.done]
                if "friend" in need and self._can_fetch():
                    yield from self._friend_refined(person)
                    if ("friend", person) in kb.own:
                        self.done.add(("friend", person))
                need = [p for p in group if (p, person) not in self.done]
                yield from self._try_indexes(person, group)
                need = [p for p in group if (p, person) not in self.done]
                if not need:
                    break
                # Index notes share the words of the search (and a surname), so they rank among
                # the sentences of a lookup; they say nothing about whether the person's own
                # sentence is further down, so the page is judged by its sentences only.
                on = [_mentions(t, person) and bool(words & set(tokens(t)))
                      for nid, t in hits if nid not in kb.authored]
                end = len(hits) < kb.page_size or not on or not on[-1]
                if "friend" in need:
                    # A friend list is a long sentence: shorter notes naming the person outrank
                    # it. Nearly everyone has friends, so page while the person is still named.
                    end = len(hits) < kb.page_size or not any(_mentions(t, person)
                                                              for _, t in hits)
                if end and not any(self._implied(p, person) for p in need) \
                        and not (CH <= set(need) and self._married(person)):
                    for p in need:
                        self.done.add((p, person))
                    break
                page += 1
            else:
                for p in group:
                    self.done.add((p, person))  # paged out: take what was shown
        out: set[str] = set()
        for p in group:
            out |= set(kb.objects(p, person))
        return out

    def _friend_refined(self, person: str) -> Plan:
        """Friendship is mutual: the friends another note names (``The friends of Q are ...,
        X``) are in X's own friend list, so a search with two of their names finds that list
        even where shorter notes about X outrank it."""
        known = sorted(self.kb.reverse.get(("friend", person), ()))
        if known:
            yield from self._search(f"friend friends {person} " + " ".join(known[:2]))

    def relation(self, person: str, rel: str) -> Plan:
        hops, neq = RELATIONS[rel]
        frontier = {person}
        for hop in hops:
            nxt: set[str] = set()
            for q in sorted(frontier):
                if isinstance(hop, frozenset):
                    nxt |= yield from self.lookup(q, hop)
                else:
                    nxt |= yield from self.relation(q, hop)
            frontier = nxt
        if neq:
            frontier.discard(person)
        return frontier

    def attrs(self, people: Iterable[str], pred: str, batch: int = 2) -> Plan:
        """``{person: values}`` of one attribute, fetched ``batch`` people per search."""
        kb = self.kb
        people = sorted(set(people))
        for m in people:
            self.visited_attrs.add((pred, m))
            if (pred, m) in kb.own:
                self.attr_done.add((pred, m))
        word = ATTR_WORDS[pred]
        todo = [m for m in people if (pred, m) not in self.attr_done]
        for i in range(0, len(todo), batch if len(todo) > 1 else 1):
            if not self._can_fetch():
                break
            chunk = todo[i:i + batch]
            yield from self._search(f"{word} " + " ".join(chunk))
        # Everyone has every attribute sentence: page a single search until it shows up (a long
        # value makes a long sentence, which shorter notes naming the person outrank).
        for m in people:
            page = 1
            while (pred, m) not in kb.own and page <= self.MAX_PAGES and self._can_fetch():
                query = f"{word} {m}"
                yield from self._search(query, page)
                if len(kb.pages.get((query, page), [])) < kb.page_size:
                    break
                page += 1
            self.attr_done.add((pred, m))
        return {m: kb.objects(pred, m) for m in people}

    def holders(self, pred: str, value: str) -> Plan:
        """The people whose ``pred`` sentence states ``value``."""
        kb = self.kb
        query = f"{ATTR_WORDS[pred]} {value}"

        def found() -> set[str]:
            return {s for (p, s), (_, objs) in kb.own.items() if p == pred and value in objs}

        for page in range(1, self.MAX_PAGES + 1):
            if not self._can_fetch():
                break
            yield from self._search(query, page)
            hits = kb.pages.get((query, page), [])
            last = parse_sentence(hits[-1][1]) if hits else None
            if len(hits) < kb.page_size or last is None or last.predicate != pred \
                    or value not in last.objects:
                break
        return found()

    # -- plans -------------------------------------------------------------------------
    def start(self, q: PWQuestion) -> Plan:
        if q.person is not None:
            return {q.person}
        return (yield from self.holders(q.attr, q.value))

    def follow(self, people: set[str], chain: Iterable[str]) -> Plan:
        """The people ``chain`` reaches from ``people``, one relation after another."""
        for rel in chain:
            out: set[str] = set()
            for p in sorted(people):
                out |= yield from self.relation(p, rel)
            people = out
        return people

    def members(self, q: PWQuestion) -> Plan:
        people = yield from self.start(q)
        return (yield from self.follow(people, q.chain))

    def evaluate(self, q: PWQuestion) -> Plan:
        """The answer text of ``q``."""
        self.hint = {w for r in q.index_chain for w in tokens(f"{r} {plural(r)}")}
        if q.index_attr:
            self.hint |= set(tokens(f"{ATTR_WORDS[q.index_attr]} {ATTR_PLURAL[q.index_attr]}"))
        if q.person is not None and self.use_indexes and self._can_fetch():
            yield from self._opening(q)
        people = yield from self.members(q)
        if q.final[0] == "list":
            return ", ".join(sorted(people)) if people else "unknown"
        if q.final[0] == "attr":
            values = yield from self.attrs(people, q.final[1])
            vals = sorted({v for vs in values.values() for v in vs})
            return ", ".join(vals) if vals else "unknown"
        counts = set()
        for m in sorted(people):
            counts.add(len((yield from self.relation(m, q.final[1]))))
        if not counts:
            return "unknown"
        return ", ".join(str(c) for c in sorted(counts))

    def _opening(self, q: PWQuestion) -> Plan:
        """Search the first hop of the named person; when the page shows an index covering the
        whole question or a chain of it (longest first; a single relation only when it takes
        several hops), read that index."""
        chain = q.index_chain
        group = first_group(chain[0])
        if all((p, q.person) in self.done for p in group):
            return
        yield from self._search(group_query(group, q.person))
        wants = [Title(chain, q.person, q.index_attr)] if q.index_attr else []
        hops = RELATIONS[chain[0]][0]
        multi = len(hops) > 1 or not isinstance(hops[0], frozenset)
        wants += [Title(chain[:k], q.person) for k in range(len(chain), 0, -1)
                  if k > 1 or multi]  # one hop: the lookup reads it if need be
        for want in wants:
            for nid, t in sorted(self.kb.titles.items(), key=lambda kv: id_key(kv[0])):
                if t == want and nid not in self.absorbed:
                    yield from self._read(nid)
                    self.absorb(nid, q.person)
                    return
        # No title says it covers the question: the first note on the page naming the person
        # may still link what it needs (the wording only ordered the reads above).
        page = self.kb.pages.get((group_query(group, q.person), 1)) or []
        shown = [nid for nid, text in page if nid in self.kb.authored
                 and nid not in self.absorbed and names_person(text, q.person)]
        if shown:
            nid = max(shown, key=lambda n: (self._overlap(n), -id_key(n)[0]))
            self.reads[q.person] = self.reads.get(q.person, 0) + 1
            yield from self._read(nid)
            self.absorb(nid, q.person)


def _run(plan: Plan):
    """Run a plan that must not act (``fetch=False``) and return its value."""
    try:
        next(plan)
    except StopIteration as stop:
        return stop.value
    raise RuntimeError("a dry evaluation tried to act")


def support_notes(kb: PWKnowledge, rel_pairs: Iterable[tuple[str, str]],
                  attr_pairs: Iterable[tuple[str, str]] = ()) -> list[str]:
    """The ids of the own sentences behind visited lookups, in id order."""
    ids = {kb.own[k][0] for k in list(rel_pairs) + list(attr_pairs) if k in kb.own}
    return sorted(ids, key=id_key)


# ---------------------------------------------------------------------------------------------
# Agents


class PWReader(PlanReader):
    """The PhantomWiki reader: search, read and answer only (see the module docstring)."""

    name = "scripted-pw-reader"
    #: Pinned by bench releases; bumped with every change to what it reads (see
    #: ``ScriptedReader.version``).
    version = "2026-12-07"

    def __init__(self, *, page_size: int = 5, use_indexes: bool = True):
        self.page_size = page_size
        self.use_indexes = use_indexes
        self.reset()

    def new_episode(self) -> tuple[PWKnowledge, Engine]:
        kb = PWKnowledge(self.page_size)
        return kb, Engine(kb, use_indexes=self.use_indexes)

    def parse_question(self, text: str) -> PWQuestion | None:
        return parse_pw_question(text)

    def guess(self) -> str:
        if self.question is None:
            return "unknown"
        eng = self.engine
        eng.fetch = False
        try:
            return _run(eng.evaluate(self.question)) or "unknown"
        finally:
            eng.fetch = True




class PWIndexCurator(PlanCurator):
    """Backward phase on PhantomWiki: verified relation indexes for the question's person key
    (see the module docstring). ``stats`` counts added / extended / complete / skipped /
    unverified indexes and links over the agent's lifetime."""

    name = "scripted-pw-index"
    #: steps kept back for writing: title search, add, link_many, done.
    RESERVE = 5

    def __init__(self, *, page_size: int = 5, link_batch_max: int = 40, level2: bool = True):
        self.page_size = page_size
        self.link_batch_max = link_batch_max
        self.level2 = level2
        self.stats = {"added": 0, "extended": 0, "complete": 0, "links": 0, "unlinked": 0,
                      "skipped": 0, "unverified": 0}
        self.reset()

    def new_knowledge(self) -> PWKnowledge:
        return PWKnowledge(self.page_size)

    def start_plan(self, obs) -> Plan:
        gold = obs.task.gold if obs.task is not None else None
        return self.plan(parse_pw_question(obs.question), gold)

    # -- plan --------------------------------------------------------------------------
    def plan(self, q: PWQuestion | None, gold: str | None) -> Plan:
        if q is None or gold is None or q.person is None:
            return
        eng = Engine(self.kb, budget=lambda: self.steps_left > self.RESERVE + 1,
                     use_indexes=False)
        # Indexes the forward phase read are not trusted here: every lookup is redone from
        # sentences (precision first); sentences already shown cost nothing.
        answer = yield from eng.evaluate(q)
        if eng.incomplete:
            self.stats["skipped"] += 1
            return
        if f1_score(answer, [gold]) < 1.0:
            self.stats["unverified"] += 1
            return
        x = q.person
        chain, attr = q.index_chain, q.index_attr
        rel = chain[0]
        eng.visited, eng.visited_attrs = set(), set()
        eng.fetch = False
        members = _run(eng.relation(x, rel))
        level1 = support_notes(self.kb, eng.visited)
        # An index pays only where the evaluation takes more than one search: several people's
        # lookups, or a friend list (which shorter notes outrank on the first page).
        if len({p for _, p in eng.visited}) > 1 or any(p == "friend" for p, _ in eng.visited):
            yield from self._write(relation_title(rel, x), level1)
        if self.level2 and (len(chain) > 1 or attr is not None):
            # The whole question: every relation of the chain (a count's last), then the
            # attribute - one read answers it.
            members = _run(eng.follow(members, chain[1:]))
            if attr is not None:
                _run(eng.attrs(members, attr))
            both = support_notes(self.kb, eng.visited, eng.visited_attrs)
            yield from self._write(Title(chain, x, attr).text, both)

    def _write(self, title: str, targets: list[str]) -> Plan:
        if not targets:
            return
        if self.steps_left <= 3:
            self.stats["skipped"] += 1
            return
        existing = yield from self._find_title(title, sorted(self.kb.notes, key=id_key))
        if existing is not None and existing not in self.kb.links:
            yield {"action": "read", "id": existing}
        if existing is None:
            need = 2 + math.ceil(len(targets) / self.link_batch_max)
            if self.steps_left < need:
                self.stats["skipped"] += 1
                return
            yield {"action": "add", "text": title}
            existing = added_id(self.last_result)
            if existing is None:
                return
            self.kb.links.setdefault(existing, [])
            self.stats["added"] += 1
            linked: list[str] = []
        else:
            linked = self.kb.links.get(existing, [])
        missing = [t for t in targets if t not in linked]
        wrong = [t for t in linked if t not in targets]
        if linked and not missing and not wrong:
            self.stats["complete"] += 1
            return
        if linked:
            self.stats["extended"] += 1
        yield from sync_links(self, existing, missing, wrong)


# ---------------------------------------------------------------------------------------------
# Factories (``module:factory`` specs for ``kbgym.plugins.make_agent``)


@agent_factory
def reader(**_) -> PWReader:
    """``scripted-pw-reader``: the PhantomWiki exam reader."""
    return PWReader()


@agent_factory
def index_trainer(**_):
    """``scripted-pw-index``: the PW reader in forward, the PW index curator in backward."""
    from kbgym_agents.scripted.train import TrainAgent
    return TrainAgent(PWReader(), PWIndexCurator())


@agent_factory
def noop_trainer(**_):
    """The PW reader in forward, ``done()`` in backward (a control run)."""
    from kbgym_agents.scripted.curator import NoopCurator
    from kbgym_agents.scripted.train import TrainAgent
    return TrainAgent(PWReader(), NoopCurator())
