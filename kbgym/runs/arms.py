"""The per-coverage comparison of arms (SPEC §12.2, §14): per arm its index coverage and size,
the mean steps and F1 of its exam over the pooled probe, and the actions saved and F1 gained
per point of index coverage against B1; and the ratio of two arms' per-point figures (the
paper's "1.6x the steps saved and 1.8x the accuracy of B3 per point").

The pool is the probe's exact, share2, share1 and share0 groups; ``exact_matched`` repeats
exact items and is left out. ``scripts/experiments/compare_arms.py`` and ``kbgym reproduce``
both compute their figures here.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping

from kbgym.metrics.outcomes import per_point

POOLED = ("exact", "share2", "share1", "share0")


def _mean(values: list) -> float | None:
    return statistics.fmean(values) if values else None


def coverage_rows(stats: Mapping[str, Mapping], rows: Mapping[str, list[dict]],
                  base: str = "B1") -> dict[str, dict]:
    """Per arm (``stats``: its library's ``stats()``; ``rows``: its exam rows with ``split``,
    ``steps``, ``f1`` and, when the examiner ran the navigator, ``nav_steps``): coverage,
    links, notes added, pooled n / mean steps / F1, the navigator's mean steps over the
    questions it has a figure for on every arm (``nav_steps``, None without the navigator),
    and the per-point figures against ``base`` (None for the base and for an arm without
    coverage)."""
    pooled = {a: [r for r in rows[a] if r["split"] in POOLED] for a in stats}
    nav_ok = all("nav_steps" in r for rs in pooled.values() for r in rs)
    shared = None
    if nav_ok:  # the same questions on every arm, so the navigator means are paired
        keys = [{(r["split"], r["qid"]) for r in rs if r.get("nav_steps") is not None}
                for rs in pooled.values()]
        shared = set.intersection(*keys) if keys else set()
    out = {}
    for name, s in stats.items():
        ps = pooled[name]
        out[name] = {
            "index_coverage": s["index_coverage"], "links": s["n_links"],
            "nodes_added": s["authored_statements"], "n": len(ps),
            "mean_steps": _mean([r["steps"] for r in ps]),
            "f1": _mean([r["f1"] for r in ps]),
            "nav_steps": None if shared is None else _mean(
                [r["nav_steps"] for r in ps if (r["split"], r["qid"]) in shared]),
        }
    b = out[base]
    for name, c in out.items():
        ok = name != base and c["n"] and b["n"]
        pp = per_point(b["mean_steps"], c["mean_steps"], b["f1"], c["f1"],
                       c["index_coverage"] if ok else 0)
        c["saved_per_point"], c["f1_per_point"] = pp["actions_saved_per_point"], pp["f1_per_point"]
        c["rho_nav"] = (c["nav_steps"] / b["nav_steps"]
                        if c["nav_steps"] is not None and b["nav_steps"] else None)
    return out


def ratios(cov: Mapping[str, Mapping], arm: str = "trained", ref: str = "B3") -> dict:
    """``arm``'s per-point figures over ``ref``'s. None where undefined: a ratio is only read
    as "times as much per point" when the reference gains something (ref > 0)."""

    def div(key):
        a, r = cov.get(arm, {}).get(key), cov.get(ref, {}).get(key)
        return a / r if a is not None and r is not None and r > 0 else None

    return {"saved": div("saved_per_point"), "f1": div("f1_per_point")}


def result_rows(result: Mapping) -> tuple[dict[str, dict], dict[str, list[dict]]]:
    """A finished sweep run's (``result.json``) library stats per arm and its exam rows per
    arm, rebuilt from the paired rows (split, qid, steps, f1 and the navigator's figures)."""
    stats = {name: result["libraries"][name] for name in result["arms"]}
    rows: dict[str, list[dict]] = {name: [] for name in stats}
    for group, p in result["paired"].items():
        for name in stats:
            a = p["arms"][name]
            for i, gid in enumerate(p["gids"]):
                row = {"qid": gid, "split": group, "steps": a["steps"][i], "f1": a["f1"][i]}
                if "nav_steps" in a:
                    row["nav_steps"], row["nav_f1"] = a["nav_steps"][i], a["nav_f1"][i]
                rows[name].append(row)
    return stats, rows


def result_coverage(result: Mapping, base: str = "B1") -> dict[str, dict]:
    """:func:`coverage_rows` of a finished sweep run."""
    return coverage_rows(*result_rows(result), base=base)
