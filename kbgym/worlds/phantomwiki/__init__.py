"""The PhantomWiki adapter (SPEC §17): phantom-wiki 1.0.3 output files to a KBGym universe.

    from kbgym.worlds.phantomwiki import adapt_phantomwiki
    u = adapt_phantomwiki("out/")          # articles.json + questions.json
    kbgym.jsonio.write_canonical("pw_universe.json", u.to_json())

Neither phantom-wiki nor SWI-Prolog is needed: answers' support is recomputed by a small
evaluator over facts parsed back from the article sentences (:mod:`.query`).
"""

from kbgym.worlds.phantomwiki.adapt import (
    adapt_phantomwiki,
    adapter_report,
    build_universe,
    summarize,
)
from kbgym.worlds.phantomwiki.probe import make_pw_probe, make_pw_probe_from_run
from kbgym.worlds.phantomwiki.source import PWSourceError, read_source

__all__ = ["adapt_phantomwiki", "adapter_report", "build_universe", "summarize",
           "make_pw_probe", "make_pw_probe_from_run", "PWSourceError", "read_source"]
