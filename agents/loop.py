"""Run one agent through one episode (a helper for scripts and tests).

A thin view over ``kbgym.runs.episode.EpisodeRun`` (the loop the pipeline uses) that also
returns the last observation.
"""

from __future__ import annotations

from typing import Any

from kbgym.runs.episode import EpisodeRun


def run_episode(env: Any, agent: Any, qid: str) -> dict:
    """Reset ``env`` on ``qid``, call ``agent.reset()``, step until terminated or truncated.

    Returns ``{"steps": n, "info": last_info, "obs": last_obs}``; ``info["episode_summary"]`` holds
    the environment's episode summary (f1, answer, p1_steps, p2_steps, ...)."""
    run = EpisodeRun(env, agent, qid)
    while not run.step(agent.act(run.obs, run.info)):
        pass
    return {"steps": len(run.rows), "info": run.info, "obs": run.obs}
