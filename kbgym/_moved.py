"""Old import paths of moved modules, kept for one release (docs/worlds.md, "Old paths").

A package whose modules moved calls :func:`alias` from its ``__init__`` with a map of old
submodule names to new modules, and the names it used to export. Importing an old path then
gives the NEW module object (one module, never a second copy) with a ``DeprecationWarning``
that names the new path::

    # kbgym/universe/__init__.py
    __getattr__ = alias(__name__, {"generate": "kbgym.worlds.people.generate", ...},
                        names={"UniverseConfig": "kbgym.worlds.people", ...})

Nothing is imported until an old path is used, so a shim costs nothing to the code that has
moved on. Standard library only: any layer may use it.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
import warnings
from collections.abc import Callable, Mapping


def _warn(old: str, new: str) -> None:
    warnings.warn(f"{old} has moved to {new}; the old path will be removed in the next release",
                  DeprecationWarning, stacklevel=3)


class _Finder:
    """Imports ``old.sub[.more]`` as the module the map names for ``old.sub`` (``.more``
    appended); first on ``sys.meta_path`` so the old folder is never searched. (A meta path
    finder and loader by protocol, not by the ``importlib.abc`` bases: importing those costs
    every command ~20 ms of ``importlib.resources``.)"""

    def __init__(self) -> None:
        self.moved: dict[str, str] = {}

    def target(self, fullname: str) -> str | None:
        head, rest = fullname, ""
        while head:
            if head in self.moved:
                return self.moved[head] + rest
            head, _, tail = head.rpartition(".")
            rest = f".{tail}{rest}"
        return None

    def find_spec(self, fullname, path=None, target=None):
        if self.target(fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        new = self.target(spec.name)
        _warn(spec.name, new)
        return importlib.import_module(new)

    def exec_module(self, module) -> None:
        """The module is the new one, already executed."""


_FINDER = _Finder()


class _OldPackage(types.ModuleType):
    """An old package whose exported name is also an old submodule's (``kbgym.universe``'s
    ``generate``): importing the submodule must not replace the name on the package."""

    _keep: frozenset[str] = frozenset()

    def __setattr__(self, name: str, value: object) -> None:
        if name not in type(self)._keep:
            super().__setattr__(name, value)


def alias(package: str, modules: Mapping[str, str],
          names: Mapping[str, str] | None = None) -> Callable[[str], object]:
    """Register ``package.<old>`` -> ``modules[old]`` and return the package's module
    ``__getattr__``: an old submodule or an old exported name (``names[name]`` is the module
    that now defines it), each with a DeprecationWarning."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    _FINDER.moved.update({f"{package}.{old}": new for old, new in modules.items()})
    names = dict(names or {})
    clash = frozenset(names) & frozenset(modules)
    if clash:
        sys.modules[package].__class__ = type("OldPackage", (_OldPackage,), {"_keep": clash})

    def __getattr__(name: str) -> object:
        if name in names:  # first: an old package may export a function named as a module
            _warn(f"{package}.{name}", f"{names[name]}.{name}")
            return getattr(importlib.import_module(names[name]), name)
        if name in modules:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
