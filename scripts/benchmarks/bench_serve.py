"""``kbgym serve`` under a bounded hostile client mix on loopback: sessions that crash, and
the server's memory over many sessions.

    python scripts/benchmarks/bench_serve.py [--sessions 1000] [--concurrency 4]
        [--hostile 0.3] [--universe u.json] [--seed 0] [--waves 1] [--half-open 50]

Issue 38's figure: ``--sessions 200 --waves 5`` (RSS after each wave).

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
           "unknown_type", "drop_mid_episode", "huge_int", "huge_float", "huge_string",
           "invalid_utf8", "probe_repeat")


async def invalid_utf8(url: str) -> bool:
    """A raw text frame that is not UTF-8: the server closes the connection (1007) and logs
    one line; True when it answered with a close frame."""
    import base64
    import os

    host, port = url.split("//")[1].split("/")[0].split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    await reader.readuntil(b"\r\n\r\n")
    payload, mask = b'{"type": "\xff\xfe"}', os.urandom(4)
    writer.write(bytes([0x81, 0x80 | len(payload)]) + mask
                 + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
    reply = await asyncio.wait_for(reader.read(16), 10)
    writer.close()
    return reply[:1] == b"\x88"


async def half_open(url: str, wait_s: float) -> bool:
    """A TCP connection that sends half a request head and nothing more: True when the server
    closes it within ``wait_s`` seconds."""
    host, port = url.split("//")[1].split("/")[0].split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(b"GET /ws HTTP/1.1\r\nHost: x\r\n")
    try:
        return await asyncio.wait_for(reader.read(16), wait_s) == b""
    except asyncio.TimeoutError:
        return False
    finally:
        writer.close()


async def hostile_session(url: str, rng: random.Random, train: list[str], test: list[str]
                          ) -> tuple[str, bool]:
    """(kind, survived): the session still answers a normal step after the attack."""
    from websockets.asyncio.client import connect

    kind = rng.choice(HOSTILE)
    if kind == "invalid_utf8":
        try:
            return kind, await invalid_utf8(url)
        except Exception:
            return kind, False
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
            elif kind == "huge_int":  # past Python's 4,300-digit conversion limit
                await request(ws, '{"type": "step", "data": {"action": "search", "args": '
                                  '{"query": "x", "page": ' + "9" * 5000 + "}}}")
            elif kind == "huge_float":
                await request(ws, '{"type": "step", "data": {"action": "search", "args": '
                                  '{"query": "x", "page": 1e400}}}')
            elif kind == "huge_string":
                await request(ws, step("search", query="x" * 900_000))
            elif kind == "probe_repeat":  # a second probe of one question on one library
                qid = rng.choice(test)
                for _ in range(2):
                    await request(ws, {"type": "reset", "data": {"qid": qid, "mode": "probe"}})
                    r = await request(ws, step("answer", text="nobody"))
                    data = r.get("data", {})
                    obs = data.get("observation", {})
                    info = obs.get("info", {})
                    scored = data.get("reward") is not None or "f1" in info or "em" in info \
                        or "f1" in (info.get("episode_summary") or {})
                    if "submitted" in obs.get("text", "") and scored:
                        return kind, False  # a score reached the client
                await request(ws, {"type": "reset", "data": {"qid": rng.choice(train)}})
            elif kind == "drop_mid_episode":
                await ws.send(json.dumps(step("search", query="job")))
                return kind, True  # the socket closes under the server's feet
            r = await request(ws, step("search", query="job"))
            return kind, r["type"] == "observation"
    except Exception:
        return kind, False


async def run(args, url: str, pid: int, train: list[str], test: list[str], wave: int = 0
              ) -> dict:
    rng = random.Random(args.seed * 7919 + wave)
    plan = ["hostile" if rng.random() < args.hostile else "good" for _ in range(args.sessions)]
    samples: list[tuple[int, float]] = [(0, rss_mb(pid))]
    done, crashed, died, kinds, died_kinds = 0, 0, 0, {}, {}
    sem = asyncio.Semaphore(args.concurrency)
    deadline = time.monotonic() + args.deadline

    async def one(i: int, what: str) -> None:
        nonlocal done, crashed, died
        async with sem:
            if time.monotonic() > deadline:
                return
            srng = random.Random(args.seed * 1_000_003 + wave * 100_003 + i)
            if what == "good":
                ok = await good_session(url, srng, train, test)
                crashed += not ok
                kinds["good"] = kinds.get("good", 0) + 1
            else:
                kind, ok = await hostile_session(url, srng, train, test)
                died += not ok
                if not ok:
                    died_kinds[kind] = died_kinds.get(kind, 0) + 1
                kinds[kind] = kinds.get(kind, 0) + 1
            done += 1
            if done % max(1, args.sessions // 50) == 0:
                samples.append((done, rss_mb(pid)))

    await asyncio.gather(*(one(i, w) for i, w in enumerate(plan)))
    samples.append((done, rss_mb(pid)))
    return {"done": done, "crashed_good": crashed, "hostile_died": died, "kinds": kinds,
            "died_kinds": died_kinds, "samples": samples}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--hostile", type=float, default=0.3)
    ap.add_argument("--universe", default=None, help="universe.json (default: the default one)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--deadline", type=float, default=1800.0, help="stop after this many s")
    ap.add_argument("--waves", type=int, default=1,
                    help="run --sessions this many times; the server's RSS is printed after "
                         "each wave, once its sessions have closed")
    ap.add_argument("--half-open", type=int, default=50,
                    help="half-open connections opened after the waves (closed by the "
                         "server's handshake timeout, 2 s here)")
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
                             "--library", f"marked={tmp / 'marked.json'}",
                             "--handshake-timeout", "2", "--exam-log", str(tmp / "exam.jsonl")],
                            stdout=subprocess.DEVNULL, stderr=open(tmp / "server.log", "w"))
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
        url = f"ws://127.0.0.1:{port}/ws"
        start_rss = rss_mb(proc.pid)
        waves, res = [], None
        for w in range(args.waves):
            one = asyncio.run(run(args, url, proc.pid, list(u.splits["train"]),
                                  list(u.splits["test_in"]), wave=w))
            time.sleep(2.0)  # every session of the wave has closed
            waves.append(rss_mb(proc.pid))
            if res is None:
                res = one
            else:
                for k in ("done", "crashed_good", "hostile_died"):
                    res[k] += one[k]
                for key in ("kinds", "died_kinds"):
                    for k, v in one[key].items():
                        res[key][k] = res[key].get(k, 0) + v
                res["samples"] += one["samples"]

        async def many_half_open():
            return await asyncio.gather(*(half_open(url, 6.0) for _ in range(args.half_open)))

        closed = sum(asyncio.run(many_half_open())) if args.half_open else 0
        wall = time.perf_counter() - t
        alive = proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    log = (tmp / "server.log").read_text(encoding="utf-8", errors="replace")
    s = res["samples"]
    tenth = max(1, len(s) // 10)
    first = statistics.median(r for _, r in s[1:1 + tenth]) if len(s) > 1 else s[0][1]
    last = statistics.median(r for _, r in s[-tenth:])
    print(f"sessions: {res['done']} in {wall:.1f}s ({', '.join(f'{k} {v}' for k, v in sorted(res['kinds'].items()))})")
    print(f"crashed well-behaved sessions: {res['crashed_good']}")
    print(f"hostile sessions whose session died: {res['hostile_died']} "
          f"({', '.join(f'{k} {v}' for k, v in sorted(res['died_kinds'].items())) or 'none'})")
    print(f"server alive at the end: {alive}")
    marks = [s[min(len(s) - 1, round(i * (len(s) - 1) / 10))] for i in range(11)]
    print("server RSS (MB) by sessions done: " + ", ".join(f"{n}: {r:.0f}" for n, r in marks))
    print(f"RSS first tenth (median) {first:.0f} MB, last tenth {last:.0f} MB, growth "
          f"{last - first:+.0f} MB ({(last - first) / max(first, 1e-9) * 100:+.1f} %)")
    print(f"server RSS (MB) at start {start_rss:.0f}, after each wave of {args.sessions} "
          f"sessions: " + ", ".join(f"{r:.0f}" for r in waves))
    if len(waves) > 1:
        print(f"RSS growth from wave 1 to wave {len(waves)}: {waves[-1] - waves[0]:+.1f} MB")
    print(f"half-open connections closed by the server: {closed} of {args.half_open}")
    print(f"tracebacks in the server log: {log.count('Traceback')}; log lines: "
          f"{len(log.splitlines())}")


if __name__ == "__main__":
    main()
