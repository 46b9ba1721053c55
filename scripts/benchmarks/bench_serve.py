"""``kbgym serve`` under a bounded hostile client mix on loopback: sessions that crash, and
the server's memory over many sessions.

    python scripts/benchmarks/bench_serve.py [--sessions 1000] [--concurrency 4]
        [--hostile 0.3] [--universe u.json] [--seed 0]

Starts ``kbgym serve`` on 127.0.0.1 (a free port) and opens ``--sessions`` WebSocket sessions,
``--concurrency`` at a time. A well-behaved session resets (train or probe, on an open
question, from B1 or the server's named library), takes a few steps and closes; it counts as
crashed when any reply is an error frame or the connection drops. A hostile session (share
``--hostile``) does one of: binary frames, JSON that is not an object, an oversized frame,
invalid JSON, JSON nested too deeply, a train reset on a test question, an unknown message
type, a disconnect in the middle of an episode - then checks that the session still answers a
normal step (except after the disconnect). Every traffic goes to 127.0.0.1, the loops are
bounded by count and by ``--deadline`` seconds, and the server is stopped at the end.

Printed: sessions run per kind, crashed well-behaved sessions, hostile sessions whose
session died, the server's RSS (MB) every 10 % of the sessions, and the RSS growth between
the first and the last tenth (median of each tenth's samples).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def request(ws, message) -> dict:
    await ws.send(message if isinstance(message, (str, bytes)) else json.dumps(message))
    return json.loads(await asyncio.wait_for(ws.recv(), 60))


def step(action: str, **args) -> dict:
    return {"type": "step", "data": {"action": action, "args": args}}


async def good_session(url: str, rng: random.Random, train: list[str], test: list[str]) -> bool:
    from websockets.asyncio.client import connect

    mode = rng.choice(("train", "probe"))
    qid = rng.choice(train if mode == "train" else test)
    lib = rng.choice(("B1", "marked", None))
    data = {"qid": qid, "mode": mode, **({"library": lib} if lib else {})}
    try:
        async with connect(url, max_size=None) as ws:
            replies = [await request(ws, {"type": "reset", "data": data})]
            replies.append(await request(ws, step("search", query="job hobby")))
            replies.append(await request(ws, step("answer", text="nobody")))
            if mode == "train":
                replies.append(await request(ws, step("add", text="A note for the test.")))
                replies.append(await request(ws, step("done")))
            replies.append(await request(ws, {"type": "state"}))
            await ws.send(json.dumps({"type": "close"}))
        return all(r["type"] != "error" for r in replies)
    except Exception:
        return False


HOSTILE = ("binary", "array", "number", "oversized", "invalid_json", "deep", "test_qid",
           "unknown_type", "drop_mid_episode")


async def hostile_session(url: str, rng: random.Random, train: list[str], test: list[str]
                          ) -> tuple[str, bool]:
    """(kind, survived): the session still answers a normal step after the attack."""
    from websockets.asyncio.client import connect

    kind = rng.choice(HOSTILE)
    try:
        async with connect(url, max_size=None) as ws:
            await request(ws, {"type": "reset", "data": {"qid": rng.choice(train)}})
            if kind == "binary":
                await request(ws, bytes(rng.randrange(256) for _ in range(64)))
            elif kind == "array":
                await request(ws, "[1, 2, 3]")
            elif kind == "number":
                await request(ws, "42")
            elif kind == "oversized":
                await request(ws, "x" * (2 << 20))
            elif kind == "invalid_json":
                await request(ws, "{not json")
            elif kind == "deep":  # an object nested past pydantic's or Python's depth limit
                depth = rng.choice((300, 5000))
                await request(ws, '{"type": "step", "data": {"action": "search", "args": {}}, '
                                  '"x": ' + "[" * depth + "]" * depth + "}")
            elif kind == "test_qid":
                r = await request(ws, {"type": "reset", "data": {"qid": rng.choice(test)}})
                if "gold" in json.dumps(r):
                    return kind, False
                await request(ws, {"type": "reset", "data": {"qid": rng.choice(train)}})
            elif kind == "unknown_type":
                await request(ws, {"type": "teleport", "data": {}})
            elif kind == "drop_mid_episode":
                await ws.send(json.dumps(step("search", query="job")))
                return kind, True  # the socket closes under the server's feet
            r = await request(ws, step("search", query="job"))
            return kind, r["type"] == "observation"
    except Exception:
        return kind, False


async def run(args, url: str, pid: int, train: list[str], test: list[str]) -> dict:
    rng = random.Random(args.seed)
    plan = ["hostile" if rng.random() < args.hostile else "good" for _ in range(args.sessions)]
    samples: list[tuple[int, float]] = [(0, rss_mb(pid))]
    done, crashed, died, kinds = 0, 0, 0, {}
    sem = asyncio.Semaphore(args.concurrency)
    deadline = time.monotonic() + args.deadline

    async def one(i: int, what: str) -> None:
        nonlocal done, crashed, died
        async with sem:
            if time.monotonic() > deadline:
                return
            srng = random.Random(args.seed * 1_000_003 + i)
            if what == "good":
                ok = await good_session(url, srng, train, test)
                crashed += not ok
                kinds["good"] = kinds.get("good", 0) + 1
            else:
                kind, ok = await hostile_session(url, srng, train, test)
                died += not ok
                kinds[kind] = kinds.get(kind, 0) + 1
            done += 1
            if done % max(1, args.sessions // 50) == 0:
                samples.append((done, rss_mb(pid)))

    await asyncio.gather(*(one(i, w) for i, w in enumerate(plan)))
    samples.append((done, rss_mb(pid)))
    return {"done": done, "crashed_good": crashed, "hostile_died": died, "kinds": kinds,
            "samples": samples}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--hostile", type=float, default=0.3)
    ap.add_argument("--universe", default=None, help="universe.json (default: the default one)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--deadline", type=float, default=1800.0, help="stop after this many s")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from kbgym.env.env import KBGymEnv, load_universe

    tmp = Path(tempfile.mkdtemp(prefix="bench_serve_"))
    u, _ = load_universe(args.universe)
    upath = tmp / "universe.json"
    upath.write_text(json.dumps(u.to_json()), encoding="utf-8")
    env = KBGymEnv(u)
    env.library.add("Marker note about a quokka named Blossom.")
    env.snapshot(tmp / "marked.json")
    del env
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kbgym.cli", "serve", "--port", str(port),
                             "--universe", str(upath), "--max-sessions", "16",
                             "--library", f"marked={tmp / 'marked.json'}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if proc.poll() is not None:
                    sys.exit("the server did not start")
                time.sleep(0.2)
        t = time.perf_counter()
        res = asyncio.run(run(args, f"ws://127.0.0.1:{port}/ws", proc.pid,
                              list(u.splits["train"]), list(u.splits["test_in"])))
        wall = time.perf_counter() - t
        alive = proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    s = res["samples"]
    tenth = max(1, len(s) // 10)
    first = statistics.median(r for _, r in s[1:1 + tenth]) if len(s) > 1 else s[0][1]
    last = statistics.median(r for _, r in s[-tenth:])
    print(f"sessions: {res['done']} in {wall:.1f}s ({', '.join(f'{k} {v}' for k, v in sorted(res['kinds'].items()))})")
    print(f"crashed well-behaved sessions: {res['crashed_good']}")
    print(f"hostile sessions whose session died: {res['hostile_died']}")
    print(f"server alive at the end: {alive}")
    marks = [s[min(len(s) - 1, round(i * (len(s) - 1) / 10))] for i in range(11)]
    print("server RSS (MB) by sessions done: " + ", ".join(f"{n}: {r:.0f}" for n, r in marks))
    print(f"RSS first tenth (median) {first:.0f} MB, last tenth {last:.0f} MB, growth "
          f"{last - first:+.0f} MB ({(last - first) / max(first, 1e-9) * 100:+.1f} %)")


if __name__ == "__main__":
    main()
