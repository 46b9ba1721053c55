"""``locate`` (SPEC §18) latency: the BM25 posting-list path against the linear scan.

    python scripts/benchmarks/bench_locate.py [--sizes 6000,1000000] [--ops 300] [--scan-ops 5]

Builds the synthetic universe-shaped library of ``bench_library.py`` at each size (one
process per size), adds 2% authored index notes ("Friends of {name}.", "People whose job is
{job}.", ...) so both halves of the authored-first order occur, and times ``locate`` on
realistic term lists (a full name; a name and a relation word; a job; a city and "lives"; an
index title) and on common-words-only lists ("of", "is a friend of"), the worst case. The
linear scan (:func:`locate_scan`, the former implementation) is timed on ``--scan-ops`` of
the same queries, and every timed query's result is checked to be identical to the scan's
over a sample. Prints p50/p95 in microseconds and the scan/index ratio of medians.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import subprocess
import sys
import time
from pathlib import Path


def _synthetic():
    path = Path(__file__).with_name("bench_library.py")
    spec = importlib.util.spec_from_file_location("bench_library", path)
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod.synthetic


sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import pct  # noqa: E402


def _pct(xs: list[float]) -> dict:
    return {"p50_us": round(pct(xs, 0.5), 1), "p95_us": round(pct(xs, 0.95), 1)}


def child(target: int, n_ops: int, scan_ops: int) -> dict:
    from kbgym.library import BM25Index, Library
    from kbgym.library.evidence import locate, locate_scan

    rng = random.Random(12345)
    texts, v = _synthetic()(target, rng)
    t0 = time.perf_counter()
    lib = Library.from_texts(((f"s{i:04d}", t) for i, t in enumerate(texts, 1)),
                             search=BM25Index())
    build = time.perf_counter() - t0
    people = v["people"]
    for _ in range(target // 50):
        kind = rng.randrange(3)
        if kind == 0:
            lib.add(f"Friends of {rng.choice(people)}.", dedup=False)
        elif kind == 1:
            lib.add(f"People whose job is {rng.choice(v['jobs'])}.", dedup=False)
        else:
            lib.add(f"Residents of {rng.choice(v['cities'])}.", dedup=False)

    def realistic():
        n = rng.choice(people)
        return rng.choice([n, [n, "friend"], [n, "job"], [rng.choice(v["jobs"])],
                           [rng.choice(v["cities"]), "lives"], f"Friends of {n}", [n, "married"],
                           [rng.choice(v["hobbies"])]])

    res: dict = {"nodes": len(lib), "build_s": round(build, 1)}
    sets = {"realistic": [realistic() for _ in range(n_ops)],
            "common_only": [rng.choice(["of", "is", ["is a friend of"], ["lives", "city"]])
                            for _ in range(max(20, n_ops // 10))]}
    for name, queries in sets.items():
        for q in queries[:10]:
            locate(lib, q)  # warm-up
        times = []
        for q in queries:
            s = time.perf_counter_ns()
            locate(lib, q)
            times.append((time.perf_counter_ns() - s) / 1e3)
        res[name] = _pct(times)
        scan = []
        for q in queries[:scan_ops]:
            s = time.perf_counter_ns()
            expect = locate_scan(lib, q)
            scan.append((time.perf_counter_ns() - s) / 1e3)
            assert locate(lib, q) == expect, q
        res[name + "_scan"] = _pct(scan)
        res[name + "_ratio"] = round(res[name + "_scan"]["p50_us"] / res[name]["p50_us"], 1)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="6000,1000000")
    ap.add_argument("--ops", type=int, default=300)
    ap.add_argument("--scan-ops", type=int, default=5, dest="scan_ops")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.ops, args.scan_ops)))
        return
    for n in (int(s) for s in args.sizes.split(",")):
        out = subprocess.run([sys.executable, __file__, "--child", str(n), "--ops", str(args.ops),
                              "--scan-ops", str(args.scan_ops)],
                             check=True, capture_output=True, text=True)  # fmt: skip
        r = json.loads(out.stdout)
        print(f"nodes {r['nodes']:,}  (build {r['build_s']} s)")
        for name in ("realistic", "common_only"):
            a, b = r[name], r[name + "_scan"]
            print(f"  {name:<12} index p50 {a['p50_us']:>9.1f} us  p95 {a['p95_us']:>9.1f} us"
                  f"   | scan p50 {b['p50_us']:>11.1f} us   scan/index {r[name + '_ratio']}x")


if __name__ == "__main__":
    main()
