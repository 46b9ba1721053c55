"""``kbgym adapt`` (kbgym.worlds.phantomwiki.cli.add_parser) and scripts/examples/phantomwiki_import.py."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import pytest

from kbgym.worlds.phantomwiki.cli import add_parser
from kbgym.errors import ConfigError
from kbgym.jsonio import canonical
from kbgym.types import Universe

ROOT = Path(__file__).resolve().parents[2]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kbgym")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return parser


def _run(argv):
    args = _parser().parse_args(argv)
    return args.func(args)


def test_adapt_phantomwiki(pw_src, pw_universe, tmp_path, capsys):
    out, report = tmp_path / "u.json", tmp_path / "report.json"
    assert _run(["adapt", "phantomwiki", "--src", str(pw_src), "--out", str(out),
                 "--train", "24", "--test-in", "12", "--test-out", "12", "--eval-in", "6",
                 "--eval-out", "4", "--report", str(report)]) == 0
    text = out.read_text(encoding="utf-8")
    assert canonical(json.loads(text)) == text
    assert Universe.from_json(json.loads(text)) == pw_universe
    assert json.loads(report.read_text())["support"]["recomputed"] == 80
    shown = capsys.readouterr().out
    assert "recomputed=80" in shown and "pw_type0 R" in shown


def test_adapt_errors_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="not a folder"):
        _run(["adapt", "phantomwiki", "--src", str(tmp_path / "nope"), "--out", "x.json"])
    with pytest.raises(ConfigError, match="articles.json"):
        _run(["adapt", "phantomwiki", "--src", str(tmp_path), "--out", "x.json"])


def test_pw_probe_command(pw_universe, tmp_path):
    upath = tmp_path / "u.json"
    upath.write_text(pw_universe.dumps(), encoding="utf-8")
    run = tmp_path / "run"
    run.mkdir()
    (run / "train_log.jsonl").write_text(
        "".join(f'{{"qid": "{q}"}}\n' for q in pw_universe.splits["train"]), encoding="utf-8")
    out = tmp_path / "probe.json"
    assert _run(["adapt", "phantomwiki-probe", "--universe", str(upath), "--run", str(run),
                 "--out", str(out), "--quiet"]) == 0
    assert json.loads(out.read_text())["variant"] == "pw"


def test_import_script(pw_src, pw_universe, tmp_path):
    spec = importlib.util.spec_from_file_location(
        "phantomwiki_import", ROOT / "scripts" / "examples" / "phantomwiki_import.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "u.json"
    assert mod.main(["--src", str(pw_src), "--out", str(out), "--quiet", "--train", "24",
                     "--test-in", "12", "--test-out", "12", "--eval-in", "6",
                     "--eval-out", "4"]) == 0
    assert out.read_text(encoding="utf-8") == pw_universe.dumps()
    assert mod.main(["--src", str(tmp_path / "missing"), "--out", str(out)]) == 2


def test_pw_probe_command_stratify(pw_universe, tmp_path):
    upath = tmp_path / "u.json"
    upath.write_text(pw_universe.dumps(), encoding="utf-8")
    run = tmp_path / "run"
    run.mkdir()
    (run / "train_log.jsonl").write_text(
        "".join(f'{{"qid": "{q}"}}\n' for q in pw_universe.splits["train"][:12]),
        encoding="utf-8")
    out = tmp_path / "probe.json"
    assert _run(["adapt", "phantomwiki-probe", "--universe", str(upath), "--run", str(run),
                 "--stratify", "category", "--out", str(out), "--quiet"]) == 0
    probe = json.loads(out.read_text())
    assert probe["stratify"] == "category" and set(probe["quota"]) <= {
        "PW_REL", "PW_PERSON", "PW_ATTR", "PW_AGG"}
    with pytest.raises(SystemExit):
        _run(["adapt", "phantomwiki-probe", "--universe", str(upath), "--run", str(run),
              "--stratify", "hops"])
