"""RunRecorder: trace and episode rows for an env driven by hand, abandoned episodes too."""

from __future__ import annotations

import pytest

from kbgym.env import KBGymEnv
from kbgym.runs.logs import read_jsonl
from kbgym.runs.recorder import RunRecorder, VerdictWarning
from kbgym.worlds.people import UniverseConfig, generate

U = generate(UniverseConfig(n_people=40, n_cities=6, sizes=(10, 5, 5), eval_sizes=(2, 2)))


def test_train_rows_and_an_abandoned_episode(tmp_path):
    env = RunRecorder(KBGymEnv(U), tmp_path, run_id="r-test")
    q1, q2 = U.split("train")[:2]
    env.reset(options={"qid": q1.qid})
    env.note_usage(7, 3)
    env.step({"action": "search", "query": "job"})
    env.reset(options={"qid": q2.qid})  # abandons q1
    env.step({"action": "answer", "text": "x"})
    env.step({"action": "done"})
    env.step({"action": "done"})  # after the end: not logged
    with pytest.warns(VerdictWarning, match="0 edits in 1 iterations"):
        env.close()  # the one finished iteration edited nothing
    log = read_jsonl(tmp_path / "train_log.jsonl")
    assert [(r["qid"], r["iteration"], r["abandoned"]) for r in log] == [
        (q1.qid, 1, True), (q2.qid, 2, False)]
    assert log[0]["tokens_in"] == 7 and log[0]["p1_steps"] == 1
    trace = read_jsonl(tmp_path / "trace.jsonl")
    assert [(r["qid"], r["phase"], r["step"], r["action"]) for r in trace] == [
        (q1.qid, 1, 1, "search"), (q2.qid, 1, 1, "answer"), (q2.qid, 2, 1, "done")]
    assert all(r["run_id"] == "r-test" and r["kind"] == "train" for r in trace)


def test_probe_rows(tmp_path):
    env = RunRecorder(KBGymEnv(U, mode="probe", split="test_out"), tmp_path, run_id="r-p")
    q = U.split("test_out")[0]
    env.begin(epoch="B1", split="test_out")
    env.reset(options={"qid": q.qid})
    env.step({"action": "answer", "text": q.golds[0]})
    env.close()
    (row,) = read_jsonl(tmp_path / "test_log.jsonl")
    assert (row["epoch"], row["split"], row["status"], row["steps"], row["flavor"]) == (
        "B1", "test_out", "answered", 1, None)
    (step,) = read_jsonl(tmp_path / "trace.jsonl")
    assert step["kind"] == "test" and step["iteration"] is None and step["phase"] == 0
