"""Every parser of ``kbgym``: each numeric flag shows the range its model field validates, and
help texts cite only documents (and sections of docs/protocol.md) that exist."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from kbgym.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]


def _parsers(parser, path=()):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


PARSERS = list(_parsers(build_parser()))


def test_every_numeric_flag_shows_its_range_in_help():
    checked = 0
    for path, parser in PARSERS:
        text = " ".join(parser.format_help().split())
        for action in parser._actions:
            shown = getattr(action.type, "range_text", None)
            if action.type in (int, float):
                pytest.fail(f"kbgym {' '.join(path)} {action.option_strings}: no range")
            if shown is None:
                continue
            checked += 1
            flag = action.option_strings[0] if action.option_strings else action.dest
            assert shown in text, f"kbgym {' '.join(path)} {flag}: {shown} not in --help"
    assert checked >= 45


def test_flag_ranges_are_the_model_ranges():
    """One source of truth: a flag refuses exactly what its config field refuses."""
    from kbgym.env.config import KBGymConfig
    from pydantic import ValidationError

    from kbgym.errors import ConfigError
    from kbgym.runs.train import TrainConfig
    from kbgym.worlds.people import UniverseConfig

    by_flag = {(tuple(p), a.option_strings[0]): a.type for p, parser in PARSERS
               for a in parser._actions if a.option_strings and hasattr(a.type, "lo")}
    for cmd, flag, model, field in ((("train",), "--epochs", TrainConfig, "epochs"),
                                     (("train",), "--n1", KBGymConfig, "n1"),
                                     (("test",), "--m", KBGymConfig, "m"),
                                     (("build",), "--people", UniverseConfig, "n_people"),
                                     (("build",), "--friend-degree", UniverseConfig,
                                      "friend_degree")):
        t = by_flag[(cmd, flag)]
        model(**{field: t.lo}), model(**{field: t.hi})
        for bad in (t.lo - 1, t.hi + 1):
            with pytest.raises((ConfigError, ValidationError)):
                model(**{field: bad})


def _texts():
    for path, parser in PARSERS:
        yield " ".join(path), parser.description or ""
        for action in parser._actions:
            yield f"{' '.join(path)} {'/'.join(action.option_strings)}", action.help or ""


def test_help_cites_only_documents_that_exist():
    pages = [ROOT / "docs" / "protocol.md", *sorted((ROOT / "docs" / "protocol").glob("*.md"))]
    sections = {sec for page in pages  # the section index and the topic pages it points to
                for sec in re.findall(r"^#+ (\d+(?:\.\d+)?) ", page.read_text(encoding="utf-8"),
                                      flags=re.M)}
    cited = 0
    for where, text in _texts():
        assert "SPEC" not in text, f"{where}: cites SPEC, which users do not have: {text!r}"
        for doc in re.findall(r"\b((?:docs|configs|examples|scripts)/[\w./-]+\w)", text):
            cited += 1
            assert (ROOT / doc).exists(), f"{where}: cites {doc}, which does not exist"
        for sec in re.findall(r"§\s*(\d+(?:\.\d+)?)", text):
            cited += 1
            assert sec in sections, f"{where}: cites §{sec}, not a section of docs/protocol.md"
    assert cited >= 2


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    from kbgym.cli import COMMANDS

    for name in COMMANDS:
        if name not in ("corpus",):  # its command is `import`
            assert name in out
    assert "import" in out and "adapt" in out and "drift-report" in out  # the worlds' own
