"""The ideal navigator's figures (docs/protocol.md §12.6): rho_nav beside the reader's rho,
the share of the navigator's saving the reader captures, greedy against the exhaustive
optimum, and what the navigator costs.

    python scripts/experiments/navigator_check.py [--seeds 0,1,2,3,4] [--per-group 100]
        [--resamples 20000] [--small-seeds 0,1,2,3,4] [--small-people 12,16] [--reps 5]
        [--cli-before PYTHON] [--parts canonical,small,cost] [--out runs/navigator_check]

1. **Canonical library.** Per seed: the default universe (500 people), the scripted index
   curator trained on train[:100] x 2 epochs (as ``kbgym train --agent scripted-index``), the
   probe (``kbgym probe make --per-group 100``), B1 and the trained library examined with the
   scripted reader (every row carries the navigator's figures). Printed: each seed's table,
   then every seed's questions pooled into one paired-bootstrap table (gids prefixed by the
   seed): per group rho and rho_nav with their CIs, navigator F1, and the blind-spot line
   (navigator saving with its CI, reader saving, share captured).
2. **Greedy against the exhaustive optimum** on small universes: B1, the oracle index, B3
   and the scripted index trained on the whole train split, at M = 15 and at a tight M = 6;
   how often the greedy count equals the optimum, the worst excess, and questions the greedy
   fails where a plan exists.
3. **Cost.** The navigator's CPU milliseconds per question at the default universe (a cold
   navigator per library, median over ``--reps``), and the probe exam (``examine``, the code
   ``kbgym test`` runs) and ``probe_table`` with and without the navigator, interleaved in
   this process: medians and ratios. With ``--cli-before PYTHON`` (an interpreter whose
   kbgym is the code before the navigator, e.g. a virtualenv with ``pip install -e`` of an
   older checkout), ``kbgym test`` on the probe is also timed as a command, before (that
   interpreter) and after (this one), interleaved.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from kbgym.baselines import build_baseline
from kbgym.jsonio import write_canonical
from kbgym.library.graph import Library
from kbgym.library.search import make_backend
from kbgym.library.snapshot import load_snapshot
from kbgym.metrics.navigator import Navigator
from kbgym.plugins import make_agent
from kbgym.runs.exam import examine
from kbgym.runs.gradient import examine_probe, probe_questions
from kbgym.runs.probe import GROUPS, format_table, make_probe_from_run, probe_table
from kbgym.runs.train import TrainConfig, train
from kbgym.worlds.people import UniverseConfig, generate


def frozen(lib: Library) -> Library:
    """A frozen, freshly indexed copy (what an exam examines)."""
    out = lib.copy(search=None, dedup=None)
    out.attach_search(make_backend("bm25"))
    out.freeze()
    return out


def trained_library(u, seed: int, run: Path, **config) -> Library:
    """The scripted index curator's library after 2 epochs in ``run`` (``config``: more
    :class:`TrainConfig` fields), trained unless it is there; an interrupted run is redone."""
    if not (run / "kb_epoch_2.json").exists():
        train(u, make_agent("scripted-index", offered={"seed": seed}), run,
              config=TrainConfig(epochs=2, snapshot_every=1000, **config), overwrite=True)
    return load_snapshot(run / "kb_epoch_2.json")[0]


# -- 1. the canonical library --------------------------------------------------------------
def canonical(seeds: list[int], per_group: int, resamples: int, out: Path) -> dict:
    reader = make_agent("scripted-reader")
    pooled_rows: dict[str, list] = {"B1": [], "trained": []}
    pooled_probe: dict = {"seed": 0, "splits": {g: [] for g in GROUPS}}
    per_seed = {}
    context = {}
    for seed in seeds:
        u = generate(UniverseConfig(seed=seed))
        run = out / f"seed{seed}" / "train"
        trained = trained_library(u, seed, run, train_size=100)
        probe = make_probe_from_run(u, run, per_group=per_group, seed=seed)
        write_canonical(out / f"seed{seed}" / "probe.json", probe)
        rows = {"B1": examine_probe(u, Library.from_universe(u), reader, probe, label="B1"),
                "trained": examine_probe(u, trained, reader, probe, label="trained")}
        table = probe_table(rows, probe, seed=seed, resamples=resamples)
        per_seed[seed] = table
        print(f"\n== seed {seed}\n" + format_table(table), flush=True)
        for g in GROUPS:
            pooled_probe["splits"][g] += [f"{seed}:{gid}" for gid in probe["splits"][g]]
        for arm, rs in rows.items():
            pooled_rows[arm] += [{**r, "qid": f"{seed}:{r['qid']}"} for r in rs]
        if seed == seeds[0]:
            context = {"universe": u, "probe": probe, "trained": trained}
    table = probe_table(pooled_rows, pooled_probe, resamples=resamples)
    print(f"\n== pooled over seeds {','.join(map(str, seeds))} (n = {per_group} per group per "
          "seed)\n" + format_table(table))
    print("\nper group, trained library: reader rho [CI] | rho_nav [CI] | navigator saving "
          "[CI] | reader saving | share captured")
    summary = {}
    for g in GROUPS:
        c = table["groups"][g]["all"]["trained"]
        b1 = table["groups"][g]["all"]["B1"]
        bs = c["blind_spot"]
        summary[g] = {"n": c["n"], "rho": c["rho"], "rho_ci": c["ci"], "rho_nav": c["rho_nav"],
                      "rho_nav_ci": c["rho_nav_ci"], "rho_nav_B1": b1["rho_nav"],
                      "nav_f1": c["nav_f1"], "nav_steps_B1": b1["nav_steps"],
                      "nav_steps": c["nav_steps"], "steps_B1": b1["mean_steps"],
                      "steps": c["mean_steps"], **bs}
        share = f"{bs['share']:.2f}" if bs["share"] is not None else "-"
        print(f"  {g:14s} {c['rho']:.3f} [{c['ci'][0]:.3f}, {c['ci'][1]:.3f}] | "
              f"{c['rho_nav']:.3f} [{c['rho_nav_ci'][0]:.3f}, {c['rho_nav_ci'][1]:.3f}] | "
              f"{bs['nav_saving']:+.2f} [{bs['nav_saving_ci'][0]:+.2f}, "
              f"{bs['nav_saving_ci'][1]:+.2f}] | {bs['reader_saving']:+.2f} | {share}"
              + ("  BLIND SPOT" if bs["flagged"] else "") +
              f"   (B1 rho_nav {b1['rho_nav']:.3f}; steps B1/trained: reader {b1['mean_steps']:.2f}"
              f"/{c['mean_steps']:.2f}, navigator {b1['nav_steps']:.2f}/{c['nav_steps']:.2f})")
    return {"pooled": summary, "table": table, "context": context,
            "per_seed": {s: t for s, t in per_seed.items()}}


def first_seed(seed: int, per_group: int, out: Path) -> dict:
    u = generate(UniverseConfig(seed=seed))
    run = out / f"seed{seed}" / "train"
    trained = trained_library(u, seed, run, train_size=100)
    probe = make_probe_from_run(u, run, per_group=per_group, seed=seed)
    write_canonical(out / f"seed{seed}" / "probe.json", probe)
    return {"universe": u, "probe": probe, "trained": trained}


# -- 2. greedy against the exhaustive optimum ------------------------------------------------
def small_libraries(u) -> dict[str, Library]:
    libs = {"B1": Library.from_universe(u)}
    for name in ("oracle", "b3"):
        libs[name] = build_baseline(name, u, {})[0]
    return libs


def greedy_vs_optimum(seeds: list[int], people: list[int], out: Path, max_states: int) -> dict:
    tally: dict = {}
    for n in people:
        for seed in seeds:
            u = generate(UniverseConfig(seed=seed, n_people=n, n_cities=4, sizes=(30, 15, 10),
                                        eval_sizes=(4, 4)))
            libs = small_libraries(u)
            run = out / "small" / f"p{n}s{seed}"
            libs["scripted-index"] = trained_library(u, seed, run)
            for arm, lib in libs.items():
                lib = frozen(lib)
                for m in (15, 6):
                    nav = Navigator(lib, u, m=m)
                    t = tally.setdefault(f"M={m}", {}).setdefault(arm, {
                        "questions": 0, "equal": 0, "worst_excess": 0, "excess_steps": 0,
                        "greedy_fails_plan_exists": 0, "skipped": 0, "greedy_steps": 0,
                        "optimum_steps": 0})
                    for q in u.questions:
                        if not q.support:
                            continue
                        g, o = nav.run(q), nav.optimum(q, max_states=max_states)
                        if o is None:
                            t["skipped"] += 1
                            continue
                        t["questions"] += 1
                        t["equal"] += g.steps == o.steps
                        t["worst_excess"] = max(t["worst_excess"], g.steps - o.steps)
                        t["excess_steps"] += g.steps - o.steps
                        t["greedy_fails_plan_exists"] += g.f1 == 0.0 and o.f1 == 1.0
                        t["greedy_steps"] += g.steps
                        t["optimum_steps"] += o.steps
    print("\ngreedy against the exhaustive optimum (questions with support; small universes "
          f"of {','.join(map(str, people))} people, seeds {','.join(map(str, seeds))})")
    print(f"  {'budget':7s}{'library':16s}{'questions':>10s}{'equal':>8s}{'share':>8s}"
          f"{'worst excess':>14s}{'mean excess':>13s}{'greedy fails':>14s}{'skipped':>9s}")
    for budget, arms in tally.items():
        for arm, t in arms.items():
            k = t["questions"]
            print(f"  {budget:7s}{arm:16s}{k:10d}{t['equal']:8d}{t['equal'] / k:8.3f}"
                  f"{t['worst_excess']:14d}{t['excess_steps'] / k:13.3f}"
                  f"{t['greedy_fails_plan_exists']:14d}{t['skipped']:9d}")
    return tally


# -- 3. cost -----------------------------------------------------------------------------------
def navigator_cost(context: dict, reps: int) -> dict:
    u, probe = context["universe"], context["probe"]
    qs, _ = probe_questions(probe)
    libs = {"B1": frozen(Library.from_universe(u)), "trained": frozen(context["trained"])}
    out = {}
    for arm, lib in libs.items():
        times = []
        for _ in range(reps):
            lib.search_backend.clear_cache()  # cold: no ranking cached anywhere
            nav = Navigator(lib, u)
            t = time.process_time()
            for q in qs.values():
                nav.run(q)
            times.append(time.process_time() - t)
        out[arm] = 1000 * statistics.median(times) / len(qs)
    print(f"\nnavigator cost, default universe ({len(qs)} probe questions, cold navigator, "
          f"median of {reps}): " + ", ".join(f"{a} {ms:.2f} ms/question CPU"
                                             for a, ms in out.items()))
    return out


def exam_ab(context: dict, reps: int, resamples: int) -> dict:
    u, probe = context["universe"], context["probe"]
    qs, splits = probe_questions(probe)
    names = [g for g in GROUPS if g in splits]
    reader = make_agent("scripted-reader")
    libs = {"B1": Library.from_universe(u), "trained": context["trained"]}
    res: dict = {}
    rows: dict = {}
    for _ in range(reps):
        for nav in (False, True):  # interleaved
            for arm, lib in libs.items():
                w, c = time.perf_counter(), time.process_time()
                r = examine(u, lib, reader, split=names, questions=qs, splits=splits,
                            navigate=nav)
                slot = res.setdefault(f"exam_{arm}", {}).setdefault(nav, {"wall": [], "cpu": []})
                slot["wall"].append(time.perf_counter() - w)
                slot["cpu"].append(time.process_time() - c)
                rows.setdefault(nav, {})[arm] = r
    for _ in range(reps):
        for nav in (False, True):
            w, c = time.perf_counter(), time.process_time()
            probe_table(rows[nav], probe, resamples=resamples)
            slot = res.setdefault("probe_table", {}).setdefault(nav, {"wall": [], "cpu": []})
            slot["wall"].append(time.perf_counter() - w)
            slot["cpu"].append(time.process_time() - c)
    print(f"\nwith / without the navigator, interleaved, median of {reps} "
          f"({len(rows[True]['B1'])} probe questions; probe_table at {resamples} resamples)")
    out = {}
    for part, d in res.items():
        med = {nav: {k: statistics.median(v) for k, v in d[nav].items()} for nav in d}
        out[part] = {"without": med[False], "with": med[True],
                     "ratio_wall": med[True]["wall"] / med[False]["wall"],
                     "ratio_cpu": med[True]["cpu"] / med[False]["cpu"]}
        o = out[part]
        print(f"  {part:14s} without {o['without']['wall']:.2f} s wall ({o['without']['cpu']:.2f}"
              f" CPU), with {o['with']['wall']:.2f} s ({o['with']['cpu']:.2f} CPU): "
              f"x{o['ratio_wall']:.2f} wall, x{o['ratio_cpu']:.2f} CPU")
    return out


def cli_ab(before_python: str, context_dir: Path, reps: int) -> dict:
    """``kbgym test`` on the probe as a command, with the code before the navigator (another
    interpreter) and this checkout, interleaved; the trained library of the first seed."""
    probe = context_dir / "probe.json"
    lib = context_dir / "train" / "kb_epoch_2.json"
    split = ",".join(GROUPS)
    times: dict = {"before": [], "after": []}
    for i in range(reps):
        for which, python in (("before", before_python), ("after", sys.executable)):
            dest = context_dir / f"cli_{which}_{i}"
            subprocess.run(["rm", "-rf", str(dest)], check=True)
            t = time.perf_counter()
            # run outside any checkout: ``python -m`` would import kbgym from the cwd
            subprocess.run([python, "-m", "kbgym.cli", "test", "--library", str(lib.resolve()),
                            "--questions", str(probe.resolve()), "--split", split, "--out",
                            str(dest.resolve()), "--quiet"], check=True,
                           cwd=str(context_dir.resolve()))
            times[which].append(time.perf_counter() - t)
            row = json.loads((dest / "test_log.jsonl").read_text().split("\n")[0])
            if ("nav_steps" in row) != (which == "after"):
                raise SystemExit(f"--cli-before {before_python}: its kbgym already has the "
                                 "navigator (or this one lacks it)")
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"\n`kbgym test` on the probe (trained library, first seed), median of {reps}, "
          f"interleaved: before {med['before']:.2f} s, after {med['after']:.2f} s "
          f"(x{med['after'] / med['before']:.2f})")
    return {"before_s": med["before"], "after_s": med["after"],
            "ratio": med["after"] / med["before"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--per-group", type=int, default=100)
    ap.add_argument("--resamples", type=int, default=20000)
    ap.add_argument("--small-seeds", default="0,1,2,3,4")
    ap.add_argument("--small-people", default="12,16")
    ap.add_argument("--max-states", type=int, default=200_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cli-before", help="a Python whose kbgym predates the navigator")
    ap.add_argument("--parts", default="canonical,small,cost",
                    help="which parts to run (the timings need only the first seed)")
    ap.add_argument("--out", default="runs/navigator_check")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    seeds = [int(s) for s in args.seeds.split(",")]
    parts = set(args.parts.split(","))
    figures: dict = {"seeds": seeds, "per_group": args.per_group}
    if "canonical" in parts:
        canon = canonical(seeds, args.per_group, args.resamples, out)
        figures["canonical"] = canon["pooled"]
        context = canon["context"]
    else:  # the first seed's universe, probe and trained library only (for the timings)
        context = first_seed(seeds[0], args.per_group, out)
    if "small" in parts:
        figures["greedy_vs_optimum"] = greedy_vs_optimum(
            [int(s) for s in args.small_seeds.split(",")],
            [int(n) for n in args.small_people.split(",")], out, args.max_states)
    if "cost" in parts:
        figures["navigator_ms_per_question"] = navigator_cost(context, args.reps)
        figures["timing"] = exam_ab(context, args.reps, args.resamples)
    if args.cli_before:
        figures["cli"] = cli_ab(args.cli_before, out / f"seed{seeds[0]}", args.reps)
    name = "navigator_check.json" if parts >= {"canonical", "small", "cost"} \
        else f"navigator_check_{'_'.join(sorted(parts))}.json"
    write_canonical(out / name, figures)
    print(f"\ntotal {time.perf_counter() - t0:.0f}s; figures in {out / name}")


if __name__ == "__main__":
    main()
