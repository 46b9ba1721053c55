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
