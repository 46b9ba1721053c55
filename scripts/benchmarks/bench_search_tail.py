"""The search tail in a mixed add/search stream at scale (issue 39, "worst search at 1.17M").

    python scripts/benchmarks/bench_search_tail.py [--notes 1170000] [--steps 100000]
        [--add-share 0.5] [--seed 0] [--slowest 8]

Builds a universe-shaped synthetic library (bench_library.synthetic) of ``--notes`` notes with
the BM25 index, then runs ``--steps`` steps, each an ``add`` (``apply_edit``, new sentences in
the universe's shape, so they share the common terms) with probability ``--add-share``, else a
``search`` (``search_result``, pages 1-2, names, relations, cities, jobs and the common-word
queries). Every step is timed as CPU time (``time.process_time``: the step's own cost on a
shared machine) and wall time; the script prints p50 / p99 / p99.9 / max of the searches and
the adds, how many searches took over 20 and 50 ms, the slowest searches with their query
(and the garbage collection inside each, if any), and the load average.

The stream runs inside ``gc_frozen()`` as the sweep runner runs its stages (what the build
made is not walked by every full collection); collections during a search are timed by a
``gc.callbacks`` hook and shown beside the slow searches, and the searches are summarised
again without those that held a full (generation 2) collection.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_library import synthetic  # noqa: E402
from harness import pct, peak_rss_mb  # noqa: E402


def run(notes: int, steps: int, add_share: float, seed: int, slowest: int) -> dict:
    from kbgym.library import BM25Index, Library

    rng = random.Random(seed)
    texts, v = synthetic(notes, rng)
    t0 = time.process_time()
    lib = Library.from_texts([(f"s{i:04d}", t) for i, t in enumerate(texts, 1)],
                             search=BM25Index())
    build = time.process_time() - t0
    del texts
    people = v["people"]

    def query() -> str:
        n, c = rng.choice(people), rng.choice(v["cities"])
        return rng.choice([f"{n} job", f"friend of {n}", f"who is {n} married to",
                           f"lives in the city of {c}", rng.choice(v["jobs"]), f"{n} born",
                           f"children of {n}", f"{rng.choice(v['hobbies'])} hobby", n,
                           f"mother of {n}", "is a friend of", "of"])  # fmt: skip

    def sentence(i: int) -> str:
        n, o = rng.choice(people), rng.choice(people)
        return rng.choice([f"{n} is a friend of {o} since {i}.", f"{n} is married to {o} ({i}).",
                           f"{n} lives in the city of {rng.choice(v['cities'])}, step {i}.",
                           f"{n}'s job is {rng.choice(v['jobs'])}, step {i}.",
                           f"{o} is the mother of {n}, step {i}."])  # fmt: skip

    from kbgym.library.graph import gc_frozen

    search_cpu, search_wall, add_cpu, worst, clean = [], [], [], [], []
    gcs: list[tuple[int, float]] = []  # (generation, CPU s) of collections in this step
    t_gc = [0.0]

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            t_gc[0] = time.process_time()
        else:
            gcs.append((info["generation"], time.process_time() - t_gc[0]))

    gc.collect()
    gc.callbacks.append(on_gc)
    with gc_frozen():
        _stream(lib, rng, steps, add_share, query, sentence, search_cpu, search_wall, add_cpu,
                worst, clean, gcs)
    gc.callbacks.remove(on_gc)
    worst.sort(reverse=True)
    return {"notes": notes, "final_notes": len(lib), "build_cpu_s": build,
            "search_cpu": search_cpu, "search_wall": search_wall, "add_cpu": add_cpu,
            "clean_cpu": clean, "worst": worst[:slowest], "rss_mb": peak_rss_mb()}


def _stream(lib, rng, steps, add_share, query, sentence, search_cpu, search_wall, add_cpu,
            worst, clean, gcs) -> None:
    from kbgym.library import apply_edit, search_result

    for i in range(steps):
        if rng.random() < add_share:
            args = {"text": sentence(i)}
            c = time.process_time()
            apply_edit(lib, "add", args)
            add_cpu.append(time.process_time() - c)
        else:
            q, page = query(), rng.randint(1, 2)
            gcs.clear()
            c, w = time.process_time(), time.perf_counter()
            search_result(lib, q, page)
            dc = time.process_time() - c
            search_wall.append(time.perf_counter() - w)
            search_cpu.append(dc)
            if not any(g == 2 for g, _ in gcs):
                clean.append(dc)
            if dc > 0.01:
                worst.append((dc, q, page, i, list(gcs)))


def describe(name: str, xs: list[float]) -> str:
    ms = [1e3 * x for x in xs]
    return (f"{name:<14}\n    n {len(ms):>6}  p50 {pct(ms, 0.5):7.3f} ms  p99 {pct(ms, 0.99):7.3f} ms  "
            f"p99.9 {pct(ms, 0.999):7.3f} ms  max {max(ms):7.1f} ms  "
            f"over 20 ms {sum(x > 20 for x in ms)}, over 50 ms {sum(x > 50 for x in ms)}")


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=1_170_000)
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--add-share", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--slowest", type=int, default=8)
    a = ap.parse_args(argv)
    load0 = os.getloadavg()[0]
    r = run(a.notes, a.steps, a.add_share, a.seed, a.slowest)
    print(f"{r['notes']:,} notes (build {r['build_cpu_s']:.1f} s CPU), {a.steps:,} steps "
          f"({a.add_share:.0%} adds), {r['final_notes']:,} notes at the end; peak RSS "
          f"{r['rss_mb']:.0f} MB; load {load0:.2f} -> {os.getloadavg()[0]:.2f} on "
          f"{os.cpu_count()} cores")
    print(describe("search (CPU)", r["search_cpu"]))
    print(describe("search (wall)", r["search_wall"]))
    print(describe("search, no gen-2 collection inside (CPU)", r["clean_cpu"]))
    print(describe("add (CPU)", r["add_cpu"]))
    for dc, q, page, i, gcs in r["worst"]:
        g = ", ".join(f"gen {g} {1e3 * t:.0f} ms" for g, t in gcs) or "none"
        print(f"  slow search: {1e3 * dc:7.1f} ms CPU  step {i}  page {page}  {q!r}  "
              f"(collections inside: {g})")
    return r


if __name__ == "__main__":
    main()
