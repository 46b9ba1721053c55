"""The main job: `kbgym demo` reproduces the paper's directions with scripted agents, and is
deterministic to the byte (timing.jsonl aside)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbgym.runs.demo import run_demo


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    # The demo at its default size (slow, ~15 s on CI), once for the module: the directions
    # asserted below are statistical claims that need its 500 people and 100 questions.
    out = tmp_path_factory.mktemp("demo")
    return out, run_demo(out, plots=False, say=lambda *a: None)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "timing.jsonl"}


def test_demo_directions(demo):
    _, res = demo
    groups = res["table"]["groups"]
    cell = {g: groups[g]["all"]["trained"] for g in groups}
    base = {g: groups[g]["all"]["B1"] for g in groups}
    for g in ("exact", "exact_matched"):
        assert cell[g]["rho"] < 1 and cell[g]["ci"][1] < 1 and cell[g]["star"], g
    for g in groups:
        assert cell[g]["f1"] >= base[g]["f1"], g  # delta = 0
    assert cell["share2"]["rho"] <= cell["share1"]["rho"] <= cell["share0"]["rho"]
    assert abs(cell["share0"]["rho"] - 1) < 0.05
    for g in groups:  # the ideal navigator beside the reader (docs/protocol.md §12.6)
        assert base[g]["rho_nav"] == 1.0 and cell[g]["rho_nav"] is not None, g
        assert cell[g]["nav_f1"] == 1.0 and cell[g]["blind_spot"] is not None, g
    assert res["report"]["structure"]["precision"] >= 0.94
    m = res["report"]["misinformation"]  # the index curator writes titles, never claims
    assert m["false_statements"] == 0 and m["notes_written"] > 0


def test_demo_report_prints_misinformation_and_link_families(demo):
    out, _ = demo
    md = (out / "train" / "report.md").read_text(encoding="utf-8")
    assert "- misinformation: 0 false," in md
    assert "- index families (from links): " in md and "by title wording: " in md
    assert "rho_nav" in md and "blind spots: steps per question saved against B1" in md


def test_report_run_again_on_the_demo_keeps_its_probe_table(demo, tmp_path, capsys):
    """The demo's probe table sits next to the run folder; ``kbgym report --run DEMO/train``
    written again (and from a moved copy) must not drop it."""
    import json
    import shutil

    from kbgym.cli import main

    out, _ = demo
    copy = tmp_path / "demo"
    shutil.copytree(out, copy)
    before = json.loads((copy / "train" / "report.json").read_text(encoding="utf-8"))
    assert before["probe_table"] and before["probe_table_source"] == "../probe_table.json"
    assert main(["report", "--run", str(copy / "train")]) == 0
    after = json.loads((copy / "train" / "report.json").read_text(encoding="utf-8"))
    assert after["probe_table"] == before["probe_table"]
    assert "rho_nav" in capsys.readouterr().out
    (copy / "probe_table.json").unlink()  # gone: the table the report held is kept
    assert main(["report", "--run", str(copy / "train")]) == 0
    again = json.loads((copy / "train" / "report.json").read_text(encoding="utf-8"))
    assert again["probe_table"] == before["probe_table"]


def test_demo_is_byte_deterministic(tmp_path):
    # A smaller demo than the fixture's (the directions need its size, determinism does not):
    # every stage still runs, two epochs, the exams, the navigator and the probe table.
    small = dict(n_people=120, train_size=20, per_group=10, plots=False, say=lambda *a: None)
    run_demo(tmp_path, **small)
    a = _tree(tmp_path)
    assert "train/kb_epoch_2.json" in a and "probe_table.json" in a
    run_demo(tmp_path, **small)  # the same directory again: snapshots record the universe's path
    b = _tree(tmp_path)
    assert a.keys() == b.keys()
    assert [k for k in a if a[k] != b[k]] == []


def test_noop_curator_changes_nothing(tmp_path):
    from kbgym.library.graph import Library
    from kbgym.library.snapshot import load_snapshot
    from kbgym.worlds.people import UniverseConfig, generate

    res = run_demo(tmp_path, n_people=120, train_size=20, per_group=10, curator="scripted-noop",
                   plots=False, say=lambda *a: None)
    for g, cells in res["table"]["groups"].items():
        c = cells["all"]["trained"]
        if c["n"]:
            assert c["rho"] == 1.0 and c["f1"] == cells["all"]["B1"]["f1"], g
    lib, _ = load_snapshot(tmp_path / "train" / "kb_epoch_2.json")
    b1 = Library.from_universe(generate(UniverseConfig(n_people=120)))
    assert lib.snapshot() == b1.snapshot()


def test_content_writer_helps_only_trained_questions(tmp_path):
    # slow (~5 s on CI): a whole demo; 200 people and 20 per group keep the rho bounds stable
    res = run_demo(tmp_path, n_people=200, train_size=40, per_group=20,
                   curator="scripted-content", plots=False, say=lambda *a: None)
    cell = {g: c["all"]["trained"] for g, c in res["table"]["groups"].items()}
    assert cell["exact"]["rho"] < 0.95
    for g in ("share2", "share1", "share0"):
        assert cell[g]["rho"] >= 0.97, g
