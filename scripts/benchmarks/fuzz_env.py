"""Fuzz env.step with ≥ 10^5 random and hostile actions, then time steps on a big library.

    python scripts/benchmarks/fuzz_env.py [--actions 100000] [--seed 0] [--adds 10000] [--hub 10000]

Part 1 (fuzz): train and probe episodes on the default universe, driven by a seeded stream of
valid actions with random arguments, random JSON, and hostile objects (a raising __repr__ or
__getattr__, nesting 1,000 deep, a 10^6-character string, lone surrogates, NaN/Infinity,
control/bidi/zero-width text, bytes, huge ints). Counts exceptions escaping env.step,
observations outside observation_space, steps_left < 0, non-strict-JSON info, and the largest
observation against ``env.max_obs_chars()``.

Part 2 (latency): one backward phase that adds 10^4 notes and links one note to 10^4 targets
(250 link_many calls), then times a mixed stream (search, read of the hub and of other notes,
add, link, edit, hostile inputs) and prints p50/p99 in milliseconds, by wall clock and by the
thread's CPU time (on a shared machine the wall clock also counts time spent waiting for a CPU;
the load average is printed with it).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path

from kbgym.env import KBGymConfig, KBGymEnv
from kbgym.worlds.people import generate

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import pct  # noqa: E402


class RaisingRepr:
    def __repr__(self):
        raise RuntimeError("repr refused")


class RaisingAttr:
    def __getattr__(self, name):
        raise RuntimeError(name)


def deep(n: int) -> dict:
    obj: dict = {"action": "answer", "text": "x"}
    for _ in range(n):
        obj = {"action": "search", "query": "x", "nested": obj}
    return obj


BIG = "x" * 10**6
HOSTILE = [
    RaisingRepr(), RaisingAttr(), {"action": "answer", "text": RaisingRepr()}, deep(1_000),
    "[" * 50_000 + "]" * 50_000, {"action": "answer", "text": BIG}, {"action": "read", "id": BIG},
    {"action": "answer", "text": "\ud800"}, '{"action": "add", "text": "\\udfff"}',
    {"action": "search", "query": "x", "page": float("nan")}, {"name": "answer",
                                                               "arguments": '{"text": NaN}'},
    {"action": "search", "query": "x", "page": float("inf")}, {"action": "fly", "v": -math.inf},
    {"action": "add", "text": "bidi \u202e override"}, {"action": "add", "text": "zero\u200bw"},
    {"action": "add", "text": "ansi \x1b[31m red"}, {"action": "answer", "text": "a\u2028b"},
    b"\xff\xfe", None, 10**400, [[[[]]]], object(), {"action": ["search"]},
    {"function": {"name": "search", "arguments": "{" * 5000}},
]
NAMES = ["search", "read", "answer", "add", "edit", "delete", "link", "link_many", "unlink",
         "done", "locate", "fly"]
WORDS = ["job", "city", "friend", "married", "hobby", "Residents", "of", "the", "is", "a", ""]


def random_action(rng: random.Random, next_id: int):
    r = rng.random()
    if r < 0.06:
        return rng.choice(HOSTILE)
    nid = lambda: f"s{rng.randint(0, next_id + 3):04d}"  # noqa: E731
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 8)))
    name = rng.choice(NAMES)
    args = {"search": {"query": text, "page": rng.choice([1, 1, 2, 0, 13, "2", 2.5, True])},
            "read": {"id": nid()}, "answer": {"text": text},
            "add": {"text": text.capitalize() + "."}, "edit": {"id": nid(), "text": text + "."},
            "delete": {"id": nid()}, "link": {"source": nid(), "target": nid()},
            "link_many": {"source": nid(), "targets": [nid() for _ in range(rng.randint(0, 45))]},
            "unlink": {"source": nid(), "target": nid()}, "done": {}, "locate": {"terms": text},
            "fly": {"x": 1}}[name]
    if rng.random() < 0.05:  # a missing or mistyped field
        args = {k: rng.choice([None, 1, [1], {"a": 1}]) for k in args}
    shape = rng.random()
    if shape < 0.6:
        return {"action": name, **args}
    if shape < 0.8:
        return json.dumps({"name": name, "arguments": json.dumps(args)})
    return {"type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def fuzz(universe, n_actions: int, seed: int) -> dict:
    rng = random.Random(seed)
    escaped: dict[str, int] = {}
    outside = negative = not_json = 0
    largest = 0
    bound = 0
    done = 0
    for mode in ("train", "probe"):
        env = KBGymEnv(universe, mode=mode)
        bound = max(bound, env.max_obs_chars())
        space = env.observation_space
        env.reset(seed=seed)
        for _ in range(n_actions // 2):
            action = random_action(rng, env.library.next_id)
            try:
                obs, _, term, trunc, info = env.step(action)
            except Exception as err:  # what must never happen
                escaped[type(err).__name__] = escaped.get(type(err).__name__, 0) + 1
                env.reset()
                continue
            done += 1
            outside += not space.contains(obs)
            negative += obs["steps_left"] < 0
            largest = max(largest, len(obs["text"]))
            if len(obs["text"]) > env.max_obs_chars():
                outside += 1
            try:
                json.dumps(info, allow_nan=False)
                obs["text"].encode("utf-8")
            except (ValueError, TypeError, UnicodeEncodeError):
                not_json += 1
            if term or trunc:
                env.reset()
    return {"actions": done + sum(escaped.values()), "escaped": escaped, "outside": outside,
            "negative_steps_left": negative, "info_not_strict_json": not_json,
            "largest_obs": largest, "bound": bound}


def latency(universe, adds: int, hub_links: int, samples: int, seed: int) -> dict:
    rng = random.Random(seed)
    env = KBGymEnv(universe, mode="train", config=KBGymConfig(n1=10, n2=10**6))
    env.reset(seed=seed)
    env.step({"action": "answer", "text": "x"})  # into the backward phase
    t0 = time.perf_counter()
    added = []
    for i in range(adds):
        info = env.step({"action": "add", "text": f"Index note number {i} about "
                                                  f"{rng.choice(WORDS[:6])}."})[4]
        added.append(info["result"].split()[-1])
    hub = added[0]
    targets = [n.id for n in env.library.nodes() if n.id != hub][:hub_links]
    for i in range(0, len(targets), 40):
        env.step({"action": "link_many", "source": hub, "targets": targets[i:i + 40]})
    build = time.perf_counter() - t0
    n_links = len(env.library[hub].links)
    ids = [n.id for n in env.library.nodes()]
    times: dict[str, list[float]] = {}
    cpu: list[float] = []  # CPU time of this thread: without the waits of a shared machine
    largest = 0
    for i in range(samples):
        kind = rng.choice(["search", "read_hub", "read", "add", "link", "edit", "hostile"])
        action = {
            "search": lambda: {"action": "search", "query": f"index note {rng.choice(WORDS)}",
                               "page": rng.randint(1, 12)},
            "read_hub": lambda: {"action": "read", "id": hub,
                                 "links_page": rng.randint(1, -(-n_links // 100))},
            "read": lambda: {"action": "read", "id": rng.choice(ids)},
            "add": lambda: {"action": "add", "text": f"Extra note {i}."},
            "link": lambda: {"action": "link", "source": rng.choice(added),
                             "target": rng.choice(ids)},
            "edit": lambda: {"action": "edit", "id": rng.choice(added),
                             "text": f"Edited note {i}."},
            "hostile": lambda: rng.choice(HOSTILE),
        }[kind]()
        t, c = time.perf_counter(), time.thread_time()
        obs, *_ = env.step(action)
        times.setdefault(kind, []).append((time.perf_counter() - t) * 1000)
        cpu.append((time.thread_time() - c) * 1000)
        largest = max(largest, len(obs["text"]))
    every = [x for xs in times.values() for x in xs]
    return {"notes": len(env.library), "hub_links": n_links, "build_s": build,
            "p50_ms": statistics.median(every), "p99_ms": pct(every, 0.99),
            "cpu_p50_ms": statistics.median(cpu), "cpu_p99_ms": pct(cpu, 0.99),
            "by_kind": {k: (statistics.median(v), pct(v, 0.99)) for k, v in sorted(times.items())},
            "largest_obs": largest, "bound": env.max_obs_chars()}


def worst_observation(universe) -> dict:
    """The largest observation an agent can make on purpose: 100 notes of 1,000 characters
    linked from one hub, then the hub read (a full links page) until memory holds only that."""
    env = KBGymEnv(universe, mode="train", config=KBGymConfig(n1=1, n2=1000))
    env.reset(seed=0)
    env.step({"action": "answer", "text": "y" * 5000})
    long = [env.step({"action": "add", "text": f"Note {i} " + "z" * 990})[4]["result"].split()[-1]
            for i in range(101)]
    hub, members = long[0], long[1:]
    for i in range(0, 100, 40):
        env.step({"action": "link_many", "source": hub, "targets": members[i:i + 40]})
    largest = 0
    for _ in range(env.config.memory_k + 5):
        obs, *_ = env.step({"action": "read", "id": hub})
        largest = max(largest, len(obs["text"]))
    return {"largest_obs": largest, "bound": env.max_obs_chars(),
            "in_space": env.observation_space.contains(obs)}




def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--actions", type=int, default=100_000, help="fuzzed actions (train+probe)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--adds", type=int, default=10_000, help="notes added before timing")
    ap.add_argument("--hub", type=int, default=10_000, help="links of the heavily linked note")
    ap.add_argument("--samples", type=int, default=5_000, help="timed steps")
    args = ap.parse_args()
    u = generate()
    t = time.perf_counter()
    f = fuzz(u, args.actions, args.seed)
    print(f"fuzz: {f['actions']} actions (train + probe) in {time.perf_counter() - t:.1f}s")
    print(f"  exceptions escaping env.step: {sum(f['escaped'].values())} {f['escaped'] or ''}")
    print(f"  observations outside the space or bound: {f['outside']}")
    print(f"  steps_left < 0: {f['negative_steps_left']}; info not strict JSON: "
          f"{f['info_not_strict_json']}")
    print(f"  largest obs['text']: {f['largest_obs']:,} chars; documented bound "
          f"env.max_obs_chars() = {f['bound']:,} ({f['largest_obs'] / f['bound']:.3f} of it)")
    w = worst_observation(u)
    print(f"worst case on purpose (memory full of 100-link reads of 1,000-character notes): "
          f"{w['largest_obs']:,} chars, bound {w['bound']:,} "
          f"({w['largest_obs'] / w['bound']:.3f} of it), in the space: {w['in_space']}")
    lat = latency(u, args.adds, args.hub, args.samples, args.seed)
    print(f"latency: {lat['notes']:,} notes after {args.adds:,} adds, a note with "
          f"{lat['hub_links']:,} links (built in {lat['build_s']:.1f}s), {args.samples:,} steps")
    print(f"  all steps, wall clock: p50 {lat['p50_ms']:.3f} ms, p99 {lat['p99_ms']:.3f} ms")
    print(f"  all steps, CPU time:   p50 {lat['cpu_p50_ms']:.3f} ms, p99 "
          f"{lat['cpu_p99_ms']:.3f} ms  (load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs)")
    for kind, (p50, p99) in lat["by_kind"].items():
        print(f"  {kind:9s} wall p50 {p50:.3f} ms  p99 {p99:.3f} ms")
    print(f"  largest obs['text']: {lat['largest_obs']:,} chars (bound {lat['bound']:,})")


if __name__ == "__main__":
    main()
