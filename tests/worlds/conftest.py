"""Shared fixtures for the worlds' tests: small universes, cached per session; makes
``small_worlds`` and ``tiny_world`` importable (pytest runs with ``--import-mode=importlib``,
so test folders are not on sys.path)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

for _name in ("small_worlds", "tiny_world"):
    _path = Path(__file__).with_name(f"{_name}.py")
    if _name not in sys.modules and _path.is_file():
        _spec = importlib.util.spec_from_file_location(_name, _path)
        _mod = importlib.util.module_from_spec(_spec)
        sys.modules[_name] = _mod
        _spec.loader.exec_module(_mod)

from kbgym.worlds.policies import PolicyConfig, generate

#: A small library for fast tests: 40 documents, 8 provisions per form.
SMALL = {"documents": 40, "sections": 8, "sizes": (40, 30, 10), "eval_sizes": (6, 4)}

_CACHE: dict = {}


def small_universe(seed: int = 0, **overrides):
    key = (seed, tuple(sorted(overrides.items())))
    if key not in _CACHE:
        _CACHE[key] = generate(PolicyConfig(**{**SMALL, **overrides, "seed": seed}))
    return _CACHE[key]


@pytest.fixture(scope="session")
def policy_universe():
    """``policy_universe(seed, **overrides)``: a small policies universe, cached."""
    return small_universe


@pytest.fixture(scope="session")
def small():
    return small_universe(0)


@pytest.fixture(scope="session")
def default_universe():
    if "default" not in _CACHE:
        _CACHE["default"] = generate(PolicyConfig())
    return _CACHE["default"]
