"""The per-coverage comparison of arms (SPEC §12.2, §13, §14): B1, B2, B3, B4, the oracle and a
trained library, examined with the scripted reader on the same probe.

One probe (arms built here over the probe's universe; the trained library from a snapshot):

    python scripts/experiments/compare_arms.py --probe runs/demo/probe.json \
        --universe runs/demo/universe.json --trained runs/demo/train/kb_epoch_2.json \
        --out runs/compare

The whole chain per seed (universe, scripted-index training of 100 questions x 2 epochs,
probe from the run, baselines, exams) runs as a ``kbgym sweep`` in --out (resumable, on a
process pool by default), then the trained-vs-B3 ratios per seed and their mean:

    python scripts/experiments/compare_arms.py --seeds 0,1,2,3,4 --out runs/compare_seeds

``--m M`` examines every arm at step budget M (default the env's 15, where the scripted reader
answers every probe question and F1 per point is 0 for every arm; ``--m 7`` puts B1's F1 near
0.5, the budget ``kbgym reproduce`` uses for the accuracy side).

Printed per arm: index_coverage, links, nodes added, mean steps and F1 over the pooled probe
(exact, share2, share1, share0; exact_matched repeats exact items and is left out of the pool),
actions saved per point and F1 per point of coverage against B1 (§12.2), and the build cost
(LLM tokens, seconds); then rho with its paired-bootstrap CI per group (§13). A PNG plots F1
and mean steps against index_coverage for every arm.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from kbgym.baselines import build_baseline
from kbgym.env.config import KBGymConfig
from kbgym.jsonio import write_canonical
from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.plugins import make_agent
from kbgym.runs.arms import POOLED, coverage_rows, ratios, result_rows
from kbgym.runs.gradient import examine_probe
from kbgym.runs.probe import format_table, probe_table

BASELINES = ("B2", "B3", "B4", "oracle")


# -- arms -------------------------------------------------------------------------------------
def build_arms(universe, trained: Library | None = None, trained_cost: dict | None = None,
               say=print) -> dict[str, dict]:
    """name -> {library, cost}; B1 costs nothing, the trained arm's cost is given."""
    arms = {"B1": {"library": Library.from_universe(universe),
                   "cost": {"tokens": 0, "seconds": 0.0}}}
    for name in BASELINES:
        t = time.perf_counter()
        lib, meta = build_baseline(name.lower(), universe)
        secs = time.perf_counter() - t
        llm = meta["llm"]
        tokens = (llm["tokens_in"] + llm["tokens_out"]) if llm else 0
        arms[name] = {"library": lib, "cost": {"tokens": tokens, "seconds": secs}}
        say(f"  built {name}: +{meta['nodes_added']} notes, +{meta['links_added']} links "
            f"in {secs:.2f}s")
    if trained is not None:
        arms["trained"] = {"library": trained,
                           "cost": trained_cost or {"tokens": None, "seconds": None}}
    return arms


def examine_arms(universe, arms: dict, probe: dict, reader, env_config=None,
                 say=print) -> dict[str, list[dict]]:
    rows = {}
    for name, arm in arms.items():
        t = time.perf_counter()
        rows[name] = examine_probe(universe, arm["library"], reader, probe, env_config,
                                   label=name)
        say(f"  examined {name}: {len(rows[name])} questions in {time.perf_counter() - t:.1f}s")
    return rows


# -- numbers ----------------------------------------------------------------------------------
def with_costs(cov: dict[str, dict], arms: dict) -> dict[str, dict]:
    """kbgym.runs.arms.coverage_rows plus each arm's build cost."""
    for name, c in cov.items():
        c["cost"] = arms[name]["cost"]
    return cov


def _f(x, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def format_coverage(cov: dict[str, dict]) -> str:
    lines = [f"{'arm':9s}{'coverage':>9s}{'links':>9s}{'+notes':>7s}{'n':>5s}{'steps':>7s}"
             f"{'F1':>7s}{'saved/pt':>10s}{'F1/pt':>10s}{'tokens':>8s}{'build s':>9s}"]
    for name, c in cov.items():
        lines.append(
            f"{name:9s}{100 * c['index_coverage']:8.1f}%{c['links']:9d}{c['nodes_added']:7d}"
            f"{c['n']:5d}{_f(c['mean_steps'], '7.2f'):>7s}{_f(c['f1'], '7.3f'):>7s}"
            f"{_f(c['saved_per_point'], '10.4f'):>10s}{_f(c['f1_per_point'], '+10.5f'):>10s}"
            f"{_f(c['cost']['tokens'], 'd'):>8s}{_f(c['cost']['seconds'], '9.2f'):>9s}")
    return "\n".join(lines)


def plot(points: list[tuple[str, dict]], path: Path, title: str) -> Path:
    """F1 and mean steps against index_coverage; ``points`` are (arm, coverage row) pairs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arms = list(dict.fromkeys(a for a, _ in points))
    colors = {a: plt.get_cmap("tab10")(i % 10) for i, a in enumerate(arms)}
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    for ax, key, label in ((axes[0], "f1", "F1"), (axes[1], "mean_steps", "mean steps")):
        for i, arm in enumerate(arms):
            xs = [100 * c["index_coverage"] for a, c in points if a == arm and c[key] is not None]
            ys = [c[key] for a, c in points if a == arm and c[key] is not None]
            ax.scatter(xs, ys, color=colors[arm], label=arm, s=36, alpha=0.8)
            if xs:
                ax.annotate(arm, (statistics.fmean(xs), statistics.fmean(ys)), fontsize=8,
                            xytext=(5, 10 * (i % 4) - 12), textcoords="offset points")
        ax.set_xlabel("index_coverage (%)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8, loc="best")
    fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# -- modes ------------------------------------------------------------------------------------
def compare_one(universe, probe: dict, trained: Library | None, trained_cost: dict | None,
                out: Path, *, seed: int, resamples: int, m: int | None = None,
                say=print) -> dict:
    reader = make_agent("scripted-reader")
    arms = build_arms(universe, trained, trained_cost, say=say)
    env_config = KBGymConfig.make(m=m) if m is not None else None
    rows = examine_arms(universe, arms, probe, reader, env_config, say=say)
    cov = with_costs(coverage_rows({a: arm["library"].stats() for a, arm in arms.items()},
                                   rows), arms)
    table = probe_table(rows, probe, seed=seed, resamples=resamples)
    say("")
    say(f"per-coverage comparison (pooled {', '.join(POOLED)}; per point vs B1, §12.2"
        f"{'' if m is None else f'; budget M = {m}'})")
    say(format_coverage(cov))
    say("")
    say("gradient probe (rho = steps(arm)/steps(B1) on the same questions)")
    say(format_table(table))
    result = {"seed": seed, "m": m, "coverage": cov, "probe_table": table,
              "ratios_trained_vs_B3": ratios(cov) if "trained" in cov else None}
    out.mkdir(parents=True, exist_ok=True)
    write_canonical(out / "compare.json", result)
    png = plot(list(cov.items()), out / "coverage.png", f"arms vs index coverage (seed {seed})")
    say(f"wrote {out / 'compare.json'} and {png}")
    return result


def seed_result(run: Path, say=print) -> dict:
    """compare_one's numbers for one finished sweep run (its result.json and timing.json)."""
    result = json.loads((run / "result.json").read_text(encoding="utf-8"))
    timing = json.loads((run / "timing.json").read_text(encoding="utf-8"))
    costs = {}
    for name in result["arms"]:
        if name == "B1":
            costs[name] = {"tokens": 0, "seconds": 0.0}
        elif name == "trained":
            costs[name] = {"tokens": sum(result["train"]["tokens"]), "seconds": timing.get("train")}
        else:
            costs[name] = {"tokens": sum(result["builds"][name]["tokens"]),
                           "seconds": timing.get(f"build_{name}")}
    cov = with_costs(coverage_rows(*result_rows(result)),
                     {name: {"cost": c} for name, c in costs.items()})
    seed = result["spec"]["seed"]
    say(f"== seed {seed}  ({run.name})")
    say(format_coverage(cov))
    return {"seed": seed, "coverage": cov, "probe_table": result["probe_table"],
            "ratios_trained_vs_B3": ratios(cov) if "trained" in cov else None}


def run_seeds(seeds: list[int], out: Path, *, people: int, per_group: int, train_size: int,
              epochs: int, resamples: int, m: int | None = None, executor: str = "process",
              say=print) -> list[dict]:
    """The whole chain per seed as a ``kbgym sweep`` (resumable; one run per seed), with the
    baselines as extra arms."""
    import yaml

    from kbgym.sweep import sweep
    from kbgym.sweep.run import run_dir

    out.mkdir(parents=True, exist_ok=True)
    grid = out / "grid.yaml"
    grid.write_text(yaml.safe_dump({
        "seeds": seeds, "universes": [{"n_people": people}], "curators": ["scripted-index"],
        "envs": [{} if m is None else {"m": m}],
        "train": {"epochs": epochs, "train_size": train_size, "snapshot_every": 20},
        "probe": {"per_group": per_group, "resamples": resamples},
        "baselines": [b.lower() for b in BASELINES], "curve_every": 0}), encoding="utf-8")
    runs = sweep(grid, out, executor=executor,
                 report=lambda r: say(f"  run {r['id']}: {r['status']} {r.get('error', '')}"))
    failed = [r["id"] for r in runs if r["status"] == "failed"]
    if failed:
        raise SystemExit(f"compare_arms: runs failed: {', '.join(failed)} (see their error.json)")
    return [seed_result(run_dir(out, r["id"]), say=say) for r in runs]


def summarize_seeds(results: list[dict], out: Path, say=print) -> dict:
    say("")
    say("trained vs B3, per seed (ratio of per-point figures; >1 favours the trained library;")
    say("'-' where B3 gains nothing per point, so no ratio can be read)")
    say(f"{'seed':>5s}{'cov trained':>12s}{'cov B3':>8s}{'saved/pt tr':>12s}{'saved/pt B3':>12s}"
        f"{'ratio':>7s}{'F1/pt tr':>10s}{'F1/pt B3':>10s}{'ratio':>7s}")
    for r in results:
        c, q = r["coverage"], r["ratios_trained_vs_B3"]
        say(f"{r['seed']:5d}{100 * c['trained']['index_coverage']:11.1f}%"
            f"{100 * c['B3']['index_coverage']:7.1f}%"
            f"{_f(c['trained']['saved_per_point'], '12.4f'):>12s}"
            f"{_f(c['B3']['saved_per_point'], '12.4f'):>12s}{_f(q['saved'], '7.2f'):>7s}"
            f"{_f(c['trained']['f1_per_point'], '+10.5f'):>10s}"
            f"{_f(c['B3']['f1_per_point'], '+10.5f'):>10s}{_f(q['f1'], '7.2f'):>7s}")

    def mean(vals):
        vals = [v for v in vals if v is not None]
        return statistics.fmean(vals) if vals else None

    per_arm = {}
    for arm in results[0]["coverage"]:
        per_arm[arm] = {k: mean(r["coverage"][arm][k] for r in results)
                        for k in ("index_coverage", "mean_steps", "f1", "saved_per_point",
                                  "f1_per_point")}
    summary = {
        "seeds": [r["seed"] for r in results],
        "mean_of_ratios": {k: mean(r["ratios_trained_vs_B3"][k] for r in results)
                           for k in ("saved", "f1")},
        "ratio_of_means": ratios(per_arm),
        "per_arm_means": per_arm,
    }
    say(f"{'mean':>5s}  mean of ratios: saved {_f(summary['mean_of_ratios']['saved'], '.2f')}x, "
        f"F1 {_f(summary['mean_of_ratios']['f1'], '.2f')}x;  ratio of means: saved "
        f"{_f(summary['ratio_of_means']['saved'], '.2f')}x, F1 "
        f"{_f(summary['ratio_of_means']['f1'], '.2f')}x")
    say("")
    say("mean over seeds, per arm")
    for arm, m in per_arm.items():
        say(f"  {arm:8s} coverage {100 * m['index_coverage']:5.1f}%  steps {m['mean_steps']:.2f}"
            f"  F1 {m['f1']:.3f}  saved/pt {_f(m['saved_per_point'], '.4f')}"
            f"  F1/pt {_f(m['f1_per_point'], '+.5f')}")
    write_canonical(out / "summary.json", summary)
    points = [(a, r["coverage"][a]) for r in results for a in r["coverage"]]
    png = plot(points, out / "coverage.png", f"arms vs index coverage, seeds {summary['seeds']}")
    say(f"wrote {out / 'summary.json'} and {png}")
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probe", help="probe.json (single-probe mode)")
    ap.add_argument("--universe", help="universe.json of the probe (default: the default universe)")
    ap.add_argument("--trained", help="trained snapshot to compare (single-probe mode)")
    ap.add_argument("--seeds", help="comma-separated seeds: run the whole chain per seed")
    ap.add_argument("--people", type=int, default=500)
    ap.add_argument("--per-group", type=int, default=30)
    ap.add_argument("--train-size", type=int, default=100)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--resamples", type=int, default=20000)
    ap.add_argument("--m", type=int, default=None,
                    help="the exam's step budget (default: the env's, 15); a tight one such as "
                         "7 puts B1's F1 near 0.5, so F1 per point can be read")
    ap.add_argument("--executor", default="process", help="--seeds: kbgym sweep's executor")
    ap.add_argument("--out", default="runs/compare")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if bool(args.probe) == bool(args.seeds):
        ap.error("give exactly one of --probe or --seeds")
    if args.seeds:
        seeds = [int(s) for s in args.seeds.split(",")]
        results = run_seeds(seeds, out, people=args.people, per_group=args.per_group,
                            train_size=args.train_size, epochs=args.epochs,
                            resamples=args.resamples, m=args.m, executor=args.executor)
        summarize_seeds(results, out)
        return 0
    from kbgym.env.env import load_universe

    universe, _ = load_universe(args.universe)
    probe = json.loads(Path(args.probe).read_text(encoding="utf-8"))
    if probe.get("universe_hash") not in (None, universe.hash):
        print(f"compare_arms: {args.probe} was made for universe {probe['universe_hash']}, "
              f"not {universe.hash}; pass its --universe", file=sys.stderr)
        return 2
    trained = None
    if args.trained:
        trained, header = load_snapshot(args.trained)
        uhash = (header.get("universe") or {}).get("hash")
        if uhash not in (None, universe.hash):
            print(f"compare_arms: {args.trained} was built on universe {uhash}, not "
                  f"{universe.hash}", file=sys.stderr)
            return 2
    compare_one(universe, probe, trained, None, out, seed=probe.get("seed", 0),
                resamples=args.resamples, m=args.m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
