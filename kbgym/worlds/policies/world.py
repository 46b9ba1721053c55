"""The policies world behind the :class:`kbgym.worlds.World` interface."""

from __future__ import annotations

from typing import Any

from kbgym.types import Question, Universe
from kbgym.worlds.interface import BaseWorld, DemoSettings, ProbeCandidates

#: ``kbgym build`` flags of this world (argparse dest -> flag).
FLAGS = {"documents": "--documents", "sections": "--sections"}


class PoliciesWorld(BaseWorld):
    name = "policies"
    description = ("insurance documents that amend, replace, supersede and refer to each other "
                   "(docs/protocol.md §21)")
    generated = True
    reader = "scripted-policy-reader"
    curator = "scripted-policy-index"
    config_section = "policies"
    build_flags = FLAGS
    baselines = {"evidence": "kbgym.worlds.policies.graph:build_evidence_graph"}
    # the budget at which a reader can use an index - find it, open it, answer - while search
    # alone runs short on connected questions; plus the trained library with the evidence
    # graph derived from its references, examined by the evidence reader
    demo = DemoSettings(m=3, extra_arms={"trained+graph": (
        "evidence", "scripted-policy-reader-evidence",
        {"toolset": "evidence", "typed_links": True})})

    def config_model(self) -> type:
        from kbgym.worlds.policies.config import PolicyConfig

        return PolicyConfig


    def generate(self, config: Any) -> Universe:
        from kbgym.worlds.policies import generate

        return generate(config)

    def summarize(self, universe: Universe) -> str:
        from kbgym.worlds.policies import summarize

        return summarize(universe)

    def headline(self, universe: Universe) -> str:
        return f"{len(universe.meta['policies']['documents'])} documents"

    def probe_candidates(self, universe: Universe, trained: list[Question], *,
                         per_group: int, **options: Any) -> ProbeCandidates:
        from kbgym.worlds.policies.probe import probe_candidates

        return probe_candidates(universe, trained, per_group=per_group, **options)

    def drift(self, universe: Universe, changes: int, seed: int = 0) -> Universe:
        from kbgym.worlds.policies.drift import drift

        return drift(universe, changes, seed)

    def drift_summary(self, universe: Universe) -> str:
        from kbgym.worlds.policies.drift import summarize

        return summarize(universe)

    def add_arguments(self, parser, A) -> None:
        parser.add_argument("--documents", type=A.int_range(20, 100_000),
                            help="policies: documents (default 100)")
        parser.add_argument("--sections", type=A.int_range(2, 18),
                            help="policies: provisions per form (default 16)")


WORLD = PoliciesWorld()
