"""``kbgym baseline`` (the subcommand as :func:`add_parser` builds it)."""

from __future__ import annotations

import argparse
import json

import pytest

from kbgym.cli.baseline import add_parser
from kbgym.errors import ConfigError
from kbgym.jsonio import write_canonical
from kbgym.library.snapshot import load_snapshot


def run(argv):
    parser = argparse.ArgumentParser(prog="kbgym")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


@pytest.fixture
def universe_file(small_universe, tmp_path):
    path = tmp_path / "universe.json"
    write_canonical(path, small_universe.to_json())
    return path


@pytest.mark.parametrize("argv, params", [
    (["b2", "--max-size", "4"], {"max_size": 4, "summaries": "stub"}),
    (["b3", "--synapse-cap", "12", "--no-entity-index"],
     {"synapse_cap": 12, "no_entity_index": True}),
    (["b4", "--stub", "--branching", "3"], {"branching": 3, "summaries": "stub"}),
    (["oracle"], {}),
])
def test_writes_snapshot_and_meta(universe_file, small_universe, tmp_path, capsys, argv, params):
    out = tmp_path / "out"
    assert run(["baseline", *argv, "--universe", str(universe_file), "--out", str(out)]) == 0
    name = argv[0]
    lib, header = load_snapshot(out / f"kb_{name}.json")
    assert header["label"] == f"baseline {name}"
    assert header["universe"] == {"path": str(universe_file), "hash": small_universe.hash}
    meta = json.loads((out / "build_meta.json").read_text())
    assert meta["params"] == params and meta["baseline"] == name
    assert f"baseline {name}: +{meta['nodes_added']} notes" in capsys.readouterr().out


def test_model_needs_the_llm_agent(universe_file, tmp_path):
    with pytest.raises(ConfigError, match="need an OpenAI endpoint agent"):
        run(["baseline", "b2", "--model", "gpt-5-mini", "--universe", str(universe_file),
             "--out", str(tmp_path / "o")])
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("argv, msg", [
    (["b2", "--synapse-cap", "3"], "--synapse-cap applies to b3 only, not b2"),
    (["oracle", "--branching", "3"], "--branching applies to b4 only"),
    (["b3", "--model", "m"], "--model applies to b2 and b4 only"),
])
def test_bad_flags_are_one_line_errors(universe_file, tmp_path, argv, msg):
    with pytest.raises(ConfigError, match=msg):
        run(["baseline", *argv, "--universe", str(universe_file), "--out", str(tmp_path / "o")])


def test_max_size_has_a_range(universe_file, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        run(["baseline", "b2", "--max-size", "0", "--universe", str(universe_file), "--out",
             str(tmp_path / "o")])
    assert exit_.value.code == 2
    assert "argument --max-size: must be between 1 and 100000, got 0" in capsys.readouterr().err


def test_missing_universe(tmp_path):
    with pytest.raises(ConfigError, match="no such universe file"):
        run(["baseline", "b3", "--universe", str(tmp_path / "nope.json"), "--out", str(tmp_path)])


def test_stub_and_model_exclusive(capsys):
    with pytest.raises(SystemExit):
        run(["baseline", "b2", "--stub", "--model", "m", "--out", "x"])
