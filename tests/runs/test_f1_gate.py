"""Formula (1) in the probe table: a star needs the rho CI below 1 *and* no F1 loss."""

from __future__ import annotations

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

from kbgym.metrics.outcomes import f1_gate, mean_diff_ci
from kbgym.runs.probe import format_table, mark, probe_table


def _probe(n: int) -> dict:
    return {"seed": 0, "splits": {"exact": [f"g{i:04d}" for i in range(1, n + 1)]}}


def _rows(steps: list[int], f1: list[float]) -> list[dict]:
    return [{"qid": f"g{i:04d}", "split": "exact", "steps": s, "f1": f,
             "status": "answered" if f == 1.0 else "wrong"}
            for i, (s, f) in enumerate(zip(steps, f1), start=1)]


def _cell(arm_steps, arm_f1, base_steps, base_f1, **kw) -> dict:
    n = len(base_steps)
    table = probe_table({"B1": _rows(base_steps, base_f1), "arm": _rows(arm_steps, arm_f1)},
                        _probe(n), resamples=2000, **kw)
    return table["groups"]["exact"]["all"]["arm"]


def test_cheap_and_right_is_starred():
    c = _cell([3] * 40, [1.0] * 40, [8] * 40, [1.0] * 40)
    assert c["ci"][1] < 1 and c["star"] and not c["f1_loss"]
    assert c["f1_diff"] == 0.0 and c["f1_diff_ci"] == [0.0, 0.0]


def test_cheap_and_wrong_is_an_f1_loss_not_a_star():
    # Steps fall (a false answer written into the library answers at once) but F1 collapses.
    c = _cell([2] * 40, [0.0] * 30 + [1.0] * 10, [8] * 40, [1.0] * 40)
    assert c["ci"][1] < 1  # the steps side alone would have starred it
    assert c["f1_loss"] and not c["star"]
    assert c["f1_diff"] == pytest.approx(-0.75)
    assert c["f1_diff_ci"][1] < 0
    assert mark(c) == "F1↓"
    assert "F1↓" in format_table({"base": "B1", "delta": 0.0,
                                  "groups": {"exact": {"all": {"arm": c}}}})


def test_delta_tolerates_a_small_loss():
    base_f1 = [1.0] * 40
    arm_f1 = [1.0] * 38 + [0.0] * 2  # -0.05 on average
    strict = _cell([3] * 40, arm_f1, [8] * 40, base_f1)
    loose = _cell([3] * 40, arm_f1, [8] * 40, base_f1, delta=0.2)
    assert loose["star"] and not loose["f1_loss"]
    # With delta 0 the CI's upper end decides: a loss on every resample would lose the star.
    assert strict["f1_diff_ci"][1] <= 0
    assert strict["star"] == (strict["f1_diff_ci"][1] >= 0)


def test_f1_gain_keeps_the_star():
    c = _cell([5] * 40, [1.0] * 40, [9] * 40, [0.0] * 20 + [1.0] * 20)
    assert c["star"] and c["f1_diff"] == pytest.approx(0.5) and c["f1_diff_ci"][0] > 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 15), st.integers(1, 15),
                          st.sampled_from([0.0, 0.5, 1.0]), st.sampled_from([0.0, 0.5, 1.0])),
                min_size=2, max_size=30),
       st.floats(0.0, 0.5))
def test_gate_invariants(rows, delta):
    arm_s, base_s, arm_f, base_f = (list(x) for x in zip(*rows))
    c = _cell(arm_s, arm_f, base_s, base_f, delta=delta)
    assert not (c["star"] and c["f1_loss"])
    assert c["star"] == (c["ci"][1] < 1 and c["f1_diff_ci"][1] >= -delta)
    assert c["f1_loss"] == (c["f1_diff_ci"][1] < -delta)
    lo, hi = c["f1_diff_ci"]
    assert -1.0 <= lo <= hi <= 1.0


def test_f1_gate_and_diff_ci_units():
    assert f1_gate(0.9, 0.0) == (True, False)
    assert f1_gate(0.9, -0.01) == (False, True)
    assert f1_gate(0.9, -0.01, delta=0.05) == (True, False)
    assert f1_gate(1.1, 0.5) == (False, False)
    idx = np.zeros((10, 3), dtype=int)  # every resample draws question 0 three times
    assert mean_diff_ci([0.0, 1.0, 1.0], [1.0, 1.0, 1.0], idx) == (-1.0, -1.0)


def test_long_arm_names_keep_the_columns_aligned():
    long_name = "trained-entity-pages-seed3"  # longer than the default 12-character column
    table = probe_table({"B1": _rows([8] * 10, [1.0] * 10),
                         long_name: _rows([3] * 10, [1.0] * 10)}, _probe(10), resamples=200)
    lines = format_table(table).splitlines()
    head, rows = lines[0], lines[1:3]
    assert long_name in rows[1] and rows[1].split()[1] == long_name
    # every row's n, steps and rho end under their headers (rho may carry its star after)
    for label in ("n", "steps", "rho"):
        end = head.index(label) + len(label)
        for row in rows:
            assert row[end - 1].isdigit() and row[end] in " *", (label, row)
