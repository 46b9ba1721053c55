"""Facts rendered as one-sentence documents (SPEC §3)."""

from __future__ import annotations

from collections.abc import Sequence

from kbgym.universe.types import Fact, Node, Person
from kbgym.universe.vocab import MONTHS


def render_date(iso: str) -> str:
    """``1957-03-09`` -> ``March 9, 1957``."""
    y, m, d = iso.split("-")
    return f"{MONTHS[int(m) - 1]} {int(d)}, {int(y)}"


def render(fact: Fact, name_of: dict[str, str], gender_of: dict[str, str]) -> str:
    """The sentence of one fact."""
    n, o = name_of[fact.subject], fact.object
    match fact.kind:
        case "job":
            return f"{n}'s job is {o}."
        case "hobby":
            return f"{n}'s hobby is {o}."
        case "city":
            return f"{n} lives in the city of {o}."
        case "born":
            return f"{n} was born on {render_date(o)}."
        case "married":
            return f"{n} is married to {name_of[o]}."
        case "child_of":
            return f"{n} is a child of {name_of[o]}."
        case "parent_of":
            role = "father" if gender_of[fact.subject] == "male" else "mother"
            return f"{n} is the {role} of {name_of[o]}."
        case "friend_of":
            return f"{n} is a friend of {name_of[o]}."
    raise ValueError(f"unknown fact kind {fact.kind!r}")


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
