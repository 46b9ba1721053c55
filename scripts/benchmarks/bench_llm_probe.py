"""Probe throughput of the concurrent exam against the fake OpenAI server (fixed latency).

The fake server (tests/llm/fake_server.py, in its own process) answers every chat call after
``--latency`` seconds with a deterministic toy policy: search, then answer, so every question
takes exactly 2 steps. With at most C questions in flight the ideal rate is
C / (steps x latency) questions per second; the target is at least 0.8 of it.

    python scripts/benchmarks/bench_llm_probe.py                     # C = 1 4 8 16 32, 12*C questions
    python scripts/benchmarks/bench_llm_probe.py --concurrency 32 --repeats 5

Prints, per C: the median questions/second over the repeats (set-up of the envs and clients
included), the limit and their ratio. Exits 1 if a ratio is below ``--target`` (0.8).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kbgym_agents.llm.agent import make_llm_agent  # noqa: E402
from kbgym.library.graph import Library  # noqa: E402
from kbgym.runs.concurrent import examine_concurrent  # noqa: E402
from kbgym.worlds.people import UniverseConfig, generate  # noqa: E402

STEPS = 2  # the fake server's toy policy: search, answer


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "llm" / "fake_server.py"), "--latency",
         str(latency)], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("PORT "):
        proc.kill()
        raise RuntimeError(f"the fake server did not start: {line!r}")
    return proc, f"http://127.0.0.1:{line.split()[1]}/v1"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 8, 16, 32])
    p.add_argument("--latency", type=float, default=0.1)
    p.add_argument("--questions", type=int, default=0,
                   help="questions per run (default: max(8, 12*C))")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--target", type=float, default=0.8)
    args = p.parse_args(argv)

    u = generate(UniverseConfig(n_people=60, n_cities=8, sizes=(40, 30, 20),
                                eval_sizes=(10, 6)))
    lib = Library.from_universe(u)
    pool = list(u.splits["test_in"]) + list(u.splits["test_out"])
    questions = {q.qid: q for q in u.questions}
    proc, url = start_server(args.latency)
    results = []
    try:
        print(f"fake server {url}, latency {args.latency * 1000:.0f} ms, {STEPS} steps per "
              f"question, {os.cpu_count()} CPUs")
        print(f"{'C':>4s} {'questions':>9s} {'q/s (median)':>13s} {'limit':>8s} {'ratio':>6s}"
              f"  runs")
        for c in args.concurrency:
            n = args.questions or max(8, 12 * c)
            qids = [pool[i % len(pool)] for i in range(n)]
            splits = {"bench": qids}
            rates = []
            for _ in range(args.repeats):
                agent = make_llm_agent("reader", model="fake", base_url=url, tool_mode="tools",
                                       timeout_s=30)
                t0 = time.perf_counter()
                rows = examine_concurrent(u, lib, agent, split="bench", questions=questions,
                                          splits=splits, max_concurrent=c)
                wall = time.perf_counter() - t0
                steps = {r["steps"] for r in rows}
                if steps != {STEPS} or agent.stats["noops"]:
                    raise RuntimeError(f"unexpected run: steps {steps}, {agent.stats}")
                rates.append(len(rows) / wall)
            med = statistics.median(rates)
            limit = c / (STEPS * args.latency)
            results.append((c, med / limit))
            print(f"{c:4d} {n:9d} {med:13.2f} {limit:8.2f} {med / limit:6.2f}  "
                  + " ".join(f"{r:.1f}" for r in rates), flush=True)
    finally:
        proc.terminate()
        proc.wait(10)
    bad = [c for c, ratio in results if ratio < args.target]
    print("target met" if not bad else f"below {args.target} x limit at C = {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
