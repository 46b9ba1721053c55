"""The blog's evidence-graph experiment on the policies world, exact and seeded: search alone
(B1) vs a curated library vs that library plus the evidence graph, on lookup and connected
questions.

    python scripts/experiments/policy_evidence.py [--seeds 0,1,2] [--m 3] [--per-group 60]
        [--repeats 3] [--budgets 2,3,4,6,15] [--out runs/policy_evidence]
        [--base-url URL --model NAME [--llm-per-group 10]]

Per seed: the default policies universe (100 documents); the scripted index curator
(``scripted-policy-index``) trained on 100 questions x 2 epochs: the **curated** library; the
gradient probe of that run (exact / share1 / share0, equal template quotas); the **evidence
graph** (baseline ``evidence``: typed links derived from the notes' references) built over the
curated library. Arms, every one examined on the same probe questions at the same budget
``--m`` with ``--repeats`` seeded repeats (the scripted readers' tie-break):

- ``B1 search``: the untrained library, ``scripted-policy-reader`` (search, read, answer);
- ``curated``: the trained library, the same reader;
- ``curated+graph``: the trained library plus the graph, ``scripted-policy-reader-evidence``
  on the ``evidence`` toolset (``locate``, ``expand``) with typed links;

and, to tell the tools from the structure, ``B1+tools`` (B1, the evidence reader) and
``B1+graph`` (the graph over B1, the evidence reader).

Printed: F1 and steps per arm and class with 95% bootstrap CIs (questions resampled, first
repeat), citation consistency (mean pairwise Jaccard of the evidence sets over the repeats,
``kbgym.metrics.consistency``) per arm and class, the gradient probe's rho table, connected F1
of each main arm at every budget in ``--budgets``, and the blog's directions side by side.
With ``--model`` the main arms are examined again by the LLM reader (``openai-reader``, the
evidence toolset for the graph arm) on ``--llm-per-group`` questions per group. Writes
``results.json``, ``f1_by_class.png`` and ``budget.png`` under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from kbgym.baselines import build_baseline
from kbgym.env.config import KBGymConfig
from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.metrics.consistency import mean_pairwise_jaccard
from kbgym.plugins import make_agent
from kbgym.runs.exam import examine
from kbgym.runs.gradient import probe_questions
from kbgym.runs.probe import format_table, probe_table
from kbgym.runs.train import TrainConfig, train
from kbgym.seeding import np_stream
from kbgym.worlds.policies import PolicyConfig, generate
from kbgym.worlds.policies.probe import GROUPS, make_policy_probe_from_run

MAIN = ("B1 search", "curated", "curated+graph")
EXTRA = ("B1+tools", "B1+graph")
CLASSES = ("PL_LOOKUP", "PL_EFFECTIVE", "PL_CONTROLS", "PL_DEPENDS", "PL_AFFECTED",
           "PL_EDITION", "PL_CONTRADICTION", "PL_ABSTAIN")
#: The blog's figures (search -> wiki -> wiki + graph).
BLOG = {"lookup": (0.84, 0.83, None), "connected": (0.10, 0.52, 0.52 * 1.27),
        "consistency lookup": (0.72, 0.74, None), "consistency connected": (None, 0.25, 0.50)}


def group_of(category: str) -> str:
    if category == "PL_LOOKUP":
        return "lookup"
    return "abstain" if category == "PL_ABSTAIN" else "connected"


def ci(values, rng, resamples: int = 2000) -> tuple[float, float, float]:
    v = np.asarray(values, dtype=np.float64)
    if not len(v):
        return float("nan"), float("nan"), float("nan")
    idx = rng.integers(0, len(v), size=(resamples, len(v)))
    lo, hi = np.percentile(v[idx].mean(axis=1), [2.5, 97.5])
    return float(v.mean()), float(lo), float(hi)


def arm_setups(u, trained):
    graph_tr, _ = build_baseline("evidence", u, library=trained)
    graph_b1, _ = build_baseline("evidence", u)
    paper = KBGymConfig.make
    ev = {"toolset": "evidence", "typed_links": True}
    return {
        "B1 search": (Library.from_universe(u), "scripted-policy-reader", {}),
        "curated": (trained, "scripted-policy-reader", {}),
        "curated+graph": (graph_tr, "scripted-policy-reader-evidence", ev),
        "B1+tools": (Library.from_universe(u), "scripted-policy-reader-evidence",
                     {"toolset": "evidence"}),
        "B1+graph": (graph_b1, "scripted-policy-reader-evidence", ev),
    }, paper


def exam_arm(u, lib, reader, env, probe, m, repeats, seed, limit=None):
    qs, splits = probe_questions(probe)
    names = [g for g in GROUPS if g in splits]
    return examine(u, lib, reader, KBGymConfig.make(m=m, **env), split=names, questions=qs,
                   splits=splits, repeats=repeats, seed=seed, limit=limit)


def summarize(rows_by_arm: dict[str, list[dict]], rng) -> dict:
    """Per arm: per class and per group (lookup / connected / abstain): F1 and steps (mean, CI)
    over first repeats, and the mean pairwise Jaccard over all repeats."""
    out = {}
    for arm, rows in rows_by_arm.items():
        first = [r for r in rows if not r.get("repeat")]
        evid = defaultdict(list)
        for r in rows:
            evid[(r["split"], r["qid"])].append(r["evidence"])
        cells = {}
        keys = {c: lambda r, c=c: r["category"] == c for c in CLASSES}
        keys.update({g: lambda r, g=g: group_of(r["category"]) == g
                     for g in ("lookup", "connected", "abstain")})
        for name, pick in keys.items():
            rs = [r for r in first if pick(r)]
            if not rs:
                continue
            js = [mean_pairwise_jaccard(evid[(r["split"], r["qid"])]) for r in rs]
            js = [j for j in js if j is not None]
            size = statistics.fmean(len(r["evidence"]) for r in rs)
            cells[name] = {"n": len(rs), "f1": ci([r["f1"] for r in rs], rng),
                           "em": statistics.fmean(r["em"] for r in rs),
                           "steps": ci([r["steps"] for r in rs], rng),
                           "jaccard": statistics.fmean(js) if js else None,
                           "evidence_size": size}
        out[arm] = cells
    return out


def fmt_ci(t) -> str:
    return f"{t[0]:.2f} [{t[1]:.2f}, {t[2]:.2f}]"


def print_summary(summary: dict, arms) -> None:
    print(f"{'arm':15s} {'class':17s} {'n':>4s}  {'F1 [95% CI]':18s}  {'EM':>4s}  "
          f"{'steps [95% CI]':18s}  {'Jaccard':>7s}  {'|evidence|':>10s}")
    for arm in arms:
        for name in ("lookup", "connected", *CLASSES[1:-1], "abstain"):
            c = summary[arm].get(name)
            if c is None:
                continue
            j = "-" if c["jaccard"] is None else f"{c['jaccard']:.3f}"
            print(f"{arm:15s} {name:17s} {c['n']:4d}  {fmt_ci(c['f1']):18s}  {c['em']:4.2f}  "
                  f"{fmt_ci(c['steps']):18s}  {j:>7s}  {c['evidence_size']:10.1f}")
        print()


def plot(summary: dict, curve: dict, out: Path) -> list[str]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    names = [c for c in ("lookup", "connected", *CLASSES[1:-1]) if c in summary["B1 search"]]
    fig, ax = plt.subplots(figsize=(11, 4))
    width = 0.8 / len(MAIN)
    for i, arm in enumerate(MAIN):
        vals = [summary[arm].get(n, {"f1": (0, 0, 0)})["f1"] for n in names]
        xs = np.arange(len(names)) + i * width
        ax.bar(xs, [v[0] for v in vals], width, label=arm,
               yerr=[[v[0] - v[1] for v in vals], [v[2] - v[0] for v in vals]], capsize=2)
    ax.set_xticks(np.arange(len(names)) + width, [n.removeprefix("PL_").lower() for n in names],
                  rotation=20)
    ax.set_ylabel("F1")
    ax.set_ylim(0, 1.05)
    ax.legend()
    ax.set_title("Policies world: F1 per class (95% bootstrap CI)")
    fig.tight_layout()
    fig.savefig(out / "f1_by_class.png", dpi=120)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4))
    for arm, points in curve.items():
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=arm)
    ax.set_xlabel("exam budget M (steps)")
    ax.set_ylabel("connected-question F1")
    ax.set_ylim(0, 1.05)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "budget.png", dpi=120)
    plt.close(fig)
    return [str(out / "f1_by_class.png"), str(out / "budget.png")]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--m", type=int, default=3, help="the exam budget (default 3)")
    ap.add_argument("--per-group", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--budgets", default="2,3,4,6,15")
    ap.add_argument("--train-size", type=int, default=100)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--out", default="runs/policy_evidence")
    ap.add_argument("--base-url")
    ap.add_argument("--model")
    ap.add_argument("--api-key-env", default="OPENAI_API_KEY")
    ap.add_argument("--llm-per-group", type=int, default=10)
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    seeds = [int(s) for s in args.seeds.split(",")]
    budgets = [int(b) for b in args.budgets.split(",")]
    rows: dict[str, list[dict]] = defaultdict(list)
    llm_rows: dict[str, list[dict]] = defaultdict(list)
    curve_rows: dict[tuple[str, int], list[dict]] = defaultdict(list)
    probes, timing = [], defaultdict(float)
    t_all = time.perf_counter()
    for seed in seeds:
        t = time.perf_counter()
        u = generate(PolicyConfig(seed=seed))
        timing["generate"] += time.perf_counter() - t
        t = time.perf_counter()
        run = out / f"seed{seed}" / "train"
        if not (run / f"kb_epoch_{args.epochs}.json").exists():
            train(u, make_agent("scripted-policy-index", offered={"seed": seed}), run,
                  config=TrainConfig(epochs=args.epochs, train_size=args.train_size,
                                     snapshot_every=10_000))
        trained, _ = load_snapshot(run / f"kb_epoch_{args.epochs}.json")
        timing["train"] += time.perf_counter() - t
        probe = make_policy_probe_from_run(u, run, per_group=args.per_group, seed=seed)
        probes.append(probe)
        t = time.perf_counter()
        setups, _ = arm_setups(u, trained)
        timing["graph"] += time.perf_counter() - t
        t = time.perf_counter()
        for arm, (lib, reader, env) in setups.items():
            for r in exam_arm(u, lib, make_agent(reader), env, probe, args.m, args.repeats,
                              seed):
                rows[arm].append(dict(r, qid=f"{seed}:{r['qid']}"))
            if arm in MAIN:
                for m in budgets:
                    for r in exam_arm(u, lib, make_agent(reader), env, probe, m, 1, seed):
                        curve_rows[(arm, m)].append(r)
            if args.model and arm in MAIN:
                opts = {"model": args.model, "api_key_env": args.api_key_env}
                if args.base_url:
                    opts["base_url"] = args.base_url
                llm = make_agent("openai-reader", **opts, **env)
                for r in exam_arm(u, lib, llm, env, probe, args.m, args.repeats, seed,
                                  limit=args.llm_per_group):
                    llm_rows[arm].append(dict(r, qid=f"{seed}:{r['qid']}"))
        timing["exams"] += time.perf_counter() - t
    rng = np_stream(seeds[0], "metrics/policy_evidence")
    summary = summarize(rows, rng)

    print(f"policies world, seeds {seeds}: 100 documents; curated = scripted-policy-index "
          f"({args.train_size} questions x {args.epochs} epochs); probe exact/share1/share0, "
          f"{sum(len(p['questions']) for p in probes)} questions; budget M = {args.m}; "
          f"{args.repeats} repeats\n")
    print_summary(summary, MAIN + EXTRA)

    print(f"-- the gradient probe (rho = steps(arm)/steps(B1 search), first repeat; seed "
          f"{seeds[0]})")
    first = {arm: [r for r in rs if not r.get("repeat") and r["qid"].startswith(f"{seeds[0]}:")]
             for arm, rs in rows.items()}
    first = {arm: [dict(r, qid=r["qid"].split(":", 1)[1]) for r in rs]
             for arm, rs in first.items()}
    table = probe_table({a: first[a] for a in MAIN + EXTRA}, probes[0], base="B1 search",
                        resamples=5000)
    print(format_table(table))

    wide = max(budgets)
    print(f"\n-- steps at the widest budget (M = {wide}, one run): cost when nothing runs "
          "short")
    for arm in MAIN:
        rs = curve_rows[(arm, wide)]
        for g in ("lookup", "connected"):
            sel = [r for r in rs if group_of(r["category"]) == g]
            st = ci([r["steps"] for r in sel], rng)
            f = statistics.fmean(r["f1"] for r in sel)
            print(f"{arm:15s} {g:10s} steps {fmt_ci(st):18s}  F1 {f:.3f}")

    wide_rows = {a: [r for r in curve_rows[(a, wide)]][: len(probes[0]["questions"])]
                 for a in MAIN}
    print(f"\n-- the gradient probe at M = {wide} (seed {seeds[0]}): rho where no arm runs "
          "short")
    wide_table = probe_table(wide_rows, probes[0], base="B1 search", resamples=5000)
    print(format_table(wide_table))

    print("\n-- connected-question F1 by budget M")
    curve = {}
    print(f"{'M':>4s}  " + "  ".join(f"{a:>14s}" for a in MAIN))
    for m in budgets:
        vals = []
        for arm in MAIN:
            rs = [r for r in curve_rows[(arm, m)] if group_of(r["category"]) == "connected"]
            f1 = statistics.fmean(r["f1"] for r in rs)
            curve.setdefault(arm, []).append((m, f1))
            vals.append(f1)
        print(f"{m:4d}  " + "  ".join(f"{v:14.3f}" for v in vals))

    s = summary
    def f1(arm, g):
        return s[arm][g]["f1"][0]

    print("\n-- the blog's directions (search -> wiki -> wiki+graph) and KBGym's "
          "(B1 search -> curated -> curated+graph)")
    rows_out = [
        ("lookup F1", BLOG["lookup"], [f1(a, "lookup") for a in MAIN]),
        ("connected F1", BLOG["connected"], [f1(a, "connected") for a in MAIN]),
        ("connected EM", (None, None, None), [s[a]["connected"]["em"] for a in MAIN]),
        ("consistency, lookup", BLOG["consistency lookup"],
         [s[a]["lookup"]["jaccard"] for a in MAIN]),
        ("consistency, connected", BLOG["consistency connected"],
         [s[a]["connected"]["jaccard"] for a in MAIN]),
        ("steps, connected", (None, None, None), [s[a]["connected"]["steps"][0] for a in MAIN]),
    ]
    for name, blog, ours in rows_out:
        b = " / ".join("-" if x is None else f"{x:.2f}" for x in blog)
        o = " / ".join("-" if x is None else f"{x:.2f}" for x in ours)
        print(f"{name:24s} blog {b:20s} KBGym {o}")
    c = [f1(a, "connected") for a in MAIN]
    print(f"connected F1 ratio curated/B1 {c[1] / c[0]:.2f}x (blog 5.2x); graph over curated "
          f"{100 * (c[2] / c[1] - 1):+.0f}% (blog +27%)")

    if llm_rows:
        print(f"\n-- LLM reader ({args.model}), {args.llm_per_group} questions per group")
        print_summary(summarize(llm_rows, rng), MAIN)

    written = [] if args.no_plot else plot(summary, curve, out)
    result = {"seeds": seeds, "m": args.m, "repeats": args.repeats, "summary": summary,
              "probe_table": table, "probe_table_wide": wide_table, "budget_curve": curve,
              "llm": summarize(llm_rows, rng) if llm_rows else None,
              "timing_s": {k: round(v, 2) for k, v in timing.items()}}
    (out / "results.json").write_text(json.dumps(result, indent=1, default=str),
                                      encoding="utf-8")
    print(f"\nwrote {out / 'results.json'}" + (f", {', '.join(written)}" if written else ""))
    print("time: " + ", ".join(f"{k} {v:.1f}s" for k, v in timing.items())
          + f", total {time.perf_counter() - t_all:.1f}s")


if __name__ == "__main__":
    main()
