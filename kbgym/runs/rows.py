"""The rows a run writes (SPEC §15.1), each built in one place: a trace row per step, a
train_log row per training iteration and a test_log row per examined question. The episode
runner, the recorder and the examiner all call these, so their files cannot drift apart."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from kbgym.types import Question


class StepRow(TypedDict):
    """One step of an episode (the part of a trace row the episode itself determines)."""

    qid: str
    phase: int
    step: int
    action: str | None
    input: Any
    result: str
    valid: bool | None
    tokens_in: int
    tokens_out: int
    tokens_cached: int


class TestRow(TypedDict, total=False):
    """A test_log.jsonl row (``run_id`` is added by the writer; ``evidence`` and ``repeat``
    when the exam has them; ``nav_steps`` and ``nav_f1``, the ideal navigator's, None where
    the support is unknown, when the examiner computed them, and ``nav_steps_unchained``,
    its steps with the library's chains cut, when the library has chains)."""

    epoch: Any
    split: str
    qid: str
    template: str
    category: str
    flavor: str | None
    f1: float
    em: float
    steps: int
    status: str
    answer: str | None
    tokens_in: int
    tokens_out: int
    tokens_cached: int
    evidence: list[str]
    repeat: int
    nav_steps: int | None
    nav_f1: float | None
    nav_steps_unchained: int | None

TRAIN_LOG_FIELDS = ("qid", "template", "category", "f1", "em", "answer", "answered_at",
                    "p1_steps", "p2_steps", "edits", "regens", "merges", "judge_calls",
                    "abandoned", "tokens_in", "tokens_out", "tokens_cached")


def step_row(qid: str, phase: int, step: int, info: Mapping, tokens: tuple[int, int, int]
             ) -> StepRow:
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


def test_row(label: Any, split: str, q: Question, summary: Mapping) -> TestRow:
    """One test_log row (SPEC §15.1) from an episode summary, plus ``evidence`` (the evidence
    set, :mod:`kbgym.metrics.consistency`), ``repeat`` (0-based, repeated exams only) and
    ``cited`` (the note ids the answer action stated, when it stated any) when the summary has
    them, and the ideal navigator's ``nav_steps`` and ``nav_f1``
    (:mod:`kbgym.metrics.navigator`; null for a question without known support) when the
    examiner computed them, with ``nav_steps_unchained`` (its steps with the links between
    original notes cut) when the library has any."""
    row: TestRow = {
        "epoch": label, "split": split, "qid": q.qid, "template": q.template,
        "category": q.category, "flavor": q.eval_flavor, "f1": summary["f1"],
        "em": summary["em"], "steps": summary["steps"], "status": summary["status"],
        "answer": summary["answer"], "tokens_in": summary["tokens_in"],
        "tokens_out": summary["tokens_out"], "tokens_cached": summary.get("tokens_cached", 0),
    }
    if summary.get("evidence") is not None:
        row["evidence"] = summary["evidence"]
    if summary.get("repeat") is not None:
        row["repeat"] = summary["repeat"]
    if summary.get("cited") is not None:
        row["cited"] = list(summary["cited"])
    if "nav_steps" in summary:
        row["nav_steps"], row["nav_f1"] = summary["nav_steps"], summary["nav_f1"]
        if "nav_steps_unchained" in summary:
            row["nav_steps_unchained"] = summary["nav_steps_unchained"]
    return row


test_row.__test__ = False  # type: ignore[attr-defined]  # a row builder, not a pytest test
TestRow.__test__ = False  # type: ignore[attr-defined]
