"""Outcome metrics (SPEC §12.1, §13.8–9): acc, cost, rho and its paired bootstrap CI."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from kbgym.seeding import np_stream
from kbgym.scoring import score_block

DEFAULT_RESAMPLES = 20_000


def rho(steps_arm: Sequence[float], steps_base: Sequence[float]) -> float:
    """Σ steps(arm) / Σ steps(base) over the same questions."""
    base = float(np.sum(steps_base))
    return float(np.sum(steps_arm)) / base if base else float("nan")


def bootstrap_indices(seed: int, name: str, n: int, resamples: int = DEFAULT_RESAMPLES) -> np.ndarray:
    """One R×n resample matrix from ``default_rng(derive(seed, name))``, shared by all arms."""
    return np_stream(seed, name).integers(0, n, size=(resamples, n))


def resampled_sums(values: Sequence[float], idx: np.ndarray) -> np.ndarray:
    """Σ values over each resample (row) of ``idx``."""
    return np.asarray(values, dtype=np.float64)[idx].sum(axis=1)


def percentile_ci(samples: np.ndarray) -> tuple[float, float] | None:
    """The 2.5 and 97.5 percentiles (numpy's linear method) of the finite samples; None when
    there are none."""
    samples = samples[np.isfinite(samples)]
    if not len(samples):
        return None
    lo, hi = np.percentile(samples, [2.5, 97.5])
    return float(lo), float(hi)


def rho_ci(steps_arm: Sequence[float], steps_base: Sequence[float], idx: np.ndarray
           ) -> tuple[float, float]:
    """The 2.5 and 97.5 percentiles (numpy's linear method) of the resampled step ratio."""
    arm = np.asarray(steps_arm, dtype=np.float64)[idx].sum(axis=1)
    base = np.asarray(steps_base, dtype=np.float64)[idx].sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = arm / base
    lo, hi = np.percentile(ratios, [2.5, 97.5])
    return float(lo), float(hi)


def mean_diff_ci(values_arm: Sequence[float], values_base: Sequence[float], idx: np.ndarray,
                 mask: Sequence[bool] | None = None) -> tuple[float, float]:
    """CI of mean(arm) − mean(base) over the paired resamples ``idx`` (the same matrix as
    :func:`rho_ci`, so the F1 side and the steps side of formula (1) see the same draws).

    With ``mask``, only the questions it marks count: each resample's mean is over its
    marked draws (the same matrix serves questions that have a figure and ones that lack
    it, e.g. the navigator's where the support is unknown)."""
    diff = (np.asarray(values_arm, dtype=np.float64) - np.asarray(values_base, dtype=np.float64))
    if not diff.any():  # equal on every question: every resample's difference is 0
        return 0.0, 0.0
    if mask is None:
        means = diff[idx].mean(axis=1)
    else:
        keep = np.asarray(mask, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            means = (diff * keep)[idx].sum(axis=1) / keep[idx].sum(axis=1)
        means = means[np.isfinite(means)]
        if not len(means):
            return float("nan"), float("nan")
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(lo), float(hi)


def f1_gate(rho_hi: float, f1_diff_hi: float, delta: float = 0.0) -> tuple[bool, bool]:
    """Formula (1) on one arm × group: ``(star, f1_loss)``.

    An F1 loss is a CI of F1(arm) − F1(base) lying entirely below −δ; a star needs the ρ CI
    below 1 and no F1 loss. Saving steps by answering wrongly never earns a star."""
    f1_loss = bool(f1_diff_hi < -delta)
    return bool(rho_hi < 1.0) and not f1_loss, f1_loss


def paired(rows_arm: Iterable[Mapping], rows_base: Iterable[Mapping], key: str = "qid"
           ) -> list[tuple[Mapping, Mapping]]:
    """Rows of two arms matched by ``key`` (in the base arm's order); both must cover it."""
    arm = {r[key]: r for r in rows_arm}
    out = []
    for r in rows_base:
        if r[key] not in arm:
            raise ValueError(f"{key} {r[key]} was examined on the base arm but not on the other")
        out.append((arm[r[key]], r))
    return out


def delta_check(acc_trained: float, acc_base: float, delta: float = 0.0) -> bool:
    """acc(K_T) ≥ acc(K_0) − δ."""
    return acc_trained >= acc_base - delta


def break_even(train_tokens: int, c0: float, c_t: float) -> float | None:
    """N* = C_train / (c0 − cT); None when the trained library saves nothing."""
    saved = c0 - c_t
    return train_tokens / saved if saved > 0 else None


def breakdowns(rows: Sequence[Mapping]) -> dict:
    """Score blocks overall, per class and per template, plus the budget-exhaustion rate."""
    by_cat, by_tpl = defaultdict(list), defaultdict(list)
    for r in rows:
        by_cat[r["category"]].append(r)
        by_tpl[r["template"]].append(r)
    n = len(rows)
    return {
        "overall": score_block(rows),
        "by_category": {k: score_block(v) for k, v in sorted(by_cat.items(),
                                                             key=lambda kv: category_key(kv[0]))},
        "by_template": {k: score_block(v) for k, v in sorted(by_tpl.items())},
        "budget_exhaustion_rate": (sum(r["status"] == "unanswered" for r in rows) / n) if n else None,
    }


def category_key(cat: str) -> tuple[int, str]:
    """QC1 < QC2 < … < QC10, then other categories (PW_*) by name."""
    digits = "".join(ch for ch in cat if ch.isdigit())
    return (int(digits) if digits else 999, cat)


def per_point(steps_base: float, steps_arm: float, f1_base: float, f1_arm: float,
              index_coverage: float) -> dict:
    """§12.2 per-point ratios against B1: actions saved and F1 gained per point (1%) of
    index coverage; None when the arm has no coverage."""
    if not index_coverage:
        return {"actions_saved_per_point": None, "f1_per_point": None}
    points = 100 * index_coverage
    return {"actions_saved_per_point": (steps_base - steps_arm) / points,
            "f1_per_point": (f1_arm - f1_base) / points}
