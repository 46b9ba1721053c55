"""The search tokenizer (docs/protocol.md §7): casefolded runs of letters and digits, no
stopwords, no stemming. BM25, ``locate``, the dedup guard's similarity and every agent that
words a query the way a note is worded use this one function."""

from __future__ import annotations

import re

TOKEN_RE = re.compile(r"[^\W_]+")


def tokenize(text: str) -> list[str]:
    """The tokens of ``text``: ``re.findall(r"[^\\W_]+", text.casefold())``."""
    return TOKEN_RE.findall(text.casefold())
