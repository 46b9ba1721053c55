"""``kbgym bench export``: the release as a dataset in both layouts, and the validator that
regenerates every row from the release."""

from __future__ import annotations

import json

import pytest

from kbgym.bench.export import check_dataset, export_release
from kbgym.cli import main
from kbgym.errors import ConfigError


@pytest.mark.parametrize("fmt", ["hf", "jsonl"])
def test_export_rows_and_validator(tiny_release, tmp_path, fmt):
    out = tmp_path / fmt
    res = export_release(tiny_release, out, fmt=fmt)
    probe = out / ("data/tasks/probe.jsonl" if fmt == "hf" else "tasks.probe.jsonl")
    rows = [json.loads(line) for line in probe.read_text().splitlines()]
    n_probe = sum(tiny_release.sized(n, "full")["n_questions"] for n in tiny_release.seed_names)
    n_train = sum(tiny_release.sized(n, "full")["train_size"] for n in tiny_release.seed_names)
    assert len(rows) == n_probe and res["tasks"] == n_probe + n_train
    u = tiny_release.universe("people-1")
    for row in rows:
        assert row["answer"] == row["golds"][0] and row["prompt"]
        assert {"support", "keys", "group", "seed", "release"} <= set(row)
        if row["seed"] == "people-1":  # the support ids are the universe's notes
            assert set(row["support"]) <= {n.id for n in u.nodes}
    card = (out / ("README.md" if fmt == "hf" else "CARD.md")).read_text()
    assert tiny_release.hash in card and "License" in card
    if fmt == "hf":
        assert card.startswith("---\nlicense: mit") and "config_name: tasks" in card
    assert check_dataset(out, tiny_release)["tasks"] == res["tasks"]


def _tamper_row(out):
    path = out / "tasks.probe.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    row = json.loads(lines[1])
    row["golds"] = ["forged"]
    lines[1] = json.dumps(row, sort_keys=True, separators=(",", ":")) + "\n"
    path.write_text("".join(lines))


@pytest.mark.parametrize("tamper, names", [
    (_tamper_row, "tasks.probe.jsonl row 2 differs"),
    (lambda out: (out / "documents.all.jsonl").unlink(), "documents.all.jsonl is missing"),
    (lambda out: (out / "CARD.md").write_text("mine"), "CARD.md is missing or differs"),
    (lambda out: (out / "tasks.train.jsonl").write_text(
        (out / "tasks.train.jsonl").read_text() + "{}\n"), "tasks.train.jsonl has"),
])
def test_validator_refuses_a_changed_dataset(tiny_release, tmp_path, tamper, names):
    out = tmp_path / "ds"
    export_release(tiny_release, out)
    tamper(out)
    with pytest.raises(ConfigError, match=names):
        check_dataset(out, tiny_release)


def test_validator_refuses_another_release(tiny_release, tmp_path):
    from kbgym.bench.release import load_release

    out = tmp_path / "ds"
    export_release(tiny_release, out, size="small")
    with pytest.raises(ConfigError, match="not kbgym-bench-2026.12"):
        check_dataset(out, load_release())


def test_cli_export_and_check(tiny_release, tmp_path, capsys):
    out = tmp_path / "ds"
    rel = str(tiny_release.root)
    assert main(["bench", "export", "--format", "hf", "--out", str(out), "--release", rel]) == 0
    assert main(["bench", "export", "--check", str(out), "--release", rel]) == 0
    assert "valid:" in capsys.readouterr().out
    assert main(["bench", "export", "--out", str(out), "--release", rel]) == 2
    assert "not an empty folder" in capsys.readouterr().err
