"""The tight exam budget of ``kbgym reproduce``'s accuracy side: B1's F1 on the gradient
probe at each step budget M, per group and pooled (exact, share2, share1, share0), mean over
seeds, and the M whose pooled F1 is closest to the target (0.5 by default).

    python scripts/experiments/tight_budget.py [--seeds 0,1,2,3,4] [--per-group 30]
                                               [--budgets 4,5,6,7,8,9,10,12,15] [--target 0.5]

Each seed is the reproduction's chain up to the probe: the 500-person universe, the scripted
index curator on 100 questions x 2 epochs, ``probe make`` at --per-group; then B1 (the
untrained library) is examined by the scripted reader at every budget (without the ideal
navigator, which does not change the reader's F1).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from kbgym.env.config import KBGymConfig
from kbgym.library.graph import Library
from kbgym.plugins import make_agent
from kbgym.runs.arms import POOLED
from kbgym.runs.exam import examine
from kbgym.runs.gradient import probe_questions
from kbgym.runs.probe import make_probe_from_run
from kbgym.runs.train import TrainConfig, train
from kbgym.worlds.people import UniverseConfig, generate


def scan(seed: int, budgets: list[int], per_group: int, work: Path) -> dict[int, dict]:
    """B1's F1 per group and pooled at each budget, for one seed."""
    u = generate(UniverseConfig.make(n_people=500, seed=seed))
    run = work / f"train_{seed}"
    train(u, make_agent("scripted-index", offered={"seed": seed}), run,
          config=TrainConfig.make(epochs=2, train_size=100, snapshot_every=1000))
    probe = make_probe_from_run(u, run, per_group=per_group, seed=seed)
    qs, splits = probe_questions(probe)
    reader, lib = make_agent("scripted-reader"), Library.from_universe(u)
    out = {}
    for m in budgets:
        rows = examine(u, lib, reader, KBGymConfig.make(m=m), split=list(POOLED),
                       questions=qs, splits=splits, navigate=False)
        out[m] = {g: statistics.fmean(r["f1"] for r in rows if r["split"] == g)
                  for g in POOLED if any(r["split"] == g for r in rows)}
        out[m]["pooled"] = statistics.fmean(r["f1"] for r in rows)
        out[m]["steps"] = statistics.fmean(r["steps"] for r in rows)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--per-group", type=int, default=30)
    ap.add_argument("--budgets", default="4,5,6,7,8,9,10,12,15")
    ap.add_argument("--target", type=float, default=0.5)
    args = ap.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    budgets = [int(b) for b in args.budgets.split(",")]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        per_seed = [scan(s, budgets, args.per_group, Path(tmp)) for s in seeds]
    cols = [*POOLED, "pooled", "steps"]
    print(f"B1's F1 on the gradient probe by exam budget M (scripted reader; mean over seeds "
          f"{seeds}, {args.per_group} questions per group per seed)")
    print(f"{'M':>3s}" + "".join(f"{c:>9s}" for c in cols))
    means = {}
    for m in budgets:
        means[m] = {c: statistics.fmean(s[m][c] for s in per_seed if c in s[m]) for c in cols}
        print(f"{m:3d}" + "".join(f"{means[m][c]:9.3f}" for c in cols))
    best = min(budgets, key=lambda m: (abs(means[m]["pooled"] - args.target), m))
    print(f"closest to pooled F1 {args.target}: M = {best} (F1 {means[best]['pooled']:.3f}); "
          f"{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
