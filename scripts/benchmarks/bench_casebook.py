"""Casebook generation time and memory at the default size and at 10× (``--scales 1,10``).

    python scripts/benchmarks/bench_casebook.py [--scales 1,10] [--seed 0] [--repeats 3]

Each scale runs in a fresh subprocess (so peak memory is its own): the median wall time of
``--repeats`` generations, the peak Python allocation of one (tracemalloc), the process's peak
resident set, and the world's size (documents, facts, paragraphs, words, questions).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, statistics, sys, time, tracemalloc
from kbgym.worlds.casebook import CasebookConfig, generate, ledger_of
scale, seed, repeats = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
times = []
for _ in range(repeats):
    t = time.perf_counter(); u = generate(CasebookConfig(seed=seed, scale=scale))
    times.append(time.perf_counter() - t)
tracemalloc.start()
u = generate(CasebookConfig(seed=seed, scale=scale))
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
led = ledger_of(u)
print(json.dumps({"scale": scale, "seconds": statistics.median(times), "peak_mb": peak / 2**20,
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "documents": len(led.docs), "facts": len(led.facts), "paragraphs": len(u.nodes),
    "words": sum(len(n.text.split()) for n in u.nodes), "questions": len(u.questions)}))
"""


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", default="1,10")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    rows = []
    for scale in (int(s) for s in args.scales.split(",")):
        out = subprocess.run([sys.executable, "-c", CHILD, str(scale), str(args.seed),
                              str(args.repeats)], capture_output=True, text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"{'scale':>5s}{'docs':>7s}{'facts':>8s}{'paras':>8s}{'words':>10s}{'questions':>10s}"
          f"{'median s':>10s}{'peak MB':>9s}{'RSS MB':>8s}")
    for r in rows:
        print(f"{r['scale']:5d}{r['documents']:7d}{r['facts']:8d}{r['paragraphs']:8d}"
              f"{r['words']:10d}{r['questions']:10d}{r['seconds']:10.2f}{r['peak_mb']:9.1f}"
              f"{r['rss_mb']:8.0f}")
    if len(rows) > 1:
        print(f"time ratio {rows[-1]['seconds'] / rows[0]['seconds']:.1f}× for "
              f"{rows[-1]['paragraphs'] / rows[0]['paragraphs']:.1f}× the paragraphs")
    return rows


if __name__ == "__main__":
    main()
