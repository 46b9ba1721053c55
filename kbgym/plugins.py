"""Agents are plugged in by name, never imported by ``kbgym`` itself.

A name is either an entry point of the ``kbgym.agents`` group (installed packages declare
them; this distribution declares its own scripted and OpenAI agents in pyproject.toml) or a
``module:attribute`` path. The attribute is a factory called with keyword options.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any

from kbgym.errors import ConfigError

GROUP = "kbgym.agents"


def available() -> list[str]:
    return sorted(ep.name for ep in entry_points(group=GROUP))


def load_factory(spec: str):
    if ":" in spec:
        module, _, attr = spec.partition(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as err:
            raise ConfigError(f"cannot load agent {spec!r}: {err}") from None
    for ep in entry_points(group=GROUP):
        if ep.name == spec:
            return ep.load()
    names = ", ".join(available()) or "none installed"
    raise ConfigError(f"unknown agent {spec!r}; available: {names} (or give module:factory)")


def make_agent(spec: str, **options: Any):
    """Build the agent named ``spec`` with ``options`` (e.g. model, base_url, seed)."""
    return load_factory(spec)(**options)
