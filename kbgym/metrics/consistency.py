"""Citation consistency: evidence sets and their mean pairwise Jaccard across repeated exams.

**Evidence set.** The evidence set of one examined episode is the set of *original* notes
(hidden ``origin`` set: notes built from a source sentence, edited or not) whose text the
environment showed the reader in the results of its ``read`` and ``expand`` steps, provided
the episode ended with an ``answer``; an episode that ran out of budget used nothing for an
answer, and its evidence set is empty. Precisely, over the episode's steps up to the answer:

- ``read(id)`` that succeeded shows the note ``id`` and every note it links to: all of them;
- ``expand`` that succeeded shows a line ``- {type} -> {id}: {text}`` per listed note (the
  one-hop list, or the candidates after ``branch at``): those notes (a ``path:`` line shows
  ids only, no text, so it contributes nothing);
- ``search`` pages and ``locate`` lists are *finding* results, not read results, and do not
  count; neither do errors, authored (index) notes, or anything the reader says about its
  sources.

It is computed by the exam from the trace and the frozen library (what was shown), never
from the agent's cooperation, and written to each test_log row as ``evidence`` (ids in id
order).

**Consistency.** For one question examined R ≥ 2 times, the mean of J(A, B) = |A ∩ B| /
|A ∪ B| over the R(R-1)/2 pairs of its evidence sets, with J(∅, ∅) = 1 (two runs that read
nothing agree). A group's figure is the mean over its questions. It measures whether the
reader grounds its answers in the same notes from run to run, not whether it is right.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

from kbgym.protocol.ids import id_num
from kbgym.protocol.results import parse_expand, parse_read


def shown_ids(row: Mapping) -> list[str]:
    """The notes whose text one trace row's result showed through ``read`` (the note and the
    linked notes on the page shown) or ``expand`` (the edges' targets)."""
    result = row.get("result")
    if not row.get("valid", True) or not isinstance(result, str):
        return []
    if row["action"] == "read":
        r = parse_read(result)
        return [] if r is None else [r.id, *r.link_ids]
    if row["action"] == "expand":
        x = parse_expand(result)
        return [] if x is None else [e.id for e in x.edges]
    return []


def evidence_set(rows: Sequence[Mapping], library) -> list[str]:
    """The evidence set (ids in id order) of one episode's trace rows on a frozen library."""
    if not rows or rows[-1]["action"] != "answer":
        return []
    out = set()
    for row in rows[:-1]:
        for nid in shown_ids(row):
            node = library.get(nid)
            if node is not None and node.is_original:
                out.add(node.id)
    return sorted(out, key=id_num)


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    a, b = set(a), set(b)
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def mean_pairwise_jaccard(sets: Sequence[Iterable[str]]) -> float | None:
    """Mean J over all pairs; None with fewer than two sets."""
    pairs = list(combinations([set(s) for s in sets], 2))
    return sum(jaccard(a, b) for a, b in pairs) / len(pairs) if pairs else None


def consistency(rows: Iterable[Mapping]) -> float | None:
    """Mean over questions (qid) of the mean pairwise Jaccard of their rows' ``evidence``;
    None when no question was examined at least twice (or rows lack ``evidence``)."""
    by_q: dict[str, list] = defaultdict(list)
    for r in rows:
        if "evidence" in r:
            by_q[r["qid"]].append(r["evidence"])
    per_q = [j for j in map(mean_pairwise_jaccard, by_q.values()) if j is not None]
    return sum(per_q) / len(per_q) if per_q else None


def stated_consistency(rows: Iterable[Mapping]) -> tuple[float | None, int, int]:
    """Consistency of *stated* citations (the ``cited`` ids of each answer action, the blog's
    measure): per question examined at least twice, the mean pairwise Jaccard of its repeats'
    cited sets, **undefined** (left out, not 1) when any repeat cited nothing or did not
    answer. Returns (mean over the defined questions or None, defined questions, undefined
    questions)."""
    by_q: dict[str, list] = defaultdict(list)
    for r in rows:
        by_q[r["qid"]].append(r.get("cited") or [])
    values, undefined = [], 0
    for sets in by_q.values():
        if len(sets) < 2:
            continue
        if any(not s for s in sets):
            undefined += 1
            continue
        values.append(mean_pairwise_jaccard(sets))
    return (sum(values) / len(values) if values else None), len(values), undefined
