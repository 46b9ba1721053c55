"""BM25 query latency on the default universe (about 5.9k notes).

    python scripts/benchmarks/bench_search.py [--n 3000] [--seed 0] [--baseline PATH] [--people N]

Draws ``--n`` queries from a seeded ``random.Random`` over (full name + keyword, "Residents of
{city}", "people whose job is {job}") x pages 1-12 and prints p50/p95 in microseconds of

- ``lib.search(q, 5 * page)`` on ``Library.from_universe(u, search=BM25Index())``, and
- ``env.step({"action": "search", "query": q, "page": page})`` on a fresh ``KBGymEnv``,
- and ``lib.search`` again over a paging stream (each query from page 1, next page with
  probability 0.4), where the ranking cache pays off.

Variants: ``current`` (this checkout's ``BM25Index``), ``current, no ranking cache``
(``RANK_CACHE = 0``) and, with ``--baseline``, another version. Caches are cleared at the
start of every round, so only repeats within a round's stream hit.

``--baseline PATH`` loads another ``search.py`` (e.g. a copy of the previous version) and times
its ``BM25Index`` in the same run, interleaved with the current one, after checking that both
return identical results (ids, order and float64 scores) for every query.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
import time
from pathlib import Path

from kbgym.env import KBGymConfig, KBGymEnv
from kbgym.library import BM25Index, Library
from kbgym.worlds.people import UniverseConfig, generate

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import pct  # noqa: E402

KEYWORDS = ["job", "friend", "hobby", "city", "married", "born", "father", "mother", "lives"]


def draw_queries(u, n: int, seed: int) -> list[tuple[str, int]]:
    rng = random.Random(seed)
    names = [p.name for p in u.people]
    jobs, cities = u.vocab["jobs"], u.vocab["cities"]
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.7:
            q = f"{rng.choice(names)} {rng.choice(KEYWORDS)}"
        elif r < 0.85:
            q = f"Residents of {rng.choice(cities)}"
        else:
            q = f"people whose job is {rng.choice(jobs)}"
        out.append((q, rng.randint(1, 12)))
    return out


def paging_stream(queries: list[tuple[str, int]], seed: int) -> list[tuple[str, int]]:
    """The same queries as an agent pages through them: page 1, then each next page with
    probability 0.4 (up to page 12)."""
    rng = random.Random(seed)
    out = []
    for q, _ in queries:
        page = 1
        out.append((q, page))
        while page < 12 and rng.random() < 0.4:
            page += 1
            out.append((q, page))
    return out


def load_baseline(path: str):
    spec = importlib.util.spec_from_file_location("bm25_baseline", path)
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["bm25_baseline"] = mod
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod.BM25Index


def time_calls(fn, queries) -> list[float]:
    out = []
    for q, p in queries:
        t0 = time.perf_counter_ns()
        fn(q, p)
        out.append((time.perf_counter_ns() - t0) / 1000)
    return out


def report(label: str, xs: list[float]) -> None:
    print(f"{label:44s}{len(xs):7d}{statistics.median(xs):10.1f}{pct(xs, 0.95):10.1f}"
          f"{statistics.fmean(xs):10.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--baseline", default=None, help="path to another search.py to compare")
    ap.add_argument("--people", type=int, default=None, help="universe size (default: default)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds")
    args = ap.parse_args()

    u = generate() if args.people is None else generate(UniverseConfig(n_people=args.people))
    queries = draw_queries(u, args.n, args.seed)
    Baseline = load_baseline(args.baseline) if args.baseline else None

    def backend(name: str):
        if name == "baseline":
            return Baseline()
        index = BM25Index()
        if name == "current, no ranking cache":
            index.RANK_CACHE = 0  # every query ranked from scratch (term weights still cached)
        return index

    names = (["baseline"] if Baseline else []) + ["current", "current, no ranking cache"]
    libs = {name: Library.from_universe(u, search=backend(name)) for name in names}
    if Baseline:
        for q, p in queries:  # exactness check before timing
            want = libs["baseline"].search(q, 5 * p)
            for name in names[1:]:
                got = libs[name].search(q, 5 * p)
                assert got == want, (name, q, p, got[:3], want[:3])
        print(f"current == baseline on all {len(queries)} queries (ids, order, float64 scores)")
    envs = {}
    for name in names:
        env = KBGymEnv(u, config=KBGymConfig(n1=10**6), search_backend=backend(name))
        env.reset(seed=0)
        envs[name] = env

    def clear(lib) -> None:  # each round starts cold: repeats only within a round hit the cache
        getattr(lib.search_backend, "clear_cache", lambda: None)()

    paged = paging_stream(queries, args.seed)
    lib_t = {name: [] for name in names}
    paged_t = {name: [] for name in names}
    env_t = {name: [] for name in names}
    for _ in range(args.rounds):  # interleaved, so machine noise hits every variant alike
        for name, lib in libs.items():
            clear(lib)
            lib_t[name] += time_calls(lambda q, p, lib=lib: lib.search(q, 5 * p), queries)
            clear(lib)
            paged_t[name] += time_calls(lambda q, p, lib=lib: lib.search(q, 5 * p), paged)
        for name, env in envs.items():
            clear(env.library)
            step = env.step
            env_t[name] += time_calls(
                lambda q, p, step=step: step({"action": "search", "query": q, "page": p}),
                queries)  # fmt: skip
    print(f"{len(u.nodes)} notes, {len(queries)} queries x {args.rounds} rounds, pages 1-12")
    print(f"{'':44s}{'n':>7s}{'p50 us':>10s}{'p95 us':>10s}{'mean us':>10s}")
    for name in names:
        report(f"lib.search [{name}]", lib_t[name])
    for name in names:
        report(f"env.step search [{name}]", env_t[name])
    print(f"paging stream: the same queries from page 1, next page with p=0.4 ({len(paged)} calls)")
    for name in names:
        report(f"lib.search [{name}]", paged_t[name])


if __name__ == "__main__":
    main()
