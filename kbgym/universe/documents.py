"""Facts rendered as one-sentence documents (SPEC §3)."""

from __future__ import annotations

from collections.abc import Sequence

from kbgym.protocol import facts as sentences
from kbgym.universe.types import Fact, Node, Person


def render(fact: Fact, name_of: dict[str, str], gender_of: dict[str, str]) -> str:
    """The sentence of one fact (:func:`kbgym.protocol.render_fact`): names for pids, and a
    parent's wording (``father``/``mother``) by their gender."""
    kind, obj = fact.kind, fact.object
    if kind == "parent_of":
        kind = "father_of" if gender_of[fact.subject] == "male" else "mother_of"
    if kind not in sentences.FORMS:
        raise ValueError(f"unknown fact kind {fact.kind!r}")
    if kind in sentences.PERSON_KINDS:
        obj = name_of[obj]
    return sentences.render_fact(sentences.Fact(kind, name_of[fact.subject], obj))


def facts_of(p: Person) -> list[Fact]:
    """One person's facts in table order; relation objects in person (pid) order."""
    pid = p.pid
    out = [Fact("job", pid, p.job), Fact("hobby", pid, p.hobby), Fact("city", pid, p.city),
           Fact("born", pid, p.born)]
    if p.distractor:
        return out
    if p.spouse is not None:
        out.append(Fact("married", pid, p.spouse))
    out += [Fact("child_of", pid, q) for q in p.parents]
    out += [Fact("parent_of", pid, q) for q in p.children]
    out += [Fact("friend_of", pid, q) for q in p.friends]
    return out


def build_nodes(people: Sequence[Person]) -> list[Node]:
    """Every original node, ids ``s%04d`` in emission order."""
    name_of = {p.pid: p.name for p in people}
    gender_of = {p.pid: p.gender for p in people}
    nodes = []
    for p in people:  # real people first, then distractors: pid order is emission order
        for fact in facts_of(p):
            nodes.append(Node("s%04d" % (len(nodes) + 1), render(fact, name_of, gender_of), fact))
    return nodes
