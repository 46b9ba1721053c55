"""The PhantomWiki world (imported by ``kbgym adapt phantomwiki``) behind the
:class:`kbgym.worlds.World` interface."""

from __future__ import annotations

from pathlib import Path

from kbgym.types import Universe
from kbgym.worlds.interface import BaseWorld


class PhantomWikiWorld(BaseWorld):
    name = "phantomwiki"
    description = "kbgym adapt phantomwiki"
    # the command line's defaults of before the registry (name scripted-pw-reader /
    # scripted-pw-index, or the openai-* agents, to use others)
    reader = "scripted-reader"
    curator = "scripted-index"
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

    def make_probe(self, universe: Universe, run_dir: str | Path, *, per_group: int = 30,
                   seed: int | None = None) -> dict:
        # §17: one-key questions, exact/share1/share0
        from kbgym.worlds.phantomwiki.probe import make_pw_probe_from_run

        return make_pw_probe_from_run(universe, run_dir)


WORLD = PhantomWikiWorld()
