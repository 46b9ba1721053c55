"""Running one episode with an agent, and the trace rows it produces."""

from __future__ import annotations

import inspect
import time
from typing import Any, Protocol

from kbgym.runs.rows import step_row

PHASE_CODE = {"forward": 1, "backward": 2, "probe": 0}


class AgentLike(Protocol):
    """What the runners need of an agent. ``last_usage`` (tokens in, out and, optionally,
    cached tokens in of the latest ``act``) is optional; scripted agents report nothing,
    which counts as (0, 0, 0)."""

    def act(self, observation: dict, info: dict) -> Any: ...

    def reset(self) -> None: ...


def takes_seed(agent: Any) -> bool:
    """Whether ``agent.reset`` accepts a ``seed`` keyword (the repeated-exam hook)."""
    try:
        params = inspect.signature(agent.reset).parameters
    except (TypeError, ValueError):
        return False
    return "seed" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def reset_agent(agent: Any, seed: int | None = None) -> None:
    """Start an episode. The seed hook of repeated exams (``kbgym test --repeats R``): with a
    ``seed``, an agent whose ``reset`` takes a ``seed`` keyword gets it (an LLM reader's
    sampling seed, a scripted reader's tie-break shuffle); any other agent is reset as usual
    and simply repeats itself."""
    if seed is not None and takes_seed(agent):
        agent.reset(seed=seed)
    else:
        agent.reset()


def usage_of(agent: Any) -> tuple[int, int, int]:
    """(tokens in, tokens out, cached tokens in) of the agent's latest action."""
    usage = getattr(agent, "last_usage", None)
    if not usage:
        return 0, 0, 0
    return int(usage[0]), int(usage[1]), int(usage[2]) if len(usage) > 2 else 0


class EpisodeRun:
    """One question played to the end, step by step; the sync and async runners share it.

    Its rows are :func:`kbgym.runs.rows.step_row`, one per step.
    """

    def __init__(self, env, agent: Any, qid: str, seed: int | None = None):
        self.env, self.agent, self.qid = env, agent, qid
        self.t0 = time.perf_counter()
        self.obs, self.info = env.reset(options={"qid": qid})
        reset_agent(agent, seed)
        self.rows: list[dict] = []
        self.tokens = [0, 0, 0]
        self.done = False

    def step(self, action: Any) -> bool:
        """Apply the agent's action; True when the episode is over."""
        ep = self.env.unwrapped.episode
        phase, step_no = PHASE_CODE[ep.phase], ep.phase_steps + 1
        t_in, t_out, cached = usage_of(self.agent)
        note = getattr(self.env, "note_usage", None)  # a RunRecorder logs the tokens
        if note is not None:
            note(t_in, t_out, cached)
        self.tokens[0] += t_in
        self.tokens[1] += t_out
        self.tokens[2] += cached
        self.obs, _, terminated, truncated, self.info = self.env.step(action)
        info = self.info
        self.rows.append(step_row(self.qid, phase, step_no, info, (t_in, t_out, cached)))
        self.done = terminated or truncated
        return self.done

    def result(self) -> tuple[dict, list[dict], float]:
        summary = dict(self.info["episode_summary"], tokens_in=self.tokens[0], tokens_out=self.tokens[1],
                       tokens_cached=self.tokens[2])
        return summary, self.rows, time.perf_counter() - self.t0


def run_episode(env, agent: AgentLike, qid: str, seed: int | None = None
                ) -> tuple[dict, list[dict], float]:
    """Play question ``qid`` to the end: (episode summary, trace rows, wall seconds).
    ``seed`` goes to the agent's ``reset`` if it takes one (:func:`reset_agent`)."""
    run = EpisodeRun(env, agent, qid, seed)
    while not run.step(agent.act(run.obs, run.info)):
        pass
    return run.result()


async def arun_episode(env, agent: Any, qid: str, seed: int | None = None
                       ) -> tuple[dict, list[dict], float]:
    """:func:`run_episode` with ``await agent.aact``; the same rows."""
    run = EpisodeRun(env, agent, qid, seed)
    while not run.step(await agent.aact(run.obs, run.info)):
        pass
    return run.result()
