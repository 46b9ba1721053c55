"""``TrainAgent``: one agent for a training episode — the reader answers in forward (phase 1,
and in a probe, phase 0), the curator edits in backward (phase 2)."""

from __future__ import annotations

from kbgym_agents.base import Action, BaseAgent


class TrainAgent(BaseAgent):
    """Dispatch on ``observation["phase"]``: 2 goes to ``curator``, anything else to ``reader``.

    Token counts are the sum of both agents'."""

    name = "train-agent"

    def __init__(self, reader, curator):
        self.reader = reader
        self.curator = curator

    @property
    def tokens_in(self) -> int:  # type: ignore[override]
        return getattr(self.reader, "tokens_in", 0) + getattr(self.curator, "tokens_in", 0)

    @property
    def tokens_out(self) -> int:  # type: ignore[override]
        return getattr(self.reader, "tokens_out", 0) + getattr(self.curator, "tokens_out", 0)

    def reset(self) -> None:
        self.reader.reset()
        self.curator.reset()

    def act(self, observation: dict, info: dict | None = None) -> Action | None:
        agent = self.curator if observation.get("phase") == 2 else self.reader
        return agent.act(observation, info)
