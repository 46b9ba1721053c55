"""The people world's probe candidates (the §13 probe; assembled by
:func:`kbgym.runs.probe.make_probe`).

Groups: ``exact`` (the trained questions), ``exact_matched`` (those of two-slot templates),
and ``share2``/``share1``/``share0``: every question of a two-slot template the universe could
ask (its full pools, not only its splits) whose text no trained question has and which names
exactly two keys, by how many of them training touched. Streams ``probe/{group}``; a trained
question enters as itself (``trained``), a pool instance is materialized as a new question.
"""

from __future__ import annotations

from kbgym.types import Question, Universe
from kbgym.worlds.interface import ProbeCandidates
from kbgym.worlds.people.generate import full_pools
from kbgym.worlds.people.questions import World
from kbgym.worlds.people.templates import TWO_SLOT


def probe_candidates(universe: Universe, trained: list[Question]) -> ProbeCandidates:
    train_keys = {k for q in trained for k in q.keys}
    trained_texts = {q.text for q in trained}
    world = World(universe.people, universe.nodes, universe.vocab)
    pools = full_pools(world, universe.meta["seed"])
    shares: dict[str, list] = {"share2": [], "share1": [], "share0": []}
    for template in TWO_SLOT:
        for inst in pools[template]:
            text = world.text(inst)
            if text in trained_texts:
                continue
            keys = world.keys(text)
            if len(keys) != 2:
                continue
            shares[f"share{len(train_keys.intersection(keys))}"].append(inst)

    def materialize(item, gid: str, group: str) -> Question:
        return (item.probe_item(gid, trained=True) if isinstance(item, Question)
                else world.materialize(item, gid))

    return ProbeCandidates(
        pools={"exact": trained, "exact_matched": [q for q in trained if q.template in TWO_SLOT],
               **shares},
        stream="probe/", materialize=materialize)
