"""The command line refuses bad input in one line: exit 2, no traceback, the flag or file
named, nothing written. Runs ``kbgym.cli.main`` in-process (fast) over >150 cases."""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
from pathlib import Path

import pytest

from kbgym.cli import main
from kbgym.jsonio import write_canonical
from kbgym.runs.probe import make_probe_from_run
from kbgym.runs.train import TrainConfig, train
from kbgym.worlds.people import UniverseConfig, generate

HERE = Path(__file__).resolve().parent
PW_SRC = HERE.parent / "adapters" / "data" / "phantomwiki_seed1"
CORPUS = HERE.parent.parent / "examples" / "corpus"
sys.path.insert(0, str(HERE.parent / "runs"))
import toy_agents  # noqa: E402

SMALL = dict(n_people=60, n_cities=8, sizes=(40, 30, 20), eval_sizes=(10, 6))


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    w = make_world(tmp_path_factory.mktemp("world"))
    with held_lock(w / "locked"):  # a folder another process is writing
        yield w


def make_world(w: Path) -> Path:
    """A universe file, a trained run, a probe and two exams; then the bad files."""
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
    make_more(w, u)
    make_safety(w)
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
    ("build", "--world", "policies"): [("--documents", ["19", "x", "100001"]),
                                       ("--sections", ["1", "19", "x"]),
                                       ("--world", ["planets"])],
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
    (["test", "--universe", U, "--out", "{w}/meta_list"], "training run's folder"),
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
    # flags of the other world
    (["build", "--world", "policies", "--people", "60", "--out", "{w}/new.json"], "--people"),
    (["build", "--documents", "40", "--out", "{w}/new.json"], "--documents"),
    (["baseline", "evidence", "--universe", U, "--out", "{w}/new"], "policies"),
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


# -- round two: every surface (run folders, logs, YAML/JSON files, corpus files, sweeps) ---------

@contextlib.contextmanager
def held_lock(d: Path):
    """Hold ``d``'s writer lock from this process, as another kbgym process would."""
    import fcntl

    d.mkdir(exist_ok=True)
    with open(d / ".kbgym.lock", "a+", encoding="utf-8") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        yield


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def _tampered_run(w: Path, name: str, change) -> None:
    """A copy of the trained run whose logs ``change(dir)`` alters."""
    shutil.copytree(w / "run", w / name)
    change(w / name)


def _edit_line(path: Path, index: int, old: str, new: str) -> None:
    lines = _lines(path)
    assert old in lines[index], (path, index, old)
    lines[index] = lines[index].replace(old, new, 1)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _first(path: Path, action: str) -> int:
    return next(i for i, line in enumerate(_lines(path)) if f'"action":"{action}"' in line
                and '"phase":2' in line)


def _sparse(path: Path, size: int) -> None:
    """A file of ``size`` zero bytes that takes no disk (for size limits)."""
    with open(path, "wb") as fh:
        fh.truncate(size)


BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}]\n" for i in range(8))
DEEP_YAML = "universe: " + "[" * 200 + "]" * 200 + "\n"
GRID = ("seeds: [0]\nuniverses: [{n_people: 60, n_cities: 8, sizes: [30, 10, 10], "
        "eval_sizes: [4, 4]}]\ncurators: [scripted-noop]\nreaders: [scripted-reader]\n"
        "train: {epochs: 1, train_size: 4, snapshot_every: 4}\n"
        "probe: {per_group: 2, resamples: 100}\ncurve_every: 0\n")
QUESTION = '{"question": "Where is the lighthouse?", "answers": ["Gull Island"]}'


def make_more(w: Path, u) -> None:
    """The round-two bad inputs (``make_world`` calls it)."""
    run, trace, log = w / "run", w / "run" / "trace.jsonl", w / "run" / "train_log.jsonl"
    # -- tampered logs: each a different kind of damage ----------------------------------
    add = _first(trace, "add")
    _tampered_run(w, "t_flip", lambda d: _edit_line(d / "trace.jsonl", add, '"result":"added s',
                                                    '"result":"added t'))
    _tampered_run(w, "t_last", lambda d: _edit_line(
        d / "trace.jsonl", len(_lines(trace)) - 1, '"phase":2', '"phase":1'))
    def cut(d):  # noqa: E306
        data = (d / "trace.jsonl").read_bytes()
        (d / "trace.jsonl").write_bytes(data[: len(data) // 2])
    _tampered_run(w, "t_cut", cut)
    def cut_rows(d):  # noqa: E306
        lines = _lines(d / "trace.jsonl")
        (d / "trace.jsonl").write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    _tampered_run(w, "t_cut_rows", cut_rows)
    def swap(d):  # noqa: E306
        lines = _lines(d / "trace.jsonl")
        lines[3], lines[4] = lines[4], lines[3]
        (d / "trace.jsonl").write_text("\n".join(lines) + "\n")
    _tampered_run(w, "t_swap", swap)
    def drop(d):  # noqa: E306
        lines = _lines(d / "trace.jsonl")
        del lines[5]
        (d / "trace.jsonl").write_text("\n".join(lines) + "\n")
    _tampered_run(w, "t_drop", drop)
    def dup(d):  # noqa: E306
        lines = _lines(d / "trace.jsonl")
        lines.insert(6, lines[6])
        (d / "trace.jsonl").write_text("\n".join(lines) + "\n")
    _tampered_run(w, "t_dup", dup)
    def unchain(d):  # noqa: E306
        rows = [json.loads(x) for x in _lines(d / "trace.jsonl")]
        (d / "trace.jsonl").write_text("".join(json.dumps({k: v for k, v in r.items()
                                                           if k != "chain"}) + "\n"
                                               for r in rows))
    _tampered_run(w, "t_unchained", unchain)
    def strip_one(d):  # noqa: E306
        lines = _lines(d / "trace.jsonl")
        r = json.loads(lines[2])
        del r["chain"]
        lines[2] = json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        (d / "trace.jsonl").write_text("\n".join(lines) + "\n")
    _tampered_run(w, "t_mixed", strip_one)
    _tampered_run(w, "t_log", lambda d: _edit_line(d / "train_log.jsonl", 1, '"iteration":2',
                                                   '"iteration":9'))
    _tampered_run(w, "t_series", lambda d: _edit_line(d / "series.jsonl", 2, '"n_nodes":',
                                                      '"n_nodes":1'))
    _tampered_run(w, "t_anchor", lambda d: _edit_line(d / "train_log.jsonl", len(_lines(log)) - 1,
                                                      '"trace_head":"', '"trace_head":"0'))
    # -- run folders ---------------------------------------------------------------------
    (w / "run_norows").mkdir()
    shutil.copy(run / "meta.json", w / "run_norows" / "meta.json")
    (w / "run_norows" / "train_log.jsonl").write_text("")
    (w / "u_notrain.json").write_text(generate(UniverseConfig(
        **{**SMALL, "sizes": (0, 30, 20)})).dumps(), encoding="utf-8")
    # -- exam folders and their test_meta.json ---------------------------------------------
    meta = json.loads((w / "exam_b1" / "test_meta.json").read_text())
    for name, change in (("x_nometa", None), ("x_no_m", "m"), ("x_no_hash", "questions_hash"),
                         ("x_reader", "model"), ("x_meta_text", "text"),
                         ("x_meta_list", "list"), ("x_meta_deep", "deep")):
        shutil.copytree(w / "exam_b1", w / name)
        path = w / name / "test_meta.json"
        if change is None:
            path.unlink()
        elif change == "text":
            path.write_text("not json")
        elif change == "list":
            path.write_text("[]")
        elif change == "deep":
            path.write_text("[" * 100 + "]" * 100)
        elif change == "model":
            write_canonical(path, {**meta, "model": "another-reader"})
        else:
            write_canonical(path, {k: v for k, v in meta.items() if k != change})
    shutil.copytree(w / "exam_b1", w / "x_log")
    _edit_line(w / "x_log" / "test_log.jsonl", 1, '"f1":', '"f1":1')
    # -- YAML config files -----------------------------------------------------------------
    configs = {
        "c_bomb.yaml": BOMB, "c_alias.yaml": "universe: &u {n_people: 60}\nother: *u\n",
        "c_deep.yaml": DEEP_YAML, "c_dup.yaml": "universe: {n_people: 60}\nuniverse: {}\n",
        "c_people.yaml": "universe: {n_people: 1000000000}\n",
        "c_true.yaml": "universe: {n_people: true}\n",
        "c_string.yaml": "universe: {n_people: '500'}\n",
        "c_sizes.yaml": "universe: {sizes: [1, 2]}\n", "c_seed.yaml": "universe: {seed: -1}\n",
        "c_inf.yaml": "universe: {friend_degree: .inf}\n",
        "c_nan.yaml": "universe: {distractor_frac: .nan}\n",
        "c_tag.yaml": "universe: !!python/object/apply:os.system ['echo hi']\n",
        "c_null.yaml": "universe:\n", "c_list.yaml": "- universe\n",
        "c_key.yaml": "universe: {n_peple: 60}\n", "c_top.yaml": "universes: {}\n",
        "c_digits.yaml": "universe: {seed: " + "9" * 5000 + "}\n",
        "c_children.yaml": "universe: {children_per_couple: [5, 2]}\n",
        "c_share.yaml": "universe: {common_jobs: 51}\n", "c_ok.yaml": "universe: {}\n",
    }
    for name, text in configs.items():
        (w / name).write_text(text, encoding="utf-8")
    (w / "c_big.yaml").write_text("universe: {}\n" + "#" * (2 << 20) + "\n")
    (w / "c_binary.yaml").write_bytes(b"universe: \xff\xfe\x00")
    (w / "c_dir.yaml").mkdir()
    # -- sweep grids -------------------------------------------------------------------------
    grids = {
        "g_bomb.yaml": GRID + BOMB.replace("a:", "x_a:", 1),
        "g_options_alias.yaml": GRID.replace("curators: [scripted-noop]",
                                             "curators: [{name: scripted-random, options: "
                                             "{seed: &s 1, again: *s}}]"),
        "g_options_deep.yaml": GRID.replace("curators: [scripted-noop]", "curators: [{name: "
                                            "scripted-random, options: {x: " + "[" * 60
                                            + "]" * 60 + "}}]"),
        "g_runs.yaml": GRID.replace("seeds: [0]", "seeds: [" + ", ".join(map(str, range(1000)))
                                    + "]").replace("curators: [scripted-noop]",
                                                   "curators: [" + ", ".join(
                                                       ["scripted-noop"] * 1000) + "]"),
        "g_epochs.yaml": GRID.replace("epochs: 1", "epochs: 1000000000"),
        "g_resamples.yaml": GRID.replace("resamples: 100", "resamples: 1000000000"),
        "g_people.yaml": GRID.replace("n_people: 60", "n_people: 1000000000"),
        "g_delta.yaml": GRID.replace("resamples: 100", "resamples: 100, delta: 5"),
        "g_per_group.yaml": GRID.replace("per_group: 2", "per_group: 0"),
        "g_curve.yaml": GRID.replace("curve_every: 0", "curve_every: -1"),
        "g_seed.yaml": GRID.replace("seeds: [0]", "seeds: [-1]"),
        "g_seed_bool.yaml": GRID.replace("seeds: [0]", "seeds: [true]"),
        "g_seed_str.yaml": GRID.replace("seeds: [0]", "seeds: ['0']"),
        "g_random_seed.yaml": GRID.replace("curators: [scripted-noop]", "curators: [{name: "
                                           "scripted-random, options: {seed: -1}}]"),
        "g_option.yaml": GRID.replace("curators: [scripted-noop]", "curators: [{name: "
                                      "scripted-index, options: {temprature: 0.2}}]"),
        "g_reader_option.yaml": GRID.replace("readers: [scripted-reader]", "readers: [{name: "
                                             "scripted-reader, options: {x: 1}}]"),
        "g_baseline_param.yaml": GRID + "baselines: [{name: b3, params: {max_size: 5}}]\n",
        "g_baseline_range.yaml": GRID + "baselines: [{name: b2, params: {max_size: 0}}]\n",
        "g_env_m.yaml": GRID + "envs: [{m: 10000000}]\n",
        "g_env_bool.yaml": GRID + "envs: [{typed_links: 'yes'}]\n",
        "g_env_key.yaml": GRID + "envs: [{nope: 1}]\n",
        "g_train_size.yaml": GRID.replace("train_size: 4", "train_size: 0"),
        "g_snapshot.yaml": GRID.replace("snapshot_every: 4", "snapshot_every: 10000000"),
        "g_universe_file.yaml": GRID.replace("universes: [{n_people: 60, n_cities: 8, sizes: "
                                             "[30, 10, 10], eval_sizes: [4, 4]}]",
                                             "universes: [no_such_config.yaml]"),
        "g_dup.yaml": GRID + "seeds: [1]\n",
        "g_tag.yaml": GRID + "x: !!python/name:os.system\n",
        "g_list.yaml": "- " + GRID.replace("\n", "\n  "),
    }
    for name, text in grids.items():
        (w / name).write_text(text, encoding="utf-8")
    (w / "g_big.yaml").write_text(GRID + "#" * (2 << 20) + "\n")
    (w / "g_binary.yaml").write_bytes(GRID.encode() + b"\xff\xfe")
    (w / "g_ok.yaml").write_text(GRID, encoding="utf-8")
    (w / "sweep_done").mkdir()
    # -- price tables and probe tables ---------------------------------------------------
    (w / "p_alias.yaml").write_text("'*': &p {in: 1, out: 1}\nm: *p\n")
    (w / "p_neg.json").write_text('{"*": {"in": -1, "out": 1}}')
    (w / "p_nan.json").write_text('{"*": {"in": NaN, "out": 1}}')
    (w / "p_dup.json").write_text('{"*": {"in": 1, "out": 1}, "*": {"in": 2, "out": 2}}')
    (w / "p_big.json").write_text('{"*": {"in": 1, "out": 1}}' + " " * (2 << 20))
    (w / "p_field.json").write_text('{"*": {"in": 1, "out": 1, "cache": 0}}')
    (w / "pt_deep.json").write_text('{"groups": ' + "[" * 100 + "]" * 100 + "}")
    # -- JSON files of every kind: deep, huge, garbage -------------------------------------
    (w / "deep_list.json").write_text("[" * 100_000 + "]" * 100_000)
    (w / "deep_obj.json").write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    _sparse(w / "huge.json", 3 << 30)  # over every size limit; takes no disk
    _sparse(w / "zeros.json", 20 << 20)  # NUL bytes: not JSON, refused at the first byte
    (w / "meta_deep").mkdir()
    (w / "meta_deep" / "meta.json").write_text("{" + '"a":{' * 100 + "}" * 101)
    (w / "meta_big").mkdir()
    _sparse(w / "meta_big" / "meta.json", 17 << 20)
    snap = (run / "kb_epoch_1.json").read_text()
    (w / "snap_cut.json").write_text(snap[: len(snap) // 2])
    # -- corpus documents -------------------------------------------------------------------
    docs = {"d_nul": "# A\n\nThe lighthouse\x00 is old.\n", "d_esc": "# A\n\nIt is \x1b[31mred.\n",
            "d_bidi": "# A\n\nThe keeper \u202eis Ines.\n", "d_zw": "# A\n\nThe\u200b keeper.\n",
            "d_bom_mid": "# A\n\nThe \ufeffkeeper.\n", "d_bell": "# A\n\nA bell\x07 rings.\n",
            "d_long": "# A\n\n" + "word " * 300 + "\n",
            "d_million": "# A\n\n" + "x" * 1_000_000 + "\n",
            "d_title": "# The \u202e title\n\nIt is a town.\n"}
    for name, text in docs.items():
        (w / name).mkdir()
        (w / name / "a.md").write_text(text, encoding="utf-8")
    (w / "d_big").mkdir()
    _sparse(w / "d_big" / "big.md", 17 << 20)
    (w / "d_latin1").mkdir()
    (w / "d_latin1" / "a.md").write_bytes("# Caf\xe9\n\nA caf\xe9.\n".encode("latin-1"))
    (w / "d_none").mkdir()
    (w / "d_none" / "a.json").write_text("{}")
    (w / "d_empty").mkdir()
    (w / "d_empty" / "a.md").write_text("# Only a title\n")
    # -- questions JSONL ----------------------------------------------------------------------
    qs = {
        "q_unanswerable.jsonl": '{"question": "Where?", "unanswerable": "false"}',
        "q_unanswerable_int.jsonl": '{"question": "Where?", "unanswerable": 1}',
        "q_category.jsonl": '{"question": "Where?", "answers": ["x"], "category": ["QC1"]}',
        "q_template.jsonl": '{"question": "Where?", "answers": ["x"], "template": 3}',
        "q_answers_int.jsonl": '{"question": "Where?", "answers": [1]}',
        "q_answers_obj.jsonl": '{"question": "Where?", "answers": {"a": 1}}',
        "q_null.jsonl": '{"question": null}', "q_missing.jsonl": '{"answers": ["x"]}',
        "q_both.jsonl": '{"question": "Where?", "text": "Where?"}',
        "q_both_answers.jsonl": '{"question": "Where?", "answers": ["x"], "answer": "y"}',
        "q_key.jsonl": '{"question": "Where?", "answr": ["x"]}',
        "q_support_str.jsonl": '{"question": "Where?", "answers": ["x"], "support": "s0001"}',
        "q_support_empty.jsonl": '{"question": "Where?", "answers": ["x"], "support": []}',
        "q_support_bad.jsonl": '{"question": "Where?", "answers": ["x"], "support": ["x.md:1"]}',
        "q_nul.jsonl": '{"question": "Where\\u0000?", "answers": ["x"]}',
        "q_long.jsonl": json.dumps({"question": "Where " * 200 + "?", "answers": ["x"]}),
        "q_answer_bidi.jsonl": '{"question": "Where?", "answers": ["\\u202ex"]}',
        "q_template_esc.jsonl": '{"question": "Where?", "answers": ["x"], "template": "t\\u001b"}',
        "q_category_long.jsonl": json.dumps({"question": "Where?", "category": "C" * 101}),
        "q_list.jsonl": "[1, 2]", "q_string.jsonl": '"Where?"',
        "q_second.jsonl": QUESTION + "\n{not json",
        "q_deep.jsonl": '{"question": "Where?", "support": ' + "[" * 100_000 + "]" * 100_000
                        + "}",
        "q_blank.jsonl": "\n\n   \n", "q_empty.jsonl": "",
    }
    for name, text in qs.items():
        (w / name).write_text(text + "\n", encoding="utf-8")
    (w / "q_binary.jsonl").write_bytes(b'{"question": "\xff"}\n')
    (w / "q_line.jsonl").write_text('{"question": "' + "x" * (2 << 20) + '"}\n')
    _sparse(w / "q_huge.jsonl", 300 << 20)
    (w / "q_ok.jsonl").write_text(QUESTION + "\n", encoding="utf-8")


W = "{w}"
DOCS, QS = str(CORPUS / "docs"), str(CORPUS / "questions.jsonl")
IMPORT = ["import", "corpus", "--out", "{w}/new.json"]
SWEEP_OUT = ["--out", "{w}/new_sweep", "--executor", "serial", "--quiet"]
TABLE = ["probe", "table", "--probe", PROBE, "--arm", "B1={w}/exam_b1"]
TAMPERED = {"t_flip": "row", "t_last": "trace", "t_cut": "trace", "t_cut_rows": "trace",
            "t_swap": "row", "t_drop": "row", "t_dup": "row", "t_unchained": "chain",
            "t_mixed": "chain", "t_log": "train_log.jsonl row", "t_anchor": "trace"}

NEW_CASES: list[tuple[list[str], str]] = [
    # run folders are never wiped by a missing flag
    (["train", "--universe", U, "--out", RUN], "--resume to continue it or --overwrite"),
    (["train", "--universe", U, "--out", "{w}/exam_b1"], "already holds a run"),
    (["train", "--universe", U, "--out", "{w}/sweep_done/../run"], "--overwrite"),
    (["train", "--universe", U, "--out", RUN, "--resume", "--overwrite"], "not allowed with"),
    (["train", "--universe", U, "--out", "{w}/exam_b1", "--resume"], "holds no training run"),
    (["train", "--universe", U, "--out", "{w}/u.json"], "not a directory"),
    (["train", "--universe", U, "--out", "{w}/locked"], "being written by another"),
    (["test", "--universe", U, "--out", "{w}/locked"], "being written by another"),
    (["train", "--universe", U, "--out", "{w}/new", "--reader", "x"], "--reader applies only"),
    (["train", "--universe", U, "--out", "{w}/new", "--dedup-threshold", "0.5"],
     "--dedup-threshold applies only with --dedup"),
    (["train", "--universe", U, "--out", "{w}/new", "--judge-model", "m"],
     "--judge-model applies only with --dedup"),
    (["train", "--universe", U, "--out", "{w}/new", "--train-size", "1000"], "train_size 1000"),
    (["train", "--universe", "{w}/u_notrain.json", "--out", "{w}/new"], "train split is empty"),
    (["train", "--universe", U, "--out", "{w}/new", "--model", "gpt"], "has no option 'model'"),
    (["train", "--universe", U, "--out", "{w}/new", "--base-url", "http://127.0.0.1:1"],
     "has no option 'base_url'"),
    (["train", "--universe", U, "--out", "{w}/new", "--agent", "scripted-random", "--model",
      "m"], "has no option 'model'"),
    # tampered logs: --resume, replay and report refuse them, naming the row
    *[([cmd, *args], needle) for name, needle in TAMPERED.items() for cmd, args in (
        ("train", ["--universe", U, "--agent", "toy_agents:ToyTrainer", "--epochs", "1",
                   "--train-size", "6", "--snapshot-every", "3", "--out", f"{{w}}/{name}",
                   "--resume"]),
        ("replay", ["--run", f"{{w}}/{name}", "--universe", U]),
        ("report", ["--run", f"{{w}}/{name}", "--universe", U]))],
    (["replay", "--all-epochs", "{w}/t_flip", "--universe", U], "row"),
    (["replay", "--run", "{w}/t_flip", "--universe", U, "--series"], "row"),
    (["report", "--run", "{w}/t_series", "--universe", U], "series.jsonl row"),
    (["plot", "--run", "{w}/t_series", "--out", "{w}/new"], "series.jsonl row"),
    (["probe", "make", "--run", "{w}/t_log", "--universe", U, "--out", "{w}/new.json"],
     "train_log.jsonl row"),
    # replay: one use at a time, an iteration the run has
    (["replay", "--run", RUN, "--universe", U, "--at", "999"], "6 finished iterations"),
    (["replay", "--run", RUN, "--all-epochs", "{w}/t_flip"], "give one run"),
    (["replay", "--run", RUN, "--series", "--verify", f"{RUN}/kb_epoch_1.json"],
     "different uses"),
    (["replay", "--run", RUN, "--verify", f"{RUN}/kb_epoch_1.json", "--out", "{w}/new.json"],
     "different uses"),
    (["replay", "--run", RUN, "--at", "2", "--series"], "--at applies"),
    (["replay", "--run", RUN, "--out", f"{RUN}/meta.json"], "would replace"),
    (["replay", "--run", RUN, "--out", "{w}/run"], "is a directory"),
    (["replay", "--run", "{w}/run_norows", "--at", "1"], "meta.json records it"),
    # exams: their folders, their flags
    (["test", "--universe", U, "--out", "{w}/x_nometa"], "already holds an examination"),
    (["test", "--universe", U, "--out", RUN, "--overwrite"], "training run's folder"),
    (["test", "--universe", U, "--overwrite"], "--overwrite applies with --out"),
    (["test", "--universe", U, "--out", "{w}/u.json"], "not a directory"),
    (["test", "--universe", U, "--split", ""], "give one or more split names"),
    (["test", "--universe", U, "--split", ",,"], "give one or more split names"),
    (["test", "--universe", U, "--split", "test_in,test_in"], "test_in is given twice"),
    (["test", "--universe", U, "--seed", "3"], "--seed applies only with --repeats"),
    (["test", "--universe", U, "--seed", "3", "--repeats", "1"], "--seed applies only"),
    (["test", "--universe", U, "--model", "gpt", "--limit", "1"], "has no option 'model'"),
    (["test", "--universe", U, "--m", "1e2"], "argument --m"),
    (["test", "--universe", U, "--limit", "0.5"], "argument --limit"),
    (["test", "--universe", U, "--library", "{w}/snap_cut.json"], "snap_cut.json"),
    (["test", "--universe", U, "--library", "{w}/zeros.json"], "zeros.json"),
    (["test", "--universe", U, "--library", "{w}/deep_list.json"], "deep_list.json"),
    (["test", "--universe", U, "--library", "{w}/huge.json"], "huge.json"),
    (["test", "--universe", "{w}/huge.json"], "over the 2048 MB limit"),
    (["test", "--universe", "{w}/zeros.json"], "zeros.json"),
    (["test", "--universe", "{w}/deep_list.json"], "deep_list.json"),
    (["test", "--universe", "{w}/deep_obj.json"], "nested"),
    (["test", "--universe", U, "--questions", "{w}/deep_obj.json", "--split", "exact"],
     "nested"),
    (["test", "--universe", U, "--questions", "{w}/huge.json", "--split", "exact"], "limit"),
    # probe tables: every arm must say what it is; the output is not an input
    (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/x_nometa"], "no test_meta.json"),
    (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/exam_b1", "--arm",
      "x={w}/x_nometa"], "no test_meta.json"),
    (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/x_no_m"], "records no m"),
    (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/x_no_hash"],
     "records no questions_hash"),
    (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/exam_b1", "--arm",
      "r={w}/x_reader"], "readers"),
    (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/x_meta_text"], "test_meta.json"),
    (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/x_meta_list"], "test_meta.json"),
    (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/x_meta_deep"], "nested"),
    (["probe", "table", "--probe", PROBE, "--arm", "B1={w}/x_log"], "test_log.jsonl row"),
    ([*TABLE, "--out", PROBE], "is also the input --probe"),
    ([*TABLE, "--out", f"{RUN}/meta.json"], "would replace"),
    ([*TABLE, "--resamples", "100001"], "argument --resamples"),
    ([*TABLE, "--delta", "1.5"], "argument --delta"),
    ([*TABLE, "--resamples", "50", "--resamples", "60"], "given twice"),
    (["probe", "table", "--probe", "{w}/deep_obj.json", "--arm", "B1={w}/exam_b1"], "nested"),
    (["probe", "table", "--probe", "{w}/zeros.json", "--arm", "B1={w}/exam_b1"], "zeros.json"),
    (["probe", "table", "--probe", "{w}/huge.json", "--arm", "B1={w}/exam_b1"], "limit"),
    # probe make
    (["probe", "make", "--run", "{w}/run_norows", "--universe", U, "--out", "{w}/new.json"],
     "meta.json records it"),
    (["probe", "make", "--run", RUN, "--out", f"{RUN}/meta.json"], "would replace"),
    (["probe", "make", "--run", RUN, "--universe", U, "--out", U], "is also the input"),
    (["probe", "make", "--run", RUN, "--per-group", "10001"], "argument --per-group"),
    (["probe", "make", "--run", RUN, "--per-group", "3", "--per-group", "4"], "given twice"),
    # report, plot and their tables
    (["report", "--run", RUN, "--prices", "{w}/p_alias.yaml"], "aliases"),
    (["report", "--run", RUN, "--prices", "{w}/p_neg.json"], "non-negative"),
    (["report", "--run", RUN, "--prices", "{w}/p_nan.json"], "non-negative"),
    (["report", "--run", RUN, "--prices", "{w}/p_dup.json"], "given twice"),
    (["report", "--run", RUN, "--prices", "{w}/p_big.json"], "limit"),
    (["report", "--run", RUN, "--prices", "{w}/p_field.json"], "unknown field"),
    (["report", "--run", RUN, "--probe-table", "{w}/pt_deep.json"], "nested"),
    (["report", "--run", RUN, "--probe-table", "{w}/huge.json"], "limit"),
    (["report", "--run", "{w}/meta_deep"], "nested"),
    (["report", "--run", "{w}/meta_big"], "limit"),
    (["replay", "--run", "{w}/meta_big"], "limit"),
    (["report", "--run", RUN, "--run", RUN], "given twice"),
    # config files: the safe loader, then the same ranges as the flags
    *[(["build", "--config", f"{{w}}/{name}", "--out", "{w}/new.json"], needle)
      for name, needle in (("c_bomb.yaml", "aliases"), ("c_alias.yaml", "aliases"),
                           ("c_deep.yaml", "nested"), ("c_dup.yaml", "given twice"),
                           ("c_people.yaml", "n_people: must be at most 1000000"),
                           ("c_true.yaml", "expected a number"),
                           ("c_string.yaml", "expected a number"), ("c_sizes.yaml", "sizes"),
                           ("c_seed.yaml", "seed: must be at least 0"),
                           ("c_inf.yaml", "friend_degree"), ("c_nan.yaml", "distractor_frac"),
                           ("c_tag.yaml", "not valid YAML"), ("c_null.yaml", "universe"),
                           ("c_list.yaml", "expected a mapping"),
                           ("c_key.yaml", "n_peple: unknown key"),
                           ("c_top.yaml", "universes: unknown key"),
                           ("c_digits.yaml", "c_digits.yaml"),
                           ("c_children.yaml", "children_per_couple"),
                           ("c_share.yaml", "common_jobs"), ("c_big.yaml", "1 MB limit"),
                           ("c_binary.yaml", "not UTF-8"), ("c_dir.yaml", "is a directory"))],
    (["build", "--common-job-share", "0.5", "--out", "{w}/new.json"],
     "--common-job-share applies only with --common-jobs"),
    (["build", "--out", f"{RUN}/meta.json"], "would replace"),
    (["build", "--config", "{w}/c_ok.yaml", "--out", "{w}/c_ok.yaml"], "is also the input"),
    (["build", "--people", "1000001"], "argument --people"),
    (["build", "--children", "1--2"], "argument --children"),
    (["build", "--seed", "1", "--seed", "2"], "given twice"),
    (["build", "--peop", "50"], "unrecognized arguments"),
    (["build", "--people", "1_000"], "argument --people"),
    (["build", "--people", "\u0663\u0660"], "argument --people"),
    (["build", "--people", "0x10"], "argument --people"),
    (["build", "--distractors", "0x1"], "argument --distractors"),
    # sweep grids: the safe loader, the CLI's ranges, a size cap, plugin options
    *[(["sweep", f"{{w}}/{name}", *SWEEP_OUT], needle)
      for name, needle in (("g_bomb.yaml", "aliases"), ("g_options_alias.yaml", "aliases"),
                           ("g_options_deep.yaml", "nested"), ("g_runs.yaml", "1,000,000 runs"),
                           ("g_epochs.yaml", "epochs: must be at most 1000"),
                           ("g_resamples.yaml", "resamples: must be at most 100000"),
                           ("g_people.yaml", "n_people: must be at most 1000000"),
                           ("g_delta.yaml", "delta: must be at most 1"),
                           ("g_per_group.yaml", "per_group: must be at least 1"),
                           ("g_curve.yaml", "curve_every: must be at least 0"),
                           ("g_seed.yaml", "seeds.0: must be at least 0"),
                           ("g_seed_bool.yaml", "expected a number"),
                           ("g_seed_str.yaml", "expected a number"),
                           ("g_random_seed.yaml", "seed: must be at least 0"),
                           ("g_option.yaml", "has no option 'temprature'"),
                           ("g_reader_option.yaml", "has no option 'x'"),
                           ("g_baseline_param.yaml", "max_size: unknown key"),
                           ("g_baseline_range.yaml", "max_size: must be at least 1"),
                           ("g_env_m.yaml", "m: must be at most 1000000"),
                           ("g_env_bool.yaml", "typed_links"), ("g_env_key.yaml", "unknown key"),
                           ("g_train_size.yaml", "train_size: must be at least 1"),
                           ("g_snapshot.yaml", "snapshot_every: must be at most"),
                           ("g_universe_file.yaml", "no_such_config.yaml"),
                           ("g_dup.yaml", "given twice"), ("g_tag.yaml", "not valid YAML"),
                           ("g_list.yaml", "expected a mapping"), ("g_big.yaml", "1 MB limit"),
                           ("g_binary.yaml", "not UTF-8"))],
    (["sweep", "{w}/g_ok.yaml", "--out", "{w}/locked", "--executor", "serial", "--quiet"],
     "being written by another"),
    (["sweep", "{w}/g_ok.yaml", "--out", "{w}/new_sweep", "--executor", "serial", "--jobs",
      "2"], "--jobs and --llm-slots apply to the process and ray executors"),
    (["sweep", "report", "{w}/sweep_done", "--jobs", "2"], "--jobs belongs to running a sweep"),
    (["sweep", "report", "{w}/sweep_done", "--out", "{w}/x"], "--out belongs to running"),
    (["sweep", "report", "{w}/sweep_done", "--dry-run"], "--dry-run belongs to running"),
    (["sweep", "report", "{w}/sweep_done", "--resamples", "100001"], "argument --resamples"),
    (["sweep", "{w}/g_ok.yaml", "--out", "{w}/new_sweep", "--jobs", "1", "--jobs", "2"],
     "given twice"),
    # corpus documents: the library's note rules, size limits
    *[([*IMPORT, "--docs", f"{{w}}/{name}", "--questions", "{w}/q_ok.jsonl"], needle)
      for name, needle in (("d_nul", "U+0000"), ("d_esc", "U+001B"), ("d_bidi", "U+202E"),
                           ("d_zw", "U+200B"), ("d_bom_mid", "U+FEFF"), ("d_bell", "U+0007"),
                           ("d_long", "1,000-character cap"), ("d_million", "a note of 1,000,003 characters"),
                           ("d_title", "U+202E"), ("d_big", "16 MB limit"),
                           ("d_latin1", "not UTF-8"), ("d_none", "no .md"),
                           ("d_empty", "hold no text"))],
    # questions JSONL: strict types, the same rules
    *[([*IMPORT, "--docs", DOCS, "--questions", f"{{w}}/{name}"], needle)
      for name, needle in (
          ("q_unanswerable.jsonl", "unanswerable: Input should be a valid boolean"),
          ("q_unanswerable_int.jsonl", "unanswerable"), ("q_category.jsonl", "category"),
          ("q_template.jsonl", "template"), ("q_answers_int.jsonl", "answers.0"),
          ("q_answers_obj.jsonl", "answers"), ("q_null.jsonl", "needs a non-empty"),
          ("q_missing.jsonl", "needs a non-empty"), ("q_both.jsonl", "not both"),
          ("q_both_answers.jsonl", "not both"), ("q_key.jsonl", "answr: unknown key"),
          ("q_support_str.jsonl", "support"), ("q_support_empty.jsonl", "support"),
          ("q_support_bad.jsonl", "support 'x.md:1'"), ("q_nul.jsonl", "U+0000"),
          ("q_long.jsonl", "1,000-character limit"), ("q_answer_bidi.jsonl", "U+202E"),
          ("q_template_esc.jsonl", "U+001B"), ("q_category_long.jsonl", "100-character"),
          ("q_list.jsonl", "expected a JSON object"), ("q_string.jsonl", "expected a JSON"),
          ("q_second.jsonl", "q_second.jsonl:2"), ("q_deep.jsonl", "nested too deeply"),
          ("q_blank.jsonl", "holds no questions"), ("q_empty.jsonl", "holds no questions"),
          ("q_binary.jsonl", "not UTF-8"), ("q_line.jsonl", "1 MB limit"),
          ("q_huge.jsonl", "256 MB limit"))],
    ([*IMPORT, "--docs", DOCS, "--questions", QS, "--keys", "nomodule"], "module:function"),
    ([*IMPORT, "--docs", DOCS, "--questions", QS, "--keys", "json:nope"], "cannot load"),
    ([*IMPORT, "--docs", DOCS, "--questions", QS, "--keys", "os:sep"], "not callable"),
    ([*IMPORT, "--docs", DOCS, "--questions", QS, "--unit", "word"], "argument --unit"),
    ([*IMPORT, "--docs", DOCS, "--questions", QS, "--context", "x"], "argument --context"),
    (["import", "corpus", "--docs", DOCS, "--questions", "{w}/q_ok.jsonl", "--out",
      "{w}/q_ok.jsonl"], "is also the input --questions"),
    # the demo, drift, baselines
    (["demo", "--out", RUN], "already holds"),
    (["demo", "--out", "{w}/u.json"], "not a directory"),
    (["demo", "--out", "{w}/new", "--train-size", "151"], "--train-size 151"),
    (["drift", "--universe", U, "--changes", "1", "--out", U], "is also the input"),
    (["drift", "--universe", U, "--changes", "100001", "--out", "{w}/new.json"],
     "argument --changes"),
    (["drift-report", "--universe", U, "--out", U], "is also the input"),
    (["baseline", "b3", "--universe", U, "--out", "{w}/new", "--base-url", "http://x"],
     "apply only with --model"),
    (["baseline", "b3", "--universe", U, "--out", "{w}/new", "--api-key-env", "K"],
     "apply only with --model"),
    (["baseline", "oracle", "--universe", U, "--out", "{w}/new", "--branching", "3"],
     "applies to b4 only"),
    # devices and pipes are not files: never read forever
    (["build", "--config", "/dev/zero", "--out", "{w}/new.json"], "not a regular file"),
    (["test", "--universe", "/dev/zero"], "/dev/zero"),
    (["report", "--run", RUN, "--prices", "/dev/zero"], "not a regular file"),
    (["sweep", "/dev/zero", *SWEEP_OUT], "not a regular file"),
    ([*IMPORT, "--docs", DOCS, "--questions", "/dev/zero"], "not a regular file"),
    (["probe", "table", "--probe", "/dev/zero", "--arm", "B1={w}/exam_b1"], "/dev/zero"),
    # options are never abbreviated, never given twice
    (["test", "--universe", U, "--lib", "B1"], "unrecognized arguments"),
    (["test", "--universe", U, "--split", "a", "--split", "b"], "given twice"),
    (["replay", "--run", RUN, "--at", "1", "--at", "2"], "given twice"),
    (["train", "--out", "{w}/new", "--epoch", "2"], "unrecognized arguments"),
    (["train", "--out", "{w}/new", "--resum"], "unrecognized arguments"),
    (["train", "--out", "{w}/new", "--over"], "unrecognized arguments"),
    (["train", "--out", "{w}/new", "--epochs", "2", "--epochs", "3"], "given twice"),
    (["train", "--out", "{w}/new", "--dedup", "--no-dedup"], "given twice"),
    (["train", "--out", "{w}/new", "--epochs", "1_0"], "argument --epochs"),
    (["train", "--out", "{w}/new", "--epochs", "\u0663"], "argument --epochs"),
    (["train", "--out", "{w}/new", "--seed", "1e3"], "argument --seed"),
    (["train", "--out", "{w}/new", "--n2", " "], "argument --n2"),
    (["train", "--out", "{w}/new", "--snapshot-every", "1000001"], "argument --snapshot-every"),
    (["train", "--out", "{w}/new", "--refresh", "never"], "argument --refresh"),
]
CASES += NEW_CASES


# -- round three (issue 38): code named by a config, run folders, the exam service -------------

def make_safety(w: Path) -> None:
    """The round-three bad inputs (``make_world`` calls it)."""
    for name, curator in (
            ("g_os_system.yaml", "{name: 'os:system', options: {command: 'touch pwned'}}"),
            ("g_rmtree.yaml", "{name: 'shutil:rmtree', options: {path: '{w}/run'}}"),
            ("g_exit.yaml", "'builtins:exit'"),
            ("g_eval.yaml", "{name: 'builtins:eval', options: {}}")):
        (w / name).write_text(GRID.replace("curators: [scripted-noop]",
                                           f"curators: [{curator.replace('{w}', str(w))}]"))
    (w / "g_reader_exec.yaml").write_text(GRID.replace(
        "readers: [scripted-reader]", "readers: [{name: 'builtins:exec', options: {}}]"))
    # 3. links and special files as run folders and as files in them
    import os

    (w / "link_run").symlink_to(w / "run", target_is_directory=True)
    (w / "link_sweep").symlink_to(w / "sweep_done", target_is_directory=True)
    (w / "link_exam").symlink_to(w / "exam_b1", target_is_directory=True)
    for name, victim in (("run_linkfile", "trace.jsonl"), ("run_linklog", "train_log.jsonl"),
                         ("run_linklock", ".kbgym.lock")):
        shutil.copytree(w / "run", w / name)
        (w / name / victim).unlink(missing_ok=True)
        (w / name / victim).symlink_to(w / "run" / victim)
    shutil.copytree(w / "run", w / "run_fifo")
    (w / "run_fifo" / "train_log.jsonl").unlink()
    os.mkfifo(w / "run_fifo" / "train_log.jsonl")
    (w / "demo_linked_sub").mkdir()
    (w / "demo_linked_sub" / "demo.json").write_text("{}")
    (w / "demo_linked_sub" / "run").symlink_to(w / "run", target_is_directory=True)
    # 6. lower items: control characters in a universe, a meta.json naming /etc/passwd
    data = json.loads((w / "u.json").read_text(encoding="utf-8"))
    for name, char in (("u_esc.json", "\x1b[31m"), ("u_bel.json", "\x07")):
        bad = json.loads(json.dumps(data))
        bad["nodes"][3]["text"] = "A note " + char + " that rings."
        (w / name).write_text(json.dumps(bad), encoding="utf-8")
    shutil.copytree(w / "run", w / "run_passwd")
    meta = json.loads((w / "run_passwd" / "meta.json").read_text(encoding="utf-8"))
    meta["universe"]["path"] = "/etc/passwd"  # re-sealed, as a forger would
    from kbgym.runs.manifest import seal

    (w / "run_passwd" / "meta.json").write_text(json.dumps(seal(meta)), encoding="utf-8")


TRAIN_TOY = ["train", "--universe", U, "--agent", "toy_agents:ToyTrainer", "--epochs", "1",
             "--train-size", "6", "--snapshot-every", "3", "--quiet", "--out"]


SAFETY_CASES: list[tuple[list[str], str]] = [
    # 1. an agent is a registered plugin or a declared module:factory, refused by name
    *[(["train", "--universe", U, "--agent", spec, "--out", "{w}/new"], spec)
      for spec in ("builtins:exit", "os:system", "shutil:rmtree", "subprocess:run",
                   "kbgym.plugins:make_agent", "os:_exit")],
    (["test", "--universe", U, "--reader", "builtins:exit", "--limit", "1"], "builtins:exit"),
    *[(["sweep", f"{{w}}/{g}", "--out", "{w}/new_sweep", *extra], needle)
      for g, needle in (("g_os_system.yaml", "os:system"), ("g_rmtree.yaml", "shutil:rmtree"),
                        ("g_exit.yaml", "builtins:exit"), ("g_eval.yaml", "builtins:eval"),
                        ("g_reader_exec.yaml", "builtins:exec"))
      for extra in (["--dry-run"], ["--executor", "serial", "--quiet"])],
    # 3. run folders: links and special files, an exam into a run, build over a universe
    *[([*TRAIN_TOY, f"{{w}}/{d}", *extra], needle)
      for d, needle in (("link_run", "symbolic link"), ("run_linkfile", "symbolic link"),
                        ("run_linklog", "symbolic link"), ("run_linklock", "symbolic link"),
                        ("run_fifo", "special file"))
      for extra in ([], ["--resume"], ["--overwrite"])],
    (["test", "--universe", U, "--limit", "1", "--quiet", "--out", "{w}/link_run"],
     "symbolic link"),
    (["test", "--universe", U, "--limit", "1", "--quiet", "--out", "{w}/link_exam",
      "--overwrite"], "symbolic link"),
    (["test", "--universe", U, "--limit", "1", "--quiet", "--out", "{w}/run"],
     "training run's folder"),
    (["test", "--universe", U, "--limit", "1", "--quiet", "--out", "{w}/run", "--overwrite"],
     "training run's folder"),
    (["test", "--universe", U, "--limit", "1", "--quiet", "--out", "{w}/run_fifo"],
     "special file"),
    (["demo", "--out", "{w}/link_run", "--quiet", "--overwrite"], "symbolic link"),
    (["demo", "--out", "{w}/demo_linked_sub", "--quiet"], "symbolic link"),
    (["sweep", "{w}/g_ok.yaml", "--out", "{w}/link_sweep", "--executor", "serial", "--quiet"],
     "symbolic link"),
    *[([cmd, "--run", f"{{w}}/{d}", *extra], needle)
      for d, needle in (("run_linkfile", "symbolic link"), ("run_linklog", "symbolic link"),
                        ("run_fifo", "train_log.jsonl"))
      for cmd, extra in (("replay", ["--universe", U]), ("report", ["--universe", U]))],
    (["build", "--out", "{w}/u.json", "--quiet"], "--overwrite"),
    # 6. lower items
    *[(argv, "control character") for f in ("u_esc.json", "u_bel.json") for argv in (
        [*TRAIN_TOY[:2], f"{{w}}/{f}", *TRAIN_TOY[3:], "{w}/new"],
        ["test", "--universe", f"{{w}}/{f}", "--limit", "1", "--quiet"])],
    (["reproduce", "--phantomwiki", "/etc", "--out", "{w}/new_repro", "--quiet"],
     "not a phantom-wiki generation"),
    (["reproduce", "--phantomwiki", "{w}/missing_dir", "--out", "{w}/new_repro", "--quiet"],
     "not a phantom-wiki generation"),
    *[(argv, "not a readable kbgym universe") for argv in (
        ["report", "--run", "{w}/run_passwd"], ["replay", "--run", "{w}/run_passwd"],
        ["view", "--run", "{w}/run_passwd", "--out", "{w}/new.html"],
        ["replay", "--all-epochs", "{w}/run_passwd"])],
    (["build", "--out", "{w}/link_run/../u.json", "--quiet"], "--overwrite"),
]
CASES += SAFETY_CASES


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
    assert len(CASES) >= 150 and len(NEW_CASES) >= 150


@pytest.mark.parametrize("argv, needle", CASES, ids=[" ".join(a)[:80] for a, _ in CASES])
def test_bad_input_is_one_line_exit_2_nothing_written(world, tmp_path, monkeypatch, capsys,
                                                      argv, needle):
    monkeypatch.chdir(tmp_path)
    argv = [a.replace("{w}", str(world)) for a in argv]
    needle = needle.replace("{w}", str(world))
    before = _PRISTINE.setdefault(str(world), tree(world))  # every case starts from the same
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse
        code = exit_.code
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert needle in lines[0], err
    after = tree(world)
    if after != before:  # a wrong case would spoil the fixture for the next ones
        _PRISTINE.pop(str(world))
    assert after == before, "something was written"
    assert not list(tmp_path.iterdir()), "something was written in the working directory"


_PRISTINE: dict[str, dict] = {}


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
