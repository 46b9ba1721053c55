"""scripts/experiments/policy_evidence.py runs end to end, with the LLM reader against the
tests' fake endpoint (plumbing only: the fake model's answers are not scored)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_experiment_script_with_a_fake_llm(tmp_path, capsys, load_script):
    sys.path.insert(0, str(ROOT / "tests" / "llm"))
    from fake_server import FakeServer

    mod = load_script("scripts/experiments/policy_evidence.py")
    with FakeServer() as server:
        mod.main(["--seeds", "0", "--per-group", "6", "--repeats", "2", "--budgets", "3,15",
                  "--train-size", "20", "--epochs", "1", "--out", str(tmp_path), "--no-plot",
                  "--base-url", server.url, "--model", "fake", "--llm-per-group", "2"])
    out = capsys.readouterr().out
    assert "LLM reader (fake)" in out and "the blog's directions" in out
    res = json.loads((tmp_path / "results.json").read_text())
    assert set(res["summary"]) >= {"B1 search", "curated", "curated+graph"} and res["llm"]
