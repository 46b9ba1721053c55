"""How the environment pays an agent: a small reward object given to the constructor
(Jumanji's ``reward_fn`` pattern), so the env itself never examines libraries or loads plugins.

The env calls three hooks: :meth:`RewardFn.episode_start` after ``reset``,
:meth:`RewardFn.step` after every step (the step's reward), and :meth:`RewardFn.episode_end`
when the episode ends (added to that step's reward; it may record details in ``info``).
:class:`AnswerReward` is SPEC §11's reward — the F1 of the ``answer`` step, 0.0 on every other
step — and the default. Other rewards are chosen by name with ``KBGymConfig.reward`` (factories
in :mod:`kbgym.registry`; the curation reward is :mod:`kbgym.runs.curation`) or passed as
``KBGymEnv(reward_fn=...)``; metrics never depend on the reward.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class RewardFn(Protocol):
    def episode_start(self, env: Any, episode: Any) -> None:
        """A new episode began (``env.episode`` is ``episode``)."""

    def step(self, env: Any, episode: Any, action: str | None, answered: bool) -> float:
        """The reward of the step just taken (``action``: the valid action's name, or None)."""

    def episode_end(self, env: Any, episode: Any, info: dict) -> float:
        """Extra reward when the episode ends; may add a record to ``info``."""


class AnswerReward:
    """F1 on the ``answer`` step (forward and probe), 0.0 on every other step (SPEC §11)."""

    def episode_start(self, env: Any, episode: Any) -> None:
        return None

    def step(self, env: Any, episode: Any, action: str | None, answered: bool) -> float:
        return float(episode.f1) if answered and episode.f1 is not None else 0.0

    def episode_end(self, env: Any, episode: Any, info: dict) -> float:
        return 0.0


class CallableReward(AnswerReward):
    """A plain function ``fn(action_name, f1_or_None) -> float`` as a reward: called on every
    step with the action's name (``__invalid__`` for an invalid one) and the F1 when the step
    answered."""

    def __init__(self, fn: Callable[[str, float | None], float]):
        self.fn = fn

    def step(self, env: Any, episode: Any, action: str | None, answered: bool) -> float:
        return float(self.fn(action or "__invalid__", episode.f1 if answered else None))


def as_reward(reward_fn: Any) -> RewardFn:
    """A :class:`RewardFn` from what ``KBGymEnv(reward_fn=...)`` was given."""
    if isinstance(reward_fn, RewardFn):
        return reward_fn
    if callable(reward_fn):
        return CallableReward(reward_fn)
    raise ValueError(f"reward_fn must be a RewardFn (episode_start/step/episode_end) or a "
                     f"function (action, f1) -> float, not {type(reward_fn).__name__}")
