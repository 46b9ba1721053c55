"""The casebook world behind the World interface: found by the registry, built from overrides,
and driven from the command line (build, test with repeats, train, probe make, drift)."""

from __future__ import annotations

import json

import pytest

from kbgym.errors import ConfigError
from kbgym.worlds import world, world_of


def test_the_registry_finds_the_world_and_builds_from_overrides(casebook):
    w = world("casebook")
    assert w.generated and w.name == "casebook"
    assert world_of(casebook(0)) is w
    cfg = w.config({"forms": 3, "endorsements": 6, "world": "casebook"}, seed=5)
    assert cfg.seed == 5 and cfg.forms == 3
    u = w.generate(cfg)
    assert "casebook  seed=5" in w.summarize(u) and w.headline(u).endswith("documents")
    with pytest.raises(ConfigError):
        w.config({"forms": -1})
    v = w.drift(u, 2, seed=0)
    assert "values edited" in w.drift_summary(v)


@pytest.mark.slow
def test_the_chain_from_the_command_line(tmp_path, capsys):
    from kbgym.cli import main
    from kbgym.runs.logs import read_jsonl

    u, run = str(tmp_path / "u.json"), str(tmp_path / "run")
    assert main(["build", "--world", "casebook", "--seed", "1", "--out", u]) == 0
    assert "cb_effective" in capsys.readouterr().out
    assert main(["train", "--universe", u, "--epochs", "1", "--train-size", "20", "--out", run,
                 "--quiet"]) == 0
    assert main(["probe", "make", "--run", run, "--per-group", "12", "--out",
                 str(tmp_path / "probe.json")]) == 0
    probe = json.loads((tmp_path / "probe.json").read_text())
    assert probe["variant"] == "casebook"
    exam = str(tmp_path / "exam")
    assert main(["test", "--universe", u, "--questions", str(tmp_path / "probe.json"),
                 "--split", "exact,share1,share0", "--repeats", "2", "--out", exam]) == 0
    assert "cited_jaccard=" in capsys.readouterr().out
    meta = json.loads((tmp_path / "exam" / "test_meta.json").read_text())
    assert set(meta["cited_consistency"]) == {"exact", "share1", "share0"}
    rows = read_jsonl(f"{exam}/test_log.jsonl")
    assert {r["repeat"] for r in rows} == {0, 1} and any(r.get("cited") for r in rows)
    assert main(["drift", "--universe", u, "--changes", "4", "--out",
                 str(tmp_path / "u2.json")]) == 0
