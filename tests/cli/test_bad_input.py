"""The command line refuses bad input in one line: exit 2, no traceback, the flag or file
named, nothing written. Runs ``kbgym.cli.main`` in-process (fast) over >150 cases."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from kbgym.cli import main
from kbgym.jsonio import write_canonical
from kbgym.runs.probe import make_probe_from_run
from kbgym.runs.train import TrainConfig, train
from kbgym.universe import UniverseConfig, generate

HERE = Path(__file__).resolve().parent
PW_SRC = HERE.parent / "adapters" / "data" / "phantomwiki_seed1"
CORPUS = HERE.parent.parent / "examples" / "corpus"
sys.path.insert(0, str(HERE.parent / "runs"))
import toy_agents  # noqa: E402

SMALL = dict(n_people=60, n_cities=8, sizes=(40, 30, 20), eval_sizes=(10, 6))


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A universe file, a trained run, a probe and two exams; then the bad files."""
    w = tmp_path_factory.mktemp("world")
    u = generate(UniverseConfig(**SMALL))
    (w / "u.json").write_text(u.dumps(), encoding="utf-8")
    (w / "u_seed1.json").write_text(generate(UniverseConfig(seed=1, **SMALL)).dumps(),
                                    encoding="utf-8")
    train(u, toy_agents.ToyTrainer(), w / "run", config=TrainConfig(
        epochs=1, train_size=6, snapshot_every=3), universe_path=str(w / "u.json"))
    write_canonical(w / "probe.json", make_probe_from_run(u, w / "run", per_group=2))
    splits = ",".join(json.loads((w / "probe.json").read_text())["splits"])
    for name, m in (("exam_b1", "15"), ("exam_m4", "4")):
        assert main(["test", "--universe", str(w / "u.json"), "--questions",
                     str(w / "probe.json"), "--split", splits, "--m", m, "--out",
                     str(w / name), "--quiet"]) == 0
    assert main(["test", "--universe", str(w / "u.json"), "--questions", str(w / "probe.json"),
                 "--split", splits, "--reader", "prior", "--out", str(w / "exam_prior"),
                 "--quiet"]) == 0
    shutil.copytree(w / "exam_b1", w / "exam_twice")
    assert main(["test", "--universe", str(w / "u.json"), "--questions", str(w / "probe.json"),
                 "--split", splits, "--out", str(w / "exam_twice_2"), "--epoch", "x",
                 "--quiet"]) == 0
    with open(w / "exam_twice" / "test_log.jsonl", "a", encoding="utf-8") as fh:
        fh.write((w / "exam_twice_2" / "test_log.jsonl").read_text(encoding="utf-8"))
    (w / "exam_twice" / "test_meta.json").unlink()
    (w / "exam_empty").mkdir()
    # bad files, each a kind of mistake
    bad = {
        "empty.json": "", "list.json": "[]", "obj.json": "{}", "nums.json": "[1,2]",
        "text.json": "not json", "null.json": "null", "str.json": '"universe"',
        "binary.json": b"\xff\xfe\x00garbage", "kind.json": '{"kind": "kbgym.snapshot"}',
        "probe_list.json": '{"kind": "kbgym.probe", "questions": [1, 2], "splits": {}}',
        "probe_splits.json": '{"kind": "kbgym.probe", "questions": [], "splits": {"a": [1]}}',
        "probe_other.json": json.dumps({"kind": "kbgym.probe", "universe_hash": "sha256:0",
                                        "questions": [], "splits": {}}),
    }
    for name, text in bad.items():
        (w / name).write_bytes(text if isinstance(text, bytes) else text.encode())
    for name, articles, questions in (("pw_empty", "[]", "[]"), ("pw_garbage", "garbage", "[]"),
                                      ("pw_shape", '[{"title": 3}]', "[1]"),
                                      ("pw_object", '{"x": 1}', "{}")):
        (w / name).mkdir()
        (w / name / "articles.json").write_text(articles)
        (w / name / "questions.json").write_text(questions)
    snap = json.loads((w / "run" / "kb_epoch_1.json").read_text())
    snap["universe"] = {"path": None, "hash": None}
    write_canonical(w / "snap_nohash.json", snap)
    snap["content_hash"] = "sha256:" + "0" * 64
    write_canonical(w / "snap_tampered.json", snap)
    for name, meta in (("meta_empty", {}), ("meta_list", []), ("meta_nouni", {"run_id": "r"})):
        (w / name).mkdir()
        (w / name / "meta.json").write_text(json.dumps(meta))
        shutil.copy(w / "run" / "trace.jsonl", w / name / "trace.jsonl")
    for name, rows in (("trace_nonobj", ["[1,2]", "3"]), ("trace_fields", ['{"kind":"train"}'])):
        shutil.copytree(w / "run", w / name)
        (w / name / "trace.jsonl").write_text("\n".join(rows) + "\n")
    return w


def tree(d: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(d)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(d.rglob("*")) if p.is_file()}


U, U1, RUN, PROBE = "{w}/u.json", "{w}/u_seed1.json", "{w}/run", "{w}/probe.json"

NUMERIC = {  # command prefix -> [(flag, bad values)]
    ("build",): [("--seed", ["-1", "x", "1.5"]), ("--people", ["0", "5", "1000000000", "x"]),
                 ("--distractors", ["-0.1", "1.5", "nan", "inf"]),
                 ("--friend-degree", ["inf", "nan", "-1", "1e9"]),
                 ("--cities", ["0", "-3", "1000000000"]), ("--hard-frac", ["2", "nan"]),
                 ("--train", ["-1", "x"]), ("--test-in", ["-5"]), ("--test-out", ["1e3"]),
                 ("--eval-in", ["-1"]), ("--eval-out", ["10000000"]),
                 ("--children", ["5-2", "x", "0-21", "-1", "1-x"]),
                 ("--common-jobs", ["-1", "51", "x"]), ("--common-job-share", ["1.5", "nan"])],
    ("train", "--out", "{w}/new"): [
        ("--epochs", ["0", "-1", "x", "1001"]), ("--train-size", ["0", "-2", "2.5"]),
        ("--seed", ["-1", "abc"]), ("--n1", ["0", "-1", "1000001"]), ("--n2", ["0", "x"]),
        ("--m", ["0", "-4"]), ("--snapshot-every", ["0", "-1"]),
        ("--dedup-threshold", ["1.5", "-1", "nan"])],
    ("test", "--universe", U, "--out", "{w}/new"): [
        ("--m", ["0", "-1", "x", "10000000"]), ("--limit", ["0", "-1", "x"]),
        ("--max-concurrent", ["0", "-1", "5000"]), ("--repeats", ["0", "-1", "101", "x"]),
        ("--seed", ["-1", "x"])],
    ("probe", "make", "--run", RUN, "--out", "{w}/new.json"): [
        ("--per-group", ["0", "-1", "x", "100000"]), ("--seed", ["-1", "x"])],
    ("probe", "table", "--probe", PROBE, "--arm", "B1={w}/exam_b1"): [
        ("--resamples", ["0", "-1", "1000000000", "x"]), ("--delta", ["-0.1", "2", "nan"])],
    ("drift", "--universe", U, "--out", "{w}/new.json"): [
        ("--changes", ["-1", "x", "1000000"]), ("--seed", ["-1", "x"])],
    ("import", "corpus", "--docs", str(CORPUS / "docs"), "--questions",
     str(CORPUS / "questions.jsonl"), "--out", "{w}/new.json"): [
        ("--seed", ["-1"]), ("--train", ["-1", "x"]), ("--eval-out", ["2000000"])],
    ("replay", "--run", RUN): [("--at", ["-1", "x", "1.5"])],
    ("serve",): [("--port", ["0", "70000", "x"]), ("--reward-k", ["-1", "x"]),
                 ("--max-sessions", ["0", "-1"])],
    ("demo", "--out", "{w}/new"): [("--epochs", ["0", "-1"]), ("--train-size", ["0"]),
                                   ("--per-group", ["0", "-3"]), ("--seed", ["-1"])],
    ("baseline", "b2", "--out", "{w}/new"): [("--max-size", ["0", "-1", "x"])],
    ("baseline", "b3", "--out", "{w}/new"): [("--synapse-cap", ["-1", "x"])],
    ("baseline", "b4", "--out", "{w}/new"): [("--branching", ["1", "0", "x"])],
    ("adapt", "phantomwiki", "--src", str(PW_SRC), "--out", "{w}/new.json"): [
        ("--seed", ["-1", "x"]), ("--train", ["-1"]), ("--eval-out", ["x"])],
    ("adapt", "phantomwiki-probe", "--universe", U, "--run", RUN, "--out", "{w}/new.json"): [
        ("--per-template", ["0", "-1", "x"]), ("--seed", ["-2"])],
}

CASES: list[tuple[list[str], str]] = []
for prefix, flags in NUMERIC.items():
    for flag, values in flags:
        for value in values:
            CASES.append(([*prefix, flag, value], f"argument {flag}"))

UNIVERSE_FILES = ["missing.json", "empty.json", "list.json", "obj.json", "nums.json",
                  "text.json", "null.json", "str.json", "binary.json", "kind.json",
                  "probe.json", "run"]
for f in UNIVERSE_FILES:
    CASES += [
        (["train", "--universe", f"{{w}}/{f}", "--out", "{w}/new"], f),
        (["test", "--universe", f"{{w}}/{f}"], f),
        (["probe", "make", "--run", RUN, "--universe", f"{{w}}/{f}", "--out", "{w}/new.json"],
         f),
        (["report", "--run", RUN, "--universe", f"{{w}}/{f}"], f),
        (["baseline", "b3", "--universe", f"{{w}}/{f}", "--out", "{w}/new"], f),
    ]
for f in ["missing.json", "empty.json", "list.json", "nums.json", "obj.json", "text.json",
          "kind.json", "probe_list.json", "probe_splits.json", "probe_other.json"]:
    CASES.append((["test", "--universe", U, "--questions", f"{{w}}/{f}", "--split", "exact"], f))
    CASES.append((["probe", "table", "--probe", f"{{w}}/{f}", "--arm", "B1={w}/exam_b1"], f))
for f in ["missing.json", "empty.json", "list.json", "obj.json", "text.json", "binary.json",
          "snap_tampered.json", "probe.json"]:
    CASES.append((["test", "--universe", U, "--library", f"{{w}}/{f}"], f))
CASES += [
    # snapshots and universes that do not belong together
    (["test", "--universe", U1, "--library", f"{RUN}/kb_epoch_1.json"], "kb_epoch_1.json"),
    (["test", "--universe", U1, "--library", "{w}/snap_nohash.json"], "snap_nohash.json"),
    (["test", "--universe", U1, "--questions", PROBE, "--split", "exact"], "probe.json"),
    (["probe", "make", "--run", RUN, "--universe", U1, "--out", "{w}/new.json"], "universe"),
    (["report", "--run", RUN, "--universe", U1], "universe"),
    (["replay", "--run", RUN, "--universe", U1], "universe"),
    (["test", "--universe", U1, "--out", RUN], RUN),
    # meta.json and trace rows
    *[([cmd, "--run", f"{{w}}/{d}"], "meta.json") for cmd in ("report", "replay", "plot")
      for d in ("meta_empty", "meta_list", "meta_nouni")],
    (["probe", "make", "--run", "{w}/meta_empty", "--out", "{w}/new.json"], "meta.json"),
    (["test", "--universe", U, "--out", "{w}/meta_list"], "meta.json"),
    (["replay", "--run", "{w}/trace_nonobj"], "trace.jsonl"),
    (["replay", "--run", "{w}/trace_fields"], "trace.jsonl"),
    (["replay", "--all-epochs", "{w}/trace_fields"], "trace.jsonl"),
    # run directories that are not there
    (["plot", "--run", "{w}/missing_dir"], "missing_dir"),
    (["report", "--run", "{w}/missing_dir"], "missing_dir"),
    (["replay", "--run", "{w}/missing_dir"], "missing_dir"),
    (["probe", "make", "--run", "{w}/missing_dir", "--out", "{w}/new.json"], "missing_dir"),
    (["replay"], "--run"),
    # agents
    (["train", "--agent", "os:getcwd", "--out", "{w}/new"], "os:getcwd"),
    (["train", "--agent", "no_such_module:make", "--out", "{w}/new"], "no_such_module"),
    (["train", "--agent", "os:no_such_attr", "--out", "{w}/new"], "os:no_such_attr"),
    (["train", "--agent", "os:sep", "--out", "{w}/new"], "os:sep"),
    (["train", "--agent", "nope", "--out", "{w}/new"], "nope"),
    (["test", "--universe", U, "--reader", "json:dumps", "--limit", "1"], "json:dumps"),
    (["test", "--universe", U, "--reader", "nope"], "nope"),
    # exams and tables that would mix things
    (["test", "--universe", U, "--split", "nope"], "nope"),
    (["test", "--universe", U, "--split", "test_in", "--out", "{w}/exam_b1"], "exam_b1"),
    (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/exam_b1", "--arm",
      "short={w}/exam_m4"], "budgets"),
    (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/exam_b1", "--arm", "x={w}/nope"],
     "nope"),
    (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/exam_b1", "--arm",
      "e={w}/exam_empty"], "exam_empty"),
    (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/exam_twice"], "exam_twice"),
    (["probe", "table", "--probe", PROBE, "--arm", "B1"], "--arm"),
    (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/exam_b1", "--arm",
      "B1={w}/exam_m4"], "--arm B1"),
    (["probe", "table", "--probe", PROBE, "--arm", "x={w}/exam_b1"], "--base"),
    # report, plot and table inputs: probe tables and price tables
    *[([*cmd, flag, f"{{w}}/{f}"], f)
      for cmd, flag in ((["report", "--run", RUN], "--probe-table"),
                        (["report", "--run", RUN], "--prices"),
                        (["plot", "--run", RUN, "--out", "{w}/new"], "--probe-table"),
                        (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/exam_b1"],
                         "--prices"))
      for f in ("missing.json", "empty.json", "list.json", "text.json")],
    # source drift
    *[(["drift", "--universe", f"{{w}}/{f}", "--changes", "1", "--out", "{w}/new.json"], f)
      for f in ("missing.json", "empty.json", "list.json", "text.json", "probe.json")],
    *[(["drift-report", "--universe", f"{{w}}/{f}"], f)
      for f in ("missing.json", "list.json", "text.json")],
    (["drift-report", "--universe", U, "--test", "B1={w}/exam_b1"], "drifted"),
    (["drift-report", "--universe", U, "--test", "B1"], "--test"),
    (["drift-report", "--universe", U, "--test", "x={w}/missing_dir"], "missing_dir"),
    (["drift-report", "--universe", U, "--run", "{w}/missing_dir"], "missing_dir"),
    # a training run from a given library
    *[(["train", "--universe", U, "--resume-from-library", f"{{w}}/{f}", "--out", "{w}/new"], f)
      for f in ("missing.json", "empty.json", "list.json", "text.json", "snap_tampered.json",
                "probe.json")],
    (["train", "--universe", U1, "--resume-from-library", f"{RUN}/kb_epoch_1.json", "--out",
      "{w}/new"], "kb_epoch_1.json"),
    # your own documents
    (["import", "corpus", "--docs", "{w}/missing_dir", "--questions",
      str(CORPUS / "questions.jsonl"), "--out", "{w}/new.json"], "missing_dir"),
    *[(["import", "corpus", "--docs", str(CORPUS / "docs"), "--questions", f"{{w}}/{f}",
        "--out", "{w}/new.json"], f) for f in ("missing.json", "list.json", "text.json")],
    (["adapt", "phantomwiki-probe", "--universe", U, "--run", RUN, "--stratify", "x", "--out",
      "{w}/new.json"], "--stratify"),
    # PhantomWiki
    (["adapt", "phantomwiki", "--src", "{w}/missing_dir", "--out", "{w}/new.json"],
     "missing_dir"),
    (["adapt", "phantomwiki", "--src", "{w}/exam_empty", "--out", "{w}/new.json"],
     "exam_empty"),
    (["adapt", "phantomwiki-probe", "--universe", U, "--run", RUN, "--out", "{w}/new.json"],
     "u.json"),
    *[(["adapt", "phantomwiki", "--src", f"{{w}}/{d}", "--out", "{w}/new.json"], "articles.json")
      for d in ("pw_empty", "pw_garbage", "pw_shape", "pw_object")],
    (["build", "--config", "{w}/missing.yaml"], "missing.yaml"),
    (["build", "--config", "{w}/list.json"], "list.json"),
]


def test_the_prior_arm_joins_a_table_whatever_its_reader_and_budget(world, capsys):
    """The prior arm reads nothing (one step, reader 'prior'): it is exempt from the
    same-reader/budget check, not from the same-probe one."""
    argv = ["probe", "table", "--probe", str(world / "probe.json"), "--resamples", "50",
            "--arm", f"B1={world}/exam_b1", "--arm", f"prior={world}/exam_prior"]
    assert main(argv) == 0
    assert "prior" in capsys.readouterr().out
    # a real reader at another budget is still refused next to it
    assert main([*argv, "--arm", f"short={world}/exam_m4"]) == 2
    assert "budgets" in capsys.readouterr().err


def test_there_are_enough_cases():
    assert len(CASES) >= 150


@pytest.mark.parametrize("argv, needle", CASES, ids=[" ".join(a)[:80] for a, _ in CASES])
def test_bad_input_is_one_line_exit_2_nothing_written(world, tmp_path, monkeypatch, capsys,
                                                      argv, needle):
    monkeypatch.chdir(tmp_path)
    argv = [a.replace("{w}", str(world)) for a in argv]
    needle = needle.replace("{w}", str(world))
    before = tree(world)
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse
        code = exit_.code
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert needle in lines[0], err
    assert tree(world) == before, "something was written"
    assert not list(tmp_path.iterdir()), "something was written in the working directory"


def _actions(parser, path=()):
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _actions(sub, (*path, name))
        elif not isinstance(action, argparse._HelpAction):
            yield path, action


def test_every_flag_has_help_and_every_number_a_range():
    from kbgym.cli import build_parser

    found = list(_actions(build_parser()))
    assert len(found) > 80
    for path, action in found:
        where = " ".join(path) + " " + "/".join(action.option_strings or [action.dest])
        assert action.help, f"no help text: {where}"
        assert action.type not in (int, float), f"a number without a range: {where}"
