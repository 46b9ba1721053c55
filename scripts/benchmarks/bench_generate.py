"""Generator speed and memory: medians over repeats, one child process per size.

    python scripts/benchmarks/bench_generate.py [--sizes 500,10000,100000] [--repeats 3]

Each run happens in a fresh process so peak RSS (ru_maxrss) belongs to that size alone: the
peak when ``generate`` returns (the universe) and after the universe file is written as
``kbgym build`` writes it (``Universe.write``, a chunk at a time, into a temporary folder).
``--sizes 1000000`` is the largest universe the config accepts (about 5 minutes and 8 GiB).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CHILD = r"""
import json, os, resource, sys, tempfile, time
from kbgym.worlds.people import UniverseConfig, generate
n = int(sys.argv[1])
t0 = time.perf_counter()
u = generate(UniverseConfig(n_people=n))
t1 = time.perf_counter()
rss_gen = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
with tempfile.TemporaryDirectory() as d:
    u.write(os.path.join(d, "universe.json"))
    t2 = time.perf_counter()
    size = os.path.getsize(os.path.join(d, "universe.json"))
print(json.dumps({"generate_s": t1 - t0, "write_s": t2 - t1, "nodes": len(u.nodes),
                  "questions": len(u.questions), "mode": u.meta["birthdate_mode"],
                  "json_mb": size / 1e6, "rss_generate_mb": rss_gen,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(n: int, repeats: int = 3) -> dict:
    """Medians over ``repeats`` fresh processes generating ``n`` people."""
    runs = []
    for _ in range(repeats):
        proc = subprocess.run([sys.executable, "-c", CHILD, str(n)],
                              capture_output=True, text=True)
        if proc.returncode:
            sys.exit(f"{n} people: the child failed:\n{proc.stderr.strip()}")
        runs.append(json.loads(proc.stdout))
    med = {k: statistics.median(r[k] for r in runs)
           for k in ("generate_s", "write_s", "rss_generate_mb", "rss_mb")}
    return {**runs[0], **med, "people": n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="500,10000,100000")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(f"{'people':>8} {'nodes':>9} {'gen p50 s':>10} {'write p50 s':>12} {'RSS gen MB':>10} "
          f"{'RSS MB':>8} {'json MB':>8}  mode")
    for n in (int(s) for s in args.sizes.split(",")):
        m = measure(n, args.repeats)
        print(f"{n:8d} {m['nodes']:9d} {m['generate_s']:10.3f} {m['write_s']:12.3f} "
              f"{m['rss_generate_mb']:10.0f} {m['rss_mb']:8.0f} {m['json_mb']:8.1f}  {m['mode']}")


if __name__ == "__main__":
    main()
