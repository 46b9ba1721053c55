"""Small casebook universes for fast tests, cached per session."""

from __future__ import annotations

import pytest

from kbgym.worlds.casebook import CasebookConfig, generate

#: A small library: 4 form codes, about 35 documents, 450 paragraphs.
SMALL = {"forms": 4, "endorsements": 10, "state_forms": 4, "bulletins": 5, "memos": 4,
         "faqs": 3, "sizes": (30, 20, 10), "eval_sizes": (6, 4)}

_CACHE: dict = {}


def small_universe(seed: int = 0, **overrides):
    key = (seed, tuple(sorted(overrides.items())))
    if key not in _CACHE:
        _CACHE[key] = generate(CasebookConfig(**{**SMALL, **overrides, "seed": seed}))
    return _CACHE[key]


@pytest.fixture(scope="session")
def casebook():
    """``casebook(seed, **overrides)``: a small casebook universe, cached."""
    return small_universe
