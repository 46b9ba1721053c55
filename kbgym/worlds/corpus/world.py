"""Your own documents (imported by ``kbgym import corpus``) behind the
:class:`kbgym.worlds.World` interface."""

from __future__ import annotations

from pathlib import Path

from kbgym.types import Universe
from kbgym.worlds.interface import BaseWorld


class CorpusWorld(BaseWorld):
    name = "corpus"
    description = "kbgym import corpus"
    reader = "scripted-reader"
    curator = "scripted-index"

    def summarize(self, universe: Universe) -> str:
        from kbgym.worlds.corpus import summarize

        return summarize(universe)

    def make_probe(self, universe: Universe, run_dir: str | Path, *, per_group: int = 30,
                   seed: int | None = None) -> dict:
        # grouped by shared entities
        from kbgym.worlds.corpus import make_corpus_probe_from_run

        return make_corpus_probe_from_run(universe, run_dir, per_group=per_group, seed=seed)


WORLD = CorpusWorld()
