"""Helpers shared by the LLM-agent tests (kept out of conftest.py so that test modules can
import them by a name no other test directory uses)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

#: short timeouts and backoff for the fake server
FAST = {"backoff_initial_s": 0.005, "backoff_max_s": 0.02, "timeout_s": 5.0}


def make(role: str, srv, **options):
    """An LLM agent for ``role`` wired to the fake server ``srv``."""
    from kbgym_agents.llm.agent import make_llm_agent

    return make_llm_agent(role, model=options.pop("model", "fake"), base_url=srv.url,
                          **{**FAST, **options})
