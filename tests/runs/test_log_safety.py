"""Logs that cannot be cut short, lossless resume, and one writer per run directory."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbgym.env import KBGymEnv
from kbgym.jsonio import canonical
from kbgym.runs.logs import JsonlLog, read_jsonl, rewrite_jsonl, write_json
from kbgym.runs.recorder import RunRecorder, VerdictWarning
from kbgym.worlds.people import UniverseConfig, generate

HERE = Path(__file__).resolve().parent
U = generate(UniverseConfig(n_people=60, n_cities=8, sizes=(40, 30, 20), eval_sizes=(10, 6)))

# Every code point, lone surrogates and the separators included. An adjacent high+low
# surrogate pair is one character once JSON-decoded, so such pairs are left out.
TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=40).filter(
    lambda s: not any("\ud800" <= a <= "\udbff" and "\udc00" <= b <= "\udfff"
                      for a, b in zip(s, s[1:])))
ROW = st.dictionaries(TEXT, st.one_of(TEXT, st.integers(), st.lists(TEXT, max_size=3)),
                      max_size=4)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(ROW, min_size=1, max_size=6))
def test_every_log_writer_round_trips_any_unicode(tmp_path_factory, rows):
    d = tmp_path_factory.mktemp("logs")
    log = JsonlLog(d / "a.jsonl")
    for r in rows:
        log.write(r)
    log.close()
    expected = [{"schema_version": 1, **r} for r in rows]
    assert read_jsonl(d / "a.jsonl") == expected
    text = (d / "a.jsonl").read_text(encoding="utf-8")
    assert text.count("\n") == len(rows) and text.splitlines() == text.split("\n")[:-1]
    rewrite_jsonl(d / "b.jsonl", expected)
    assert read_jsonl(d / "b.jsonl") == expected
    write_json(d / "c.json", {"rows": expected})
    assert json.loads((d / "c.json").read_text(encoding="utf-8")) == {"rows": expected}


def test_canonical_escapes_only_what_breaks_lines():
    assert canonical({"a": "é\u2028\u2029\u0085\ud800"}) == (
        '{"a":"é\\u2028\\u2029\\u0085\\ud800"}\n')


def test_recorder_logs_odd_answers_whole(tmp_path):
    env = RunRecorder(KBGymEnv(U), tmp_path, run_id="r-odd")
    q = U.split("train")[0]
    env.reset(options={"qid": q.qid})
    answer = "a\u2028b\u2029c\u0085d\x1ce"
    env.step({"action": "answer", "text": answer})
    env.step({"action": "answer", "text": "\ud800"})  # refused (backward), not raised
    env.step({"action": "done"})
    with pytest.warns(VerdictWarning, match="1x: ERROR: bad input: lone surrogate U\\+D800"):
        env.close()  # no edit: the verdict names the refused action's error
    (row,) = read_jsonl(tmp_path / "train_log.jsonl")
    assert row["answer"] == answer
    assert [r["action"] for r in read_jsonl(tmp_path / "trace.jsonl")] == [
        "answer", "__invalid__", "done"]


def _cli(out: Path, upath: Path, *extra: str, agent: str = "toy_agents:odd_trainer"
         ) -> list[str]:
    return [sys.executable, "-m", "kbgym.cli", "train", "--universe", str(upath), "--agent",
            agent, "--epochs", "2", "--train-size", "10",
            "--snapshot-every", "4", "--out", str(out), "--quiet", *extra]


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(HERE), str(HERE.parents[1]), os.environ.get("PYTHONPATH", "")]))


def _files(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())
            if p.name not in ("timing.jsonl", ".kbgym.lock")}


def test_resume_after_a_kill_with_u2028_answers_is_byte_identical(tmp_path):
    # slow: whole `kbgym train` processes, one killed and resumed (the kill is the point)
    upath = tmp_path / "u.json"
    upath.write_text(U.dumps())
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    done = subprocess.run(_cli(whole, upath), env=_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "\u2028" in (whole / "train_log.jsonl").read_text(encoding="utf-8") or \
        "\\u2028" in (whole / "train_log.jsonl").read_text(encoding="utf-8")
    proc = subprocess.Popen(_cli(cut, upath), env=_env())
    deadline = time.time() + 60
    while time.time() < deadline and len(read_jsonl(cut / "train_log.jsonl")) < 6:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    n = len(read_jsonl(cut / "train_log.jsonl"))
    assert 6 <= n < 20, "the run should have been killed in the middle"
    again = subprocess.run(_cli(cut, upath, "--resume"), env=_env(), capture_output=True,
                           text=True)
    assert again.returncode == 0, again.stderr
    assert _files(cut) == _files(whole)
    assert not list(cut.glob(".*.tmp"))
    timing = read_jsonl(cut / "timing.jsonl")
    assert [r["iteration"] for r in timing] == list(range(1, 21))


def test_two_trains_on_one_directory_one_runs_the_other_exits_2(tmp_path):
    # slow: two real `kbgym train` processes racing for the directory (the lock is the point)
    upath = tmp_path / "u.json"
    upath.write_text(U.dumps())
    out = tmp_path / "run"
    first = subprocess.Popen(_cli(out, upath, agent="toy_agents:sleepy_trainer"), env=_env())
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not (out / "meta.json").exists():
            time.sleep(0.01)
        second = subprocess.run(_cli(out, upath, agent="toy_agents:sleepy_trainer"), env=_env(),
                                capture_output=True, text=True)
        assert second.returncode == 2
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1 and "being written by another kbgym process" in lines[0]
        assert "Traceback" not in second.stderr
    finally:
        first.wait(timeout=120)
    assert first.returncode == 0
    assert [r["iteration"] for r in read_jsonl(out / "train_log.jsonl")] == list(range(1, 21))


def test_resume_refuses_another_curator(tmp_path):
    sys.path.insert(0, str(HERE))
    import toy_agents

    from kbgym.errors import ConfigError
    from kbgym.runs.train import TrainConfig, train

    cfg = TrainConfig(epochs=1, train_size=3, snapshot_every=3)
    meta = train(U, toy_agents.ToyTrainer(), tmp_path, config=cfg,
                 agent_spec={"name": "toy_agents:trainer", "options": {}})
    assert meta["curator"]["plugin"] == "toy_agents:trainer"
    assert meta["curator"]["classes"]["agent"].endswith("ToyTrainer")
    with pytest.raises(ConfigError, match="another curator"):
        train(U, toy_agents.ToyTrainer(), tmp_path, config=cfg, resume=True,
              agent_spec={"name": "toy_agents:slow_trainer", "options": {}})
    with pytest.raises(ConfigError, match="another curator"):
        train(U, toy_agents.ToyReader(), tmp_path, config=cfg, resume=True,
              agent_spec={"name": "toy_agents:trainer", "options": {}})
    with pytest.raises(ConfigError, match="another configuration"):
        train(U, toy_agents.ToyTrainer(), tmp_path, config=TrainConfig(
            epochs=2, train_size=3, snapshot_every=3), resume=True,
            agent_spec={"name": "toy_agents:trainer", "options": {}})
    again = train(U, toy_agents.ToyTrainer(), tmp_path, config=cfg, resume=True,
                  agent_spec={"name": "toy_agents:trainer", "options": {}})
    assert again["run_id"] == meta["run_id"]


def test_appending_after_a_torn_row_starts_a_new_line(tmp_path):
    path = tmp_path / "a.jsonl"
    log = JsonlLog(path)
    log.write({"i": 1})
    log.close()
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"i": 2, "cut by a ki')  # what a kill mid-write leaves
    assert read_jsonl(path) == [{"schema_version": 1, "i": 1}]
    log = JsonlLog(path)
    log.write({"i": 3})
    log.close()
    assert [r["i"] for r in read_jsonl(path)] == [1, 3]
    path.write_text('{"i": 1}\n[1, 2]\n{"i": 3}\n')
    from kbgym.errors import ConfigError

    with pytest.raises(ConfigError, match="line 2: not a JSON object row"):
        read_jsonl(path)
