"""Any folder of Markdown or text files, with questions as JSONL, as a KBGym universe
(``kbgym import corpus``).

The names below are imported on first use, so that loading the world (every command lists
the worlds) does not import the corpus reader."""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {"read_corpus": "documents", "capitalized_runs": "universe",
          "import_corpus": "universe", "make_corpus_probe": "universe",
          "make_corpus_probe_from_run": "universe", "summarize": "universe"}

__all__ = ["capitalized_runs", "import_corpus", "make_corpus_probe", "make_corpus_probe_from_run",
           "read_corpus", "summarize"]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value
