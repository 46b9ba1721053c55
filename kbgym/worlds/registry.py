"""The registry of worlds: every world found by name, none named here.

A world is found three ways, in this order:

1. a folder of this package, ``kbgym/worlds/<name>/``, with a ``world.py`` whose ``WORLD``
   is the world (the worlds that ship with KBGym: nothing to edit but the folder);
2. an entry point of the ``kbgym.worlds`` group, ``name = "package.module:WORLD"`` (a user's
   installed package; agents are plugged in the same way, group ``kbgym.agents``);
3. :func:`register` (a test's world, a notebook's).

Worlds are loaded on first use; importing this module imports no world.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kbgym.errors import ConfigError
from kbgym.worlds.interface import World

GROUP = "kbgym.worlds"
_FOLDER = Path(__file__).resolve().parent
_REGISTERED: dict[str, World] = {}
_LOADED: dict[str, World] | None = None


def _load(spec: str, where: str) -> World:
    module, _, attr = spec.partition(":")
    try:
        world = getattr(importlib.import_module(module), attr or "WORLD")
    except Exception as err:  # ImportError, AttributeError, or the module's own error
        raise ConfigError(f"cannot load world {where} ({spec}): {type(err).__name__}: "
                          f"{str(err).splitlines()[0] if str(err) else ''}") from None
    if not isinstance(world, World):
        raise ConfigError(f"world {where} ({spec}) is a {type(world).__name__}, which does "
                          "not implement kbgym.worlds.World")
    return world


def _may_declare(group: str) -> bool:
    """Whether a distribution on ``sys.path`` may declare entry points of ``group``: a look at
    the ``entry_points.txt`` of each ``*.dist-info`` / ``*.egg-info`` folder (and an egg's
    ``EGG-INFO``) for the group's name. Nearly always none does, and then every command skips
    importing ``importlib.metadata`` (email, zipfile, csv: ~40 ms, a sixth of a small
    ``kbgym build``). Whatever this cannot read plainly (a zip on the path, an import hook
    that finds distributions of its own) is a maybe, left to ``importlib.metadata``."""
    if any(hasattr(f, "find_distributions") and f is not importlib.machinery.PathFinder
           for f in sys.meta_path):
        return True
    for entry in sys.path:
        folder = entry or "."
        try:
            names = os.listdir(folder)
        except NotADirectoryError:
            return True  # a zip file on the path
        except OSError:
            continue  # a missing folder holds nothing (importlib.metadata skips it too)
        for name in [*(n for n in names if n.endswith((".dist-info", ".egg-info"))),
                     "EGG-INFO"]:
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), "rb") as f:
                    if group.encode() in f.read():
                        return True
            except OSError:
                continue
    return False


def _discover() -> dict[str, World]:
    global _LOADED
    if _LOADED is None:
        found: dict[str, World] = {}
        for folder in sorted(_FOLDER.iterdir()):
            if (folder / "world.py").is_file():
                found[folder.name] = _load(f"{__package__}.{folder.name}.world:WORLD",
                                           folder.name)
        if _may_declare(GROUP):
            from importlib.metadata import entry_points

            for ep in entry_points(group=GROUP):
                if ep.name not in found:
                    found[ep.name] = _load(ep.value, ep.name)
        for name, w in found.items():
            if w.name != name:
                raise ConfigError(f"world {name!r} calls itself {w.name!r}")
        _LOADED = found
    return {**_LOADED, **_REGISTERED}


def register(world: World) -> World:
    """Add ``world`` (replacing a registered one of its name); returns it."""
    if not isinstance(world, World):
        raise ConfigError(f"{world!r} does not implement kbgym.worlds.World")
    _REGISTERED[world.name] = world
    return world


def unregister(name: str) -> None:
    """Remove a world added by :func:`register` (a test's cleanup)."""
    _REGISTERED.pop(name, None)


def worlds() -> dict[str, World]:
    """Every world by name: the default world first, then by name."""
    found = _discover()
    return dict(sorted(found.items(), key=lambda kv: (not kv[1].default, kv[0])))


def world(name: str) -> World:
    """The world called ``name`` (a one-line ConfigError for another name)."""
    found = worlds()
    try:
        return found[name]
    except KeyError:
        raise ConfigError(f"unknown world {name!r}; expected one of "
                          f"{', '.join(found)}") from None


def default_world() -> World:
    """The world of universes without ``meta.source``, and the default of build/demo."""
    marked = [w for w in worlds().values() if w.default]
    if len(marked) != 1:
        raise ConfigError(f"exactly one world must be the default, found "
                          f"{[w.name for w in marked] or 'none'}")
    return marked[0]


def world_of(universe: Any) -> World:
    """The world of a universe, from ``meta.source`` (absent: the default world)."""
    source = (getattr(universe, "meta", None) or {}).get("source")
    return world(source) if source else default_world()


def generated() -> tuple[str, ...]:
    """The worlds ``kbgym build --world`` and ``kbgym demo --world`` make."""
    return tuple(name for name, w in worlds().items() if w.generated)


def universe_from_spec(values: Mapping[str, Any], seed: int):
    """A generated universe from a sweep's universe entry: generator overrides, with an
    optional ``world`` (default: the default world)."""
    w = world(values["world"]) if "world" in values else default_world()
    return w.generate(w.config({k: v for k, v in values.items() if k != "world"}, seed))


__all__ = ["GROUP", "default_world", "generated", "register", "unregister", "universe_from_spec",
           "world", "world_of", "worlds"]
