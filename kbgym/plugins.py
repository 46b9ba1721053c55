"""Agents are plugged in by name, never imported by ``kbgym`` itself.

A name is either an entry point of the ``kbgym.agents`` group (installed packages declare
them; this distribution declares its own scripted and OpenAI agents in pyproject.toml) or a
``module:attribute`` path. The attribute is a factory called with keyword options.
"""

from __future__ import annotations

import importlib
import os
import sys
from importlib.metadata import entry_points
from typing import Any

from kbgym.errors import ConfigError

GROUP = "kbgym.agents"


def available() -> list[str]:
    return sorted(ep.name for ep in entry_points(group=GROUP))


def load_factory(spec: str):
    """The factory named ``spec``. A ``module:factory`` module is imported from the current
    directory first (then from ``sys.path``), so ``--agent my_agents:make`` works next to
    ``my_agents.py`` without setting PYTHONPATH."""
    if ":" in spec:
        module, _, attr = spec.partition(":")
        if "" not in sys.path and os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            factory = getattr(importlib.import_module(module), attr)
        except Exception as err:  # ImportError, AttributeError, or the module's own error
            raise ConfigError(f"cannot load agent {spec!r}: {type(err).__name__}: "
                              f"{str(err).splitlines()[0] if str(err) else ''}") from None
        if not callable(factory):
            raise ConfigError(f"cannot load agent {spec!r}: {attr} is not callable")
        return factory
    for ep in entry_points(group=GROUP):
        if ep.name == spec:
            return ep.load()
    names = ", ".join(available()) or "none installed"
    raise ConfigError(f"unknown agent {spec!r}; available: {names} (or give module:factory)")


def make_agent(spec: str, **options: Any):
    """Build the agent named ``spec`` with ``options`` (e.g. model, base_url, seed).

    The result must have an ``act`` method (or ``judge`` for judges); anything else is a
    one-line :class:`ConfigError`, not a failure later in the run.
    """
    factory = load_factory(spec)
    try:
        agent = factory(**options)
    except ConfigError:
        raise
    except TypeError as err:
        raise ConfigError(f"agent {spec!r} cannot be built with options "
                          f"{sorted(options)}: {err}") from None
    if not any(callable(getattr(agent, m, None)) for m in ("act", "aact", "__call__", "summarize")):
        raise ConfigError(f"agent {spec!r} made a {type(agent).__name__}, which is not an agent "
                          "(it has no act method)")
    return agent
