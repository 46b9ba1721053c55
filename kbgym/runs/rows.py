"""The rows a run writes (SPEC §15.1), each built in one place: a trace row per step, a
train_log row per training iteration and a test_log row per examined question. The episode
runner, the recorder and the examiner all call these, so their files cannot drift apart."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbgym.universe.types import Question

TRAIN_LOG_FIELDS = ("qid", "template", "category", "f1", "em", "answer", "answered_at",
                    "p1_steps", "p2_steps", "edits", "regens", "merges", "judge_calls",
                    "abandoned", "tokens_in", "tokens_out", "tokens_cached")


def step_row(qid: str, phase: int, step: int, info: Mapping, tokens: tuple[int, int, int]
             ) -> dict:
    """One step of an episode: phase (1/2 in training, 0 in an exam), the 1-based step within
    the phase, the action name (``__invalid__``/``__noop__`` for unreadable or missing ones),
    its canonical input, the full result, validity and the agent's tokens (prompt, completion,
    and the cached part of the prompt)."""
    t_in, t_out, cached = tokens
    return {"qid": qid, "phase": phase, "step": step, "action": info["action"],
            "input": info["input"], "result": info["result"], "valid": info["action_valid"],
            "tokens_in": t_in, "tokens_out": t_out, "tokens_cached": cached}


def trace_row(run_id: str | None, kind: str, context: Mapping, step: Mapping) -> dict:
    """A trace.jsonl row: the run, ``train``/``test``, the episode's context (epoch,
    iteration, split, and ``repeat`` in repeated exams) and a :func:`step_row`."""
    return {"run_id": run_id, "kind": kind, **context, **step}


def train_row(run_id: str | None, epoch: Any, iteration: Any, summary: Mapping) -> dict:
    """A train_log.jsonl row from an episode summary (tokens included)."""
    return {"run_id": run_id, "epoch": epoch, "iteration": iteration,
            **{k: summary[k] for k in TRAIN_LOG_FIELDS}}


def test_row(label: Any, split: str, q: Question, summary: Mapping) -> dict:
    """One test_log row (SPEC §15.1) from an episode summary, plus ``evidence`` (the evidence
    set, :mod:`kbgym.metrics.consistency`) and ``repeat`` (0-based, repeated exams only) when
    the summary has them."""
    row = {
        "epoch": label, "split": split, "qid": q.qid, "template": q.template,
        "category": q.category, "flavor": q.eval_flavor, "f1": summary["f1"],
        "em": summary["em"], "steps": summary["steps"], "status": summary["status"],
        "answer": summary["answer"], "tokens_in": summary["tokens_in"],
        "tokens_out": summary["tokens_out"], "tokens_cached": summary.get("tokens_cached", 0),
    }
    for key in ("evidence", "repeat"):
        if summary.get(key) is not None:
            row[key] = summary[key]
    return row


test_row.__test__ = False  # a row builder, not a pytest test
