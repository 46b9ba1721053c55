"""Running one episode with an agent, and the trace rows it produces."""

from __future__ import annotations

import time
from typing import Any, Protocol


class AgentLike(Protocol):
    """What the runners need of an agent. ``last_usage`` (tokens in, out of the latest
    ``act``) is optional; scripted agents report nothing, which counts as (0, 0)."""

    def act(self, observation: dict, info: dict) -> Any: ...

    def reset(self) -> None: ...


def usage_of(agent: Any) -> tuple[int, int]:
    usage = getattr(agent, "last_usage", None)
    return (int(usage[0]), int(usage[1])) if usage else (0, 0)


def run_episode(env, agent: AgentLike, qid: str) -> tuple[dict, list[dict], float]:
    """Play question ``qid`` to the end: (episode summary, trace rows, wall seconds).

    Trace rows hold phase (1/2 in training, 0 in a probe), the 1-based step within the
    phase, the action name (``__invalid__``/``__noop__`` for unreadable or missing ones), its
    canonical input, the full result, validity and the agent's token counts.
    """
    t0 = time.perf_counter()
    obs, info = env.reset(options={"qid": qid})
    agent.reset()
    rows: list[dict] = []
    tokens_in = tokens_out = 0
    while True:
        ep = env.unwrapped.episode
        phase, step_no = {"forward": 1, "backward": 2, "probe": 0}[ep.phase], ep.phase_steps + 1
        action = agent.act(obs, info)
        t_in, t_out = usage_of(agent)
        tokens_in, tokens_out = tokens_in + t_in, tokens_out + t_out
        obs, _, terminated, truncated, info = env.step(action)
        rows.append({
            "qid": qid, "phase": phase, "step": step_no, "action": info["action"],
            "input": info["input"], "result": info["result"], "valid": info["action_valid"],
            "tokens_in": t_in, "tokens_out": t_out,
        })
        if terminated or truncated:
            summary = dict(info["episode"], tokens_in=tokens_in, tokens_out=tokens_out)
            return summary, rows, time.perf_counter() - t0
