"""Fixtures for the PhantomWiki adapter tests: a real phantom-wiki 1.0.3 output (data/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbgym.worlds.phantomwiki import adapt_phantomwiki

PW_SRC = Path(__file__).parent / "data" / "phantomwiki_seed1"
SMALL_SIZES = {"sizes": (24, 12, 12), "eval_sizes": (6, 4)}


@pytest.fixture(scope="session")
def pw_src() -> Path:
    return PW_SRC


@pytest.fixture(scope="session")
def pw_raw() -> tuple[list, list]:
    """The fixture's articles.json and questions.json as plain JSON."""
    return (json.loads((PW_SRC / "articles.json").read_text(encoding="utf-8")),
            json.loads((PW_SRC / "questions.json").read_text(encoding="utf-8")))


@pytest.fixture(scope="session")
def adapt_small():
    """``adapt(src, **kwargs)`` with the small split sizes."""
    return lambda src, **kw: adapt_phantomwiki(src, **{**SMALL_SIZES, **kw})


@pytest.fixture(scope="session")
def pw_universe():
    """The fixture adapted with split sizes its 80 questions can fill."""
    return adapt_phantomwiki(PW_SRC, seed=0, **SMALL_SIZES)
