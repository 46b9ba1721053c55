"""Citation consistency on the gradient probe: mean pairwise Jaccard of evidence sets per
group and arm (B1 vs the trained library), next to steps and F1.

    python scripts/experiments/citation_consistency.py [--people 200] [--train-size 60] [--epochs 1]
        [--per-group 30] [--repeats 3] [--seed 0] [--reader scripted-reader]
        [--model M --base-url URL] [--out runs/consistency]

Builds a universe, trains the scripted index curator, makes the probe, examines B1 and the
trained library ``--repeats`` times per question (each repeat seeds the reader through
``reset(seed=)`` when it takes one; see ``kbgym test --repeats``) and prints the probe table
(its ``J`` column is the consistency) plus the mean evidence-set size per group and arm, so a
figure of 1.0 made of empty sets is visible as such. A reader that ignores the seed gives
J = 1.0 everywhere: the wiring check.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from kbgym.library import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.plugins import make_agent
from kbgym.runs.exam import examine
from kbgym.runs.gradient import probe_questions
from kbgym.runs.probe import GROUPS, format_table, make_probe_from_run, probe_table
from kbgym.runs.train import TrainConfig, train
from kbgym.worlds.people import UniverseConfig, generate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--people", type=int, default=200)
    ap.add_argument("--train-size", type=int, default=60, dest="train_size")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--per-group", type=int, default=30, dest="per_group")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reader", default="scripted-reader")
    ap.add_argument("--model")
    ap.add_argument("--base-url", dest="base_url")
    ap.add_argument("--out", default="runs/consistency")
    args = ap.parse_args()
    out = Path(args.out)
    u = generate(UniverseConfig(seed=args.seed, n_people=args.people))
    run = out / "train"
    train(u, make_agent("scripted-index"), run,
          config=TrainConfig(epochs=args.epochs, train_size=args.train_size))
    probe = make_probe_from_run(u, run, per_group=args.per_group, seed=args.seed)
    trained, _ = load_snapshot(run / f"kb_epoch_{args.epochs}.json")
    qs, splits = probe_questions(probe)
    names = [g for g in GROUPS if g in splits]
    opts = {k: v for k, v in (("model", args.model), ("base_url", args.base_url)) if v}
    arms = {}
    for arm, lib in (("B1", Library.from_universe(u)), ("trained", trained)):
        arms[arm] = examine(u, lib, make_agent(args.reader, **opts), split=names, questions=qs,
                            splits=splits, label=arm, repeats=args.repeats, seed=args.seed)
    table = probe_table(arms, probe, seed=args.seed, resamples=2000)
    print(f"reader {args.reader}, {args.repeats} repeats per question")
    print(format_table(table))
    print("\nmean evidence-set size (notes) per group and arm:")
    for g in names:
        sizes = {a: statistics.fmean(len(r["evidence"]) for r in rows if r["split"] == g)
                 for a, rows in arms.items()}
        print(f"  {g:14s}" + "  ".join(f"{a} {s:5.2f}" for a, s in sizes.items()))


if __name__ == "__main__":
    main()
