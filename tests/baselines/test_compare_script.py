"""scripts/experiments/compare_arms.py: one small end-to-end comparison, at the default and at a
tight budget (its arithmetic is kbgym.runs.arms', tested in tests/runs/test_arms.py)."""

from __future__ import annotations

import json

import pytest

from kbgym.library.graph import Library


@pytest.fixture(scope="module")
def compare(load_script):
    return load_script("scripts/experiments/compare_arms.py")


def test_small_end_to_end(compare, small_universe, tmp_path):
    pytest.importorskip("matplotlib")
    from kbgym.plugins import available
    from kbgym.runs.probe import make_probe

    if "scripted-reader" not in available():
        pytest.skip("the scripted reader is not installed")
    u = small_universe
    train_log = [{"qid": q} for q in u.splits["train"][:10]]
    probe = make_probe(u, train_log, per_group=4)
    trained = Library.from_universe(u)
    out = compare.compare_one(u, probe, trained, None, tmp_path, seed=0, resamples=200,
                              say=lambda *a: None)
    assert set(out["coverage"]) == {"B1", "B2", "B3", "B4", "oracle", "trained"}
    assert out["coverage"]["B3"]["index_coverage"] == 1.0
    assert (tmp_path / "coverage.png").stat().st_size > 0
    assert json.loads((tmp_path / "compare.json").read_text())["seed"] == 0
    assert "B3" in compare.format_coverage(out["coverage"])
    # --m: every arm examined at that budget; one step can only answer unread, so F1 drops
    tight = compare.compare_one(u, probe, trained, None, tmp_path / "m1", seed=0,
                                resamples=200, m=1, say=lambda *a: None)
    assert tight["m"] == 1 and out["m"] is None
    assert tight["coverage"]["B1"]["mean_steps"] == 1.0
    assert tight["coverage"]["B1"]["f1"] < out["coverage"]["B1"]["f1"]
