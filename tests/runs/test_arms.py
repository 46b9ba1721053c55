"""kbgym.runs.arms: the per-point arithmetic of the per-coverage comparison (SPEC §12.2)."""

from __future__ import annotations

import pytest

from kbgym.runs.arms import coverage_rows, ratios, result_coverage, result_rows


def stats(coverage, links=0, authored=0):
    return {"index_coverage": coverage, "n_links": links, "authored_statements": authored}


def rows(steps, f1, split="share1", nav=None):
    out = [{"qid": f"g{i:04d}", "split": split, "steps": s, "f1": f, "status": "answered"}
           for i, (s, f) in enumerate(zip(steps, f1))]
    for r, n in zip(out, nav or []):
        r["nav_steps"], r["nav_f1"] = n, 1.0
    return out


def test_per_point_ratios():
    st = {"B1": stats(0.0), "B3": stats(1.0, 1000, 10), "trained": stats(0.25, 50, 5)}
    r = {"B1": rows([10, 10], [0.5, 0.5]), "B3": rows([8, 8], [0.7, 0.7]),
         "trained": rows([9, 9], [0.6, 0.6]) + rows([1], [1.0], split="exact_matched")}
    cov = coverage_rows(st, r)
    assert cov["B3"]["saved_per_point"] == pytest.approx(2 / 100)
    assert cov["B3"]["f1_per_point"] == pytest.approx(0.2 / 100)
    assert cov["trained"]["saved_per_point"] == pytest.approx(1 / 25)
    assert cov["trained"]["f1_per_point"] == pytest.approx(0.1 / 25)
    assert cov["trained"]["n"] == 2  # exact_matched is not pooled
    assert cov["B1"]["saved_per_point"] is None
    assert cov["trained"]["nav_steps"] is None and cov["trained"]["rho_nav"] is None
    q = ratios(cov)
    assert q["saved"] == pytest.approx(2.0) and q["f1"] == pytest.approx(2.0)
    cov["B3"]["saved_per_point"] = -0.001  # B3 gains nothing: no ratio to read
    assert ratios(cov)["saved"] is None


def test_navigator_means_are_paired():
    """ρ_nav over the pool counts only questions with a navigator figure on every arm."""
    st = {"B1": stats(0.0), "trained": stats(0.5)}
    r = {"B1": rows([6, 6, 6], [1, 1, 1], nav=[4, 4, None]),
         "trained": rows([5, 5, 5], [1, 1, 1], nav=[2, 3, 1])}
    cov = coverage_rows(st, r)
    assert cov["B1"]["nav_steps"] == pytest.approx(4.0)
    assert cov["trained"]["nav_steps"] == pytest.approx(2.5)  # the third question is unpaired
    assert cov["trained"]["rho_nav"] == pytest.approx(2.5 / 4)


def test_from_a_sweep_result():
    """A result.json's paired rows give the same figures as the exam rows they came from."""
    paired = {"exact": {"gids": ["g1", "g2"], "arms": {
        "B1": {"steps": [6, 8], "f1": [1.0, 0.0], "em": [1, 0], "nav_steps": [3, 4],
               "nav_f1": [1.0, 1.0]},
        "trained": {"steps": [3, 4], "f1": [1.0, 1.0], "em": [1, 1], "nav_steps": [2, 2],
                    "nav_f1": [1.0, 1.0]}}}}
    result = {"arms": ["B1", "trained"], "paired": paired,
              "libraries": {"B1": stats(0.0), "trained": stats(0.1, 20, 2)}}
    st, rs = result_rows(result)
    assert [r["steps"] for r in rs["trained"]] == [3, 4] and rs["B1"][1]["nav_steps"] == 4
    cov = result_coverage(result)
    assert cov["trained"]["saved_per_point"] == pytest.approx((7 - 3.5) / 10)
    assert cov["trained"]["f1_per_point"] == pytest.approx(0.5 / 10)
    assert cov["trained"]["rho_nav"] == pytest.approx(2 / 3.5)
