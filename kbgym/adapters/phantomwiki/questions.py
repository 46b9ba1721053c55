"""PhantomWiki questions as KBGym question records (SPEC §17 "Questions", §4.1)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kbgym.adapters.phantomwiki.facts import FactStore
from kbgym.adapters.phantomwiki.query import Unmapped, evaluate
from kbgym.adapters.phantomwiki.source import PWQuestion
from kbgym.scoring import normalize
from kbgym.universe.vocab import NUMBER_WORDS

#: PhantomWiki 1.0.3 question type (default question depth 6) -> KBGym category.
CATEGORIES: dict[int, str] = {0: "PW_REL", 1: "PW_REL", 2: "PW_PERSON", 3: "PW_ATTR",
                              4: "PW_ATTR", 5: "PW_AGG", 6: "PW_AGG", 7: "PW_AGG"}
#: Types held out of training: they appear only in test_out and eval-out.
RESERVED_TYPES: tuple[int, ...] = (0, 6)
#: PhantomWiki has no easy/hard tiers; every PW record carries this tier.
NO_TIER = "none"

_INTEGER = re.compile(r"\d+")


def template_name(qtype: int) -> str:
    return f"pw_type{qtype}"


def golds(answer: Sequence[str]) -> tuple[str, ...]:
    """The gold list of a PhantomWiki answer list.

    The canonical gold joins the sorted answers with ``", "`` (only when there are several);
    each answer follows as a variant, and an integer n ≤ 20 is followed by its word. Integers
    sort by value, anything else by Python's default string order. An empty answer list is
    unanswerable: ``("unknown",)``.
    """
    items = list(dict.fromkeys(answer))
    if not items:
        return ("unknown",)
    numeric = all(_INTEGER.fullmatch(a) for a in items)
    items.sort(key=int if numeric else None)
    out = [", ".join(items)] if len(items) > 1 else []
    for a in items:
        out.append(a)
        if numeric and int(a) < len(NUMBER_WORDS):
            out.append(NUMBER_WORDS[int(a)])
    return tuple(dict.fromkeys(out))


def drop_repeats(questions: Iterable[PWQuestion]) -> tuple[list[PWQuestion], int]:
    """Keep the first question of each text, in file order; also return how many were dropped."""
    seen: set[str] = set()
    kept: list[PWQuestion] = []
    dropped = 0
    for q in questions:
        if q.text in seen:
            dropped += 1
            continue
        seen.add(q.text)
        kept.append(q)
    return kept, dropped


@dataclass(frozen=True, slots=True)
class SupportResult:
    """A recomputed support set: ``status`` is ``recomputed`` or ``unavailable``; ``reason``
    (for unavailable) is ``unmapped`` or ``answer_mismatch``."""

    support: tuple[str, ...]
    status: str
    reason: str | None = None
    detail: str | None = None


def _id_order(node_ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(node_ids, key=lambda i: int(i[1:])))


def recompute_support(q: PWQuestion, store: FactStore) -> SupportResult:
    """Evaluate the question's query over the parsed facts; the support stands only when the
    computed answers equal PhantomWiki's after SPEC §11 normalisation."""
    try:
        answers, support = evaluate(q.query, q.answer_var, store)
    except Unmapped as err:
        return SupportResult((), "unavailable", "unmapped", str(err))
    if {normalize(a) for a in answers} != {normalize(a) for a in q.answer}:
        shown = ", ".join(sorted(answers)[:5])
        return SupportResult((), "unavailable", "answer_mismatch", f"computed [{shown}]")
    return SupportResult(_id_order(support), "recomputed")
