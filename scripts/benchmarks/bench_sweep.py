"""Sweep throughput: the same grid with the serial and the process executor, wall time of
each, their ratio, and whether every run's result.json is the same bytes.

    python scripts/benchmarks/bench_sweep.py [--grid configs/sweep_demo.yaml] [--jobs 2]
                                  [--curators scripted-index,scripted-noop]

Each sweep is a fresh ``kbgym sweep`` process in a fresh folder. With n equal runs on
``--jobs`` workers the best possible ratio is ceil(n/jobs)/n (5 runs on 2 workers: 0.6).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def run(grid: Path, out: Path, executor: str, jobs: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "kbgym.cli", "sweep", str(grid), "--out", str(out),
                    "--executor", executor, "--jobs", str(jobs), "--quiet"], check=True, env=env)
    return time.perf_counter() - t


def results(out: Path) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in sorted(out.glob("runs/*/result.json"))}


def measure(grid_path: Path, jobs: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        load = os.getloadavg()[0]
        serial = run(grid_path, tmp / "serial", "serial", 1)
        process = run(grid_path, tmp / "process", "process", jobs)
        a, b = results(tmp / "serial"), results(tmp / "process")
        return {"runs": len(a), "serial_s": serial, "process_s": process,
                "ratio": process / serial, "identical": a == b and len(a) > 0,
                "load_before": load}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", default=str(ROOT / "configs" / "sweep_demo.yaml"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--curators", help="comma-separated; overrides the grid's curators")
    args = ap.parse_args(argv)
    grid = yaml.safe_load(Path(args.grid).read_text(encoding="utf-8"))
    if args.curators:
        grid["curators"] = args.curators.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "grid.yaml"
        path.write_text(yaml.safe_dump(grid), encoding="utf-8")
        m = measure(path, args.jobs)
    print(f"{'runs':>5s}{'jobs':>5s}{'serial s':>10s}{'process s':>11s}{'ratio':>7s}"
          f"{'best':>6s}  identical  (cores {os.cpu_count()}, load {m['load_before']:.1f})")
    best = -(-m["runs"] // args.jobs) / m["runs"]
    print(f"{m['runs']:5d}{args.jobs:5d}{m['serial_s']:10.1f}{m['process_s']:11.1f}"
          f"{m['ratio']:7.2f}{best:6.2f}  {m['identical']}")
    return m


if __name__ == "__main__":
    main()
