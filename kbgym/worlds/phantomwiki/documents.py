"""PhantomWiki articles cut into self-contained one-sentence documents (SPEC §17 "Documents")."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: A sentence ends where ``.``, ``!`` or ``?`` is followed by whitespace and a capital letter.
_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_SUBJECT_PRONOUN = re.compile(r"(?:He|She|They)\b")
_POSSESSIVE_PRONOUN = re.compile(r"(?:His|Her|Their)\b")


def article_lines(article: str) -> list[str]:
    """The article's lines, stripped, without ``#`` headers and blank lines."""
    lines = (line.strip() for line in article.split("\n"))
    return [line for line in lines if line and not line.startswith("#")]


def split_sentences(line: str) -> list[str]:
    """Split wherever ``.``, ``!`` or ``?`` is followed by whitespace and a capital letter."""
    return [s.strip() for s in _BOUNDARY.split(line) if s.strip()]


def self_contained(sentence: str, title: str) -> str:
    """A leading He/She/They becomes the title and His/Her/Their ``{title}'s``; a sentence
    that still lacks the title is prefixed ``{title}: ``."""
    m = _SUBJECT_PRONOUN.match(sentence)
    if m:
        sentence = title + sentence[m.end():]
    else:
        m = _POSSESSIVE_PRONOUN.match(sentence)
        if m:
            sentence = f"{title}'s" + sentence[m.end():]
    if title not in sentence:
        sentence = f"{title}: {sentence}"
    return sentence


def article_sentences(title: str, article: str) -> list[str]:
    """Every self-contained sentence of one article, in order."""
    return [self_contained(s, title) for line in article_lines(article)
            for s in split_sentences(line)]


def node_rows(articles: Iterable[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """``(node id, title, text)`` for ``(title, article)`` pairs: ids ``s%04d`` from s0001 in
    article order, then sentence order."""
    rows = []
    for title, article in articles:
        for text in article_sentences(title, article):
            rows.append(("s%04d" % (len(rows) + 1), title, text))
    return rows
