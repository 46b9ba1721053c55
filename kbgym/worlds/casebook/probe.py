"""The gradient probe of a casebook universe: the policies world's rule (docs/protocol.md
§21.3) over this world's keys — ``exact`` (the trained questions), ``share1`` (every key a
training key), ``share0`` (no key a training key) — so a wiki compiled without the questions
can be compared with supervised curation on keys no training question touched. Streams
``probe/casebook/{group}``."""

from __future__ import annotations

from pathlib import Path

from kbgym.runs.probe import read_train_log, trained_qids
from kbgym.seeding import stream
from kbgym.types import Question, Universe
from kbgym.worlds.policies.probe import GROUPS, quotas


def make_casebook_probe_from_run(universe: Universe, run_dir: str | Path, *,
                                 per_group: int = 30, seed: int | None = None) -> dict:
    rows, digest = read_train_log(run_dir)
    seed = universe.meta["seed"] if seed is None else seed
    trained = [universe.question(qid) for qid in trained_qids(rows)]
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
    questions: list[Question] = []
    splits: dict[str, list[str]] = {}
    for group in GROUPS:
        rng = stream(seed, f"probe/casebook/{group}")
        splits[group] = []
        for t in templates:
            items = list(pools[group][t])
            rng.shuffle(items)
            for item in items[:quota[t]]:
                gid = "g%04d" % (len(questions) + 1)
                questions.append(item.probe_item(gid, trained=group == "exact"))
                splits[group].append(gid)
    return {"schema_version": 1, "kind": "kbgym.probe", "variant": "casebook",
            "universe_hash": universe.hash, "train_log_hash": digest,
            "per_group": sum(quota.values()), "quota": {t: n for t, n in quota.items() if n},
            "seed": seed, "questions": [q.to_json() for q in questions], "splits": splits}
