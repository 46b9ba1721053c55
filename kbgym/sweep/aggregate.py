"""``kbgym sweep report DIR``: the finished runs of a sweep, aggregated per cell (a curator ×
reader × universe × env combination, over its seeds) × arm × probe group.

Per arm × group:

- ρ: the mean of the per-seed ρ with a between-seed 95% CI (Student t over seeds), and the
  pooled ρ (Σ steps over all seeds' questions) with a paired-bootstrap CI that resamples
  each seed's questions with that seed's own ``probe/bootstrap/{group}`` matrix (the one its
  probe table used) and adds the sums across seeds;
- F1: mean F1 of the arm and of B1, ΔF1 with the same two CIs, and the F1 gate of formula
  (1) on the pooled CIs (``star``: ρ CI below 1 and no F1 loss; ``f1_loss``: the ΔF1 CI lies
  below −δ), plus how many seeds were starred on their own;
- per cell: structure metrics of the trained library and costs (tokens, seconds; with a
  price table, money per correct answer and the break-even number of questions).

``report.json`` holds everything; seconds sit apart (``seconds``) because they are the one
thing that differs between two sweeps of the same grid. ``report.md`` is the readable part;
``gradient.png`` and ``learning_curve.png`` draw the means with bands across seeds.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kbgym.errors import ConfigError
from kbgym.jsonio import atomic_write_text, write_canonical
from kbgym.metrics.costs import PriceTable
from kbgym.metrics.outcomes import bootstrap_indices, break_even, f1_gate, mean_diff_ci
from kbgym.runs.probe import BLIND_SPOT_NOTE, GROUPS, blind_spot
from kbgym.sweep.grid import cell_key
from kbgym.sweep.run import RESULT

BASE = "B1"
#: Student t 0.975 quantiles for 1..30 degrees of freedom.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
STRUCTURE_KEYS = ("precision", "recall", "index_coverage", "n_links", "authored_statements",
                  "false_statements", "wrong_members", "incomplete_sets")
#: The keys read from the run's misinformation report (None where it was not checked).
MISINFORMATION_KEYS = ("false_statements", "wrong_members", "incomplete_sets")


# -- small statistics --------------------------------------------------------------------------
def t975(df: int) -> float:
    if df <= 30:
        return _T975[df - 1]
    return 2.000 if df <= 60 else (1.980 if df <= 120 else 1.960)


def between_seeds(values: Sequence[float | None]) -> dict:
    """Mean over seeds and the 95% t-interval of that mean (None with fewer than 2 seeds)."""
    xs = [float(v) for v in values if v is not None and not math.isnan(v)]
    if not xs:
        return {"mean": None, "ci": None, "k": 0}
    mean = statistics.fmean(xs)
    if len(xs) < 2:
        return {"mean": mean, "ci": None, "k": 1}
    half = t975(len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))
    return {"mean": mean, "ci": [mean - half, mean + half], "k": len(xs)}


def gate(rho_hi: float | None, f1_hi: float | None, delta: float) -> tuple[bool, bool]:
    """Formula (1) on CI upper bounds that may be missing (an empty group): (star, f1_loss)."""
    if rho_hi is None or f1_hi is None:
        return False, False
    return f1_gate(rho_hi, f1_hi, delta)


# -- loading -------------------------------------------------------------------------------------
def load_results(out: str | Path) -> tuple[list[dict], list[str]]:
    """Finished results (in run-id order) and the ids the sweep listed but did not finish."""
    out = Path(out)
    if not (out / "runs").is_dir():
        raise ConfigError(f"{out}: not a sweep folder (no runs/ inside)")
    results = []
    for p in sorted((out / "runs").glob(f"*/{RESULT}")):
        r = json.loads(p.read_text(encoding="utf-8"))
        t = p.parent / "timing.json"
        r["_timing"] = json.loads(t.read_text(encoding="utf-8")) if t.exists() else {}
        results.append(r)
    listed = []
    if (out / "sweep.json").exists():
        listed = [s["id"] for s in json.loads((out / "sweep.json").read_text())["runs"]]
    done = {r["id"] for r in results}
    return results, [i for i in listed if i not in done]


def load_prices(path: str | Path | None) -> PriceTable | None:
    """The price table of ``kbgym report --prices`` (JSON or YAML), or None."""
    return None if path is None else PriceTable.load(Path(path))


# -- one cell --------------------------------------------------------------------------------------
def _label(spec: dict, varying: list[str]) -> str:
    cur = spec["curator"]
    parts = [cur["name"] + (json.dumps(cur["options"], sort_keys=True, separators=(",", ":"))
                            if cur["options"] else "")]
    for k in varying:
        if k == "curator":
            continue
        v = spec[k]
        v = v["name"] if isinstance(v, dict) and set(v) == {"name", "options"} and not v["options"] \
            else json.dumps(v, sort_keys=True, separators=(",", ":"))
        parts.append(f"{k}={v}")
    return " ".join(parts)


def _table_cell(result: dict, group: str, arm: str) -> dict:
    return result["probe_table"]["groups"][group]["all"][arm]


def group_stats(results: list[dict], group: str, arm: str, delta: float,
                resamples: int) -> dict | None:
    """One arm × group over a cell's seeds (see the module docstring)."""
    per_seed = []
    pooled = {"arm": [], "base": [], "diff": [], "n": 0}
    steps_arm = steps_base = 0.0
    f1s, f1b = [], []
    nav = _NavPool()
    for r in results:
        pr = r["paired"].get(group)
        if not pr or not pr["gids"] or arm not in pr["arms"]:
            continue
        a, b = pr["arms"][arm], pr["arms"][BASE]
        n = len(pr["gids"])
        seed = r["spec"]["seed"]
        idx = bootstrap_indices(seed, f"probe/bootstrap/{group}", n, resamples)
        cell = _table_cell(r, group, arm)
        if "f1_diff_ci" in cell and cell.get("f1_diff_ci") is not None:
            d_ci, star, loss = cell["f1_diff_ci"], cell["star"], cell["f1_loss"]
        else:  # a result.json from before the F1 gate: the same gate from the rows
            d_ci = list(mean_diff_ci(a["f1"], b["f1"], idx))
            star, loss = gate(cell["ci"][1] if cell.get("ci") else None, d_ci[1], delta)
        per_seed.append({"seed": seed, "n": n, "rho": cell["rho"],
                         "f1": statistics.fmean(a["f1"]), "f1_base": statistics.fmean(b["f1"]),
                         "f1_diff": statistics.fmean(a["f1"]) - statistics.fmean(b["f1"]),
                         "f1_diff_ci": d_ci, "star": bool(star), "f1_loss": bool(loss)})
        sa, sb = np.asarray(a["steps"], float), np.asarray(b["steps"], float)
        pooled["arm"].append(sa[idx].sum(axis=1))
        pooled["base"].append(sb[idx].sum(axis=1))
        pooled["diff"].append((np.asarray(a["f1"], float) - np.asarray(b["f1"], float))[idx]
                              .sum(axis=1))
        pooled["n"] += n
        steps_arm += float(sa.sum())
        steps_base += float(sb.sum())
        f1s += a["f1"]
        f1b += b["f1"]
        nav.add(a, b, idx, cell.get("rho_nav"))
    if not per_seed:
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.sum(pooled["arm"], axis=0) / np.sum(pooled["base"], axis=0)
    rho_lo, rho_hi = (float(x) for x in np.percentile(ratios, [2.5, 97.5]))
    d_lo, d_hi = (float(x) for x in
                  np.percentile(np.sum(pooled["diff"], axis=0) / pooled["n"], [2.5, 97.5]))
    star, loss = gate(rho_hi, d_hi, delta)
    return {
        "n": pooled["n"], "seeds": len(per_seed),
        "rho_mean": between_seeds([s["rho"] for s in per_seed]),
        "rho_pooled": steps_arm / steps_base if steps_base else None,
        "rho_pooled_ci": [rho_lo, rho_hi],
        "f1": statistics.fmean(f1s), "f1_base": statistics.fmean(f1b),
        "f1_diff_mean": between_seeds([s["f1_diff"] for s in per_seed]),
        "f1_diff_pooled": statistics.fmean(f1s) - statistics.fmean(f1b),
        "f1_diff_pooled_ci": [d_lo, d_hi],
        "star": star, "f1_loss": loss,
        "seeds_starred": sum(s["star"] for s in per_seed),
        "seeds_f1_loss": sum(s["f1_loss"] for s in per_seed),
        "per_seed": per_seed,
        **nav.stats(),
    }


class _NavPool:
    """The ideal navigator's side of :func:`group_stats`, pooled over seeds like ρ: each
    seed's questions resampled with its own matrix and the sums added; only questions with a
    navigator figure on both arms count. Left out (None) when any seed's rows lack it."""

    def __init__(self) -> None:
        self.ok = True
        self.rho_seeds: list[float | None] = []
        self.boot: dict[str, list[np.ndarray]] = {k: [] for k in ("arm", "base", "m", "f1",
                                                                  "unchained")}
        self.sums = dict.fromkeys(("arm", "base", "m", "reader", "f1a", "f1b", "unchained"),
                                  0.0)
        self.chained = False  # some seed's library has chains (nav_steps_unchained)

    def add(self, a: dict, b: dict, idx: np.ndarray, rho_nav: float | None) -> None:
        if not (self.ok and "nav_steps" in a and "nav_steps" in b):
            self.ok = False
            return
        m = np.array([x is not None and y is not None
                      for x, y in zip(a["nav_steps"], b["nav_steps"])], float)

        def val(xs):
            return np.array([0.0 if x is None else float(x) for x in xs]) * m

        na, nb, fa, fb = (val(a["nav_steps"]), val(b["nav_steps"]), val(a["nav_f1"]),
                          val(b["nav_f1"]))
        reader = (np.asarray(b["steps"], float) - np.asarray(a["steps"], float)) * m
        self.chained |= "nav_steps_unchained" in a
        ua = val(a.get("nav_steps_unchained", a["nav_steps"]))
        for key, v in (("arm", na), ("base", nb), ("m", m), ("f1", fa - fb),
                       ("unchained", ua)):
            self.boot[key].append(v[idx].sum(axis=1))
        for key, v in (("arm", na), ("base", nb), ("m", m), ("reader", reader), ("f1a", fa),
                       ("f1b", fb), ("unchained", ua)):
            self.sums[key] += float(v.sum())
        self.rho_seeds.append(rho_nav)

    def stats(self) -> dict:
        out = dict.fromkeys(("rho_nav_mean", "rho_nav_pooled", "rho_nav_pooled_ci", "nav_f1",
                             "nav_f1_diff_pooled", "nav_f1_diff_pooled_ci", "blind_spot"))
        s = self.sums
        if not self.ok or not s["m"]:
            return out
        arm, base, m = (np.sum(self.boot[k], axis=0) for k in ("arm", "base", "m"))
        f1 = np.sum(self.boot["f1"], axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio, saving, df1 = arm / base, (base - arm) / m, f1 / m
            chain = (np.sum(self.boot["unchained"], axis=0) - arm) / m

        def ci(x):
            x = x[np.isfinite(x)]
            return [float(v) for v in np.percentile(x, [2.5, 97.5])] if len(x) else None

        out.update(rho_nav_mean=between_seeds(self.rho_seeds),
                   rho_nav_pooled=s["arm"] / s["base"] if s["base"] else None,
                   rho_nav_pooled_ci=ci(ratio), nav_f1=s["f1a"] / s["m"],
                   nav_f1_diff_pooled=(s["f1a"] - s["f1b"]) / s["m"],
                   nav_f1_diff_pooled_ci=ci(df1),
                   blind_spot=blind_spot((s["base"] - s["arm"]) / s["m"], ci(saving),
                                         s["reader"] / s["m"],
                                         ((s["unchained"] - s["arm"]) / s["m"], ci(chain))
                                         if self.chained else None))
        return out


def structure(results: list[dict]) -> dict:
    def value(r, k):
        if k in ("precision", "recall"):
            return r["structure"].get(k)
        if k in MISINFORMATION_KEYS:  # harm the curator wrote (None if unchecked)
            return (r.get("misinformation") or {}).get(k)
        return (r["train"]["final_stats"] or {}).get(k)

    return {k: between_seeds([value(r, k) for r in results]) for k in STRUCTURE_KEYS}


def _money(tokens: Sequence[int], model: str, prices: PriceTable | None) -> float | None:
    """USD for [in, out(, cached)] tokens, with the cache discount; None when unpriced."""
    if prices is None:
        return None
    return prices.cost(model, tokens[0], tokens[1], tokens[2] if len(tokens) > 2 else 0)


def costs(results: list[dict], prices: PriceTable | None) -> dict:
    """Mean over seeds of tokens, money per correct answer and break-even question counts."""
    arms = [a for a in results[0]["arms"]]
    out: dict = {"train_tokens": between_seeds([sum(r["train"]["tokens"][:2]) for r in results]),
                 "arms": {}}
    if prices is not None:
        out["train_money"] = between_seeds([_money(r["train"]["tokens"], r["train"]["model"],
                                                   prices) for r in results])
    for arm in arms:
        rows = [r for r in results if arm in r["exam"]]
        per_q = [sum(r["exam"][arm]["tokens"][:2]) / r["exam"][arm]["n"] for r in rows
                 if r["exam"][arm]["n"]]
        c = {"exam_tokens_per_question": between_seeds(per_q),
             "correct": between_seeds([r["exam"][arm]["correct"] for r in rows]),
             "build_tokens": between_seeds([sum(r["builds"][arm]["tokens"][:2]) for r in rows
                                            if arm in r["builds"]])}
        if prices is not None:
            money = [_money(r["exam"][arm]["tokens"], r["reader"]["model"], prices) for r in rows]
            c["money_per_correct"] = between_seeds(
                [m / r["exam"][arm]["correct"] for m, r in zip(money, rows)
                 if m is not None and r["exam"][arm]["correct"]])
        out["arms"][arm] = c
    # break-even: training cost over the per-question saving of the trained arm against B1
    be_tok, be_money = [], []
    for r in results:
        ex = r["exam"]
        if not ex[BASE]["n"] or not ex["trained"]["n"]:
            continue
        c0 = sum(ex[BASE]["tokens"][:2]) / ex[BASE]["n"]
        ct = sum(ex["trained"]["tokens"][:2]) / ex["trained"]["n"]
        be_tok.append(break_even(sum(r["train"]["tokens"][:2]), c0, ct))
        if prices is not None:
            m0 = _money(ex[BASE]["tokens"], r["reader"]["model"], prices)
            mt = _money(ex["trained"]["tokens"], r["reader"]["model"], prices)
            mtr = _money(r["train"]["tokens"], r["train"]["model"], prices)
            if None not in (m0, mt, mtr):
                be_money.append(break_even(mtr, m0 / ex[BASE]["n"], mt / ex["trained"]["n"]))
    out["break_even_questions_tokens"] = between_seeds(be_tok)
    if prices is not None:
        out["break_even_questions_money"] = between_seeds(be_money)
    return out


def seconds(results: list[dict]) -> dict:
    keys = sorted({k for r in results for k in r["_timing"]})
    return {k: between_seeds([r["_timing"].get(k) for r in results]) for k in keys}


def curves(results: list[dict]) -> dict | None:
    """Per group: mean steps and F1 per iteration across seeds, with between-seed bands, and
    ρ(iteration) = mean steps / mean steps at iteration 0."""
    with_curve = [r["curve"] for r in results if r.get("curve")]
    if not with_curve:
        return None
    common = sorted(set.intersection(*(set(c["iterations"]) for c in with_curve)))
    out = {"iterations": common, "groups": {}}
    for g in GROUPS:
        series = {"mean_steps": [], "f1": [], "rho": []}
        cs = [c for c in with_curve if g in c["groups"]]
        if not cs:
            continue
        for it in common:
            at = [c["groups"][g] for c in cs]
            pos = [c["iterations"].index(it) for c in cs]
            steps = [s["mean_steps"][p] for s, p in zip(at, pos)]
            series["mean_steps"].append(between_seeds(steps))
            series["f1"].append(between_seeds([s["f1"][p] for s, p in zip(at, pos)]))
            series["rho"].append(between_seeds([s["mean_steps"][p] / s["mean_steps"][0]
                                                for s, p in zip(at, pos) if s["mean_steps"][0]]))
            if all("nav_steps" in s for s in at):  # the ideal navigator's ρ(iteration)
                series.setdefault("rho_nav", []).append(between_seeds(
                    [s["nav_steps"][p] / s["nav_steps"][0] for s, p in zip(at, pos)
                     if s["nav_steps"][0]]))
        out["groups"][g] = series
    return out


# -- the report ------------------------------------------------------------------------------------
def build_sweep_report(out: str | Path, *, prices: PriceTable | None = None,
                       resamples: int | None = None) -> dict:
    results, missing = load_results(out)
    if not results:
        raise ConfigError(f"{out}: no finished runs yet (no runs/*/{RESULT})")
    return report_of(results, missing, prices=prices, resamples=resamples)


def report_of(results: list[dict], missing: Sequence[str] = (), *,
              prices: PriceTable | None = None, resamples: int | None = None) -> dict:
    """The report of finished chain results (:func:`load_results`' rows, any subset of a
    sweep folder), aggregated per cell over seeds."""
    by_cell: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        by_cell[cell_key(r["spec"])].append(r)
    specs = [rs[0]["spec"] for rs in by_cell.values()]
    varying = [k for k in specs[0] if k != "seed"
               and len({json.dumps(s[k], sort_keys=True) for s in specs}) > 1]
    cells, secs = [], {}
    for key, rs in by_cell.items():
        rs.sort(key=lambda r: r["spec"]["seed"])
        spec = rs[0]["spec"]
        delta = spec["probe"]["delta"]
        R = resamples or spec["probe"]["resamples"]
        label = _label(spec, varying)
        arms = {}
        for arm in rs[0]["arms"]:
            if arm == BASE:
                continue
            groups = {}
            for g in [g for g in GROUPS if g in rs[0]["paired"]] + \
                     [g for g in rs[0]["paired"] if g not in GROUPS]:
                st = group_stats(rs, g, arm, delta, R)
                if st is not None:
                    groups[g] = st
            arms[arm] = groups
        cells.append({"label": label, "spec": {k: v for k, v in spec.items() if k != "seed"},
                      "seeds": [r["spec"]["seed"] for r in rs], "runs": [r["id"] for r in rs],
                      "delta": delta, "resamples": R, "arms": arms,
                      "structure": structure(rs), "cost": costs(rs, prices),
                      "curve": curves(rs)})
        secs[label] = seconds(rs)
    cells.sort(key=lambda c: c["label"])
    return {"schema_version": 1, "kind": "kbgym.sweep.report", "finished": len(results),
            "missing": list(missing), "prices": None if prices is None else dict(prices.prices),
            "cells": cells, "seconds": secs}


def _f(x, spec=".3f") -> str:
    return "-" if x is None else format(x, spec)


def _ci(ci, spec=".3f") -> str:
    return "-" if not ci else f"[{format(ci[0], spec)}, {format(ci[1], spec)}]"


def render_markdown(rep: dict) -> str:
    lines = ["# KBGym sweep report", "",
             f"{rep['finished']} finished runs" +
             (f"; {len(rep['missing'])} not finished: {', '.join(rep['missing'])}"
              if rep["missing"] else "") + ".", "",
             "ρ = Σ steps(arm) / Σ steps(B1) on the same probe questions. *mean ρ* is the mean "
             "over seeds with a between-seed 95% t-interval; *pooled ρ* pools every seed's "
             "questions, with a paired-bootstrap CI. `*` = pooled ρ CI below 1 and no F1 loss; "
             "`F1↓` = the pooled ΔF1 CI lies below −δ; *seeds \\** = seeds starred on their own."]
    if any(s.get("rho_nav_pooled") is not None for c in rep["cells"]
           for groups in c["arms"].values() for s in groups.values()):
        lines += ["", "ρ_nav is the same ratio for the ideal navigator (a reader that knows the "
                  "support; docs/protocol.md §12.6), pooled like ρ; nav F1 is its F1. A *blind "
                  "spot* is a real navigator saving (CI above 0) of which the reader takes less "
                  "than half: there the examiner's reader, not the curator, is the limit."]
    for c in rep["cells"]:
        with_nav = any(s.get("rho_nav_pooled") is not None for groups in c["arms"].values()
                       for s in groups.values())
        nav_head, nav_rule = ("| pooled ρ_nav | ρ_nav CI | nav F1 ", "|---|---|---") \
            if with_nav else ("", "")
        lines += ["", f"## {c['label']}", "",
                  f"seeds {', '.join(map(str, c['seeds']))}; δ = {c['delta']:g}; "
                  f"{c['resamples']} resamples", "",
                  "| arm | group | n | mean ρ | between-seed CI | pooled ρ | bootstrap CI | gate "
                  "| F1 | F1 B1 | ΔF1 | ΔF1 CI | seeds * " + nav_head + "|",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---" + nav_rule + "|"]
        spots = []
        for arm, groups in c["arms"].items():
            for g, s in groups.items():
                mark = "*" if s["star"] else ("F1↓" if s["f1_loss"] else "")
                nav = ""
                if with_nav:
                    nav = (f" {_f(s.get('rho_nav_pooled'))} | {_ci(s.get('rho_nav_pooled_ci'))} |"
                           f" {_f(s.get('nav_f1'))} |")
                lines.append(
                    f"| {arm} | {g} | {s['n']} | {_f(s['rho_mean']['mean'])} | "
                    f"{_ci(s['rho_mean']['ci'])} | {_f(s['rho_pooled'])} | "
                    f"{_ci(s['rho_pooled_ci'])} | {mark} | {_f(s['f1'])} | {_f(s['f1_base'])} | "
                    f"{_f(s['f1_diff_pooled'], '+.3f')} | {_ci(s['f1_diff_pooled_ci'], '+.3f')} | "
                    f"{s['seeds_starred']}/{s['seeds']} |" + nav)
                b = s.get("blind_spot")
                if b is not None:
                    spots.append(f"- {arm} {g}: navigator saves {b['nav_saving']:+.2f} steps "
                                 f"per question {_ci(b['nav_saving_ci'], '+.2f')}, the reader "
                                 f"{b['reader_saving']:+.2f}, share "
                                 f"{_f(b['share'], '.2f')}" +
                                 (" — **BLIND SPOT**" if b["flagged"] else ""))
        if spots:
            flagged = any("BLIND SPOT" in x for x in spots)
            lines += ["", f"Blind spots (steps per question saved against {BASE}, pooled):", "",
                      *spots] + (["", BLIND_SPOT_NOTE] if flagged else [])
        st = c["structure"]
        lines += ["", "Trained library (mean over seeds [between-seed CI]): " + ", ".join(
            f"{k} {_f(v['mean'])}" + (f" {_ci(v['ci'])}" if v["ci"] else "")
            for k, v in st.items())]
        cost = c["cost"]
        parts = [f"training tokens {_f(cost['train_tokens']['mean'], '.0f')}",
                 f"break-even questions (tokens) "
                 f"{_f(cost['break_even_questions_tokens']['mean'], '.0f')}"]
        if "break_even_questions_money" in cost:
            parts.append(f"training cost ${_f(cost['train_money']['mean'], '.4f')}, break-even "
                         f"questions (money) {_f(cost['break_even_questions_money']['mean'], '.0f')}")
        for arm, a in cost["arms"].items():
            bit = f"{arm}: {_f(a['exam_tokens_per_question']['mean'], '.0f')} tokens/question"
            if "money_per_correct" in a:
                bit += f", ${_f(a['money_per_correct']['mean'], '.5f')} per correct answer"
            parts.append(bit)
        lines += ["", "Cost: " + "; ".join(parts)]
        s = rep["seconds"].get(c["label"], {})
        if s:
            lines += ["", "Seconds per run (wall, mean over seeds): " + ", ".join(
                f"{k} {_f(v['mean'], '.2f')}" for k, v in s.items()
                if not k.startswith("cpu_"))]
    return "\n".join(lines) + "\n"


def write_sweep_report(out: str | Path, *, prices: PriceTable | None = None,
                       resamples: int | None = None, plots: bool = True) -> dict:
    out = Path(out)
    rep = build_sweep_report(out, prices=prices, resamples=resamples)
    write_canonical(out / "report.json", rep)
    atomic_write_text(out / "report.md", render_markdown(rep))
    rep["_written"] = [out / "report.json", out / "report.md"]
    from kbgym.runs.plots import want_plots

    if want_plots(plots, lambda line: rep.__setitem__("_note", line)):
        from kbgym.sweep.plots import plot_sweep

        rep["_written"] += plot_sweep(rep, out)
    return rep


__all__ = ["between_seeds", "build_sweep_report", "gate", "group_stats", "load_results",
           "render_markdown", "report_of", "write_sweep_report"]
