"""How guessable a universe's templates are: each template's most frequent canonical gold.

A template whose questions mostly share one answer ("3" for every ``qc4_children`` under the
paper's fixed triples) can be answered without reading anything. ``answer_shares`` measures
this per template, ``guessable`` flags the templates over a threshold and ``prior_answers``
gives the answers of the ``prior`` arm (each template's most frequent *training* answer).

Shares are over canonical golds (``golds[0]``). Ties are broken deterministically: the most
frequent answer first, then the smallest string.
"""

from __future__ import annotations

from collections.abc import Sequence

from kbgym.answers import share_row, prior_answers, template_shares, top_answer
from kbgym.types import Universe
from kbgym.worlds.people.templates import TEMPLATES

#: The templates whose gold is a count (QC4 aggregation and QC8 deep counts).
COUNT_TEMPLATES = tuple(t.name for t in TEMPLATES if t.category in ("QC4", "QC8"))
#: Guessable above this share of a template's questions.
GUESSABLE_SHARE = 0.5


def answer_shares(universe: Universe, splits: Sequence[str] | None = None) -> dict[str, dict]:
    """Per template, in table order: ``n`` questions, the top ``answer`` and its ``share``
    (None when the template has no questions), over ``splits`` (default: every question)."""
    return template_shares(universe, splits, [t.name for t in TEMPLATES])


def guessable(universe: Universe, threshold: float = GUESSABLE_SHARE,
              splits: Sequence[str] | None = None, min_questions: int = 2) -> dict[str, float]:
    """``{template: top answer share}`` for the templates whose most frequent canonical gold
    is more than ``threshold`` of their questions (QC5's "unknown" always is). A template
    with fewer than ``min_questions`` questions is not judged (one question is always 100 %).
    """
    return {name: row["share"] for name, row in answer_shares(universe, splits).items()
            if row["n"] >= min_questions and row["share"] > threshold}


def empty_templates(universe: Universe) -> list[str]:
    """Templates with no question in any split, in table order."""
    return [name for name, row in answer_shares(universe).items() if not row["n"]]


def pool_answer_shares(config) -> dict[str, dict]:
    """``answer_shares`` over every template's *full pool* (all instances the universe of
    ``config`` could ask, before the splits draw a few): the population the splits sample."""
    from kbgym.worlds.people.generate import build_world, full_pools

    *_, world = build_world(config)
    return {name: share_row([world.answer(i)[0][0] for i in insts])
            for name, insts in full_pools(world, config.seed).items()}


__all__ = ["COUNT_TEMPLATES", "GUESSABLE_SHARE", "answer_shares", "empty_templates", "guessable",
           "pool_answer_shares", "prior_answers", "top_answer"]
