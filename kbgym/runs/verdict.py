"""Did the agent do anything? A verdict on a run or an exam, from its logs alone.

A curator written against another observation layout, or one whose parsing silently stopped
matching, still "runs": every step is answered, nothing raises. The verdict says so plainly
when a training run made no edits, when most of its actions were invalid, or when every forward
phase ran out of steps — and when an exam's reader never answered — with the counts and the
most common error, so that a green exit status is never mistaken for a working agent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from kbgym.protocol.errors import is_error

#: A share of invalid actions above this is "most actions were invalid".
INVALID_SHARE = 0.5


def _errors(trace: Iterable[Mapping]) -> tuple[int, int, Counter]:
    actions = invalid = 0
    errors: Counter = Counter()
    for row in trace:
        actions += 1
        result = row.get("result")
        if not row.get("valid", True):
            invalid += 1
            if isinstance(result, str) and is_error(result):
                errors[result] += 1
    return actions, invalid, errors


def _most_common(errors: Counter) -> dict | None:
    if not errors:
        return None
    text, n = errors.most_common(1)[0]
    return {"error": text[:200], "count": n}


def train_verdict(train_log: Iterable[Mapping], trace: Iterable[Mapping]) -> dict:
    """The verdict of a training run from its train_log and trace rows (train rows only):
    ``ok`` plus the counts behind it and the ``problems`` found (empty when ok)."""
    rows = [r for r in train_log if not r.get("abandoned")]
    actions, invalid, errors = _errors(r for r in trace if r.get("kind", "train") == "train")
    edits = sum(sum((r.get("edits") or {}).values()) for r in rows)
    exhausted = sum(1 for r in rows if r.get("answer") is None)
    problems = []
    if rows and edits == 0:
        problems.append(f"0 edits in {len(rows)} iterations")
    if rows and exhausted == len(rows):
        problems.append(f"{exhausted} of {len(rows)} forward phases ran out of steps")
    if actions and invalid > INVALID_SHARE * actions:
        problems.append(f"{invalid} of {actions} actions were invalid")
    return {"ok": not problems, "problems": problems, "iterations": len(rows), "edits": edits,
            "forward_exhausted": exhausted, "actions": actions, "invalid_actions": invalid,
            "most_common_error": _most_common(errors)}


def exam_verdict(test_log: Iterable[Mapping], trace: Iterable[Mapping] = ()) -> dict:
    """The verdict of an exam from its test_log (and trace) rows: not ok when the reader
    answered no question at all."""
    rows = list(test_log)
    actions, invalid, errors = _errors(trace)
    unanswered = sum(1 for r in rows if r.get("status") == "unanswered")
    problems = []
    if rows and unanswered == len(rows):
        problems.append(f"the reader answered none of {len(rows)} questions")
    if actions and invalid > INVALID_SHARE * actions:
        problems.append(f"{invalid} of {actions} actions were invalid")
    return {"ok": not problems, "problems": problems, "questions": len(rows),
            "unanswered": unanswered, "actions": actions, "invalid_actions": invalid,
            "most_common_error": _most_common(errors)}


def verdict_line(verdict: Mapping, who: str = "curator") -> str | None:
    """One line for the user when the verdict is not ok (None when it is)."""
    if verdict.get("ok", True):
        return None
    line = f"verdict: this {who} did nothing useful: " + "; ".join(verdict["problems"])
    common = verdict.get("most_common_error")
    if common:
        line += f" (most common error, {common['count']}x: {common['error']})"
    return line + " - check how it reads obs['text'] (kbgym.protocol.parse_observation)"
