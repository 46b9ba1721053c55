"""Golden hashes of B2, B3 and B4 (default parameters, stub summaries): the built libraries of
the people world stay byte-identical when the code that reads their sentences moves (issue 33:
the baselines ask the universe's world for its statement parser)."""

from __future__ import annotations

import pytest

from kbgym.baselines import build, build_baseline
from kbgym.library.snapshot import snapshot_hash

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
