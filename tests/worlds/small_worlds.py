"""Small universes of every shipped world, made the same way each time (for the golden probe
hashes and the conformance suite): seconds each."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "adapters" / "data" / "phantomwiki_seed1"


def people():
    from kbgym.worlds import world

    w = world("people")
    return w.generate(w.config({"n_people": 60}, seed=0))


def policies():
    from kbgym.worlds import world

    w = world("policies")
    return w.generate(w.config({"documents": 40}, seed=0))


def phantomwiki():
    from kbgym.worlds.phantomwiki import adapt_phantomwiki

    return adapt_phantomwiki(DATA, seed=0, sizes=(24, 12, 12), eval_sizes=(6, 4))


def corpus(tmp: Path):
    """The PhantomWiki fixture's articles as plain text files, its questions as JSONL."""
    from kbgym.worlds.corpus import import_corpus
    from kbgym.worlds.phantomwiki.questions import golds

    articles = json.loads((DATA / "articles.json").read_text(encoding="utf-8"))
    questions = json.loads((DATA / "questions.json").read_text(encoding="utf-8"))
    docs = tmp / "corpus"
    docs.mkdir(parents=True, exist_ok=True)
    for i, a in enumerate(articles):
        (docs / f"{i:03d}.md").write_text(a["article"], encoding="utf-8")
    qpath = tmp / "corpus.jsonl"
    qpath.write_text("".join(json.dumps({"question": q["question"], "answers": list(golds(
        q["answer"])) if q["answer"] else []}) + "\n" for q in questions), encoding="utf-8")
    return import_corpus(docs, qpath, seed=0, context="person", sizes=(24, 12, 12),
                         eval_sizes=(6, 4))


def train_log(universe, n: int = 12) -> list[dict]:
    """A training log that trained the first ``n`` train questions (one row each)."""
    return [{"qid": qid, "iteration": i + 1}
            for i, qid in enumerate(universe.splits["train"][:n])]
