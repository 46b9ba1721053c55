"""Exam time with the navigator on the default universe, for the examiner's cost target
(issue 34: at most 1.3x the time before it): the probe exam (``examine``, the code ``kbgym
test`` runs, every row with the navigator's figures) of B1 and the canonical library, CPU
seconds, median of ``--reps``.

    python scripts/experiments/examiner_time.py [--seed 0] [--per-group 100] [--reps 3]
        [--out runs/examiner_time]

Run it once on the code before a change and once after (the same machine, the same load) and
compare the medians it prints; it prints one line per library and the total.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.plugins import make_agent
from kbgym.runs import exam as exam_module
from kbgym.runs.exam import examine
from kbgym.runs.gradient import probe_questions
from kbgym.runs.probe import GROUPS, make_probe_from_run
from kbgym.runs.train import TrainConfig, train
from kbgym.worlds.people import UniverseConfig, generate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-group", type=int, default=100)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default="runs/examiner_time")
    args = ap.parse_args()
    u = generate(UniverseConfig(seed=args.seed))
    run = Path(args.out) / "scripted-index"
    if not (run / "kb_epoch_2.json").exists():
        train(u, make_agent("scripted-index", offered={"seed": args.seed}), run,
              config=TrainConfig(epochs=2, train_size=100, snapshot_every=1000), overwrite=True)
    canonical, _ = load_snapshot(run / "kb_epoch_2.json")
    probe = make_probe_from_run(u, run, per_group=args.per_group, seed=args.seed)
    qs, splits = probe_questions(probe)
    names = [g for g in GROUPS if g in splits]
    libs = {"B1": Library.from_universe(u), "canonical": canonical}
    times: dict[str, list[float]] = {k: [] for k in libs}
    for _ in range(args.reps):
        for arm, lib in libs.items():  # a fresh reader and navigator each time (cold)
            getattr(exam_module, "_NAV_CACHE", {}).clear()  # figures kept across exams
            t = time.process_time()
            examine(u, lib, make_agent("scripted-reader"), split=names, questions=qs,
                    splits=splits, navigate=True)
            times[arm].append(time.process_time() - t)
    med = {k: statistics.median(v) for k, v in times.items()}
    for arm, v in med.items():
        print(f"{arm:10s} exam with the navigator: {v:.2f} s CPU (median of {args.reps}, "
              f"{len(qs)} questions)")
    print(f"total      {sum(med.values()):.2f} s CPU")


if __name__ == "__main__":
    main()
