"""Deprecated: the PhantomWiki and corpus importers moved to :mod:`kbgym.worlds.phantomwiki`
and :mod:`kbgym.worlds.corpus` (docs/worlds.md). Old paths work for one release, with a
warning."""

from kbgym._moved import alias

__getattr__ = alias(__name__, {"phantomwiki": "kbgym.worlds.phantomwiki",
                               "corpus": "kbgym.worlds.corpus"},
                    names=dict.fromkeys(("PWSourceError", "adapt_phantomwiki", "make_pw_probe",
                                         "make_pw_probe_from_run", "read_source"),
                                        "kbgym.worlds.phantomwiki"))
