"""A package's attributes imported on first use (PEP 562), so that importing the package stays
light: ``__getattr__ = lazy_attributes(__name__, {"KBGymEnv": "kbgym.env.env"})``."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: each name of ``where`` comes from the module
    it maps to, imported on the first lookup and then kept on the package; any other name is
    an AttributeError."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
