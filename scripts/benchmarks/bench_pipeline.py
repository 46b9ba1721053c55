"""Wall time of the full demo pipeline and its breakdown (medians over repeats).

    python scripts/benchmarks/bench_pipeline.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from kbgym.runs.demo import run_demo


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    runs = []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            res = run_demo(tmp, say=lambda *a: None)
            runs.append({**res["timings"], "total": time.perf_counter() - t})
    print(f"{'stage':8s}{'p50 s':>8s}{'min s':>8s}")
    for k in runs[0]:
        xs = [r[k] for r in runs]
        print(f"{k:8s}{statistics.median(xs):8.2f}{min(xs):8.2f}")


if __name__ == "__main__":
    main()
