"""The casebook world behind the :class:`kbgym.worlds.World` interface (docs/casebook.md)."""

from __future__ import annotations

from typing import Any

from kbgym.types import Question, Universe
from kbgym.worlds.interface import BaseWorld, ProbeCandidates

#: ``kbgym build`` flags of this world (argparse dest -> flag).
FLAGS = {"scale": "--scale"}


class CasebookWorld(BaseWorld):
    name = "casebook"
    description = ("long insurance documents split into paragraph notes, that amend, supersede "
                   "and contradict each other, with a fact ledger (docs/casebook.md)")
    generated = True
    reader = "kbgym_agents.scripted.casebook:search_reader"
    curator = "kbgym_agents.scripted.casebook:wiki_trainer"
    config_section = "casebook"
    build_flags = FLAGS

    def config_model(self) -> type:
        from kbgym.worlds.casebook.config import CasebookConfig

        return CasebookConfig


    def generate(self, config: Any) -> Universe:
        from kbgym.worlds.casebook import generate

        return generate(config)

    def summarize(self, universe: Universe) -> str:
        from kbgym.worlds.casebook import summarize

        return summarize(universe)

    def headline(self, universe: Universe) -> str:
        return f"{len(universe.meta['casebook']['docs'])} documents"

    def probe_candidates(self, universe: Universe, trained: list[Question], *,
                         per_group: int, **options: Any) -> ProbeCandidates:
        from kbgym.worlds.casebook.probe import probe_candidates

        return probe_candidates(universe, trained, per_group=per_group, **options)

    def drift(self, universe: Universe, changes: int, seed: int = 0) -> Universe:
        from kbgym.worlds.casebook.drift import drift

        return drift(universe, changes, seed)

    def drift_summary(self, universe: Universe) -> str:
        d = universe.meta.get("casebook_drift") or {}
        return (self.summarize(universe) + f"\ndrift     {len(d.get('edited', []))} values edited "
                f"in {len(d.get('edited_paragraphs', []))} paragraphs, "
                f"{len(d.get('new_documents', []))} new endorsements")

    def add_arguments(self, parser, A) -> None:
        parser.add_argument("--scale", type=A.int_range(1, 1000),
                            help="casebook: multiply every document count (default 1)")


WORLD = CasebookWorld()
