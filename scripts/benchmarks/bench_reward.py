"""Cost of the curation reward per episode and of a library fork.

    python scripts/benchmarks/bench_reward.py [--episodes 60] [--k 16] [--fork-sizes 6000,1000000]

Reward: the default universe, the scripted index curator (plugin ``scripted-index``) training
with ``reward="curation"``; the time spent in the reward (before-scores at reset, the pool's
examination when backward ends) is measured per episode, apart from the curator's own steps.
Printed: median / p95 ms per episode, examinations per episode, and the same for a no-op
curator (no edit: the reward comes from the cache).

Fork: ``Library.fork()`` (nodes, links and the BM25 index) of the trained default library,
and of synthetic libraries of the given sizes (the generator of bench_library.py), each size
in a fresh process; plus, for comparison, rebuilding the search index from scratch.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import pct  # noqa: E402


def bench_reward(episodes: int, k: int, curator: str) -> dict:
    from kbgym.env.env import KBGymEnv, default_universe
    from kbgym.plugins import make_agent
    from kbgym.runs.episode import run_episode

    u = default_universe()
    env = KBGymEnv(u, config={"reward": "curation", "reward_k": k})
    cur = env.reward_fn
    spent = [0.0, 0.0]  # wall, CPU (the CPU figure is robust to other jobs on the machine)
    for name in ("before", "after"):
        fn = getattr(cur, name)

        def timed(*a, _fn=fn):
            t, c = time.perf_counter(), time.process_time()
            try:
                return _fn(*a)
            finally:
                spent[0] += time.perf_counter() - t
                spent[1] += time.process_time() - c
        setattr(cur, name, timed)
    agent = make_agent(curator)
    train = env.split_qids("train")
    per_ep, cpu_ep, exams, totals, in_reader = [], [], [], [], []
    reader_t = [0.0]
    for i in range(episodes):
        if i == 1:  # the reader exists now: time its act() apart from the env's work
            act = cur._reader.act

            def timed_act(*a, _act=act):
                t = time.perf_counter()
                try:
                    return _act(*a)
                finally:
                    reader_t[0] += time.perf_counter() - t
            cur._reader.act = timed_act
        spent[0] = spent[1] = reader_t[0] = 0.0
        e0 = cur.exams
        t = time.perf_counter()
        run_episode(env, agent, train[i % len(train)])
        totals.append(time.perf_counter() - t)
        per_ep.append(spent[0])
        cpu_ep.append(spent[1])
        exams.append(cur.exams - e0)
        in_reader.append(reader_t[0])
    warm = per_ep[1:]  # the first episode examines every pool question twice
    return {"curator": curator, "k": k, "episodes": episodes,
            "reward_ms_p50": round(1000 * statistics.median(warm), 2),
            "reward_ms_p95": round(1000 * pct(warm, 0.95), 2),
            "reward_cpu_ms_p50": round(1000 * statistics.median(cpu_ep[1:]), 2),
            "of_which_reader_act_ms_p50": round(1000 * statistics.median(in_reader[1:]), 2),
            "first_episode_ms": round(1000 * per_ep[0], 2),
            "exams_per_episode_p50": statistics.median(exams[1:]),
            "episode_ms_p50_total": round(1000 * statistics.median(totals[1:]), 2),
            "nodes": len(env.library)}


def time_fork(lib, reps: int) -> dict:
    from kbgym.library.search import BM25Index

    ts, cs = [], []
    for _ in range(reps):
        t, c = time.perf_counter(), time.process_time()
        lib.fork()
        ts.append(time.perf_counter() - t)
        cs.append(time.process_time() - c)
    t = time.perf_counter()
    lib.copy(search=BM25Index())
    rebuild = time.perf_counter() - t
    return {"nodes": len(lib), "links": lib.n_links, "fork_ms_p50": round(1000 * statistics.median(ts), 2),
            "fork_ms_min": round(1000 * min(ts), 2),
            "fork_cpu_ms_p50": round(1000 * statistics.median(cs), 2),
            "copy_with_index_rebuild_ms": round(1000 * rebuild, 1)}


def fork_child(size: int) -> dict:
    import random

    sys.path.insert(0, str(Path(__file__).parent))
    from bench_library import synthetic

    from kbgym.library import BM25Index, Library

    texts, _ = synthetic(size, random.Random(12345))
    lib = Library.from_texts([(f"s{i:04d}", t) for i, t in enumerate(texts, 1)],
                             search=BM25Index())
    rng = random.Random(7)
    ids = lib.ids()
    for j in range(max(10, size // 50)):  # some index notes with links, as after training
        nid = lib.add(f"Index note {j}: {texts[rng.randrange(len(texts))]}").id
        lib.link_many(nid, rng.sample(ids, 8))
    return time_fork(lib, 15 if size <= 100_000 else 5)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=60)
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--fork-sizes", default="6000,1000000")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(fork_child(args.child)))
        return
    for curator in ("scripted-index", "scripted-noop"):
        print(json.dumps({"reward": bench_reward(args.episodes, args.k, curator)}))
    from kbgym.env.env import KBGymEnv, default_universe
    from kbgym.plugins import make_agent
    from kbgym.runs.episode import run_episode

    env = KBGymEnv(default_universe())
    agent = make_agent("scripted-index")
    for qid in env.split_qids("train"):
        run_episode(env, agent, qid)
    print(json.dumps({"fork_trained_default": time_fork(env.library, 25)}))
    for size in [int(s) for s in args.fork_sizes.split(",") if s]:
        out = subprocess.run([sys.executable, __file__, "--child", str(size)],
                             capture_output=True, text=True, check=True)
        print(json.dumps({"fork_synthetic": json.loads(out.stdout)}))


if __name__ == "__main__":
    main()
