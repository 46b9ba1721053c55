"""Nothing is lost: run folders are replaced only on request, tampered logs are refused (a
kill is not tampering), a hand-driven loop recorded with RunRecorder is a usable run folder,
and user-code errors keep their traceback under KBGYM_DEBUG=1."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from kbgym.cli import main
from kbgym.env import KBGymEnv
from kbgym.errors import ConfigError
from kbgym.runs.logs import GENESIS, JsonlLog, line_hash, read_jsonl, rewrite_jsonl, verify_trace
from kbgym.runs.recorder import RunRecorder
from kbgym.runs.train import TrainConfig, train

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import toy_agents  # noqa: E402

from toy_run import CFG, U, train_toy  # noqa: E402
from toy_run import files as _files  # noqa: E402


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return train_toy(tmp_path_factory.mktemp("nl") / "run")



# -- run folders ---------------------------------------------------------------------------

def test_train_without_resume_never_wipes_a_run(run, tmp_path):
    before = _files(run)
    with pytest.raises(ConfigError, match="--resume to continue it or --overwrite"):
        train(U, toy_agents.ToyReader(), run, config=CFG)
    assert _files(run) == before


def test_overwrite_removes_every_file_of_the_old_run_and_only_those(run, tmp_path):
    out = tmp_path / "r"
    train(U, toy_agents.ToyTrainer(), out, config=TrainConfig(epochs=2, train_size=6,
                                                              snapshot_every=2))
    (out / "exam").mkdir()
    (out / "exam" / "test_log.jsonl").write_text("")
    (out / "notes.txt").write_text("mine")
    assert (out / "kb_iter_0012.json").exists()
    train(U, toy_agents.ToyTrainer(), out, config=TrainConfig(epochs=1, train_size=3,
                                                              snapshot_every=3), overwrite=True)
    names = {p.name for p in out.iterdir()}
    assert "kb_epoch_2.json" not in names and "kb_iter_0012.json" not in names
    assert "exam" not in names and (out / "notes.txt").read_text() == "mine"
    assert len(read_jsonl(out / "train_log.jsonl")) == 3


def test_test_out_refuses_an_earlier_exam_unless_overwrite(run, tmp_path, capsys):
    u = tmp_path / "u.json"
    u.write_text(U.dumps())
    exam = tmp_path / "exam"
    argv = ["test", "--universe", str(u), "--split", "test_in", "--limit", "2", "--out",
            str(exam), "--quiet"]
    assert main(argv) == 0
    assert main(argv) == 2 and "already holds an examination" in capsys.readouterr().err
    assert main([*argv, "--overwrite"]) == 0
    assert len(read_jsonl(exam / "test_log.jsonl")) == 2


# -- the chain -----------------------------------------------------------------------------

def test_rows_are_chained_and_the_chain_is_checked(tmp_path):
    path = tmp_path / "a.jsonl"
    log = JsonlLog(path)
    for i in range(4):
        log.write({"i": i})
    log.close()
    raw = path.read_bytes().split(b"\n")[:-1]
    chains = [json.loads(x)["chain"] for x in raw]
    assert chains[0] == GENESIS
    assert chains[1:] == [line_hash(x + b"\n") for x in raw[:-1]]
    assert read_jsonl(path) == [{"schema_version": 1, "i": i} for i in range(4)]
    rewrite_jsonl(tmp_path / "b.jsonl", read_jsonl(path))  # resume's rewrite: the same bytes
    assert (tmp_path / "b.jsonl").read_bytes() == path.read_bytes()
    lines = path.read_text().split("\n")
    lines[1] = lines[1].replace('"i":1', '"i":7')
    path.write_text("\n".join(lines))
    with pytest.raises(ConfigError, match=r"a.jsonl row 3 \(line 3\): does not follow row 2"):
        read_jsonl(path)


def test_a_torn_last_row_is_a_kill_not_tampering(tmp_path):
    path = tmp_path / "a.jsonl"
    log = JsonlLog(path)
    log.write({"i": 0})
    log.write({"i": 1})
    log.close()
    data = path.read_bytes()
    path.write_bytes(data[:-7])  # the kill cut the last row
    assert [r["i"] for r in read_jsonl(path)] == [0]
    log = JsonlLog(path)
    log.write({"i": 2})  # the next writer drops the torn tail and continues the chain
    log.close()
    assert [r["i"] for r in read_jsonl(path)] == [0, 2]


@pytest.mark.parametrize("damage, needle", [
    ("cut", "the trace was cut"), ("flip_last", "the trace was cut or its last rows altered"),
    ("flip_middle", "does not follow row"), ("drop_row", "does not follow row"),
])
def test_resume_replay_and_report_refuse_a_tampered_trace(run, tmp_path, damage, needle,
                                                          capsys):
    import shutil

    d = tmp_path / "run"
    shutil.copytree(run, d)
    trace = d / "trace.jsonl"
    lines = trace.read_text(encoding="utf-8").split("\n")[:-1]
    if damage == "cut":
        trace.write_text("\n".join(lines[: len(lines) // 2]) + "\n", encoding="utf-8")
    elif damage == "drop_row":
        trace.write_text("\n".join(lines[:3] + lines[4:]) + "\n", encoding="utf-8")
    else:
        i = len(lines) - 1 if damage == "flip_last" else 2
        lines[i] = re.sub(r'"step":(\d)', lambda m: f'"step":{int(m.group(1)) + 1}', lines[i], 1)
        trace.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = _files(d)
    with pytest.raises(ConfigError, match=needle):
        verify_trace(d)
    with pytest.raises(ConfigError, match=needle):
        train(U, toy_agents.ToyTrainer(), d, config=CFG, resume=True)
    u = tmp_path / "u.json"
    u.write_text(U.dumps())
    for cmd in ("replay", "report"):
        assert main([cmd, "--run", str(d), "--universe", str(u)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and needle in err[0], err
    assert _files(d) == before


def test_resume_after_a_cut_iteration_is_byte_identical(run, tmp_path):
    """A kill between an iteration's trace rows and its train_log row, with a torn row."""
    import shutil

    d = tmp_path / "run"
    shutil.copytree(run, d)
    meta = json.loads((d / "meta.json").read_text())
    del meta["verdict"], meta["files"], meta["meta_sha256"]  # a killed run has its first meta.json, not its last
    (d / "meta.json").write_text(json.dumps(meta))
    log = read_jsonl(d / "train_log.jsonl")[:6]
    rewrite_jsonl(d / "train_log.jsonl", log)
    for name in ("series", "kb_stats", "timing"):
        rows = read_jsonl(d / f"{name}.jsonl")
        keep = [r for r in rows if r.get("iteration", 0) <= 6 and r.get("epoch", 0) <= 1]
        rewrite_jsonl(d / f"{name}.jsonl", keep)
    for p in d.glob("kb_*.json"):
        if p.name not in ("kb_epoch_0.json", "kb_epoch_1.json", "kb_iter_0002.json",
                          "kb_iter_0004.json", "kb_iter_0006.json"):
            p.unlink()
    with open(d / "trace.jsonl", "ab") as fh:
        fh.write(b'{"action":"add","chain":"0000')  # the kill tore a row
    train(U, toy_agents.ToyTrainer(), d, config=CFG, resume=True)
    assert _files(d) == _files(run)
    assert [r["iteration"] for r in read_jsonl(d / "timing.jsonl")] == list(range(1, 11))


# -- the README's loop, recorded ---------------------------------------------------------------

def readme_loop(env, n=4):
    """A copy of the README's custom-curator example (its logic, on a wrapped env)."""
    for qid in env.split_qids("train")[:n] * 2:
        question = env.reset(options={"qid": qid})[0]["text"].split("\n")[1]
        info = env.step({"action": "search", "query": question})[4]
        hits = re.findall(r"- (s\d+): (.*)", info["result"])
        obs, *_ = env.step({"action": "answer", "text": "unknown"})
        note = f"Notes for: {question}"
        mine = [i for i, text in hits if text == note]
        src = mine[0] if mine else env.step({"action": "add", "text": note})[4]["result"].split()[-1]
        env.step({"action": "link_many", "source": src,
                  "targets": [i for i, _ in hits if i != src]})
        env.step({"action": "done"})
    return env.library.stats()


def test_the_readme_loop_under_a_recorder_is_a_usable_run(tmp_path, capsys):
    u = tmp_path / "u.json"
    u.write_text(U.dumps())
    out = tmp_path / "mine"
    env = RunRecorder(KBGymEnv(str(u), mode="train"), out)
    stats = readme_loop(env)
    env.close()
    assert stats["authored_statements"] == 4
    assert [r["iteration"] for r in read_jsonl(out / "train_log.jsonl")] == list(range(1, 9))
    assert main(["probe", "make", "--run", str(out), "--out", str(tmp_path / "p.json"),
                 "--quiet"]) == 0
    assert main(["replay", "--run", str(out), "--verify", str(out / "kb_epoch_1.json")]) == 0
    assert "ok: replay matches" in capsys.readouterr().out
    assert main(["report", "--run", str(out)]) == 0
    assert "# KBGym run" in capsys.readouterr().out
    with pytest.raises(ConfigError, match=r"^RunRecorder: .* already holds a run .*"
                                          r"overwrite=True") as refused:
        RunRecorder(KBGymEnv(str(u), mode="train"), out)
    assert "--out" not in str(refused.value)  # said to a Python caller, not a CLI user
    again = RunRecorder(KBGymEnv(str(u), mode="train"), out, overwrite=True)
    again.close()
    assert read_jsonl(out / "train_log.jsonl") == []


def test_the_readme_example_itself_runs_wrapped_in_a_recorder(tmp_path, monkeypatch):
    """The README's curator block as it is: it wraps its KBGymEnv in a RunRecorder itself, and
    the folder it leaves is a run the CLI reads."""
    readme = (HERE.parents[1] / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", readme, re.S)
                 if "RunRecorder(KBGymEnv(" in b)
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md", "exec"), {})
    assert len(read_jsonl(tmp_path / "runs/mine" / "train_log.jsonl")) == 100
    assert main(["report", "--run", str(tmp_path / "runs/mine")]) == 0


def test_the_recorder_forwards_the_env_helpers(tmp_path):
    env = KBGymEnv(U)
    rec = RunRecorder(env, tmp_path / "r")
    assert rec.split_qids("train") == env.split_qids("train")
    assert rec.library is env.library and rec.question("q0001") == env.question("q0001")
    assert rec.tool_schemas() == env.tool_schemas() and rec.max_obs_chars() == env.max_obs_chars()
    rec.close()


# -- user code keeps its traceback ------------------------------------------------------------

def test_a_value_error_in_a_users_curator_keeps_its_traceback_with_debug(tmp_path, monkeypatch,
                                                                         capsys):
    (tmp_path / "bad_curator.py").write_text(
        "class C:\n    def reset(self):\n        pass\n"
        "    def act(self, obs, info):\n        raise ValueError('my bug')\n\n"
        "import kbgym\n\n@kbgym.agent_factory\ndef make():\n    return C()\n")
    monkeypatch.chdir(tmp_path)
    u = tmp_path / "u.json"
    u.write_text(U.dumps())
    argv = ["train", "--universe", str(u), "--agent", "bad_curator:make", "--epochs", "1",
            "--train-size", "1", "--quiet", "--out"]
    monkeypatch.delenv("KBGYM_DEBUG", raising=False)
    assert main([*argv, str(tmp_path / "o")]) == 1  # the user's code, not bad input (2)
    assert capsys.readouterr().err.splitlines()[0] == (
        "kbgym train: error: your code raised ValueError: my bug at bad_curator.py:5 in act "
        "(KBGYM_DEBUG=1 shows the traceback)")
    monkeypatch.setenv("KBGYM_DEBUG", "1")
    with pytest.raises(ValueError, match="my bug"):
        main([*argv, str(tmp_path / "o2")])
    sys.modules.pop("bad_curator", None)
