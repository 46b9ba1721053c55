"""Relation chains: "the job of the spouse of the father of X", followed through the shown notes.

A small reader asked "What is the job of the spouse of X?" answers with the job of whoever the
first search page names next to X (a child: "X is the father of Y"), or keeps searching X's own
notes. The chain of such a question is read from its template (:func:`question_chain`): a
value kind (job, hobby, city), a start person X and the relations to follow from X, innermost
first (spouse, father, mother). :func:`follow` walks it through the shown notes, using only the
corpus's public sentence forms (``A is married to B.``, ``A is the father of B.``, ``A is the
mother of B.``, ``A is a child of B.`` with the parent's first name telling father from
mother, ``A's job is v.``, ``A's hobby is v.``, ``A lives in the city of v.``). What it finds
tells the fields reader:

- which answers the notes offer (:attr:`ChainState.answers`: the values stated of the people
  at the chain's end, nothing while the chain is not followed to its end);
- one line shown after the observation (:func:`chain_line`): how far the shown notes follow
  the chain and what is missing, in the notes' own words;
- the next search when the model's own names nobody the chain waits on
  (:attr:`ChainState.query`).

Nothing here looks at the library or the question's support: a state is a pure function of the
question text and the shown notes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kbgym.worlds.people.facts import parse_fact
from kbgym.worlds.people.forms import parse_question
from kbgym.worlds.people.relations import VALUE_KINDS
from kbgym_agents.scripted.text import gender_of

_PARENT = {"father": "male", "mother": "female"}
_HOPS = ("spouse", *_PARENT)  # the relations a chain follows
#: Words that ask for each missing piece (a hop's relation or the value's kind).
_ASKING = {"spouse": ("married", "spouse", "husband", "wife"),
           "father": ("father", "parent", "child"), "mother": ("mother", "parent", "child"),
           "job": ("job", "work"), "hobby": ("hobby",), "city": ("city", "lives", "live")}


@dataclass(frozen=True)
class Chain:
    """``kind`` (job, hobby, city) of the people reached from ``start`` by ``hops``
    (innermost first: ``("father", "spouse")`` for "the spouse of the father of X")."""

    kind: str
    start: str
    hops: tuple[str, ...]


def question_chain(question: str) -> Chain | None:
    """The chain a question asks along, None for a question that asks no relation's value.
    The question's template (:func:`kbgym.worlds.people.forms.parse_question`) names it: its
    hops innermost first, its value's kind last (``qc3_father_spouse_job``: "the job of the
    spouse of the father of X"; ``qc5_spouse_city`` too, whose X has no spouse)."""
    parsed = parse_question(" ".join(str(question).split()))
    if parsed is None or parsed.X is None:
        return None
    _, *hops, kind = parsed.template.split("_")
    if not hops or kind not in VALUE_KINDS or any(h not in _HOPS for h in hops):
        return None
    return Chain(kind, parsed.X, tuple(hops))


@dataclass
class ChainState:
    """How far the shown notes follow a chain.

    ``links[i]`` maps each person reached by hop ``i`` to the id of the note that says so;
    ``values`` maps each person at the chain's end to (value, note id) when a shown note
    states it. ``missing`` is the hop no shown note answers (None when every hop is followed)
    and ``frontier`` the people the next search should name."""

    chain: Chain
    links: list[dict[str, str]] = field(default_factory=list)
    values: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def missing(self) -> int | None:
        for i, hop in enumerate(self.links):
            if not hop:
                return i
        return None if len(self.links) == len(self.chain.hops) else len(self.links)

    @property
    def end(self) -> list[str]:
        """The people at the chain's end (empty until every hop is followed)."""
        return list(self.links[-1]) if self.missing is None and self.links else []

    @property
    def frontier(self) -> list[str]:
        """The people whose relative (or value) is needed next."""
        i = self.missing
        if i is None:
            return [p for p in self.end if p not in self.values]
        return [self.chain.start] if i == 0 else list(self.links[i - 1])

    @property
    def answers(self) -> list[str]:
        return list(dict.fromkeys(v for v, _ in self.values.values()))

    @property
    def query(self) -> str | None:
        """The search for what is missing, in the notes' own words (None when nothing is)."""
        people = self.frontier
        if not people:
            return None
        p = people[0]
        i = self.missing
        if i is None:
            return _value_query(self.chain.kind, p)
        return {"spouse": f"{p} is married to", "father": f"is the father of {p}",
                "mother": f"is the mother of {p}"}[self.chain.hops[i]]


    def asks_for_missing(self, words: str) -> bool:
        """Whether ``words`` (a search) name someone the chain waits on and ask for what it
        misses about them (``X married``, ``Y's job``)."""
        i = self.missing
        piece = self.chain.kind if i is None else self.chain.hops[i]
        low = words.lower()
        return any(p in words for p in self.frontier) and any(
            w in low.replace("'", " ").split() for w in _ASKING[piece])


def follow(chain: Chain, shown: dict[str, str]) -> ChainState:
    """Walk ``chain`` through the shown notes (id -> text), first shown first."""
    facts = [(nid, f) for nid, text in shown.items() if (f := parse_fact(text)) is not None]
    state = ChainState(chain)
    people = {chain.start}
    for hop in chain.hops:
        reached: dict[str, str] = {}
        for nid, f in facts:
            if hop == "spouse" and f.kind == "married":
                if f.subj in people and f.obj not in people:
                    reached.setdefault(f.obj, nid)
                elif f.obj in people and f.subj not in people:
                    reached.setdefault(f.subj, nid)
            elif hop in _PARENT and f.kind == f"{hop}_of" and f.obj in people:
                reached.setdefault(f.subj, nid)
            elif hop in _PARENT and f.kind == "child_of" and f.subj in people \
                    and gender_of(f.obj) == _PARENT[hop]:
                reached.setdefault(f.obj, nid)
        state.links.append(reached)
        if not reached:
            return state
        people = set(reached)
    for nid, f in facts:
        if f.kind == chain.kind and f.subj in people:
            state.values.setdefault(f.subj, (f.obj, nid))
    return state


def chain_line(state: ChainState) -> str:
    """The line shown after the observation: what the shown notes say along the chain."""
    chain = state.chain
    parts = []
    who = [chain.start]
    for i, hop in enumerate(chain.hops):
        of = " or ".join(who)
        if i >= len(state.links) or not state.links[i]:
            parts.append(f"no shown note says who the {hop} of {of} is (search "
                         f"\"{state.query}\")")
            return "Chain: " + "; ".join(parts) + "."
        reached = state.links[i]
        parts.append(f"the {hop} of {of} is " + " or ".join(
            f"{p} ({nid})" for p, nid in reached.items()))
        who = list(reached)
    kind = chain.kind
    for p in who:
        if p in state.values:
            v, nid = state.values[p]
            parts.append(f"the {kind} of {p} is {v} ({nid})")
        else:
            parts.append(f"no shown note gives the {kind} of {p} yet (search "
                         f"\"{_value_query(kind, p)}\")")
    return "Chain: " + "; ".join(parts) + "."


def _value_query(kind: str, p: str) -> str:
    return {"job": f"{p}'s job is", "hobby": f"{p}'s hobby is",
            "city": f"{p} lives in the city of"}[kind]
