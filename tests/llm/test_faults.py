"""Faults survived (SPEC §9.5 reliability): retries, timeouts, 429/5xx, garbage, malformed
calls. A call that still fails is a counted no-op (``__noop__``); a malformed one reaches the
env as an invalid action (``__invalid__``) with the env's error text. Nothing stops the run."""

from __future__ import annotations

import json
from collections import Counter

from llm_helpers import make
from fake_server import Fault, Raw
from kbgym.runs.concurrent import examine_concurrent
from kbgym.runs.logs import read_jsonl
from kbgym.runs.train import TrainConfig, train
from kbgym.library.graph import Library

PASS = Fault.delay(0)

SCHEDULE = [
    Fault.http(429, retry_after_ms=1), PASS,                  # 1 retried, then fine: search
    Fault.http(500), Fault.http(503),                         # 2 5xx twice: no-op
    Fault.hang(1.0), Fault.hang(1.0),                         # 3 timeout twice: no-op
    Fault.garbage(),                                          # 4 a 200 that is not JSON: no-op
    Fault.answer_with(Raw((("frobnicate", '{"x": 1}'),))),    # 5 unknown tool: invalid
    Fault.answer_with(Raw((("search", '{"query": "a'),))),    # 6 broken arguments: invalid
    Fault.answer_with(Raw((("read", "{}"),))),                # 7 missing field: invalid
    Fault.answer_with(Raw(content="I am not sure what to do.")),  # 8 no call: no-op
    Fault.delay(0.05),                                        # 9 slow but fine: answer
]


def test_every_fault_kind_is_survived_and_counted(server, universe, tmp_path):
    server.faults.extend(SCHEDULE)
    agent = make("trainer", server, tool_mode="tools", max_retries=1, timeout_s=0.25)
    meta = train(universe, agent, tmp_path, config=TrainConfig(epochs=1, train_size=3))
    trace = read_jsonl(tmp_path / "trace.jsonl")
    first = [r for r in trace if r["iteration"] == 1 and r["phase"] == 1]
    assert [r["action"] for r in first] == [
        "search", "__noop__", "__noop__", "__noop__", "__invalid__", "__invalid__",
        "__invalid__", "__noop__", "answer"]
    assert [r["result"] for r in first[1:8]] == [
        "ERROR: no action was given"] * 3 + [
        "ERROR: unknown action frobnicate", "ERROR: bad input: could not read an action",
        "ERROR: bad input: id is missing", "ERROR: no action was given"]
    assert first[4]["input"] == {"given": '{"x":1}'}  # what was given, as text
    assert all(r["tokens_in"] == 0 for r in first if r["action"] == "__noop__"
               and r["step"] in (2, 3, 4))
    assert all(r["tokens_in"] > 0 for r in first if r["action"] == "__invalid__")
    # the run went on: every iteration completed, later ones clean
    log = read_jsonl(tmp_path / "train_log.jsonl")
    assert [r["iteration"] for r in log] == [1, 2, 3] and log[0]["p1_steps"] == 9
    assert Counter(r["action"] for r in trace)["__noop__"] == 4
    assert Counter(r["action"] for r in trace)["__invalid__"] == 3
    stats = agent.stats
    assert stats["errors"] == {"bad_response": 1, "server": 1, "timeout": 1}
    assert stats["retries"] == 3 and stats["noops"] == 4
    assert stats["tokens_in"] == sum(r["tokens_in"] for r in trace)
    assert meta["tokens"]["train"] == [stats["tokens_in"], stats["tokens_out"]]
    assert meta["agent"] == json.loads(json.dumps(agent.meta))
    assert server.served["429"] == 1 and server.served["garbage"] == 1


def test_retries_exhausted_on_429(server, universe):
    from kbgym.env import KBGymEnv
    from kbgym.runs.episode import run_episode

    server.faults.extend([Fault.http(429, retry_after_ms=1)] * 3)
    agent = make("reader", server, tool_mode="tools", max_retries=2)
    _, rows, _ = run_episode(KBGymEnv(universe, mode="probe"), agent,
                             universe.splits["test_in"][0])
    assert rows[0]["action"] == "__noop__" and rows[1]["action"] == "search"
    assert agent.stats["errors"] == {"rate_limit": 1} and agent.stats["retries"] == 2


def test_faults_in_a_concurrent_exam(server, universe, tmp_path):
    server.faults.extend([Fault.garbage(), Fault.garbage(),
                          Fault.answer_with(Raw((("frobnicate", "{}"),))),
                          Fault.http(429, retry_after_ms=1)])
    agent = make("reader", server, tool_mode="tools")
    rows = examine_concurrent(universe, Library.from_universe(universe), agent,
                              split="test_in", limit=12, out=tmp_path, max_concurrent=6)
    trace = read_jsonl(tmp_path / "trace.jsonl")
    counts = Counter(r["action"] for r in trace)
    assert counts["__noop__"] == 2 and counts["__invalid__"] == 1
    assert len(rows) == 12 and all(r["status"] != "unanswered" for r in rows)
    assert agent.stats["errors"] == {"bad_response": 2} and agent.stats["retries"] == 1
