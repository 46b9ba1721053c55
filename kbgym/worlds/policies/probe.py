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

from kbgym.runs.probe import read_train_log, trained_qids
from kbgym.seeding import stream
from kbgym.types import Question, Universe

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


def make_policy_probe(universe: Universe, train_log: Sequence[Mapping], *, per_group: int = 30,
                      seed: int | None = None, train_log_hash: str | None = None) -> dict:
    """The probe file object of a training run on a policies universe (module doc)."""
    seed = universe.meta["seed"] if seed is None else seed
    trained = [universe.question(qid) for qid in trained_qids(train_log)]
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
    questions: list[Question] = []
    splits: dict[str, list[str]] = {}
    for group in GROUPS:
        rng = stream(seed, f"probe/policies/{group}")
        splits[group] = []
        for t in templates:
            items = list(pools[group][t])
            rng.shuffle(items)
            for item in items[:quota[t]]:
                gid = "g%04d" % (len(questions) + 1)
                questions.append(item.probe_item(gid, trained=group == "exact"))
                splits[group].append(gid)
    return {
        "schema_version": 1, "kind": "kbgym.probe", "variant": "policies",
        "universe_hash": universe.hash, "train_log_hash": train_log_hash,
        "per_group": sum(quota.values()), "quota": {t: n for t, n in quota.items() if n},
        "seed": seed, "questions": [q.to_json() for q in questions], "splits": splits,
    }


def make_policy_probe_from_run(universe: Universe, run_dir: str | Path, *, per_group: int = 30,
                               seed: int | None = None) -> dict:
    """:func:`make_policy_probe` over ``run_dir/train_log.jsonl``."""
    rows, digest = read_train_log(run_dir)
    return make_policy_probe(universe, rows, per_group=per_group, seed=seed,
                             train_log_hash=digest)
