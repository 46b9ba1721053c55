"""Concurrent exams (kbgym/runs/concurrent.py): same logs as a sequential exam apart from
timing.jsonl, at most max_concurrent questions in flight, and a fallback for plain agents."""

from __future__ import annotations

import pytest

from llm_helpers import make
from fake_server import FakeServer
from kbgym.library.graph import Library
from kbgym.runs.concurrent import aexamine, examine_concurrent
from kbgym.runs.exam import examine
from kbgym.runs.logs import read_jsonl


def _files(d):
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.name != "timing.jsonl"}


def test_concurrent_logs_equal_sequential_logs(universe, tmp_path):
    lib = Library.from_universe(universe)
    with FakeServer(latency=0.02) as srv:
        seq = examine(universe, lib, make("reader", srv), split=["test_in", "test_out"],
                      limit=10, out=tmp_path / "seq", run_id="r-x", label="B1")
        assert srv.max_in_flight == 1
        conc = examine_concurrent(universe, lib, make("reader", srv),
                                  split=["test_in", "test_out"], limit=10,
                                  out=tmp_path / "conc", run_id="r-x", label="B1",
                                  max_concurrent=8)
        assert srv.max_in_flight == 8  # overlap shown by the server, not by a wall clock
    assert conc == seq
    assert _files(tmp_path / "conc") == _files(tmp_path / "seq")
    timing = read_jsonl(tmp_path / "conc" / "timing.jsonl")
    assert sorted(r["qid"] for r in timing) == sorted(r["qid"] for r in seq)


def test_in_flight_never_exceeds_the_limit(universe):
    with FakeServer(latency=0.01) as srv:
        rows = examine_concurrent(universe, Library.from_universe(universe),
                                  make("reader", srv), split="test_in", limit=20,
                                  max_concurrent=3)
        assert srv.max_in_flight == 3 and len(rows) == 20


def test_the_library_is_not_touched(universe, server):
    lib = Library.from_universe(universe)
    before = lib.snapshot()
    examine_concurrent(universe, lib, make("reader", server), split="test_in", limit=5,
                       max_concurrent=4)
    assert lib.snapshot() == before


class PlainAgent:
    """A scripted-style agent with ``aact`` and per-episode state but no ``spawn``."""

    def __init__(self):
        self.active = 0
        self.peak = 0

    def reset(self):
        self.step = 0

    async def aact(self, obs, info):
        import asyncio

        self.active += 1
        self.peak = max(self.peak, self.active)
        await asyncio.sleep(0.001)
        self.active -= 1
        self.step += 1
        return {"action": "answer", "text": "unknown"} if self.step > 1 else \
            {"action": "search", "query": obs["text"].split("\n")[1]}


def test_agents_without_spawn_run_one_question_at_a_time(universe):
    agent = PlainAgent()
    rows = examine_concurrent(universe, Library.from_universe(universe), agent,
                              split="test_in", limit=6, max_concurrent=4)
    assert agent.peak == 1 and [r["steps"] for r in rows] == [2] * 6


def test_progress_and_validation(universe, server):
    seen = []
    examine_concurrent(universe, Library.from_universe(universe), make("reader", server),
                       split="test_in", limit=4, max_concurrent=2,
                       progress=lambda i, n, row: seen.append((i, n, row["qid"])))
    assert [s[:2] for s in seen] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    import asyncio

    with pytest.raises(ValueError):
        asyncio.run(aexamine(universe, Library.from_universe(universe),
                             make("reader", server), max_concurrent=0))
