"""The casebook experiment scripts run end to end (slow: default-size worlds)."""

from __future__ import annotations

import json

import pytest


@pytest.mark.slow
def test_the_blog_table(tmp_path, load_script, capsys):
    mod = load_script("scripts/experiments/casebook_blog_table.py")
    res = mod.main(["--seeds", "0", "--per-group", "4", "--repeats", "2", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "the blog" in out and "commonest gold" in out
    table = json.loads((tmp_path / "results.json").read_text())["table"]
    assert set(table) == set(mod.ARMS)
    assert res["table"]["wiki"]["connected/all"]["acc"] > res["table"]["first page"][
        "connected/all"]["acc"]


@pytest.mark.slow
def test_staleness_and_the_benchmark(load_script, capsys):
    res = load_script("scripts/experiments/casebook_staleness.py").main(
        ["--seeds", "0", "--changes", "6", "--questions", "20"])
    assert res["stale"][0] > 0 and res["repaired"][0] == res["stale"][0]
    rows = load_script("scripts/benchmarks/bench_casebook.py").main(
        ["--scales", "1", "--repeats", "1"])
    assert rows[0]["documents"] >= 100


def test_consistency_never_pools_two_seeds_questions(load_script):
    mod = load_script("scripts/experiments/casebook_blog_table.py")
    rows = [{"seed": s, "qid": "q0001", "f1": 1.0, "steps": 2, "tokens": 0.0, "checklist": 1.0,
             "cited": [f"s000{s}"]} for s in (0, 0, 1, 1)]
    assert mod.summarize(rows)["J"] == 1.0
