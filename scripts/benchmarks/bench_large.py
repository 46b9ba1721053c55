"""The sweep pipeline at scale (configs/large.yaml: 10^5 people, about 1.2 M notes, 50
training iterations, a 100-question probe on B1 and the trained library), in one fresh
process: the time of each stage, peak RSS, env.step latencies and garbage-collection pauses.

    python scripts/benchmarks/bench_large.py [--grid configs/large.yaml] [--people N]

The run is an ordinary sweep run (kbgym.sweep.run.execute), so the stages are the ones
timing.json records. Step latencies cover every env.step of the run (training and exams),
as wall time and as CPU time (the step's own cost, without time lost to other processes on
a shared machine); full-collection pauses are CPU time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import gc, json, resource, sys, time
from pathlib import Path
import kbgym.env.env as E
from kbgym.sweep.grid import expand, load_grid
from kbgym.sweep.run import execute, run_dir, run_id

lat, cpu, pauses, t_gc = [], [], [], [0.0]
in_step, step_pauses, slowest = [False], [], []
orig = E.KBGymEnv.step
def step(self, action):
    c, t = time.process_time(), time.perf_counter()
    in_step[0] = True
    try:
        out = orig(self, action)
    finally:
        in_step[0] = False
    lat.append(time.perf_counter() - t)
    cpu.append(time.process_time() - c)
    slowest.append((cpu[-1], str(action.get("action") if isinstance(action, dict) else action)))
    slowest.sort(reverse=True)
    del slowest[5:]
    return out
E.KBGymEnv.step = step
def on_gc(phase, info):
    if phase == "start":
        t_gc[0] = time.process_time()
    elif info["generation"] == 2:
        pauses.append(time.process_time() - t_gc[0])
        if in_step[0]:
            step_pauses.append(pauses[-1])
gc.callbacks.append(on_gc)

spec = expand(load_grid(sys.argv[1]))[0]
t = time.perf_counter()
execute(spec, sys.argv[2])
wall = time.perf_counter() - t
d = run_dir(sys.argv[2], run_id(spec))
result = json.loads((d / "result.json").read_text())
from harness import pct
lat.sort()
cpu.sort()
pick = lambda q, xs=lat: pct(xs, q)
print(json.dumps({
    "wall_s": wall, "timing": json.loads((d / "timing.json").read_text()),
    "people": result["universe"]["people"], "notes": result["universe"]["notes"],
    "iterations": result["train"]["iterations"],
    "probe": sum(result["probe"]["groups"].values()),
    "steps": len(lat), "p50_ms": 1e3 * pick(0.5), "p99_ms": 1e3 * pick(0.99),
    "max_ms": 1e3 * lat[-1], "over_50ms": sum(x > 0.05 for x in lat),
    "cpu_p99_ms": 1e3 * pick(0.99, cpu), "cpu_max_ms": 1e3 * cpu[-1],
    "cpu_over_50ms": sum(x > 0.05 for x in cpu),
    "gc2_n": len(pauses), "gc2_max_s": max(pauses, default=0.0),
    "gc2_in_steps": len(step_pauses), "gc2_in_steps_max_s": max(step_pauses, default=0.0),
    "slowest": [[round(1e3 * c, 1), a] for c, a in slowest],
    "disk_mb": sum(p.stat().st_size for p in d.rglob("*") if p.is_file()) / 1e6,
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "rho": {g: c["trained"]["rho"] for g, c in
            ((g, v["all"]) for g, v in result["probe_table"]["groups"].items())},
}))
"""


def measure(grid: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT), str(ROOT / "scripts" / "benchmarks"), os.environ.get("PYTHONPATH", "")])}
        out = subprocess.run([sys.executable, "-c", CHILD, str(grid), tmp], check=True,
                             capture_output=True, text=True, env=env).stdout
        return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", default=str(ROOT / "configs" / "large.yaml"))
    ap.add_argument("--people", type=int, help="override the universe size (a quick check)")
    args = ap.parse_args(argv)
    grid = yaml.safe_load(Path(args.grid).read_text(encoding="utf-8"))
    if args.people:
        grid["universes"] = [{**grid["universes"][0], "n_people": args.people}]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "grid.yaml"
        path.write_text(yaml.safe_dump(grid), encoding="utf-8")
        m = measure(path)
    t = m["timing"]
    print(f"{m['people']} people, {m['notes']} notes, {m['iterations']} training iterations, "
          f"{m['probe']}-question probe on B1 and trained; load {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")
    stages = [k for k in t if k != "total" and not k.startswith("cpu_")]
    print("stage seconds, wall: " + ", ".join(f"{k} {t[k]:.1f}" for k in stages)
          + f"; total {t['total']:.1f} (process wall {m['wall_s']:.1f})")
    print("stage seconds, CPU:  " + ", ".join(f"{k} {t['cpu_' + k]:.1f}" for k in stages
                                              if "cpu_" + k in t)
          + f"; total {sum(v for k, v in t.items() if k.startswith('cpu_')):.1f}")
    print(f"peak RSS {m['rss_mb']:.0f} MB; run folder {m['disk_mb']:.0f} MB")
    print(f"env.step: {m['steps']} steps, p50 {m['p50_ms']:.2f} ms, p99 {m['p99_ms']:.2f} ms, "
          f"max {m['max_ms']:.1f} ms, {m['over_50ms']} over 50 ms; CPU time per step p99 "
          f"{m['cpu_p99_ms']:.2f} ms, max {m['cpu_max_ms']:.1f} ms, {m['cpu_over_50ms']} over "
          f"50 ms")
    print(f"full collections: {m['gc2_n']} in the run (longest {m['gc2_max_s']:.3f} s CPU, "
          f"stage boundaries included), {m['gc2_in_steps']} inside a step (longest "
          f"{m['gc2_in_steps_max_s']:.3f} s); slowest steps (CPU ms, action): {m['slowest']}")
    print("rho trained/B1: " + ", ".join(f"{g} {v:.3f}" for g, v in m["rho"].items()
                                         if v is not None))
    return m


if __name__ == "__main__":
    main()
