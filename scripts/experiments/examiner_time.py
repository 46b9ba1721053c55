"""Exam time with and without the ideal navigator on the default universe (issue 39: the
exam with the navigator at most 1.3x the exam without): the probe exam (``examine``, the code
``kbgym test`` runs) of B1 and the canonical library, cold (the navigator's cache cleared
before each exam), CPU seconds, medians of ``--reps``, the load average beside.

    python scripts/experiments/examiner_time.py [--seed 0] [--per-group 100] [--reps 3]
        [--out runs/examiner_time] [--baseline COMMIT]

Each rep runs in a fresh process (``harness.child``) and examines each library without and
with the navigator; with ``--baseline`` the same from a temporary checkout of COMMIT,
interleaved (A B A B), on the same trained run and probe. It prints one line per checkout and
library, and the ratio of medians (with / without). Issue 34's goal (the exam with the
navigator at most 1.3x the one before the issue) compares the "with" columns of this checkout
and ``--baseline 44015f8`` (the commit before issue 34's first; its universe module is
``kbgym.universe``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from harness import ROOT, checkout, child, load_note  # noqa: E402

EXAM = r"""
import json, sys, time
from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.plugins import make_agent
from kbgym.runs import exam as E
from kbgym.runs.gradient import probe_questions
from kbgym.runs.probe import GROUPS
try:
    from kbgym.worlds.people import UniverseConfig, generate
except ImportError:  # a baseline from before worlds were folders (issue 34 began there)
    from kbgym.universe import UniverseConfig, generate
out, seed = sys.argv[1], int(sys.argv[2])
u = generate(UniverseConfig(seed=seed))
canonical, _ = load_snapshot(out + "/scripted-index/kb_epoch_2.json")
qs, splits = probe_questions(json.load(open(out + "/probe.json")))
names = [g for g in GROUPS if g in splits]
res = {}
for arm, lib in (("B1", Library.from_universe(u)), ("canonical", canonical)):
    for nav in (False, True):
        getattr(E, "_NAV_CACHE", {}).clear()  # cold: no figures kept from an earlier exam
        t = time.process_time()
        E.examine(u, lib, make_agent("scripted-reader"), split=names, questions=qs,
                  splits=splits, navigate=nav)
        res[f"{arm} {'with' if nav else 'without'}"] = time.process_time() - t
res["questions"] = len(qs)
print(json.dumps(res))
"""


def prepare(out: Path, seed: int, per_group: int) -> None:
    """The trained run (scripted-index, 2 epochs of 100) and its probe, once per ``out``."""
    from kbgym.jsonio import write_canonical
    from kbgym.plugins import make_agent
    from kbgym.runs.probe import make_probe_from_run
    from kbgym.runs.train import TrainConfig, train
    from kbgym.worlds.people import UniverseConfig, generate

    u = generate(UniverseConfig(seed=seed))
    run = out / "scripted-index"
    if not (run / "kb_epoch_2.json").exists():
        train(u, make_agent("scripted-index", offered={"seed": seed}), run,
              config=TrainConfig(epochs=2, train_size=100, snapshot_every=1000), overwrite=True)
    write_canonical(out / "probe.json", make_probe_from_run(u, run, per_group=per_group,
                                                            seed=seed))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-group", type=int, default=100)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default="runs/examiner_time")
    ap.add_argument("--baseline", help="a commit to run interleaved against this checkout")
    args = ap.parse_args()
    out = Path(args.out).resolve()
    prepare(out, args.seed, args.per_group)
    runs: dict[str, list[dict]] = {"this checkout": []}
    with checkout(args.baseline) if args.baseline else _nothing() as base:
        roots = {"this checkout": ROOT}
        if base is not None:
            roots[f"baseline {args.baseline}"] = base
            runs[f"baseline {args.baseline}"] = []
        for _ in range(args.reps):
            for name, root in roots.items():
                runs[name].append(child(EXAM, str(out), str(args.seed), root=root))
    n = runs["this checkout"][0]["questions"]
    print(f"probe exam, {n} questions, scripted reader; CPU s, medians of {args.reps} "
          f"(cold); {load_note()}")
    print("| run | library | without navigator | with navigator | ratio (goal <= 1.3) |")
    print("|---|---|---|---|---|")
    for name, rs in runs.items():
        for arm in ("B1", "canonical"):
            off = statistics.median(r[f"{arm} without"] for r in rs)
            on = statistics.median(r[f"{arm} with"] for r in rs)
            print(f"| {name} | {arm} | {off:.2f} | {on:.2f} | x{on / off:.2f} |")


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    main()
