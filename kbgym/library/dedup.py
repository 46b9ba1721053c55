"""The dedup guard (SPEC §6.3): pluggable ``similarity(a, b)`` and ``judge(a, b) -> bool``.

The guard is off unless a judge is configured. When on, ``add`` and ``edit`` ask it for a
survivor: it queries the library's search backend for the candidate text's top 3 hits (4 when
a node is excluded), drops the excluded node and dead ids, takes the best neighbour by
similarity (first in search order on ties), accepts below the threshold without a judge, and
otherwise makes exactly one judge call. A judge that raises counts as "not a duplicate" and
increments ``judge_errors``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import Any

from kbgym.protocol.tokens import tokenize

Similarity = Callable[[str, str], float]
Judge = Callable[[str, str], bool]

DEFAULT_THRESHOLD = 0.90


def token_cosine(a: str, b: str) -> float:
    """Cosine of the §7 token-count vectors of a and b; 0.0 when either has no tokens."""
    ca, cb = Counter(tokenize(a)), Counter(tokenize(b))
    if not ca or not cb:
        return 0.0
    dot = sum(v * cb[t] for t, v in ca.items() if t in cb)
    na = sum(v * v for v in ca.values())
    nb = sum(v * v for v in cb.values())
    return min(1.0, dot / math.sqrt(na * nb))


def judge_user_message(a: str, b: str) -> str:
    """The LLM judge's user message (SPEC §6.3)."""
    return f"1. {a}\n2. {b}"


def judge_verdict(reply: str | None) -> bool:
    """An LLM reply is a yes iff its lower-cased text starts with ``yes``."""
    return (reply or "").lower().startswith("yes")


class DedupGuard:
    """Counters: ``judge_calls``, ``judge_errors`` and ``duplicates`` (verdicts of yes)."""

    def __init__(
        self,
        judge: Judge | None = None,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        similarity: Similarity | None = None,
    ):
        self.judge = judge
        self.threshold = float(threshold)
        self.similarity: Similarity = similarity or token_cosine
        self.judge_calls = 0
        self.judge_errors = 0
        self.duplicates = 0

    @property
    def enabled(self) -> bool:
        return self.judge is not None

    def counters(self) -> dict:
        return {"judge_calls": self.judge_calls, "judge_errors": self.judge_errors,
                "duplicates": self.duplicates}  # fmt: skip

    def find_duplicate(self, library: Any, text: str, exclude: str | None = None) -> str | None:
        """The id ``text`` duplicates, or None. ``exclude`` is the node being edited."""
        if self.judge is None:
            return None
        backend = library.search_backend
        if backend is None:
            return None
        hits = backend.query(text, 4 if exclude is not None else 3)
        best, best_sim = None, -1.0
        for nid, _score in hits:
            if nid == exclude or nid not in library:
                continue
            sim = self.similarity(text, library[nid].text)
            if sim > best_sim:
                best, best_sim = nid, sim
        if best is None or best_sim < self.threshold:
            return None
        self.judge_calls += 1
        try:
            verdict = bool(self.judge(text, library[best].text))
        except Exception:  # an API error counts as "not a duplicate"
            self.judge_errors += 1
            return None
        if verdict:
            self.duplicates += 1
            return best
        return None
