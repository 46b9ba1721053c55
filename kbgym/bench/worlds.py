"""The bench's one door to the worlds: everything it needs that differs by world goes
through :func:`world_of` (the world of a universe) and :func:`generate` (a universe from a
release's recipe). The release itself names readers and curators per seed, so nothing else
in :mod:`kbgym.bench` names or tests a world; when the worlds' ``World`` registry replaces
:mod:`kbgym.worlds`' families, these two functions are what changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def world_of(universe: Any) -> Any:
    """The world of ``universe`` (:class:`kbgym.worlds.World`)."""
    from kbgym.worlds import world_of as of

    return of(universe)


def make_probe(universe: Any, run_dir: Any, *, per_group: int, seed: int) -> dict:
    """The gradient probe of the training run in ``run_dir``, in the universe's world (the one
    assembler, :func:`kbgym.runs.probe.make_probe_from_run`)."""
    from kbgym.runs.probe import make_probe_from_run

    return make_probe_from_run(universe, run_dir, per_group=per_group, seed=seed)


def generate(values: Mapping[str, Any], seed: int) -> Any:
    """The universe a release recipe ``{"world": NAME, **generator overrides}`` makes with
    ``seed``."""
    from kbgym.worlds import universe_from_spec

    return universe_from_spec(values, seed)
