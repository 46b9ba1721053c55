"""Reading a PhantomWiki 1.0.3 output folder (SPEC §17 "Input").

The folder is what ``phantom-wiki`` writes with ``--article-format json --question-format
json``: ``articles.json`` (a list of ``{title, article, facts}``) and ``questions.json`` (a list
of ``{id, question, answer, prolog: {query, answer}, template, type, difficulty,
is_aggregation_question, solution_traces}``). ``--question-format json_by_type``
(``questions/type{t}.json``) is read as well. PhantomWiki's uuid ``id`` and its
``solution_traces`` (whose order varies run to run) are never used, so the same PhantomWiki
seed always gives the same universe.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from kbgym.errors import ConfigError


class PWSourceError(ConfigError):
    """A PhantomWiki output folder is missing a file or has an unexpected shape."""


@dataclass(frozen=True, slots=True)
class PWArticle:
    title: str
    article: str
    facts: tuple[str, ...] = ()  # PhantomWiki's own Prolog facts; used only by tests


@dataclass(frozen=True, slots=True)
class PWQuestion:
    text: str
    answer: tuple[str, ...]  # PhantomWiki's answers, sorted(set(...)) as it writes them
    query: tuple[str, ...]  # the prolog.query literals, outermost first
    answer_var: str  # prolog.answer, e.g. "Y_2" or "Count_1"
    type: int
    difficulty: int


def _load(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise PWSourceError(f"{path}: not valid JSON ({err.msg} at line {err.lineno})") from None


def _article(i: int, d) -> PWArticle:
    try:
        return PWArticle(str(d["title"]), str(d["article"]), tuple(d.get("facts") or ()))
    except (KeyError, TypeError):
        raise PWSourceError(f"articles.json entry {i}: expected an object with title and "
                            "article - was phantom-wiki run with --article-format json?") from None


def _question(where: str, d) -> PWQuestion:
    try:
        prolog = d["prolog"]
        return PWQuestion(str(d["question"]), tuple(str(a) for a in d["answer"]),
                          tuple(str(q) for q in prolog["query"]), str(prolog["answer"]),
                          int(d["type"]), int(d["difficulty"]))
    except (KeyError, TypeError, ValueError):
        raise PWSourceError(f"{where}: expected question, answer, prolog.query, prolog.answer, "
                            "type and difficulty (phantom-wiki 1.0.3 JSON)") from None


def read_source(src: str | Path) -> tuple[list[PWArticle], list[PWQuestion]]:
    """Articles and questions of a PhantomWiki output folder, in file order."""
    src = Path(src)
    if not src.is_dir():
        raise PWSourceError(f"{src}: not a folder - pass the phantom-wiki --output-dir")
    apath = src / "articles.json"
    if not apath.exists():
        raise PWSourceError(f"{src}: no articles.json - run phantom-wiki with "
                            "--article-format json")
    raw_articles = _load(apath)
    if not isinstance(raw_articles, list):
        raise PWSourceError(f"{apath}: expected a JSON list of articles")
    articles = [_article(i, d) for i, d in enumerate(raw_articles)]

    qpath = src / "questions.json"
    if qpath.exists():
        raw = _load(qpath)
        if not isinstance(raw, list):
            raise PWSourceError(f"{qpath}: expected a JSON list of questions")
        questions = [_question(f"questions.json entry {i}", d) for i, d in enumerate(raw)]
    elif (src / "questions").is_dir():
        files = sorted((src / "questions").glob("type*.json"),
                       key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))
        questions = [_question(f"{p.name} entry {i}", d)
                     for p in files for i, d in enumerate(_load(p))]
    else:
        raise PWSourceError(f"{src}: no questions.json - run phantom-wiki with "
                            "--question-format json")
    return articles, questions
