"""The demo's gradient probe over several seeds: rho per group, CI, F1, precision, and the
number of false statements the curator left (misinformation).

    python scripts/gradient_seeds.py [--seeds 0,1,2,3,4] [--per-group 100]
                                     [--curator scripted-index] [--out runs/seeds]

Each seed runs the whole chain (universe, training, probe, B1 and trained exams) through
`kbgym.runs.demo.run_demo`, so these are the demo's own numbers at a larger n.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from kbgym.runs.demo import run_demo
from kbgym.runs.probe import GROUPS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--per-group", type=int, default=100)
    ap.add_argument("--curator", default="scripted-index")
    ap.add_argument("--out", default="runs/seeds")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    per = {g: [] for g in GROUPS}
    print(f"curator {args.curator}, per_group {args.per_group}")
    print(f"{'seed':>4} " + " ".join(f"{g:>22s}" for g in GROUPS) + "   precision  F1 B1/trained")
    for seed in seeds:
        res = run_demo(Path(args.out) / f"{args.curator}-{seed}", seed=seed,
                       per_group=args.per_group, curator=args.curator, plots=False,
                       say=lambda *a: None)
        cells = []
        f1 = {"B1": [], "trained": []}
        for g in GROUPS:
            c = res["table"]["groups"][g]["all"]["trained"]
            b = res["table"]["groups"][g]["all"]["B1"]
            per[g].append(c)
            f1["B1"].append(b["f1"])
            f1["trained"].append(c["f1"])
            star = "*" if c["star"] else " "
            cells.append(f"{c['rho']:.3f}{star}[{c['ci'][0]:.2f},{c['ci'][1]:.2f}] n{c['n']:<3d}")
        prec = res["report"]["structure"]["precision"]
        print(f"{seed:4d} " + " ".join(f"{x:>22s}" for x in cells) +
              f"   {prec if prec is None else round(prec, 3)!s:>9s}  "
              f"{statistics.fmean(f1['B1']):.3f}/{statistics.fmean(f1['trained']):.3f}"
              f"  {res['report']['misinformation']['false_statements']:5d}")
    print("mean " + " ".join(f"{statistics.fmean(c['rho'] for c in per[g]):>22.3f}"
                             for g in GROUPS))
    print("stars " + " ".join(f"{sum(c['star'] for c in per[g]):>21d}/{len(seeds)}"
                              for g in GROUPS))


if __name__ == "__main__":
    main()
