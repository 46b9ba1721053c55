"""Baseline build speed and memory: medians of repeats, one child process per case.

    python scripts/benchmarks/bench_baselines.py [--cases b2:500,b3:500,...] [--repeats 3]

Each case (baseline, people) runs in a fresh process: it generates the universe once, then
times ``build_baseline`` (B1 from the universe plus the build; no snapshot writing) ``repeats``
times. Peak RSS (ru_maxrss) belongs to that case alone; ``base MB`` is the RSS after the
universe was generated, so ``peak - base`` is what the build itself needs. At the default
size the snapshot write is timed too.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

DEFAULT_CASES = "b2:500,b3:500,b4:500,oracle:500,b3:10000,b3:100000"

CHILD = r"""
import gc, json, resource, sys, tempfile, time
from pathlib import Path
from kbgym.baselines import build_baseline
from kbgym.library.snapshot import write_snapshot
from kbgym.worlds.people import UniverseConfig, generate

name, n, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t0 = time.perf_counter()
u = generate(UniverseConfig(n_people=n))
gen_s = time.perf_counter() - t0
gc.collect()
base = rss_mb()
times, write_s = [], None
for i in range(repeats):
    t = time.perf_counter()
    lib, meta = build_baseline(name, u)
    times.append(time.perf_counter() - t)
    stats = lib.stats()
    if i == 0 and n <= 1000:
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            write_snapshot(Path(tmp) / "kb.json", lib, f"baseline {name}",
                           {"path": None, "hash": u.hash})
            write_s = time.perf_counter() - t
    del lib
    gc.collect()
print(json.dumps({"nodes": len(u.nodes), "gen_s": gen_s, "times": times, "write_s": write_s,
                  "nodes_added": meta["nodes_added"], "links_added": meta["links_added"],
                  "coverage": stats["index_coverage"], "base_mb": base, "peak_mb": rss_mb()}))
"""


def run_case(name: str, n: int, repeats: int) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, name, str(n), str(repeats)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"case {name}:{n} failed:\n{proc.stderr.strip()}")
    return json.loads(proc.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=DEFAULT_CASES,
                    help=f"comma-separated NAME:PEOPLE (default {DEFAULT_CASES})")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    head = (f"{'baseline':8} {'people':>7} {'notes':>8} {'build p50 s':>11} {'min s':>7} "
            f"{'+nodes':>7} {'+links':>10} {'links/note':>10} {'cover':>6} {'base MB':>8} "
            f"{'peak MB':>8} {'write s':>8}")
    print(head, flush=True)
    for case in args.cases.split(","):
        name, _, people = case.partition(":")
        r = run_case(name, int(people), args.repeats)
        write = f"{r['write_s']:8.3f}" if r["write_s"] is not None else f"{'-':>8}"
        print(f"{name:8} {int(people):7d} {r['nodes']:8d} {statistics.median(r['times']):11.3f} "
              f"{min(r['times']):7.3f} {r['nodes_added']:7d} {r['links_added']:10d} "
              f"{r['links_added'] / (r['nodes'] + r['nodes_added']):10.1f} {r['coverage']:6.3f} "
              f"{r['base_mb']:8.0f} {r['peak_mb']:8.0f} {write}", flush=True)


if __name__ == "__main__":
    main()
