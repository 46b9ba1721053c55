"""The oracle, an exhaustive index built from the universe's facts (SPEC §14): a ceiling,
not a competitor, and the only builder allowed to read the hidden facts and people table."""

from __future__ import annotations

from kbgym.library.graph import Library
from kbgym.types import Universe

from kbgym.baselines.common import BuildMeta, Builder, with_gc_paused

NAME = "oracle"
PERSON_RELATIONS = ("married", "child_of", "parent_of", "friend_of")


def hub_text(name: str) -> str:
    return f"Index of notes about {name}."


def attribute_texts(vocab: dict) -> list[tuple[str, str, str]]:
    """(kind, value, text) of every attribute index, in vocabulary order."""
    return ([("job", v, f"People whose job is {v}.") for v in vocab["jobs"]]
            + [("hobby", v, f"People whose hobby is {v}.") for v in vocab["hobbies"]]
            + [("city", v, f"People who live in the city of {v}.") for v in vocab["cities"]])


@with_gc_paused
def build_oracle(library: Library, universe: Universe) -> BuildMeta:
    """Build the oracle on a copy of ``library``, in this order:

    1. hubs, in person order: ``Index of notes about {name}.``, linking to every live
       statement that mentions the person (id order);
    2. attribute indexes, in vocabulary order (jobs, hobbies, cities), linking to the
       holders' hubs in person order;
    3. per person, in person order, ``Friends of``, ``Children of`` and ``Grandchildren of``
       indexes when non-empty, linking to the members' hubs in person order.
    """
    b = Builder(library)
    lib = b.lib
    about: dict[str, list[str]] = {p.pid: [] for p in universe.people}
    for n in universe.nodes:  # id order
        if n.id not in lib:
            continue
        f = n.fact
        if f.subject in about:  # a universe without people (policies) gets no hubs
            about[f.subject].append(n.id)
        if f.kind in PERSON_RELATIONS and f.object != f.subject and f.object in about:
            about[f.object].append(n.id)
    order = {p.pid: i for i, p in enumerate(universe.people)}
    by_pid = {p.pid: p for p in universe.people}

    def in_person_order(pids) -> list[str]:
        return sorted(set(pids), key=order.__getitem__)

    hubs: dict[str, str] = {}
    for p in universe.people:
        hubs[p.pid] = b.add(hub_text(p.name))
        b.link_all(hubs[p.pid], about[p.pid])
    holders: dict[tuple[str, str], list[str]] = {}
    for p in universe.people:  # person order
        for kind in ("job", "hobby", "city"):
            holders.setdefault((kind, getattr(p, kind)), []).append(p.pid)
    for kind, value, text in attribute_texts(universe.vocab):
        b.link_all(b.add(text), [hubs[q] for q in holders.get((kind, value), [])])
    for p in universe.people:
        grand = [g for c in p.children for g in by_pid[c].children]
        for label, members in (("Friends", p.friends), ("Children", p.children),
                               ("Grandchildren", grand)):
            if members:
                node = b.add(f"{label} of {p.name}.")
                b.link_all(node, [hubs[q] for q in in_person_order(members)])
    return b.finish(NAME, {})
