"""Agents are plugged in by name, never imported by ``kbgym`` itself.

A name is either an entry point of the ``kbgym.agents`` group (installed packages declare
them; this distribution declares its own scripted and OpenAI agents in pyproject.toml) or a
``module:attribute`` path. The attribute is a factory called with keyword options.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any

from pydantic import ValidationError

from kbgym.errors import ConfigError, first_error

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


def accepted_options(factory: Any) -> tuple[str, ...] | None:
    """The keyword options ``factory`` takes by name; None when it takes any (``**kwargs``),
    so that it checks them itself."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return tuple(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def check_options(spec: str, options: Mapping[str, Any], factory: Any = None) -> None:
    """A one-line ConfigError naming the first option the agent ``spec`` does not take."""
    takes = accepted_options(factory if factory is not None else load_factory(spec))
    if takes is None:
        return
    unknown = sorted(set(options) - set(takes))
    if unknown:
        raise ConfigError(f"agent {spec!r} has no option {unknown[0]!r} (its options: "
                          f"{', '.join(takes) or 'none'})")


def make_agent(spec: str, /, *, offered: Mapping[str, Any] | None = None, **options: Any):
    """Build the agent named ``spec`` with ``options`` (e.g. model, base_url, seed).

    Every option must be one the factory takes: an unknown one is a one-line
    :class:`ConfigError` naming it (a factory taking ``**kwargs`` checks its own). ``offered``
    options (the seed a runner has, the endpoint flags of the command line) are passed only
    to a factory that takes them. The result must have an ``act`` method (or ``judge`` for
    judges); anything else is a one-line error, not a failure later in the run.
    """
    factory = load_factory(spec)
    takes = accepted_options(factory)
    opts = {k: v for k, v in (offered or {}).items() if takes is None or k in takes}
    opts.update(options)
    check_options(spec, options, factory)
    try:
        agent = factory(**opts)
    except ConfigError:
        raise
    except ValidationError as err:  # a factory with typed options (pydantic.validate_call)
        raise ConfigError(first_error(err, f"agent {spec!r}")) from None
    except TypeError as err:
        raise ConfigError(f"agent {spec!r} cannot be built with options "
                          f"{sorted(opts)}: {err}") from None
    if not any(callable(getattr(agent, m, None)) for m in ("act", "aact", "__call__", "summarize")):
        raise ConfigError(f"agent {spec!r} made a {type(agent).__name__}, which is not an agent "
                          "(it has no act method)")
    return agent
