"""The PhantomWiki world (imported by ``kbgym adapt phantomwiki``) behind the
:class:`kbgym.worlds.World` interface."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kbgym.types import Question, Universe
from kbgym.worlds.interface import BaseWorld, ProbeCandidates


class PhantomWikiWorld(BaseWorld):
    name = "phantomwiki"
    description = "kbgym adapt phantomwiki"
    # the command line's defaults of before the registry (name scripted-pw-reader /
    # scripted-pw-index, or the openai-* agents, to use others)
    reader = "scripted-reader"
    curator = "scripted-index"
    commands = ("kbgym.worlds.phantomwiki.cli",)  # kbgym adapt phantomwiki[-probe]
    #: its probe draws one-key questions per template (kbgym adapt phantomwiki-probe)
    probe_options_error = ("--per-group and --seed do not apply to a PhantomWiki run's probe; "
                           "use kbgym adapt phantomwiki-probe --per-template N --seed S")

    def summarize(self, universe: Universe) -> str:
        from kbgym.worlds.phantomwiki import summarize

        return summarize(universe)

    def vocabulary(self, universe: Universe):
        """The claim reader's vocabulary (kbgym/claims): its roster, jobs and hobbies."""
        from kbgym.worlds.people.claims import people_vocabulary

        return people_vocabulary(universe)

    def import_source(self, source: Path, seed: int) -> Universe:
        """A phantom-wiki generation folder (``articles.json`` and the rest), adapted with
        ``seed`` drawing its splits (:func:`kbgym.worlds.phantomwiki.adapt_phantomwiki`)."""
        from kbgym.worlds.phantomwiki import PWSourceError, adapt_phantomwiki

        if not (Path(source) / "articles.json").exists():
            raise PWSourceError("no phantom-wiki generation there (articles.json)")
        return adapt_phantomwiki(source, seed=seed)

    def probe_candidates(self, universe: Universe, trained: list[Question], *,
                         per_group: int, pw_seed: int | None = None,
                         **options: Any) -> ProbeCandidates:
        # §17: one-key questions, exact/share1/share0, per template; its own seed (pw_seed,
        # default the universe's), whatever the caller's
        from kbgym.worlds.phantomwiki.probe import probe_candidates

        return probe_candidates(universe, trained, seed=pw_seed, **options)


WORLD = PhantomWikiWorld()
