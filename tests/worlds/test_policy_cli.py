"""The policies world from the command line, end to end: build, train, probe make, exam with
repeats, the evidence graph over the trained library, drift and the drift report, replay;
and the demo's pipeline at a small size."""

from __future__ import annotations

import json

from kbgym.cli import main

from kbgym.runs.logs import read_jsonl


def test_the_whole_chain_from_the_command_line(tmp_path, capsys):
    u, run = str(tmp_path / "u.json"), str(tmp_path / "run")
    assert main(["build", "--world", "policies", "--documents", "40", "--sections", "8",
                 "--train", "40", "--test-in", "30", "--test-out", "10", "--eval-in", "6",
                 "--eval-out", "4", "--out", u]) == 0
    out = capsys.readouterr().out
    assert "documents=40" in out and "pl_affected" in out
    assert main(["train", "--universe", u, "--epochs", "1", "--train-size", "20", "--out",
                 run, "--quiet"]) == 0  # the family's curator by default
    assert "scripted-policy-index" in (tmp_path / "run" / "meta.json").read_text()
    assert main(["probe", "make", "--run", run, "--per-group", "12", "--out",
                 str(tmp_path / "probe.json")]) == 0
    probe = json.loads((tmp_path / "probe.json").read_text())
    assert probe["variant"] == "policies" and set(probe["splits"]) == {"exact", "share1",
                                                                      "share0"}
    exam = str(tmp_path / "exam")
    assert main(["test", "--universe", u, "--library", f"{run}/kb_epoch_1.json", "--questions",
                 str(tmp_path / "probe.json"), "--split", "exact,share1,share0", "--m", "3",
                 "--repeats", "2", "--out", exam]) == 0
    assert "jaccard=" in capsys.readouterr().out
    rows = read_jsonl(f"{exam}/test_log.jsonl")
    assert {r["repeat"] for r in rows} == {0, 1} and all("evidence" in r for r in rows)
    ev = str(tmp_path / "ev")
    assert main(["baseline", "evidence", "--universe", u, "--library",
                 f"{run}/kb_epoch_1.json", "--out", ev, "--quiet"]) == 0
    assert main(["test", "--universe", u, "--library", f"{ev}/kb_evidence.json",
                 "--reader", "scripted-policy-reader-evidence", "--toolset", "evidence",
                 "--typed-links", "--split", "test_in", "--m", "3", "--out",
                 str(tmp_path / "exam_ev"), "--quiet"]) == 0
    assert main(["replay", "--run", run, "--verify", f"{run}/kb_epoch_1.json"]) == 0
    # drift: new editions, bulletins and endorsements; the trained library carried over
    u2 = str(tmp_path / "u2.json")
    assert main(["drift", "--universe", u, "--changes", "6", "--seed", "2", "--out", u2]) == 0
    assert "edition=" in capsys.readouterr().out
    assert main(["test", "--universe", u2, "--library", f"{run}/kb_epoch_1.json", "--split",
                 "test_in,train", "--out", str(tmp_path / "exam2"), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["drift-report", "--universe", u2, "--test",
                 f"trained={tmp_path / 'exam2'}"]) == 0
    assert "drifted n=" in capsys.readouterr().out


def test_demo_pipeline_small(tmp_path):
    from kbgym.runs.demo import run_demo

    out = run_demo(tmp_path / "demo", world="policies", train_size=15, epochs=1, per_group=9,
                   curve_every=100, plots=False, say=lambda *a: None)
    table = out["table"]["groups"]
    assert set(table) >= {"exact", "share1", "share0"}
    assert {"B1", "trained", "trained+graph", "prior"} <= set(table["exact"]["all"])


def test_a_sweep_over_a_policies_world(tmp_path):
    from kbgym.sweep import sweep
    from kbgym.sweep.run import RESULT

    grid = tmp_path / "grid.yaml"
    grid.write_text("""\
seeds: [0]
universes: [{world: policies, documents: 40, sections: 8, sizes: [30, 10, 10], eval_sizes: [4, 4]}]
envs: [{m: 3}]
curators: [scripted-policy-index]
readers: [scripted-policy-reader]
train: {epochs: 1, train_size: 12, snapshot_every: 100}
probe: {per_group: 6, resamples: 200}
baselines: [evidence]
curve_every: 0
""", encoding="utf-8")
    sweep(grid, tmp_path / "out", executor="serial")
    (result,) = (tmp_path / "out" / "runs").glob(f"*/{RESULT}")
    res = json.loads(result.read_text())
    assert res["arms"] == ["B1", "trained", "EVIDENCE"]
    assert set(res["probe"]["groups"]) == {"exact", "share1", "share0"}
