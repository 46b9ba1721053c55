"""Fixtures for the baseline tests: a hand-made library and a ~60-person universe."""

from __future__ import annotations

import pytest

from kbgym.library.graph import Library
from kbgym.worlds.people import UniverseConfig, generate

TINY = [
    ("s0001", "Ada Smith's job is baker."),
    ("s0002", "Ada Smith's hobby is chess."),
    ("s0003", "Ada Smith lives in the city of Oakton."),
    ("s0004", "Ada Smith was born on March 9, 1957."),
    ("s0005", "Ada Smith is married to Bob Jones."),
    ("s0006", "Bob Jones's job is baker."),
    ("s0007", "Bob Jones is married to Ada Smith."),
    ("s0008", "Bob Jones is a friend of Cy Young."),
    ("s0009", "Some sentence that has no known shape."),
    ("s0010", "Cy Young's hobby is jigsaw puzzles."),
    ("s0011", "Dee Lane is the mother of Cy Young."),
]


@pytest.fixture
def tiny() -> Library:
    return Library.from_texts(TINY)


@pytest.fixture(scope="session")
def small_universe():
    return generate(UniverseConfig(n_people=60, n_cities=8, sizes=(40, 30, 20),
                                   eval_sizes=(10, 6)))
