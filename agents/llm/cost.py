"""Token costs (SPEC §12.1): prices, cost per correct answer, and the break-even N*.

The price table, the token sums (prompt, completion and cached prompt tokens) and the cost
per correct answer with and without the cache discount live in :mod:`kbgym.metrics.costs`
(``kbgym report --prices`` and ``kbgym probe table --prices`` use them too; its docstring
gives the table's format) and are re-exported here. Token counts come from the run logs,
which every runner writes (``test_log.jsonl``/``train_log.jsonl`` rows, ``meta.json``
``tokens``/``tokens_cached`` and ``dedup.judge_tokens``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kbgym.metrics.costs import PriceTable, cached_share, exam_costs, tokens_of
from kbgym.metrics.outcomes import break_even

__all__ = ["PriceTable", "break_even_report", "cached_share", "exam_costs", "tokens_of"]


def break_even_report(train_meta: Mapping, base_rows: Sequence[Mapping],
                      trained_rows: Sequence[Mapping]) -> dict:
    """N* = C_train / (c0 − cT) (§12.1) from a run's meta.json and two exams on the same
    questions. C_train counts all training tokens, judge included; c0 and cT are the mean
    answering tokens per question on B1 and on the trained library over the shared qids."""
    tokens = train_meta.get("tokens", {}).get("train", [0, 0])
    judge = (train_meta.get("dedup") or {}).get("judge_tokens") or [0, 0]
    if isinstance(judge, Mapping):
        judge = [judge.get("in", 0), judge.get("out", 0)]
    c_train = int(sum(tokens)) + int(sum(judge))
    base = {r["qid"]: r for r in base_rows}
    shared = [r for r in trained_rows if r["qid"] in base]
    if not shared:
        return {"c_train": c_train, "n": 0, "c0": None, "cT": None, "n_star": None}
    c0 = sum(base[r["qid"]]["tokens_in"] + base[r["qid"]]["tokens_out"] for r in shared) \
        / len(shared)
    ct = sum(r["tokens_in"] + r["tokens_out"] for r in shared) / len(shared)
    return {"c_train": c_train, "n": len(shared), "c0": c0, "cT": ct,
            "n_star": break_even(c_train, c0, ct)}
