"""The gradient probe of a policies universe (the §13 probe: questions grouped by how many of
their keys training touched).

- Keys are the question's provision (``provision:HO-3 §I.B``), document, bulletin series and
  state; training keys are the keys of every question with a completed training iteration.
- Groups: ``exact`` (the trained questions), ``share1`` (every other question whose keys are
  all training keys, its text not a trained one) and ``share0`` (no key a training key).
  Questions with some keys trained and some not take no part.
- Each template gets the same quota in every group: the smallest of its three pools; while
  the quotas add up to more than ``per_group``, the largest is cut by one (the later template
  in table order first on a tie).
- Sampling: one stream ``probe/policies/{group}`` per group; each template's pool, in qid
  order, is shuffled in table order and its first ``quota`` questions taken. Probe ids are
  ``g0001`` … in group then table order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from kbgym.runs.probe import make_probe, make_probe_from_run
from kbgym.types import Question, Universe
from kbgym.worlds.interface import ProbeCandidates

GROUPS = ("exact", "share1", "share0")


def quotas(sizes: dict[str, int], per_group: int) -> dict[str, int]:
    """Per-template quotas from each template's smallest pool, cut to ``per_group`` in all."""
    quota = dict(sizes)
    order = list(quota)
    while sum(quota.values()) > per_group:
        top = max(quota.values())
        last = [t for t in order if quota[t] == top][-1]
        quota[last] -= 1
    return quota


def probe_candidates(universe: Universe, trained: list[Question], *,
                     per_group: int) -> ProbeCandidates:
    """The policies probe's pools per group and template, and the quotas (module doc)."""
    train_keys = {k for q in trained for k in q.keys}
    texts = {q.text for q in trained}
    ids = {q.qid for q in trained}
    templates = list(universe.vocab["templates"])
    pools: dict[str, dict[str, list[Question]]] = {g: {t: [] for t in templates}
                                                   for g in GROUPS}
    for q in trained:
        pools["exact"][q.template].append(q)
    for q in universe.questions:  # qid order
        if q.qid in ids or q.text in texts or not q.keys:
            continue
        shared = sum(k in train_keys for k in q.keys)
        if shared == len(q.keys):
            pools["share1"][q.template].append(q)
        elif shared == 0:
            pools["share0"][q.template].append(q)
    quota = quotas({t: min(len(pools[g][t]) for g in GROUPS) for t in templates}, per_group)
    return ProbeCandidates(pools=pools, quota=quota, stream="probe/policies/",
                           fields={"variant": "policies",
                                   "quota": {t: n for t, n in quota.items() if n}})


def make_policy_probe(universe: Universe, train_log: Sequence[Mapping], *, per_group: int = 30,
                      seed: int | None = None, train_log_hash: str | None = None) -> dict:
    """The probe file object of a training run on a policies universe (module doc)."""
    return make_probe(universe, train_log, per_group=per_group, seed=seed,
                      train_log_hash=train_log_hash)


def make_policy_probe_from_run(universe: Universe, run_dir: str | Path, *, per_group: int = 30,
                               seed: int | None = None) -> dict:
    """:func:`make_policy_probe` over ``run_dir/train_log.jsonl``."""
    return make_probe_from_run(universe, run_dir, per_group=per_group, seed=seed)
