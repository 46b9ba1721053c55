"""Run one agent through one episode of a ``KBGymEnv`` (a helper for scripts and tests).

The pipeline's recorder drives agents itself; this loop only steps ``env`` with ``agent.act``
until the episode ends and returns the last ``info`` plus the step count.
"""

from __future__ import annotations

from typing import Any


def run_episode(env: Any, agent: Any, qid: str) -> dict:
    """Reset ``env`` on ``qid``, call ``agent.reset()``, step until terminated or truncated.

    Returns ``{"steps": n, "info": last_info, "obs": last_obs}``; ``info["episode"]`` holds
    the environment's episode summary (f1, answer, p1_steps, p2_steps, ...)."""
    obs, info = env.reset(options={"qid": qid})
    agent.reset()
    steps = 0
    while True:
        action = agent.act(obs, info)
        obs, _, terminated, truncated, info = env.step(action)
        steps += 1
        if terminated or truncated:
            return {"steps": steps, "info": info, "obs": obs}
