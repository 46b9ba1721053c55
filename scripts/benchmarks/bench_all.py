"""Every performance figure the README quotes, in one table, from one invocation.

    python scripts/benchmarks/bench_all.py [--quick]

Rows: universe generation at 500, 10^4 and 10^5 people; env.step latency (p50, p99, max)
at about 6k and 10^6 notes; scripted training iterations/s and probe questions/s (the demo
chain); snapshot write and read time and size at 10^6 notes; sweep throughput (the demo
sweep, serial and process executors, on this machine's cores); the whole sweep pipeline at
10^5 people (configs/large.yaml). Each heavy figure runs in its own process, so peak RSS
belongs to it. ``--quick`` shrinks every size (a smoke test of the script, not the figures).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def script(name: str):
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", ROOT / "scripts" / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


sys.path.insert(0, str(ROOT / "scripts" / "benchmarks"))
from harness import child  # noqa: E402


ENV_STEPS = r"""
import contextlib, io, json, sys
sys.path.insert(0, sys.argv[3])
import bench_env
with contextlib.redirect_stdout(io.StringIO()):
    m = bench_env.bench(int(sys.argv[1]), int(sys.argv[2]))
print(json.dumps(m))
"""

SNAPSHOT = r"""
import json, os, resource, sys, tempfile, time
from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot, write_snapshot
from kbgym.worlds.people import UniverseConfig, generate
u = generate(UniverseConfig(n_people=int(sys.argv[1]), sizes=(50, 10, 10), eval_sizes=(2, 2)))
lib = Library.from_universe(u)
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "kb.json")
    t = time.perf_counter(); write_snapshot(path, lib, "bench", {"path": None, "hash": u.hash})
    w = time.perf_counter() - t
    t = time.perf_counter(); load_snapshot(path); r = time.perf_counter() - t
    size = os.path.getsize(path) / 1e6
print(json.dumps({"notes": len(lib), "write_s": w, "read_s": r, "mb": size,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

PIPELINE = r"""
import json, sys, tempfile
from kbgym.runs.demo import run_demo
with tempfile.TemporaryDirectory() as tmp:
    r = run_demo(tmp, n_people=int(sys.argv[1]), train_size=int(sys.argv[2]), epochs=2,
                 per_group=int(sys.argv[3]), plots=False, say=lambda *a: None)
n_probe = sum(c["all"]["B1"]["n"] for c in r["table"]["groups"].values())
print(json.dumps({"iterations": 2 * int(sys.argv[2]), "train_s": r["timings"]["train"],
                  "questions": 2 * n_probe, "probe_s": r["timings"]["probe"]}))
"""


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes: check the script runs")
    args = ap.parse_args(argv)
    q = args.quick
    rows: list[tuple[str, str]] = []

    def row(name: str, value: str) -> None:
        rows.append((name, value))
        print(f"  {name:48s} {value}", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    gen = script("bench_generate")
    for n in ((500, 2000) if q else (500, 10_000, 100_000)):
        m = gen.measure(n, 1 if q else 3)
        row(f"generate {n} people ({m['nodes']} notes)",
            f"{m['generate_s']:.2f} s (median), RSS {m['rss_mb']:.0f} MB")
    for people in ((500, 2000) if q else (500, 90_000)):
        m = child(ENV_STEPS, str(people), "200" if q else "2000", str(ROOT / "scripts" / "benchmarks"))
        row(f"env.step at {m['notes']} notes",
            f"p50 {m['p50_ms']:.3f} ms, p99 {m['p99_ms']:.2f} ms, max {m['max_ms']:.1f} ms, "
            f"{m['over_50ms']} over 50 ms; CPU p99 {m['cpu_p99_ms']:.2f} ms, max "
            f"{m['cpu_max_ms']:.1f} ms, {m['cpu_over_50ms']} over 50 ms; full GC max "
            f"{m['gc2_max_s']:.3f} s")
    m = child(PIPELINE, *(("120", "20", "5") if q else ("500", "100", "30")))
    row(f"scripted training ({m['iterations']} iterations)",
        f"{m['iterations'] / m['train_s']:.1f} iterations/s")
    row(f"probe exams ({m['questions']} questions, B1 + trained)",
        f"{m['questions'] / m['probe_s']:.1f} questions/s")
    m = child(SNAPSHOT, "2000" if q else "90000")
    row(f"snapshot at {m['notes']} notes",
        f"write {m['write_s']:.2f} s, read {m['read_s']:.2f} s, {m['mb']:.0f} MB")
    sw = script("bench_sweep")
    with tempfile.TemporaryDirectory() as tmp:
        import yaml

        grid = yaml.safe_load((ROOT / "configs" / "sweep_demo.yaml").read_text())
        if q:
            grid.update(seeds=[0, 1], universes=[{"n_people": 120}],
                        train={"epochs": 1, "train_size": 20}, probe={"per_group": 5},
                        curve_every=0)
        path = Path(tmp) / "grid.yaml"
        path.write_text(yaml.safe_dump(grid))
        m = sw.measure(path, 2)
    row(f"sweep, {m['runs']} runs, 2 workers on {os.cpu_count()} cores",
        f"serial {m['serial_s']:.1f} s, process {m['process_s']:.1f} s "
        f"(x{m['ratio']:.2f}; {60 * m['runs'] / m['process_s']:.1f} runs/min), "
        f"identical {m['identical']}")
    large = script("bench_large")
    with tempfile.TemporaryDirectory() as tmp:
        import yaml

        grid = yaml.safe_load((ROOT / "configs" / "large.yaml").read_text())
        if q:
            grid["universes"] = [{"n_people": 2000}]
        path = Path(tmp) / "grid.yaml"
        path.write_text(yaml.safe_dump(grid))
        m = large.measure(path)
    t = m["timing"]
    row(f"sweep pipeline at {m['people']} people ({m['notes']} notes)",
        ", ".join(f"{k} {v:.0f} s" for k, v in t.items()
                  if k in ("build", "train", "probe_make", "exam_B1", "exam_trained", "report",
                           "total")) + f"; peak RSS {m['rss_mb']:.0f} MB")
    row(f"  its env.step ({m['steps']} steps)",
        f"p99 {m['p99_ms']:.2f} ms, max {m['max_ms']:.1f} ms; CPU p99 {m['cpu_p99_ms']:.2f} ms, "
        f"max {m['cpu_max_ms']:.1f} ms; longest full GC {m['gc2_max_s']:.3f} s")

    width = max(len(n) for n, _ in rows)
    print(f"{'figure':{width}s}  value")
    for name, value in rows:
        print(f"{name:{width}s}  {value}")
    print(f"(load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the end; "
          f"{time.perf_counter() - t0:.0f} s in all)")


if __name__ == "__main__":
    main()
