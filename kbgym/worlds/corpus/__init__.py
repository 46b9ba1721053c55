"""Any folder of Markdown or text files, with questions as JSONL, as a KBGym universe
(``kbgym import corpus``).

The names below are imported on first use, so that loading the world (every command lists
the worlds) does not import the corpus reader."""

from __future__ import annotations

from kbgym._lazy import lazy_attributes

_WHERE = {"read_corpus": ".documents", "capitalized_runs": ".universe",
          "import_corpus": ".universe", "make_corpus_probe": ".universe",
          "make_corpus_probe_from_run": ".universe", "summarize": ".universe"}

__all__ = ["capitalized_runs", "import_corpus", "make_corpus_probe", "make_corpus_probe_from_run",
           "read_corpus", "summarize"]

__getattr__ = lazy_attributes(__name__, _WHERE)
