"""A few steps against a real OpenAI-compatible endpoint (slow; opt-in).

Runs only with ``-m slow`` and ``KBGYM_LLM_BASE_URL`` set, e.g. after ``make llm-demo`` has
installed the local model, with the server from scripts/examples/llm_demo.sh running::

    KBGYM_LLM_BASE_URL=http://127.0.0.1:8765/v1 KBGYM_LLM_MODEL=qwen2.5-coder-1.5b \\
        .venv/bin/python -m pytest -m slow tests/llm/test_real_model.py

Optional: ``KBGYM_LLM_MODEL`` (default: the server's first model), ``KBGYM_LLM_TOOL_MODE``
(default auto; ``fields`` for the fields reader), ``KBGYM_LLM_SKILLS`` (``full`` or ``small``),
``KBGYM_LLM_API_KEY_ENV`` (the variable holding a key, for remote endpoints).
It asserts the protocol and termination, never the answers.
"""

from __future__ import annotations

import json
import os
import urllib.request

import pytest

from kbgym.env import KBGymEnv, KBGymConfig
from kbgym.env.actions import ACTION_NAMES, phase_tools
from kbgym.runs.episode import run_episode

BASE_URL = os.environ.get("KBGYM_LLM_BASE_URL")
MODEL = os.environ.get("KBGYM_LLM_MODEL")
TOOL_MODE = os.environ.get("KBGYM_LLM_TOOL_MODE", "auto")
SKILLS = os.environ.get("KBGYM_LLM_SKILLS", "full")
KEY_ENV = os.environ.get("KBGYM_LLM_API_KEY_ENV", "OPENAI_API_KEY")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not BASE_URL, reason="set KBGYM_LLM_BASE_URL to a real endpoint")]


def _model() -> str:
    if MODEL:
        return MODEL
    with urllib.request.urlopen(BASE_URL.rstrip("/") + "/models", timeout=10) as r:
        return json.load(r)["data"][0]["id"]


def _agent(role: str):
    from kbgym_agents.llm.agent import make_llm_agent

    return make_llm_agent(role, model=_model(), base_url=BASE_URL, api_key_env=KEY_ENV,
                          tool_mode=TOOL_MODE, skill_set=SKILLS, max_tokens=256,
                          temperature=0.0,
                          timeout_s=600, max_retries=1, question_timeout_s=1800)


def _check_rows(rows, budgets):
    for r in rows:
        assert r["action"] in ACTION_NAMES or r["action"] in ("__invalid__", "__noop__")
        assert r["step"] <= budgets[r["phase"]]
        if r["action"] in ACTION_NAMES:
            assert r["action"] in phase_tools({0: "probe", 1: "forward", 2: "backward"}[r["phase"]])


def test_a_real_probe_episode_terminates(universe):
    cfg = KBGymConfig.make(m=3, memory_k=6)
    agent = _agent("reader")
    env = KBGymEnv(universe, mode="probe", config=cfg)
    summary, rows, _ = run_episode(env, agent, universe.splits["test_in"][0])
    assert 1 <= summary["steps"] <= 3 and len(rows) == summary["steps"]
    assert summary["status"] in ("answered", "wrong", "unanswered")
    assert (summary["status"] == "unanswered") == (rows[-1]["action"] != "answer")
    _check_rows(rows, {0: 3})
    stats = agent.stats
    own = stats["guards"].get("first_search", 0)  # the fields mode's first step is the agent's
    assert stats["calls"] >= summary["steps"] - own and stats["ok"] >= 1
    assert summary["tokens_in"] > 0 and summary["tokens_out"] > 0
    assert any(r["valid"] for r in rows), "the model never produced a valid action"


def test_a_real_training_iteration_terminates(universe):
    cfg = KBGymConfig.make(n1=2, n2=2, memory_k=4)
    agent = _agent("trainer")
    env = KBGymEnv(universe, mode="train", config=cfg)
    summary, rows, _ = run_episode(env, agent, universe.splits["train"][0])
    assert summary["p1_steps"] <= 2 and summary["p2_steps"] <= 2
    assert [r["phase"] for r in rows] == [1] * summary["p1_steps"] + [2] * summary["p2_steps"]
    assert summary["p2_steps"] >= 1  # the backward phase was reached and played
    _check_rows(rows, {1: 2, 2: 2})
    assert agent.stats["tokens_in"] > 0
