"""Repeated exams with an LLM reader against the fake endpoint: each (repeat, question) sends
its own sampling seed, and the consistency figure comes out (wiring only)."""

from __future__ import annotations

from llm_helpers import make
from kbgym.library.graph import Library
from kbgym.metrics.consistency import consistency
from kbgym.runs.concurrent import examine_concurrent
from kbgym.runs.exam import repeat_seed


def test_llm_reader_gets_a_sampling_seed_per_repeat(universe, server):
    lib = Library.from_universe(universe)
    rows = examine_concurrent(universe, lib, make("reader", server), split="test_in", limit=3,
                              repeats=2, seed=7, max_concurrent=4)
    assert len(rows) == 6 and [r["repeat"] for r in rows] == [0, 0, 0, 1, 1, 1]
    sent = {r["seed"] for r in server.chat_requests()}
    want = {repeat_seed(7, rep, r["qid"]) for rep in (0, 1) for r in rows[:3]}
    assert sent == want and len(want) == 6
    j = consistency(rows)
    assert j is not None and 0.0 <= j <= 1.0
