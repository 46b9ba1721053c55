"""env.step latency with a scripted action stream, and library build at scale.

    python scripts/benchmarks/bench_env.py [--people 500,90000] [--steps 2000]

Per size: build the universe, build the library (timed), then time env.step for search,
read, add, edit and link actions (a fixed seeded stream; backward phase for edits) and print
p50/p95/p99/max in microseconds (and CPU time per step: on a shared machine wall-clock p99 is
mostly time spent descheduled), the full collections during the steps, plus peak RSS.
90,000 people give about 10^6 notes.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path

from kbgym.env import KBGymConfig, KBGymEnv
from kbgym.library.graph import Library
from kbgym.worlds.people import UniverseConfig, generate

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import pct, peak_rss_mb  # noqa: E402


def bench(n_people: int, steps: int) -> dict:
    t = time.perf_counter()
    u = generate(UniverseConfig(n_people=n_people, sizes=(50, 10, 10), eval_sizes=(2, 2)))
    t_gen = time.perf_counter() - t
    t = time.perf_counter()
    lib = Library.from_universe(u)
    t_lib = time.perf_counter() - t
    t = time.perf_counter()
    env = KBGymEnv(u, library=lib, config=KBGymConfig(n1=10**6, n2=10**6))
    t_index = time.perf_counter() - t
    rng = random.Random(1)
    names = [p.name for p in u.people]
    ids = [n.id for n in u.nodes]
    vocab = u.vocab["jobs"] + u.vocab["cities"]
    times = {k: [] for k in ("search", "read", "answer", "add", "edit", "link")}
    cpu = []  # CPU time per step: what the step costs, without time lost to other processes
    pauses, t_gc = [], [0.0]

    def on_gc(phase, info):
        if phase == "start":
            t_gc[0] = time.process_time()
        elif info["generation"] == 2:
            pauses.append(time.process_time() - t_gc[0])

    gc.callbacks.append(on_gc)

    def timed(kind, action):
        c0, t0 = time.process_time_ns(), time.perf_counter_ns()
        obs, r, term, trunc, info = env.step(action)
        times[kind].append((time.perf_counter_ns() - t0) / 1000)
        cpu.append((time.process_time_ns() - c0) / 1000)
        return info

    env.reset(seed=0)
    for _ in range(steps):  # forward phase: reads and searches
        q = rng.choice(names) + " " + rng.choice(["job", "friend", "married", "city"])
        timed("search", {"action": "search", "query": q})
        timed("read", {"action": "read", "id": rng.choice(ids)})
    timed("answer", {"action": "answer", "text": "x"})
    added = []
    for i in range(steps):  # backward phase: add, edit, link, and a search that sees them
        info = timed("add", {"action": "add", "text": f"People whose job is {rng.choice(vocab)} "
                                                     f"number {i}."})
        added.append(info["result"].split()[-1])
        timed("edit", {"action": "edit", "id": added[-1], "text": f"Residents of {rng.choice(vocab)} {i}."})
        timed("link", {"action": "link", "source": added[-1], "target": rng.choice(ids)})
    hit = env.step({"action": "search", "query": f"Residents {steps - 1}"})[4]["result"]
    assert added[-1] in hit, "an edit must be searchable at once (immediate refresh)"
    rss = peak_rss_mb()
    print(f"\n{n_people} people, {len(u.nodes)} notes: generate {t_gen:.1f}s, library build "
          f"{t_lib:.2f}s, index build {t_index:.2f}s, peak RSS {rss:.0f} MB")
    print(f"{'action':8s}{'n':>7s}{'p50 us':>10s}{'p95 us':>10s}{'p99 us':>10s}{'max us':>10s}")
    every = [x for xs in times.values() for x in xs]
    for k, xs in [*times.items(), ("all", every)]:
        print(f"{k:8s}{len(xs):7d}{statistics.median(xs):10.1f}{pct(xs, 0.95):10.1f}"
              f"{pct(xs, 0.99):10.1f}{max(xs):10.1f}")
    print(f"{'cpu':8s}{len(cpu):7d}{statistics.median(cpu):10.1f}{pct(cpu, 0.95):10.1f}"
          f"{pct(cpu, 0.99):10.1f}{max(cpu):10.1f}   (CPU time per step, all actions)")
    print(f"full collections during the steps: {len(pauses)}, longest "
          f"{max(pauses, default=0.0):.3f} s CPU")
    gc.callbacks.remove(on_gc)
    return {"people": n_people, "notes": len(u.nodes), "generate_s": t_gen, "rss_mb": rss,
            "p50_ms": statistics.median(every) / 1e3, "p99_ms": pct(every, 0.99) / 1e3,
            "max_ms": max(every) / 1e3, "over_50ms": sum(x > 50_000 for x in every),
            "cpu_p99_ms": pct(cpu, 0.99) / 1e3, "cpu_max_ms": max(cpu) / 1e3,
            "cpu_over_50ms": sum(x > 50_000 for x in cpu), "gc2_n": len(pauses),
            "gc2_max_s": max(pauses, default=0.0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--people", default="500,90000")
    ap.add_argument("--steps", type=int, default=2000)
    args = ap.parse_args()
    for n in args.people.split(","):
        bench(int(n), args.steps)


if __name__ == "__main__":
    main()
