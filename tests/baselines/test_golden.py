"""Golden hashes of B2, B3 and B4 (default parameters, stub summaries): the built libraries of
the people world stay byte-identical when the code that reads their sentences moves (issue 33:
the baselines ask the universe's world for its statement parser)."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from kbgym.baselines import build, build_baseline, extract, parser_of
from kbgym.library.graph import Library
from kbgym.library.snapshot import snapshot_hash
from kbgym.worlds import BaseWorld, register, unregister

#: over ``small_universe`` (60 people, conftest), built from its B1
PEOPLE = {
    "b2": "sha256:06c1161a2d7fdc78458bd029c22039c143f3620449b77a33ae3e7a8ec77f3707",
    "b3": "sha256:4008e95ce3326309513e0dd185a4710dc8c37a8ac9d5049bdd65dbed4f30e669",
    "b4": "sha256:b8e9da6f9e500ae628310fa9d8752f9f9206627a3f7e405256253d9b7d9605bc",
}
#: over the hand-made library of conftest, with no universe (the default world's sentences)
TINY_LIB = {
    "b2": "sha256:5af0786e35e5dc97317d989164e0d981bad7f661a034939901fe7d955512e5c2",
    "b3": "sha256:3c44039eaf769e2a5bb715e0de4d42f09ba67cff812465ba413567c43d51a6dc",
    "b4": "sha256:28fb1780236da642059648f7f1d7e5b14f6825b4020ddefcc81d3d37e7832290",
}


@pytest.mark.parametrize("name", sorted(PEOPLE))
def test_people_world_baselines_are_byte_identical(name, small_universe):
    assert snapshot_hash(build_baseline(name, small_universe)[0]) == PEOPLE[name]


@pytest.mark.parametrize("name", sorted(TINY_LIB))
def test_a_library_without_universe_reads_the_default_world(name, tiny):
    assert snapshot_hash(build(name, tiny).library) == TINY_LIB[name]


# -- the universe's world reads the sentences (World.statement_parser) -----------------------
TEXTS = [("s0001", "Ada likes Bob."), ("s0002", "Bob likes Cy."), ("s0003", "Cy likes Ada."),
         ("s0004", "Ada Smith is a friend of Bob Jones."), ("s0005", "Ada likes nothing")]


def _likes(text: str):
    m = re.fullmatch(r"(\w+) likes (\w+)\.", text)
    return None if m is None else (m[1], "friend_of", m[2])


class _Likes(BaseWorld):
    name = "likesland"

    def statement_parser(self, universe):
        return _likes


class _Mute(BaseWorld):
    name = "muteland"


@pytest.fixture
def likes_worlds():
    register(_Likes())
    register(_Mute())
    yield
    unregister("likesland")
    unregister("muteland")


def _of(world_name: str | None):
    return SimpleNamespace(meta={"source": world_name} if world_name else {})


def test_the_universes_world_reads_the_sentences(likes_worlds):
    lib = Library.from_texts(TEXTS)
    own = build("b3", lib, _of("likesland")).library
    index = {n.text: n.links for n in own if n.is_authored}
    assert sorted(index) == [f"Entity index for {p}: every note that mentions {p} is linked "
                             "from this note." for p in ("Ada", "Bob", "Cy")]
    assert [sorted(v) for v in index.values()] == [["s0001", "s0003"], ["s0001", "s0002"],
                                                    ["s0002", "s0003"]]
    people = build("b4", lib, _of(None)).library  # the default world: its one §3 sentence
    assert [(n.text, n.links) for n in people if n.is_authored] == [
        ("Level-1 summary: notes about Ada Smith.", ["s0004"])]
    mute = build("b3", lib, _of("muteland"))  # a world without sentences: no entities
    assert mute.nodes_added == mute.links_added == 0
    assert extract(lib, parser_of(_of("muteland"))) == []
    assert [s.subject for s in extract(lib, parser_of(_of("likesland")))] == ["Ada", "Bob", "Cy"]
