"""The import paths of before the worlds move keep working for one release: each gives the
moved module or name itself (never a second copy) with a DeprecationWarning naming the new
path (kbgym/_moved.py)."""

from __future__ import annotations

import importlib

import pytest

MODULES = [
    ("kbgym.universe.types", "kbgym.types"),
    ("kbgym.universe.keys", "kbgym.keys"),
    ("kbgym.universe.generate", "kbgym.worlds.people.generate"),
    ("kbgym.universe.drift", "kbgym.worlds.people.drift"),
    ("kbgym.protocol.facts", "kbgym.worlds.people.facts"),
    ("kbgym.protocol.questions", "kbgym.worlds.people.forms"),
    ("kbgym.protocol.statements", "kbgym.worlds.people.statements"),
    ("kbgym.protocol.policies", "kbgym.worlds.policies.grammar"),
    ("kbgym.protocol.phantomwiki", "kbgym.worlds.phantomwiki.grammar"),
    ("kbgym.adapters.phantomwiki", "kbgym.worlds.phantomwiki"),
    ("kbgym.adapters.phantomwiki.query", "kbgym.worlds.phantomwiki.query"),
    ("kbgym.adapters.corpus.universe", "kbgym.worlds.corpus.universe"),
    ("kbgym.cli.adapt", "kbgym.worlds.phantomwiki.cli"),
    ("kbgym.cli.corpus", "kbgym.worlds.corpus.cli"),
]


@pytest.mark.parametrize("old,new", MODULES)
def test_an_old_module_path_is_the_new_module(old, new):
    import sys

    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning) as caught:  # the old parent package may warn too
        mod = importlib.import_module(old)
    assert mod is importlib.import_module(new)
    assert f"{old} has moved to {new};" in [str(w.message).split(" the old")[0] for w in caught]


@pytest.mark.parametrize("package,name,new", [
    ("kbgym.universe", "UniverseConfig", "kbgym.worlds.people"),
    ("kbgym.universe", "generate", "kbgym.worlds.people"),
    ("kbgym.universe", "Universe", "kbgym.types"),
    ("kbgym.protocol", "parse_fact", "kbgym.worlds.people.facts"),
    ("kbgym.protocol", "answer_statement", "kbgym.worlds.people.statements"),
    ("kbgym.adapters", "adapt_phantomwiki", "kbgym.worlds.phantomwiki"),
])
def test_an_old_exported_name_is_the_new_object(package, name, new):
    with pytest.warns(DeprecationWarning, match=f"{new}.{name}".replace(".", r"\.")):
        got = getattr(importlib.import_module(package), name)
    assert got is getattr(importlib.import_module(new), name)


def test_an_unknown_name_is_still_an_attribute_error():
    import kbgym.protocol

    with pytest.raises(AttributeError):
        kbgym.protocol.no_such_name  # noqa: B018
