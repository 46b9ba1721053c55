"""The examiner audit's statistics (scripts/experiments/examiner_audit.py): Spearman's rank
correlation, the split-half reliability of a measure's ranking of arms, and the reader's ρ
with wrong answers priced as the navigator prices its failures."""

from __future__ import annotations

import random

import pytest


@pytest.fixture(scope="module")
def audit(load_script):
    return load_script("scripts/experiments/examiner_audit.py")


def arms_of(rows: dict[str, dict[str, tuple]]) -> list[dict]:
    """One seed's arms from name -> qid -> (split, steps, nav_steps, f1)."""
    return [{"seed": 0, "name": name, "steps": steps} for name, steps in rows.items()]


def test_spearman_is_rank_correlation_with_ties_averaged(audit):
    assert audit.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert audit.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert audit.ranks([5, 1, 5, 2]) == [3.5, 1.0, 3.5, 2.0]
    assert audit.spearman([1, 1, 1], [1, 2, 3]) is None  # no spread: undefined
    assert audit.spearman([1, 2], [1, 2]) is None


def test_reliability_tells_a_steady_ranking_from_noise(audit):
    rng = random.Random(0)
    qids = [f"g{i:03d}" for i in range(60)]
    rows = {"B1": {q: ("exact", 10, 10, 1.0) for q in qids}}
    for k in range(8):  # arm k saves k steps on every question: a steady order
        rows[f"a{k}"] = {q: ("exact", 10 - k, 10 + rng.choice((-4, 4)), 1.0) for q in qids}
    arms = arms_of(rows)
    steady = audit.reliability(arms, "exact", 1)
    noisy = audit.reliability(arms, "exact", 2)  # the navigator column: noise only
    assert steady == pytest.approx(1.0)
    assert noisy < 0.5
    assert audit.reliability(arms, "share2", 1) is None  # no questions: nothing to rank


def test_failures_priced_at_m_rank_a_fast_wrong_library_last(audit):
    qids = [f"g{i}" for i in range(10)]
    rows = {"B1": {q: ("exact", 6, 6, 1.0) for q in qids},
            "good": {q: ("exact", 3, 3, 1.0) for q in qids},
            "fast_wrong": {q: ("exact", 2, 15, 0.0) for q in qids},
            "slow": {q: ("exact", 9, 8, 1.0) for q in qids}}
    arms = arms_of(rows)
    plain = audit.spearman([2 / 6 if n == "fast_wrong" else s for n, s in
                            (("B1", 1), ("good", .5), ("fast_wrong", 0), ("slow", 1.5))],
                           [1, .5, 2.5, 8 / 6])
    assert plain < 1  # the wrong library is cheapest for the reader, dearest for the navigator
    assert audit.priced_spearman(arms, "exact", 15) == pytest.approx(1.0)


def test_a_rendering_is_within_target_when_the_reader_moves_no_further_than_the_navigator(audit):
    ok = audit.within_target
    assert ok(0.02, 0.0) and ok(-0.03, 0.0) and not ok(0.05, 0.0)  # no move either way
    assert ok(0.057, 0.131) and ok(0.10, 0.12)  # the navigator pays as much or more
    assert ok(0.102, 0.072) and not ok(0.121, 0.041)  # the reader pays more than it: 0.03 slack
    assert not ok(0.05, -0.10) and ok(-0.027, 0.069)  # the other way: only the slack
