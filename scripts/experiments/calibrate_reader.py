"""Calibrate the scripted reader on the untrained library (B1).

Runs ``kbgym_agents.scripted.ScriptedReader`` in probe mode over test_in + test_out + train of a
generated universe and prints F1 and mean steps per class (QC1..QC10) and overall. F1 here is
the §11 score: QC5's row is its unanswerable accuracy, and QC5 is excluded from the
relation-class and score-block F1 (mean steps of the score block cover all questions). The paper's LLM reader (SPEC §19): relation-class F1 0.67 and
9.2 mean steps at 500 people, 0.83 / 6.7 at 120.

    python scripts/experiments/calibrate_reader.py                 # default universe (500 people)
    python scripts/experiments/calibrate_reader.py --people 120 --seed 3 --by-template
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from kbgym.library.graph import Library
from kbgym.plugins import make_agent
from kbgym.runs.exam import examine
from kbgym.worlds.people import UniverseConfig, generate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--people", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--splits", default="test_in,test_out,train")
    ap.add_argument("--by-template", action="store_true")
    ap.add_argument("--reader", default="scripted-reader",
                    help="a reader plugin, e.g. scripted-reader-strict for the first reader")
    args = ap.parse_args()

    universe = generate(UniverseConfig(seed=args.seed, n_people=args.people))
    reader = make_agent(args.reader)
    t0 = time.perf_counter()
    # the exam `kbgym test` and the sweep run: B1 frozen, one question after another
    rows = [(r["category"], r["template"], r["f1"], r["steps"], r["status"])
            for r in examine(universe, Library.from_universe(universe), reader,
                             split=args.splits.split(","), navigate=False)]
    wall = time.perf_counter() - t0

    def line(label: str, group: list) -> str:
        f1 = sum(r[2] for r in group) / len(group)
        steps = sum(r[3] for r in group) / len(group)
        out = sum(1 for r in group if r[4] == "unanswered")
        return f"| {label} | {len(group)} | {f1:.3f} | {steps:.2f} | {out} |"

    by_class = defaultdict(list)
    by_template = defaultdict(list)
    for r in rows:
        by_class[r[0]].append(r)
        by_template[r[1]].append(r)
    relation = [r for r in rows if r[0] != "QC5"]
    f1 = sum(r[2] for r in relation) / len(relation)
    steps = sum(r[3] for r in rows) / len(rows)
    print(f"B1, {args.reader}, {args.people} people, seed {args.seed}, splits {args.splits}: "
          f"{len(rows)} questions in {wall:.1f}s")
    print("| class | n | F1 | mean steps | unanswered |\n|---|---|---|---|---|")
    for c in sorted(by_class, key=lambda c: int(c[2:])):
        print(line(c, by_class[c]))
    print(line("relation classes (all but QC5)", relation))
    print(f"score block: f1 {f1:.3f} (without QC5), unanswerable_acc "
          f"{sum(r[2] for r in by_class['QC5']) / max(1, len(by_class['QC5'])):.3f}, "
          f"mean_steps {steps:.2f} (all {len(rows)} questions)")
    if args.by_template:
        print("\n| template | n | F1 | mean steps | unanswered |\n|---|---|---|---|---|")
        for t in sorted(by_template):
            print(line(t, by_template[t]))


if __name__ == "__main__":
    main()
