"""A package's attributes imported on first use (PEP 562), so that importing the package stays
light: ``__getattr__ = lazy_attributes(__name__, {"KBGymEnv": "kbgym.env.env"})``."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Mapping
from typing import Any


class _LazyPackage(types.ModuleType):
    """A package whose lazily exported names include a submodule's own name (``generate``,
    the function, from the submodule ``generate``): the import system binds a submodule on its
    package once it is loaded, which would hide the exported value behind the module. That
    binding is dropped, so the name still resolves to the export (as an eager
    ``from .generate import generate`` in the package left it)."""

    _lazy_shadowed: frozenset[str] = frozenset()

    def __setattr__(self, name: str, value: Any) -> None:
        if (name in self._lazy_shadowed and isinstance(value, types.ModuleType)
                and value.__name__ == f"{self.__name__}.{name}"):
            return
        super().__setattr__(name, value)


def lazy_attributes(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: each name of ``where`` comes from the module
    it maps to, imported on the first lookup and then kept on the package; any other name is
    an AttributeError. A module name starting with a dot is relative to ``package``
    (``{"generate": ".generate"}``). A name that is also the name of the module it comes from
    (``{"generate": "pkg.generate"}``) keeps resolving to the attribute, not the module."""
    where = {name: package + module if module.startswith(".") else module
             for name, module in where.items()}
    shadowed = frozenset(name for name, module in where.items()
                         if module == f"{package}.{name}")
    if shadowed:
        mod = sys.modules[package]
        mod.__class__ = _LazyPackage
        # set past _LazyPackage.__setattr__ (the class attribute is the empty default)
        object.__setattr__(mod, "_lazy_shadowed", shadowed)

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
