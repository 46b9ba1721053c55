"""The PW probe (SPEC §17 "PW probe"; the §13 probe adapted to PhantomWiki).

- Keys are person names only (the universe's question keys), and only questions with exactly
  one key take part.
- Groups: ``exact`` (trained questions), ``share1`` and ``share0`` (every other universe
  question whose text no trained question has, by whether its key is a training key).
- Each template's quota is the minimum of its three pool sizes, so every group holds the same
  number of questions of each template; templates with an empty pool contribute nothing.
- Sampling: per group, one stream ``probe/pw/{group}``; each template's pool, in qid order, is
  shuffled in table order and its first ``quota`` questions taken.
- ``stratify="category"`` (not the SPEC default) takes the quota per category (PW_REL,
  PW_ATTR, PW_AGG, in first-template order) instead of per template: a generation with many
  types and few questions per type (``--question-depth 20``: 50 types) often has a template
  pool of 0 somewhere in every template, which leaves the per-template probe empty.

The file has the format of :func:`kbgym.runs.probe.make_probe` (kind ``kbgym.probe``, one split
per group), plus ``variant: "pw"`` and the per-template ``quota``; ``per_group`` is each group's
size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from kbgym.errors import ConfigError
from kbgym.runs.probe import make_probe, make_probe_from_run
from kbgym.types import Question, Universe
from kbgym.worlds.interface import ProbeCandidates

PW_GROUPS = ("exact", "share1", "share0")
STRATA = ("template", "category")


def probe_candidates(universe: Universe, trained: list[Question], *,
                     per_template: int | None = None, stratify: str = "template",
                     seed: int | None = None) -> ProbeCandidates:
    """The PW probe's pools per group and stratum, and the quotas (module doc); drawn with
    ``seed`` (default: the universe's)."""
    if stratify not in STRATA:
        raise ConfigError(f"stratify must be one of {', '.join(STRATA)}, not {stratify!r}")
    train_keys = {k for q in trained for k in q.keys}
    trained_texts = {q.text for q in trained}
    trained_ids = {q.qid for q in trained}

    def stratum(q: Question) -> str:
        return q.template if stratify == "template" else q.category

    pools: dict[str, dict[str, list[Question]]] = {g: {} for g in PW_GROUPS}
    for q in trained:
        if len(q.keys) == 1:
            pools["exact"].setdefault(stratum(q), []).append(q)
    for q in universe.questions:  # qid order
        if q.qid in trained_ids or q.text in trained_texts or len(q.keys) != 1:
            continue
        group = "share1" if q.keys[0] in train_keys else "share0"
        pools[group].setdefault(stratum(q), []).append(q)

    table = universe.vocab["templates"]  # table order
    templates = list(table) if stratify == "template" else list(
        dict.fromkeys(t["category"] for t in table.values()))
    quota = {}
    for t in templates:
        n = min(len(pools[g].get(t, ())) for g in PW_GROUPS)
        quota[t] = n if per_template is None else min(n, per_template)
    fields: dict = {"variant": "pw", "quota": quota}
    if stratify != "template":
        fields["stratify"] = stratify
    return ProbeCandidates(pools=pools, quota=quota, stream="probe/pw/", fields=fields,
                           seed=universe.meta["seed"] if seed is None else seed)


def make_pw_probe(universe: Universe, train_log: Sequence[Mapping], *, seed: int | None = None,
                  per_template: int | None = None, train_log_hash: str | None = None,
                  stratify: str = "template") -> dict:
    """The probe file object of a training run on a PhantomWiki universe.

    ``per_template`` optionally caps each stratum's quota; ``stratify`` is ``template`` (SPEC
    §17) or ``category``.
    """
    return make_probe(universe, train_log, train_log_hash=train_log_hash, seed=seed,
                      per_template=per_template, stratify=stratify, pw_seed=seed)


def make_pw_probe_from_run(universe: Universe, run_dir: str | Path, *, seed: int | None = None,
                           per_template: int | None = None, stratify: str = "template") -> dict:
    """:func:`make_pw_probe` over ``run_dir/train_log.jsonl``."""
    return make_probe_from_run(universe, run_dir, seed=seed, per_template=per_template,
                               stratify=stratify, pw_seed=seed)
