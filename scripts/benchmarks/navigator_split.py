"""Where the ideal navigator's time goes on B1: its BM25 rankings or its greedy choice.

    python scripts/benchmarks/navigator_split.py [--seed 0] [--per-group 100]
        [--out runs/examiner_time]

Navigates B1's gradient probe (the default universe; the probe ``examiner_time.py`` examines,
made by its ``prepare`` into ``--out`` if not there yet) twice on one navigator: cold, then
with its query rankings kept (the results cleared). The difference is the rankings' CPU time;
it prints both, the number of distinct rankings and the time per ranking.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from kbgym.library.graph import Library
from kbgym.library.search import BM25Index
from kbgym.metrics.navigator import Navigator
from kbgym.runs.gradient import probe_questions
from kbgym.worlds.people import UniverseConfig, generate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
from examiner_time import prepare  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-group", type=int, default=100)
    ap.add_argument("--out", default="runs/examiner_time")
    args = ap.parse_args()
    out = Path(args.out).resolve()
    prepare(out, args.seed, args.per_group)
    u = generate(UniverseConfig(seed=args.seed))
    qs, _ = probe_questions(json.loads((out / "probe.json").read_text()))
    lib = Library.from_universe(u)
    lib.attach_search(BM25Index())
    nav = Navigator(lib, u)
    t = time.process_time()
    for q in qs.values():
        nav.run(q)
    cold = time.process_time() - t
    nav._results.clear()
    t = time.process_time()
    for q in qs.values():
        nav.run(q)
    warm = time.process_time() - t
    n = len(nav._ranked)
    print(f"{len(qs)} questions on B1: cold {cold:.2f} s CPU, rankings kept {warm:.2f} s; "
          f"{n} rankings, {(cold - warm) / max(n, 1) * 1e3:.3f} ms each")


if __name__ == "__main__":
    main()
