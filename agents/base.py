"""The agent interface: what the runners call, and what every agent provides.

An agent sees only what the environment shows: ``observation`` (``phase``, ``steps_left``,
``text``) and the public ``info`` fields. It never reads golds, support or hidden node fields.

- ``reset()`` is called at the start of every episode; an agent may keep per-episode working
  state (a plan, the facts it has parsed from the text it was shown) and must drop it there.
- ``act(observation, info)`` returns one action (a dict such as ``{"action": "search",
  "query": "..."}``) or ``None`` (no action; the environment answers with an error).
- ``aact`` is the optional asynchronous form; the default runs ``act``.
- ``tokens_in`` / ``tokens_out`` count model tokens; scripted agents report 0.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

Action = dict[str, Any]


@runtime_checkable
class Agent(Protocol):
    """What a runner needs from an agent."""

    tokens_in: int
    tokens_out: int

    def reset(self) -> None: ...

    def act(self, observation: dict, info: dict | None = None) -> Action | None: ...


class BaseAgent:
    """A convenient base: zero token counters, a no-op ``reset`` and ``aact`` over ``act``."""

    name = "agent"
    tokens_in = 0
    tokens_out = 0

    def reset(self) -> None:
        """Start a new episode (drop all per-episode state)."""

    def act(self, observation: dict, info: dict | None = None) -> Action | None:
        raise NotImplementedError

    async def aact(self, observation: dict, info: dict | None = None) -> Action | None:
        return self.act(observation, info)
