"""Any folder of Markdown or text files, with questions as JSONL, as a KBGym universe
(``kbgym import corpus``)."""

from kbgym.worlds.corpus.documents import read_corpus
from kbgym.worlds.corpus.universe import (
    capitalized_runs,
    import_corpus,
    make_corpus_probe,
    make_corpus_probe_from_run,
    summarize,
)

__all__ = ["capitalized_runs", "import_corpus", "make_corpus_probe", "make_corpus_probe_from_run",
           "read_corpus", "summarize"]
