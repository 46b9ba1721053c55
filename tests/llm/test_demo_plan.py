"""scripts/examples/llm_demo.sh says what it will cost before it starts (LLM_PLAN_ONLY=1 stops
there): the server threads for this machine, the build, and the model calls of the run."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "examples" / "llm_demo.sh"


def plan(tmp_path, **env) -> str:
    run = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "LLM_PLAN_ONLY": "1",
                              "LLM_VENV": str(tmp_path / "none"), **env})
    assert run.returncode == 0, run.stderr
    return run.stderr


def test_the_demo_says_its_cost_first(tmp_path):
    cores = os.cpu_count() or 2
    text = plan(tmp_path)
    threads = 1 if cores <= 2 else cores // 2
    assert f"{threads} server thread(s)" in text
    assert "llama.cpp compiles once" in text  # no runtime in that venv yet
    # 12 questions: 3 calls each for the two fields runs, m = 8 for the two tool-call runs
    assert "at most about 264 model calls" in text
    text = plan(tmp_path, LLM_VARIANTS="fields+small", LLM_M="15", LLM_THREADS="3")
    assert "3 server thread(s)" in text and "at most about 72 model calls" in text
