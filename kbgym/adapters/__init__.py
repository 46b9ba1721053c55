"""Adapters: other corpora turned into KBGym universes (SPEC §17).

An adapter reads a tool's *output files* only; the tool itself (and anything it needs, such as
SWI-Prolog for PhantomWiki) is never imported or run by the KBGym runtime.
"""

from kbgym.adapters.phantomwiki import (
    PWSourceError,
    adapt_phantomwiki,
    make_pw_probe,
    make_pw_probe_from_run,
    read_source,
)

__all__ = ["PWSourceError", "adapt_phantomwiki", "make_pw_probe", "make_pw_probe_from_run",
           "read_source"]
