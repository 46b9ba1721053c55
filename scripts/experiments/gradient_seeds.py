"""The demo's gradient probe over several seeds: a thin wrapper over ``kbgym sweep``.

    python scripts/experiments/gradient_seeds.py [--seeds 0,1,2,3,4] [--per-group 100]
                                     [--curator scripted-index] [--out runs/seeds]
                                     [--executor process|serial|ray]

It writes ``OUT/grid.yaml`` (the demo's chain: 500 people, 100 questions x 2 epochs, the
probe at ``--per-group``), runs it with ``kbgym sweep`` (finished seeds are kept, so a rerun
resumes) and prints ``kbgym sweep report``: mean ρ per group with between-seed and pooled
bootstrap CIs, F1 with the F1 gate, seeds starred, structure and cost.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml

from kbgym.sweep import sweep
from kbgym.sweep.aggregate import render_markdown, write_sweep_report


def demo_grid(seeds: list[int], curators: list[str], per_group: int, **extra) -> dict:
    """The demo's chain as a sweep grid."""
    return {"seeds": seeds, "universes": [{"n_people": 500}], "curators": curators,
            "train": {"epochs": 2, "train_size": 100, "snapshot_every": 20},
            "probe": {"per_group": per_group}, "curve_every": 0, **extra}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--per-group", type=int, default=100)
    ap.add_argument("--curator", default="scripted-index")
    ap.add_argument("--executor", default="process")
    ap.add_argument("--out", default="runs/seeds")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    grid = out / "grid.yaml"
    grid.write_text(yaml.safe_dump(demo_grid([int(s) for s in args.seeds.split(",")],
                                             [args.curator], args.per_group)), encoding="utf-8")
    sweep(grid, out, executor=args.executor)
    print(render_markdown(write_sweep_report(out, plots=False)), end="")


if __name__ == "__main__":
    main()
