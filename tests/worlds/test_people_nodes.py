"""The people world's notes: ``build_nodes`` (the fast loop a build runs) is exactly
``facts_of`` + ``render`` of each person (the readable definition), objects and all."""

from __future__ import annotations

import pytest

from kbgym.types import Fact, Node
from kbgym.worlds.people import UniverseConfig
from kbgym.worlds.people.documents import build_nodes, facts_of, render
from kbgym.worlds.people.generate import build_world


@pytest.mark.parametrize("values", [{"n_people": 60, "seed": 1},
                                    {"n_people": 80, "seed": 2, "children_per_couple": (0, 5),
                                     "distractor_frac": 0.3}])
def test_build_nodes_is_facts_of_and_render(values):
    people = build_world(UniverseConfig(**values))[0]
    name_of = {p.pid: p.name for p in people}
    gender_of = {p.pid: p.gender for p in people}
    want = [f for p in people for f in facts_of(p)]
    want_nodes = [Node("s%04d" % i, render(f, name_of, gender_of), f)
                  for i, f in enumerate(want, start=1)]
    got = build_nodes(people)
    assert got == want_nodes
    assert [hash(n) for n in got] == [hash(n) for n in want_nodes]
    assert all(type(n) is Node and type(n.fact) is Fact and n.source is None for n in got)
    assert {n.fact.kind for n in got} >= {"job", "born", "married", "child_of", "parent_of",
                                          "friend_of"}
