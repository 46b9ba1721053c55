"""Shared fixtures for the universe verification tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_ORACLE_NAME = "_kbgym_tests_universe_oracle"


def load_oracle():
    """The oracle module, loaded from its file under a private name (no package needed)."""
    if _ORACLE_NAME not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            _ORACLE_NAME, Path(__file__).with_name("oracle.py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[_ORACLE_NAME] = mod
        spec.loader.exec_module(mod)
    return sys.modules[_ORACLE_NAME]


_CACHE: dict = {}


@pytest.fixture(scope="session")
def universe_of():
    """``universe_of(seed, n_people, **config)``: a generated universe, cached per session."""
    from kbgym.worlds.people import UniverseConfig, generate

    def get(seed: int, n_people: int, **kw):
        key = (seed, n_people, tuple(sorted(kw.items())))
        if key not in _CACHE:
            _CACHE[key] = generate(UniverseConfig(seed=seed, n_people=n_people, **kw))
        return _CACHE[key]

    return get


@pytest.fixture(scope="session")
def default_universe(universe_of):
    return universe_of(0, 500)
