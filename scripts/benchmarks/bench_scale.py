"""Libraries at RL speed and scale (issue 21): one table of measure | now | goal | met?.

    python scripts/benchmarks/bench_scale.py [--quick] [--people 100000] [--against ebd7c1a]
                                             [--rounds 3] [--skip large,churn,steps,demo]

Rows, each case in its own fresh process (peak RSS belongs to it):

- large (``--people``, default 10^5: about 1.17 M notes): library and BM25 index build;
  ``Library.fork()`` p50 over 50 forks and the cost of a fork's first edit; BM25 query p50
  (uncached: the ranking cache is cleared before each query) over names + keywords, cities and
  jobs, with the postings each touches; snapshot round trip in both formats and their content
  hashes; 10 probe envs made and dropped over the one library (RSS after each); 2,000 env
  steps on it without any GC freeze (the worst step's CPU time, full collections inside steps);
- churn: 100 envs made and dropped on the default universe (about 5.9k notes), RSS after each;
- steps: env.step p50 per action at 5.9k notes (CPU time), this checkout against
  ``--against`` (a ``git worktree`` of that commit), interleaved over ``--rounds`` child
  processes each;
- demo: peak RSS of ``kbgym demo`` (its child process).

``--quick`` runs every case at tiny sizes (a smoke test of the script, as the test suite does).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import checkout, child, interleave, table  # noqa: E402

LARGE = r"""
import gc, json, os, sys, tempfile, time
from harness import pct, peak_rss_mb, rss_mb
from kbgym.env import KBGymConfig, KBGymEnv
from kbgym.library import BM25Index, Library, tokenize
from kbgym.library.snapshot import load_snapshot, write_snapshot
from kbgym.worlds.people import UniverseConfig, generate
import random

n_people, n_queries = int(sys.argv[1]), int(sys.argv[2])
out = {}
t = time.perf_counter()
u = generate(UniverseConfig(n_people=n_people, sizes=(50, 10, 10), eval_sizes=(2, 2)))
out["generate_s"] = time.perf_counter() - t
c = time.process_time()
lib = Library.from_universe(u)
out["library_cpu_s"] = time.process_time() - c
c = time.process_time()
lib.attach_search(BM25Index())
out["index_cpu_s"] = time.process_time() - c
out["notes"] = len(lib)
gc.collect()
# forks: p50 of fork(), and of a fork's first edits (an add and a link: copy-on-write)
fork_ms, first_ms = [], []
cur = lib
for i in range(50):
    c = time.perf_counter()
    f = cur.fork()
    fork_ms.append(1e3 * (time.perf_counter() - c))
    c = time.perf_counter()
    nid = f.add(f"Index of fork {i}.").id
    f.link(nid, "s0001")
    first_ms.append(1e3 * (time.perf_counter() - c))
    cur = f if i % 2 else lib  # forks of forks too
out["fork_p50_ms"], out["fork_max_ms"] = pct(fork_ms, 0.5), max(fork_ms)
out["fork_first_edit_p50_ms"] = pct(first_ms, 0.5)
del f, cur
# queries: uncached BM25 over realistic streams
rng = random.Random(0)
names = [p.name for p in u.people]
kw = ["job", "friend", "hobby", "city", "married", "born", "father", "mother", "lives"]
qs = []
for _ in range(n_queries):
    r = rng.random()
    if r < 0.6:
        qs.append(f"{rng.choice(names)} {rng.choice(kw)}")
    elif r < 0.8:
        qs.append(f"Residents of {rng.choice(u.vocab['cities'])}")
    else:
        qs.append(f"people whose job is {rng.choice(u.vocab['jobs'])}")
ix = lib.search_backend
qus, touched = [], []
for q in qs:
    ix.clear_cache()
    c = time.perf_counter_ns()
    lib.search(q, 10)
    qus.append((time.perf_counter_ns() - c) / 1e3)
    touched.append(sum(ix._df[ix._vocab[t]] for t in set(tokenize(q)) if t in ix._vocab))
out["query_p50_us"], out["query_p95_us"] = pct(qus, 0.5), pct(qus, 0.95)
out["postings_in_query_terms_p50"] = pct(touched, 0.5)
# snapshots: both formats, round trip
with tempfile.TemporaryDirectory() as tmp:
    for fmt in ("binary", "json"):
        path = os.path.join(tmp, "kb." + ("kbgs" if fmt == "binary" else "json"))
        lib._content_hash = None  # (computed afresh by each write)
        try:
            c, cc = time.perf_counter(), time.process_time()
            h = write_snapshot(path, lib, "bench", {"path": None, "hash": u.hash}, format=fmt)
            w, wc = time.perf_counter() - c, time.process_time() - cc
        except TypeError:  # a checkout without formats
            continue
        c, cc = time.perf_counter(), time.process_time()
        back, _ = load_snapshot(path, search=BM25Index()) if fmt == "json" else load_snapshot(path)
        r, rc = time.perf_counter() - c, time.process_time() - cc
        from kbgym.library.snapshot import snapshot_hash

        out[fmt] = {"write_s": w, "read_s": r, "write_cpu_s": wc, "read_cpu_s": rc,
                    "mb": os.path.getsize(path) / 1e6,
                    # (binary writes return the library's digest: compare content hashes,
                    # the loaded library's computed after the timing)
                    "hash": snapshot_hash(back) if fmt == "binary" else h,
                    "index_loaded": back.search_backend is not None}
        del back
        gc.collect()
# probe envs made and dropped over the one library
gc.collect()
rss = [rss_mb()]
for i in range(10):
    env = KBGymEnv(u, mode="probe", library=lib)
    env.reset(seed=i)
    env.step({"action": "search", "query": qs[i]})
    del env
    gc.collect()
    rss.append(rss_mb())
out["probe_rss_mb"] = rss
# steps on the big library, no freeze anywhere
pauses, t_gc, in_step = [], [0.0], [False]
def on_gc(phase, info):
    if phase == "start":
        t_gc[0] = time.process_time()
    elif info["generation"] == 2 and in_step[0]:
        pauses.append(time.process_time() - t_gc[0])
gc.callbacks.append(on_gc)
env = KBGymEnv(u, library=lib, config=KBGymConfig(n1=10**6, n2=10**6))
env.reset(seed=0)
cpu = []
def step(a):
    in_step[0] = True
    c = time.process_time()
    r = env.step(a)
    cpu.append(time.process_time() - c)
    in_step[0] = False
    return r
ids = [n.id for n in u.nodes]
for i in range(500):
    step({"action": "search", "query": qs[i % len(qs)]})
    step({"action": "read", "id": rng.choice(ids)})
step({"action": "answer", "text": "x"})
for i in range(500):
    nid = step({"action": "add", "text": f"People whose job is {rng.choice(u.vocab['jobs'])} {i}."})[4]["result"].split()[-1]
    step({"action": "link", "source": nid, "target": rng.choice(ids)})
out["steps"] = len(cpu)
out["step_cpu_max_ms"] = 1e3 * max(cpu)
out["step_cpu_p99_ms"] = 1e3 * pct(cpu, 0.99)
out["gc2_in_steps"] = len(pauses)
out["gc2_in_steps_max_s"] = max(pauses, default=0.0)
out["peak_rss_mb"] = peak_rss_mb()
print(json.dumps(out))
"""

CHURN = r"""
import gc, json, sys
from harness import rss_mb
from kbgym.env import KBGymEnv
from kbgym.env.env import default_universe
n = int(sys.argv[1])
u = default_universe()
rss = []
for i in range(n):
    env = KBGymEnv(u)
    env.reset(seed=i)
    env.step({"action": "search", "query": "Felix job"})
    del env
    gc.collect()
    rss.append(rss_mb())
print(json.dumps({"notes": len(u.nodes), "rss_mb": rss}))
"""

# Runs on any checkout since the first landing: only the public env API.
STEPS = r"""
import json, random, statistics, sys, time
from kbgym.env import KBGymConfig, KBGymEnv
from kbgym.worlds.people import UniverseConfig, generate
n_steps = int(sys.argv[1])
u = generate(UniverseConfig(n_people=500, sizes=(50, 10, 10), eval_sizes=(2, 2)))
env = KBGymEnv(u, config=KBGymConfig(n1=10**6, n2=10**6))
rng = random.Random(1)
names = [p.name for p in u.people]
ids = [n.id for n in u.nodes]
t = {k: [] for k in ("search", "read", "add", "link")}
def timed(kind, a):  # CPU time: robust to other processes on a shared machine
    c = time.process_time_ns()
    r = env.step(a)
    t[kind].append((time.process_time_ns() - c) / 1e3)
    return r
env.reset(seed=0)
for _ in range(n_steps):
    timed("search", {"action": "search", "query": rng.choice(names) + " " + rng.choice(["job", "friend", "city"])})
    timed("read", {"action": "read", "id": rng.choice(ids)})
env.step({"action": "answer", "text": "x"})
for i in range(n_steps):
    nid = timed("add", {"action": "add", "text": f"People whose job is {i} number {i}."})[4]["result"].split()[-1]
    timed("link", {"action": "link", "source": nid, "target": rng.choice(ids)})
print(json.dumps({k: statistics.median(v) for k, v in t.items()}))
"""

DEMO = r"""
import json, resource, subprocess, sys, tempfile
with tempfile.TemporaryDirectory() as tmp:
    args = [sys.executable, "-m", "kbgym.cli", "demo", "--out", tmp, "--quiet"] + sys.argv[1:]
    subprocess.run(args, check=True)
print(json.dumps({"peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def flat(rss: list[float], skip: int) -> float:
    """RSS growth (MB) from the ``skip``-th measurement to the last: what churn keeps."""
    return rss[-1] - rss[min(skip, len(rss) - 1)]


def main(argv: list[str] | None = None) -> list[tuple]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes: check the script runs")
    ap.add_argument("--people", type=int, default=100_000,
                    help="people of the large case (default 10^5: about 1.17 M notes)")
    ap.add_argument("--against", default="ebd7c1a",
                    help="commit the step latencies are compared with (default ebd7c1a)")
    ap.add_argument("--rounds", type=int, default=3, help="A/B rounds for the step latencies")
    ap.add_argument("--skip", default="", help="comma-separated cases to leave out")
    args = ap.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    q = args.quick
    rows: list[tuple] = []
    t0 = time.perf_counter()

    def row(measure: str, now: str, goal: str, met: bool | None) -> None:
        rows.append((measure, now, goal, "—" if met is None else ("yes" if met else "no")))
        print(f"  {measure}: {now} (goal {goal})", file=sys.stderr, flush=True)

    if "large" not in skip:
        people = 300 if q else args.people
        m = child(LARGE, people, 50 if q else 1000)
        n = f"{m['notes'] / 1e6:.2f}M" if m["notes"] >= 10**6 else f"{m['notes']:,}"
        row(f"library fork at {n} notes (p50 / max)",
            f"{m['fork_p50_ms']:.3f} / {m['fork_max_ms']:.2f} ms; first add + link in a fork "
            f"p50 {m['fork_first_edit_p50_ms']:.2f} ms", "< 10 ms, O(changes)",
            m["fork_p50_ms"] < 10)
        pr = m["probe_rss_mb"]
        row(f"10 probe envs made and dropped over the {n} library",
            f"RSS {pr[0]:.0f} → {pr[-1]:.0f} MB ({flat(pr, 1):+.1f} MB after the first)", "flat",
            flat(pr, 1) < 0.02 * pr[0] + 20)
        for fmt in ("binary", "json"):
            s = m.get(fmt)
            if s:
                rt = s["write_cpu_s"] + s["read_cpu_s"]
                row(f"snapshot at {n} notes, {fmt}",
                    f"{s['mb']:.0f} MB; write {s['write_cpu_s']:.2f} s CPU "
                    f"({s['write_s']:.1f} s wall), read {s['read_cpu_s']:.2f} s CPU "
                    f"({s['read_s']:.1f} s wall): round trip {rt:.2f} s CPU; index "
                    f"{'loaded' if s['index_loaded'] and fmt == 'binary' else 'rebuilt'}",
                    "round trip < 2 s, index loaded" if fmt == "binary" else "readable form",
                    rt < 2 if fmt == "binary" else None)
        if m.get("binary") and m.get("json"):
            row("content hash, binary = JSON", str(m["binary"]["hash"] == m["json"]["hash"]),
                "equal", m["binary"]["hash"] == m["json"]["hash"])
        row(f"BM25 index build at {n} notes", f"{m['index_cpu_s']:.1f} s CPU",
            "faster than tantivy (7.6 s)", m["index_cpu_s"] < 7.6)
        row(f"BM25 query at {n} notes (uncached; p50 / p95)",
            f"{m['query_p50_us']:.0f} / {m['query_p95_us']:.0f} µs; postings of its terms "
            f"p50 {m['postings_in_query_terms_p50']:,}", "≤ 150 µs p50",
            m["query_p50_us"] <= 150)
        row(f"env.step at {n} notes, no GC freeze ({m['steps']} steps)",
            f"worst {m['step_cpu_max_ms']:.1f} ms CPU, p99 {m['step_cpu_p99_ms']:.2f} ms; "
            f"{m['gc2_in_steps']} full collections inside a step", "no GC stall in steps",
            m["gc2_in_steps"] == 0)
        row(f"large case peak RSS ({n} notes, generation {m['generate_s']:.0f} s)",
            f"{m['peak_rss_mb']:.0f} MB", "—", None)
    if "churn" not in skip:
        m = child(CHURN, 12 if q else 100)
        r = m["rss_mb"]
        row(f"{len(r)} envs made and dropped at {m['notes']:,} notes",
            f"RSS {r[0]:.0f} → {r[-1]:.0f} MB ({flat(r, 9):+.1f} MB after the 10th)", "flat",
            flat(r, 9) < 5)
    if "steps" not in skip:
        n_steps = "100" if q else "1500"
        with checkout(args.against) as old:
            res = interleave({"now": lambda: child(STEPS, n_steps),
                              args.against: lambda: child(STEPS, n_steps, root=old)},
                             1 if q else args.rounds)
        now = {k: statistics.median(r[k] for r in res["now"]) for k in res["now"][0]}
        was = {k: statistics.median(r[k] for r in res[args.against]) for k in now}
        row(f"env.step p50 at 5.9k notes, {'/'.join(now)} (µs CPU)",
            " / ".join(f"{now[k]:.0f}" for k in now) + f"; {args.against}: "
            + " / ".join(f"{was[k]:.0f}" for k in now)
            + " (ratios " + " / ".join(f"{now[k] / was[k]:.2f}" for k in now) + ")",
            f"≤ {args.against} (interleaved, {len(res['now'])} rounds)",
            all(now[k] <= was[k] * 1.02 for k in now))
    if "demo" not in skip:
        m = child(DEMO, *(["--train-size", "10", "--per-group", "3", "--epochs", "1",
                           "--no-plots"] if q else []))
        row("demo peak memory (kbgym demo)", f"{m['peak_rss_mb']:.0f} MB", "≤ 120 MB",
            m["peak_rss_mb"] <= 120)
    print(table(rows))
    print(f"(load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the end; "
          f"{time.perf_counter() - t0:.0f} s in all)")
    return rows


if __name__ == "__main__":
    main()
