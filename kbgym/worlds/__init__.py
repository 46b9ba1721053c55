"""Worlds: one folder per world (``kbgym/worlds/<name>/``), each behind the one
:class:`World` interface, and the registry that finds them (docs/worlds.md).

A universe's world is its ``meta["source"]``; commands that differ by world (``build``,
``probe make``, ``drift``, ``demo``, the sweep, the navigator) ask it instead of testing
sources one by one::

    w = world_of(universe)
    hints = w.navigator_hints(universe)

Importing this package imports no world: each is loaded on first use.
"""

from __future__ import annotations

import warnings

from kbgym.worlds.interface import BaseWorld, DemoSettings, NavigatorHints, ProbeCandidates, World
from kbgym.worlds.registry import (
    GROUP,
    default_world,
    generated,
    register,
    universe_from_spec,
    unregister,
    world,
    world_of,
    worlds,
)

#: The names of before the World interface, for one release.
_OLD = {"family": world, "family_of": world_of}


def __getattr__(name: str):
    if name in ("family", "family_of", "FAMILIES", "WORLDS"):
        new = {"family": "world", "family_of": "world_of", "FAMILIES": "worlds()",
               "WORLDS": "generated()"}[name]
        warnings.warn(f"kbgym.worlds.{name} is now kbgym.worlds.{new}; the old name will be "
                      "removed in the next release", DeprecationWarning, stacklevel=2)
        if name == "FAMILIES":
            return worlds()
        if name == "WORLDS":
            return generated()
        return _OLD[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BaseWorld", "DemoSettings", "GROUP", "NavigatorHints", "ProbeCandidates", "World", "default_world",
           "generated", "register", "universe_from_spec", "unregister", "world", "world_of",
           "worlds"]
