"""The gradient probe of a casebook universe: the policies world's rule (docs/protocol.md
§21.3) over this world's keys — ``exact`` (the trained questions), ``share1`` (every key a
training key), ``share0`` (no key a training key) — so a wiki compiled without the questions
can be compared with supervised curation on keys no training question touched. Streams
``probe/casebook/{group}``."""

from __future__ import annotations

from pathlib import Path

from kbgym.runs.probe import make_probe_from_run
from kbgym.types import Question, Universe
from kbgym.worlds.interface import ProbeCandidates
from kbgym.worlds.policies.probe import GROUPS, quotas


def probe_candidates(universe: Universe, trained: list[Question], *,
                     per_group: int) -> ProbeCandidates:
    """The casebook probe's pools per group and template, and the quotas (module doc)."""
    keys = {k for q in trained for k in q.keys}
    ids, texts = {q.qid for q in trained}, {q.text for q in trained}
    templates = list(universe.vocab["templates"])
    pools: dict[str, dict[str, list[Question]]] = {g: {t: [] for t in templates}
                                                   for g in GROUPS}
    for q in trained:
        pools["exact"][q.template].append(q)
    for q in universe.questions:
        if q.qid in ids or q.text in texts:
            continue
        shared = sum(k in keys for k in q.keys)
        if shared == len(q.keys):
            pools["share1"][q.template].append(q)
        elif shared == 0:
            pools["share0"][q.template].append(q)
    quota = quotas({t: min(len(pools[g][t]) for g in GROUPS) for t in templates}, per_group)
    return ProbeCandidates(pools=pools, quota=quota, stream="probe/casebook/",
                           fields={"variant": "casebook",
                                   "quota": {t: n for t, n in quota.items() if n}})


def make_casebook_probe_from_run(universe: Universe, run_dir: str | Path, *,
                                 per_group: int = 30, seed: int | None = None) -> dict:
    """The probe of the training run in ``run_dir`` (the one assembler,
    :func:`kbgym.runs.probe.make_probe_from_run`)."""
    return make_probe_from_run(universe, run_dir, per_group=per_group, seed=seed)
