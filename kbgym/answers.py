"""Each template's most frequent canonical gold, in any world: the answers of the ``prior``
arm (kbgym/runs/prior.py) and the guessability tables of a world (the people world's
:mod:`kbgym.worlds.people.guess`). Shares are over canonical golds (``golds[0]``); ties go to
the most frequent answer, then the smallest string."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from kbgym.types import Question, Universe


def top_answer(golds: Iterable[str]) -> tuple[str, int] | None:
    """(most frequent answer, its count), ties to the smallest string; None for no answers."""
    counts = Counter(golds)
    if not counts:
        return None
    answer = min(counts, key=lambda a: (-counts[a], a))
    return answer, counts[answer]


def share_row(golds: list[str]) -> dict:
    """``n``, the top ``answer`` and its ``share`` of a list of canonical golds."""
    top = top_answer(golds)
    return {"n": len(golds), "answer": top and top[0],
            "share": top[1] / len(golds) if top else None}


def _questions(universe: Universe, splits: Sequence[str] | None) -> list[Question]:
    if splits is None:
        return list(universe.questions)
    return [universe.question(qid) for s in splits for qid in universe.splits.get(s, ())]


def template_shares(universe: Universe, splits: Sequence[str] | None = None,
                    order: Sequence[str] = ()) -> dict[str, dict]:
    """Per template (``order`` first, then as met): ``n`` questions, the top ``answer`` and its
    ``share`` (None without questions), over ``splits`` (default: every question)."""
    by_template: dict[str, list[str]] = {name: [] for name in order}
    for q in _questions(universe, splits):
        by_template.setdefault(q.template, []).append(q.golds[0])
    return {name: share_row(golds) for name, golds in by_template.items()}


def prior_answers(universe: Universe, split: str = "train") -> dict[str, str]:
    """Each template's most frequent canonical gold in ``split`` (templates it lacks are
    absent): the answers of the ``prior`` arm."""
    return {name: row["answer"] for name, row in template_shares(universe, [split]).items()
            if row["n"]}
