"""The PhantomWiki adapter (SPEC §17): phantom-wiki 1.0.3 output files to a KBGym universe.

    from kbgym.worlds.phantomwiki import adapt_phantomwiki
    u = adapt_phantomwiki("out/")          # articles.json + questions.json
    kbgym.jsonio.write_canonical("pw_universe.json", u.to_json())

Neither phantom-wiki nor SWI-Prolog is needed: answers' support is recomputed by a small
evaluator over facts parsed back from the article sentences (:mod:`.query`).

The names below are imported on first use, so that loading the world (every command lists
the worlds) does not import the adapter and the probe maker.
"""

from __future__ import annotations

from kbgym._lazy import lazy_attributes

_WHERE = {"adapt_phantomwiki": ".adapt", "adapter_report": ".adapt", "build_universe": ".adapt",
          "summarize": ".adapt", "make_pw_probe": ".probe", "make_pw_probe_from_run": ".probe",
          "PWSourceError": ".source", "read_source": ".source"}

__all__ = ["adapt_phantomwiki", "adapter_report", "build_universe", "summarize",
           "make_pw_probe", "make_pw_probe_from_run", "PWSourceError", "read_source"]

__getattr__ = lazy_attributes(__name__, _WHERE)
