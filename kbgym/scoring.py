"""Answer scoring (SPEC §11): normalisation, EM, token F1, unanswerables and the score block.

Scores are floats in [0, 1]; EM is 1.0 or 0.0. Every function here is pure.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

ARTICLES = frozenset({"a", "an", "the"})

#: Normalised predictions that count as "the question has no answer" (SPEC §11).
UNANSWERABLE_ALIASES = frozenset(
    {
        "unknown",
        "not known",
        "no answer",
        "unanswerable",
        "cannot be determined",
        "i dont know",
        "dont know",
        "none",
    }
)

#: The category whose questions are unanswerable; excluded from f1/em of a score block.
UNANSWERABLE_CATEGORY = "QC5"


def normalize(s: str | None) -> str:
    """SPEC §11 normalisation: lower-case, delete punctuation, drop a/an/the, collapse whitespace.

    ``None`` normalises to the empty string. Punctuation is every character whose Unicode
    category starts with ``P``, so ``"don't"`` becomes ``"dont"`` and ``"well-known"`` becomes
    ``"wellknown"``; symbols such as ``$`` (category ``Sc``) are kept.
    """
    if s is None:
        return ""
    text = "".join(ch for ch in str(s).lower() if not unicodedata.category(ch).startswith("P"))
    return " ".join(w for w in text.split() if w not in ARTICLES)


def _tokens(s: str | None) -> list[str]:
    return normalize(s).split()


def exact_match(pred: str | None, golds: Iterable[str]) -> float:
    """1.0 if some normalised gold equals the normalised prediction, else 0.0."""
    p = normalize(pred)
    return 1.0 if any(normalize(g) == p for g in golds) else 0.0


def _token_f1(pred_tokens: list[str], gold_tokens: list[str]) -> float:
    if not pred_tokens and not gold_tokens:
        return 1.0  # both empty: F1 = EM, and two empty strings are equal
    if not pred_tokens or not gold_tokens:
        return 0.0
    common = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if common == 0:
        return 0.0
    precision = common / len(pred_tokens)
    recall = common / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def f1_score(pred: str | None, golds: Iterable[str]) -> float:
    """The maximum over golds of multiset token F1 (0.0 when there are no golds)."""
    p = _tokens(pred)
    return max((_token_f1(p, _tokens(g)) for g in golds), default=0.0)


def is_unanswerable_answer(pred: str | None) -> bool:
    """Whether the normalised prediction is one of the unanswerable aliases."""
    return normalize(pred) in UNANSWERABLE_ALIASES


def score(
    pred: str | None, golds: Sequence[str], unanswerable: bool = False
) -> tuple[float, float]:
    """``(f1, em)`` for one prediction.

    An unanswerable question is all or nothing: ``(1.0, 1.0)`` iff the prediction is an alias
    of "unknown", else ``(0.0, 0.0)``; its golds are not consulted.
    """
    if unanswerable:
        hit = 1.0 if is_unanswerable_answer(pred) else 0.0
        return hit, hit
    return f1_score(pred, golds), exact_match(pred, golds)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def score_block(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The SPEC §11 score block over rows holding ``category, f1, em, steps, status``.

    Returns ``n``, ``f1`` and ``em`` (means over non-QC5 rows), ``unanswerable_acc`` (mean EM
    over QC5 rows), ``unanswered_rate`` and ``wrong_rate`` (shares of rows whose status is
    ``unanswered`` / ``wrong``) and ``mean_steps`` (over all rows). A mean over no rows is
    ``None``: ``f1``/``em`` when every row is QC5, ``unanswerable_acc`` when none is, and
    every rate when there are no rows at all.
    """
    rows = list(rows)
    scored = [r for r in rows if r["category"] != UNANSWERABLE_CATEGORY]
    unans = [r for r in rows if r["category"] == UNANSWERABLE_CATEGORY]
    n = len(rows)
    return {
        "n": n,
        "f1": _mean([float(r["f1"]) for r in scored]),
        "em": _mean([float(r["em"]) for r in scored]),
        "unanswerable_acc": _mean([float(r["em"]) for r in unans]),
        "unanswered_rate": _mean([1.0 if r["status"] == "unanswered" else 0.0 for r in rows]),
        "wrong_rate": _mean([1.0 if r["status"] == "wrong" else 0.0 for r in rows]),
        "mean_steps": _mean([float(r["steps"]) for r in rows]),
    }
