"""A fresh install: kbgym (from this checkout) into a new virtualenv, then Gymnasium makes the
env from a module-qualified id in an interpreter that never imported kbgym itself.

Gymnasium 1.x has no entry-point plugin loader (0.x's ``gymnasium.envs`` group is gone), so
``gym.make("kbgym/KBGym-v1")`` can only find the id once something imported ``kbgym``;
``gym.make("kbgym:kbgym/KBGym-v1")`` does that import itself. Slow: a real pip install."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import sys
import gymnasium as gym
assert "kbgym" not in sys.modules
env = gym.make("kbgym:kbgym/KBGym-v1", mode="probe")
obs, info = env.reset(seed=0)
assert obs["text"].startswith("QUESTION "), obs["text"][:40]
env.step({"action": "answer", "text": "nobody"})
print("ok", type(env.unwrapped).__name__)
"""


def test_a_fresh_venv_makes_the_env_from_the_module_qualified_id(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", str(ROOT)], check=True,
                   timeout=900)
    out = subprocess.run([str(py), "-c", PROBE], capture_output=True, text=True,
                         cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok KBGymEnv"
