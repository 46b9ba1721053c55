"""Facts rendered as one-sentence documents (SPEC §3)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from kbgym.universe.types import Fact, Node, Person
from kbgym.universe.vocab import MONTHS


@lru_cache(maxsize=65536)
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
    """Every original node, ids ``s%04d`` in emission order: :func:`facts_of` and
    :func:`render` of each person, written out inline (the same facts and sentences)."""
    name_of = {p.pid: p.name for p in people}
    male = {p.pid for p in people if p.gender == "male"}
    nodes: list[Node] = []
    add = nodes.append
    for p in people:  # real people first, then distractors: pid order is emission order
        pid, n = p.pid, p.name
        rows = [("job", p.job, f"{n}'s job is {p.job}."),
                ("hobby", p.hobby, f"{n}'s hobby is {p.hobby}."),
                ("city", p.city, f"{n} lives in the city of {p.city}."),
                ("born", p.born, f"{n} was born on {render_date(p.born)}.")]
        if not p.distractor:
            if p.spouse is not None:
                rows.append(("married", p.spouse, f"{n} is married to {name_of[p.spouse]}."))
            rows += [("child_of", q, f"{n} is a child of {name_of[q]}.") for q in p.parents]
            role = "father" if pid in male else "mother"
            rows += [("parent_of", q, f"{n} is the {role} of {name_of[q]}.")
                     for q in p.children]
            rows += [("friend_of", q, f"{n} is a friend of {name_of[q]}.") for q in p.friends]
        k = len(nodes)
        for j, (kind, obj, text) in enumerate(rows, k + 1):
            add(Node("s%04d" % j, text, Fact(kind, pid, obj)))
    return nodes
