"""Your own documents (imported by ``kbgym import corpus``) behind the
:class:`kbgym.worlds.World` interface."""

from __future__ import annotations

from typing import Any

from kbgym.types import Question, Universe
from kbgym.worlds.interface import BaseWorld, ProbeCandidates


class CorpusWorld(BaseWorld):
    name = "corpus"
    description = "kbgym import corpus"
    reader = "scripted-reader"
    curator = "scripted-index"
    commands = ("kbgym.worlds.corpus.cli",)  # kbgym import corpus

    def summarize(self, universe: Universe) -> str:
        from kbgym.worlds.corpus import summarize

        return summarize(universe)

    def probe_candidates(self, universe: Universe, trained: list[Question], *,
                         per_group: int, **options: Any) -> ProbeCandidates:
        # grouped by shared entities
        from kbgym.worlds.corpus.universe import probe_candidates

        return probe_candidates(universe, trained, **options)


WORLD = CorpusWorld()
