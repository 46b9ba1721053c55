"""World.import_source: the folder import ``kbgym reproduce`` asks a world for (issue 33), so
the reproduction names no world."""

from __future__ import annotations

import pytest

from kbgym.errors import ConfigError
from kbgym.reproduce.settings import PW_FIXTURE, PW_WORLD
from kbgym.worlds import world, worlds
from kbgym.worlds.phantomwiki import adapt_phantomwiki


def test_a_world_without_an_import_says_so_in_one_line(tmp_path):
    for w in worlds().values():
        if type(w).import_source is not type(world(PW_WORLD)).import_source:
            with pytest.raises(ConfigError, match=f"^the {w.name} world imports nothing"):
                w.import_source(tmp_path, 0)


def test_the_paper_world_imports_its_generation(tmp_path):
    w = world(PW_WORLD)
    u = w.import_source(PW_FIXTURE, 3)
    assert u.dumps() == adapt_phantomwiki(PW_FIXTURE, seed=3).dumps()
    assert u.hash != w.import_source(PW_FIXTURE, 4).hash  # the seed draws the splits
    with pytest.raises(ConfigError, match=r"^no phantom-wiki generation there \(articles.json\)$"):
        w.import_source(tmp_path, 0)
    (tmp_path / "articles.json").write_text("[1", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        w.import_source(tmp_path, 0)
    assert "\n" not in str(err.value)
