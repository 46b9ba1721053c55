"""The scores of a bench package, computed in one place from what the package holds (exam
rows, the final libraries, the train logs), so that ``kbgym bench run`` and ``kbgym bench
verify`` compute them with the same code and verify can compare them exactly.

Per seed and budget: the probe table of the curator's library against B1 (ρ and F1 per
probe group with their paired-bootstrap CIs, ρ_nav and the blind-spot records; the same
table as ``kbgym probe table``) and the score blocks of both arms. Pooled: the same table
over every seed's questions together (ids prefixed by the seed, one bootstrap matrix per
group), plus the group ``all`` holding every probe question; its numbers are the headline.
Per seed also the library's metrics (size, index coverage, misinformation) and the curation
cost (iterations, steps, tokens; USD when the package has a price table).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from kbgym.scoring import score_block

#: The two arms of every bench exam: the untrained library and the curator's.
ARMS = ("B1", "curator")
#: Fields of a test_log row that are the writer's, not the exam's.
WRITER_FIELDS = ("run_id", "schema_version", "chain")
POOLED_ALL = "all"


def exam_row(row: Mapping) -> dict:
    """A test_log row without its writer's fields (what the exam itself determined)."""
    return {k: v for k, v in row.items() if k not in WRITER_FIELDS}


def finite(obj: Any) -> Any:
    """``obj`` with NaN and infinities as None (a ρ over no steps), so it is JSON."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    return obj


def table(arms: Mapping[str, Sequence[Mapping]], probe: Mapping, m: int, bootstrap: Mapping
          ) -> dict:
    from kbgym.runs.probe import probe_table

    return finite(probe_table(arms, probe, base="B1", seed=bootstrap["seed"],
                              resamples=bootstrap["resamples"], m=m))


def blind_spot_lines(tab: Mapping) -> list[str]:
    from kbgym.runs.probe import format_blind_spots, has_nav

    return format_blind_spots(tab).splitlines() if has_nav(tab) else []


def curation(train_log: Sequence[Mapping] | None) -> dict:
    """Iterations, steps (forward + backward) and tokens of a training run (zeros for a
    library built without an agent)."""
    rows = list(train_log or [])
    return {"iterations": len(rows),
            "steps": sum(int(r["p1_steps"]) + int(r["p2_steps"]) for r in rows),
            "abandoned": sum(bool(r.get("abandoned")) for r in rows),
            "tokens": [sum(int(r["tokens_in"]) for r in rows),
                       sum(int(r["tokens_out"]) for r in rows),
                       sum(int(r.get("tokens_cached", 0)) for r in rows)]}


def library_metrics(library, universe) -> dict:
    from kbgym.metrics.misinformation import misinformation

    stats = library.stats()
    mis = misinformation(library, universe)
    return {
        **{k: stats.get(k) for k in ("n_nodes", "n_links", "authored_statements",
                                     "index_coverage")},
        "misinformation": {k: mis.get(k) for k in (
            "applies", "authored_notes", "true_statements", "false_statements",
            "unverifiable_statements", "false_notes", "false_note_share", "incomplete_sets",
            "wrong_members")},
    }


def seed_scores(exams: Mapping[str, Mapping[int, Sequence[Mapping]]], probe: Mapping,
                budgets: Sequence[int], bootstrap: Mapping, library: dict,
                train_log: Sequence[Mapping] | None) -> dict:
    """One seed: per budget the probe table and both arms' score blocks; the library's
    metrics; the curation cost. ``exams[arm][m]`` are exam rows."""
    out: dict = {"budgets": {}, "library": library, "curation": curation(train_log)}
    for m in budgets:
        arms = {arm: [exam_row(r) for r in exams[arm][m]] for arm in ARMS}
        tab = table(arms, probe, m, bootstrap)
        out["budgets"][str(m)] = {
            "score": {arm: finite(score_block(rows)) for arm, rows in arms.items()},
            "table": tab, "blind_spots": blind_spot_lines(tab)}
    return out


def pooled_scores(per_seed_exams: Mapping[str, Mapping[str, Mapping[int, Sequence[Mapping]]]],
                  probes: Mapping[str, Mapping], budgets: Sequence[int], bootstrap: Mapping
                  ) -> dict:
    """Every seed's questions together: per budget one table over the groups (qids prefixed
    ``seed/``) and the group ``all``, and both arms' score blocks over all questions."""
    out: dict = {}
    for m in budgets:
        arms: dict[str, list[dict]] = {arm: [] for arm in ARMS}
        splits: dict[str, list[str]] = {}
        for seed, exams in per_seed_exams.items():
            for group, gids in probes[seed]["splits"].items():
                splits.setdefault(group, []).extend(f"{seed}/{g}" for g in gids)
                splits.setdefault(POOLED_ALL, []).extend(f"{seed}/{g}" for g in gids)
            for arm in ARMS:
                for r in exams[arm][m]:
                    row = dict(exam_row(r), qid=f"{seed}/{r['qid']}")
                    arms[arm].append(row)
                    arms[arm].append(dict(row, split=POOLED_ALL))
        probe = {"splits": splits, "seed": bootstrap["seed"]}
        tab = table(arms, probe, m, bootstrap)
        out[str(m)] = {
            "score": {arm: finite(score_block(r for r in rows if r["split"] != POOLED_ALL))
                      for arm, rows in arms.items()},
            "table": tab, "blind_spots": blind_spot_lines(tab)}
    return out


def headline(scores: Mapping, budgets: Mapping) -> dict:
    """The leaderboard's numbers: pooled F1 of the curator at the tight budget (and at m)
    with B1's, ρ over all questions at m with its CI, ρ_nav, the number of flagged blind
    spots, misinformation and the curation cost."""
    m, tight = str(budgets["m"]), str(budgets["tight_m"])
    pooled = scores["pooled"]

    def cell(b: str) -> dict:
        return pooled[b]["table"]["groups"][POOLED_ALL]["all"]["curator"]

    seeds = scores["seeds"].values()
    false = sum(s["library"]["misinformation"]["false_statements"] or 0 for s in seeds)
    true = sum(s["library"]["misinformation"]["true_statements"] or 0 for s in seeds)
    cur = [s["curation"] for s in seeds]
    return finite({
        "f1_tight": pooled[tight]["score"]["curator"]["f1"],
        "f1_tight_b1": pooled[tight]["score"]["B1"]["f1"],
        "f1_tight_diff_ci": cell(tight)["f1_diff_ci"],
        "f1": pooled[m]["score"]["curator"]["f1"],
        "f1_b1": pooled[m]["score"]["B1"]["f1"],
        "rho": cell(m)["rho"], "rho_ci": cell(m)["ci"], "rho_nav": cell(m)["rho_nav"],
        "rho_tight": cell(tight)["rho"],
        "blind_spots": sum(1 for b in (m, tight) for g in pooled[b]["table"]["groups"].values()
                           for c in g["all"].values()
                           if (c.get("blind_spot") or {}).get("flagged")),
        "false_statements": false,
        "false_share": false / (false + true) if false + true else None,
        "curation_steps": sum(c["steps"] for c in cur),
        "curation_iterations": sum(c["iterations"] for c in cur),
        "curation_tokens": [sum(c["tokens"][i] for c in cur) for i in range(3)],
    })


def usd(tokens: Sequence[int], model: str | None, prices: Mapping | None) -> float | None:
    """Curation USD for [in, out, cached] tokens under a price table (None: unpriced)."""
    if prices is None:
        return None
    from kbgym.metrics.costs import PriceTable

    return PriceTable.load(dict(prices)).cost(model, tokens[0], tokens[1], tokens[2])
