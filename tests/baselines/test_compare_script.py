"""scripts/experiments/compare_arms.py: the per-point arithmetic, and one small end-to-end comparison."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from kbgym.library.graph import Library

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "experiments" / "compare_arms.py"


@pytest.fixture(scope="module")
def compare():
    spec = importlib.util.spec_from_file_location("_compare_arms", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class FakeLib:
    def __init__(self, coverage, links=0, authored=0):
        self.s = {"index_coverage": coverage, "n_links": links, "authored_statements": authored}

    def stats(self):
        return self.s


def rows(steps, f1, split="share1"):
    return [{"qid": f"g{i:04d}", "split": split, "steps": s, "f1": f, "status": "answered"}
            for i, (s, f) in enumerate(zip(steps, f1))]


def test_per_point_ratios(compare):
    arms = {"B1": {"library": FakeLib(0.0), "cost": {"tokens": 0, "seconds": 0.0}},
            "B3": {"library": FakeLib(1.0, 1000, 10), "cost": {"tokens": 0, "seconds": 0.1}},
            "trained": {"library": FakeLib(0.25, 50, 5), "cost": {"tokens": 9, "seconds": 1.0}}}
    r = {"B1": rows([10, 10], [0.5, 0.5]), "B3": rows([8, 8], [0.7, 0.7]),
         "trained": rows([9, 9], [0.6, 0.6]) + rows([1], [1.0], split="exact_matched")}
    cov = compare.coverage_rows(arms, r)
    assert cov["B3"]["saved_per_point"] == pytest.approx(2 / 100)
    assert cov["B3"]["f1_per_point"] == pytest.approx(0.2 / 100)
    assert cov["trained"]["saved_per_point"] == pytest.approx(1 / 25)
    assert cov["trained"]["f1_per_point"] == pytest.approx(0.1 / 25)
    assert cov["trained"]["n"] == 2  # exact_matched is not pooled
    assert cov["B1"]["saved_per_point"] is None
    q = compare.ratios(cov)
    assert q["saved"] == pytest.approx(2.0) and q["f1"] == pytest.approx(2.0)
    cov["B3"]["saved_per_point"] = -0.001  # B3 gains nothing: no ratio to read
    assert compare.ratios(cov)["saved"] is None
    assert "B3" in compare.format_coverage(cov)


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
