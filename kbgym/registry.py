"""Named rewards the environment can be configured with (``KBGymConfig.reward``).

The environment layer only knows the interface (:class:`kbgym.env.reward.RewardFn`) and the
default (the answer's F1). Rewards built from higher layers — the curation reward examines
libraries with the run layer's examiner — are registered here by name, by ``kbgym``'s package
initialisation, as factories ``factory(env) -> RewardFn`` that import their module only when
called. This module imports nothing, so every layer may read it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_REWARDS: dict[str, Callable[[Any], Any]] = {}


def register_reward(name: str, factory: Callable[[Any], Any]) -> None:
    """Make ``KBGymConfig(reward=name)`` build its reward with ``factory(env)``."""
    _REWARDS[name] = factory


def reward_factory(name: str) -> Callable[[Any], Any] | None:
    """The factory registered under ``name``, or None."""
    return _REWARDS.get(name)


def reward_names() -> list[str]:
    return sorted(_REWARDS)


#: The attribute :func:`agent_factory` sets on what it declares.
AGENT_FACTORY_MARK = "__kbgym_agent_factory__"


def agent_factory(fn: Any) -> Any:
    """Declare ``fn`` (a function or class) an agent factory, so that ``module:fn`` may be named
    by ``--agent``, ``--reader`` or a sweep grid's ``curators``/``readers``::

        import kbgym

        @kbgym.agent_factory
        def make(seed: int = 0):
            return MyAgent(seed)

    kbgym finds the declaration by reading the module's source (the decorator on a top-level
    ``def``/``class``, or ``name = kbgym.agent_factory(...)``) before it imports anything, so a
    name that is not declared (``os:system``, ``builtins:exit``) is refused without running any
    code. Entry points of the ``kbgym.agents`` group are declared by being registered."""
    try:
        setattr(fn, AGENT_FACTORY_MARK, True)
    except (AttributeError, TypeError):
        raise TypeError(f"agent_factory cannot mark {fn!r}") from None
    return fn
