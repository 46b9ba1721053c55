"""``kbgym serve`` over loopback with OpenEnv's own clients: whole episodes match the
in-process env; probe episodes never receive a gold; the split policy holds server-side;
named start libraries and the task API; malformed frames are answered and the session lives
on; idle sessions are closed. Needs the ``openenv`` extra (skipped without it); slow."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("openenv")
pytestmark = pytest.mark.slow

from kbgym.env import KBGymEnv  # noqa: E402

CONFIG = {"reward": "both", "reward_k": 4}


def actions_for(u, qid):
    q = u.question(qid)
    return [
        {"action": "search", "args": {"query": q.text}},
        {"action": "read", "args": {"id": q.support[0]}},
        {"action": "answer", "args": {"text": "nobody"}},
        {"action": "add", "args": {"text": f"Index: {q.text}"}},
        {"action": "link", "args": {"source": "s9999", "target": q.support[0]}},  # an error
        {"action": "delete", "args": {"id": q.support[0]}},
        {"action": "fly", "args": {}},  # not a tool: answered with an error
        {"action": "done", "args": {}},
    ]


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_server(args, tmp_path, universe):
    path = tmp_path / "universe.json"
    path.write_text(json.dumps(universe.to_json()))
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kbgym.cli", "serve", "--port", str(port),
                             "--universe", str(path), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            if proc.poll() is not None:
                pytest.fail(proc.stdout.read().decode())
            time.sleep(0.2)
    proc.kill()
    pytest.fail("the server did not start")


@pytest.fixture()
def server(small_universe, tmp_path):
    lib = KBGymEnv(small_universe)
    lib.library.add("Marker note about a quokka named Blossom.")
    lib.snapshot(tmp_path / "marked.json")
    proc, url = start_server(["--reward", "both", "--reward-k", "4", "--idle-timeout", "3",
                              "--library", f"marked={tmp_path / 'marked.json'}"],
                             tmp_path, small_universe)
    yield url
    proc.terminate()
    proc.wait(timeout=20)


def remote_episode(url, qid, seed, actions):
    from kbgym.serve import KBGymAction, KBGymClient

    out = []
    with KBGymClient(base_url=url).sync() as env:
        r = env.reset(seed=seed, qid=qid)
        out.append((r.observation.text, r.observation.phase, None, r.done))
        for a in actions:
            r = env.step(KBGymAction(**a))
            out.append((r.observation.text, r.observation.phase, r.reward, r.done,
                        r.observation.info))
        state = env.state()
    return out, state


def local_episode(u, qid, seed, actions):
    env = KBGymEnv(u, config=CONFIG)
    obs, info = env.reset(seed=seed, options={"qid": qid})
    out = [(obs["text"], obs["phase"], None, False)]
    for a in actions:
        obs, r, term, trunc, info = env.step({**a["args"], "action": a["action"]})
        out.append((obs["text"], obs["phase"], r, term or trunc,
                    json.loads(json.dumps(info))))
    return out


def test_two_clients_play_whole_episodes_like_the_in_process_env(server, small_universe):
    u = small_universe
    qids = u.splits["train"][:2]
    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(remote_episode, server, qid, i, actions_for(u, qid))
                   for i, qid in enumerate(qids)]
        remote = [f.result(timeout=120) for f in futures]
    for i, qid in enumerate(qids):
        steps, state = remote[i]
        local = local_episode(u, qid, i, actions_for(u, qid))
        assert steps == local
        last = steps[-1]
        assert last[3] is True and "curation" in last[4]
        assert last[2] == pytest.approx(last[4]["curation"]["reward"])
        assert state.qid == qid and state.over and state.phase == "backward"
        assert state.step_count == len(actions_for(u, qid))


class Recording:
    """A GenericEnvClient whose every received frame is kept (raw text)."""

    def __init__(self, url):
        from openenv.core.generic_client import GenericEnvClient

        self.frames: list[str] = []
        client = GenericEnvClient(base_url=url)
        real = client._receive

        async def receive():
            data = await real()
            self.frames.append(json.dumps(data))
            return data

        client._receive = receive
        self.env = client.sync()


def test_a_probe_episode_from_the_real_client_never_receives_a_gold(server, small_universe):
    u = small_universe
    qid = next(q for q in u.splits["test_in"] if u.question(q).golds[0] not in
               u.question(q).text)
    gold = u.question(qid).golds[0]
    rec = Recording(server)
    with rec.env as env:
        r = env.reset(qid=qid, mode="probe")
        assert r.observation["phase"] == 0
        r = env.step({"action": "answer", "args": {"text": "nobody"}})
        assert r.done and r.observation["text"].count("submitted") == 1
        env.state()
    assert rec.frames and not any(gold in f for f in rec.frames)
    assert not any("gold" in f for f in rec.frames)
    # the same flow as a train episode on a train question does show its gold
    tq = next(q for q in u.splits["train"] if u.question(q).golds[0] not in
              u.question(q).text)
    rec = Recording(server)
    with rec.env as env:
        env.reset(qid=tq, mode="train")
        env.step({"action": "answer", "args": {"text": "nobody"}})
    assert any(u.question(tq).golds[0] in f for f in rec.frames)


def test_train_episodes_are_refused_on_questions_outside_the_train_split(server,
                                                                          small_universe):
    from openenv.core.generic_client import GenericEnvClient

    u = small_universe
    test_q = u.splits["test_in"][0]
    with GenericEnvClient(base_url=server).sync() as env:
        r = env.reset(qid=test_q)  # mode train by default
        assert r.done and "not open to train episodes" in r.observation["text"]
        assert u.question(test_q).golds[0] not in json.dumps(r.observation)
        r = env.reset(split="test_in")
        assert r.done and "not open to train episodes" in r.observation["text"]
        r = env.reset(qid=test_q, mode="probe")  # an exam of it is fine
        assert not r.done and r.observation["phase"] == 0
        r = env.reset(qid="q9999")
        assert "unknown qid" in r.observation["text"]
        r = env.reset(mode="judge")
        assert "mode must be" in r.observation["text"]


def test_named_start_libraries_fork_per_session_and_train_edits_carry_over(server,
                                                                         small_universe):
    from openenv.core.generic_client import GenericEnvClient

    qid = small_universe.splits["train"][0]
    search = {"action": "search", "args": {"query": "quokka Blossom"}}
    with GenericEnvClient(base_url=server).sync() as env:
        env.reset(qid=qid, library="marked")
        assert "quokka" in env.step(search).observation["text"]
        env.reset(qid=qid, library="B1")
        assert "quokka" not in env.step(search).observation["info"]["result"]
        env.step({"action": "answer", "args": {"text": "x"}})
        env.step({"action": "add", "args": {"text": "A wombat called Rufus lives here."}})
        env.step({"action": "done", "args": {}})
        env.reset(qid=qid)  # no library: the session keeps what its last episode left
        r = env.step({"action": "search", "args": {"query": "wombat Rufus"}})
        assert "wombat" in r.observation["info"]["result"]
        env.reset(qid=qid, mode="probe")  # the probe examines the session's library
        r = env.step({"action": "search", "args": {"query": "wombat Rufus"}})
        assert "wombat" in r.observation["info"]["result"]
        r = env.reset(qid=qid, library="nope")
        assert "unknown library" in r.observation["text"]
        r = env.reset(qid=qid, library=["B1"])
        assert "unknown library" in r.observation["text"]
    with GenericEnvClient(base_url=server).sync() as other:  # another session: its own B1
        other.reset(qid=qid)
        r = other.step({"action": "search", "args": {"query": "wombat Rufus"}})
        assert "wombat" not in r.observation["info"]["result"]


def test_the_task_api_lists_questions_without_golds(server, small_universe):
    import httpx

    u = small_universe
    splits = httpx.get(f"{server}/kbgym/splits").json()
    assert {s["name"] for s in splits} == set(u.splits)
    tasks = httpx.post(f"{server}/kbgym/tasks", json={"split": "test_in"}).json()["tasks"]
    assert [t["qid"] for t in tasks] == list(u.splits["test_in"])
    body = json.dumps(tasks)
    assert "gold" not in body and all(t["question"] == u.question(t["qid"]).text
                                      for t in tasks)
    r = httpx.post(f"{server}/kbgym/tasks", json={"split": "nope"})
    assert r.status_code == 400 and "unknown split 'nope'" in r.json()["detail"]
    n = httpx.post(f"{server}/kbgym/num_tasks", json={"split": "train"}).json()
    assert n["num_tasks"] == len(u.splits["train"])
    for route in ("/reset", "/step", "/state"):  # no stateless episode endpoints
        assert httpx.post(f"{server}{route}", json={}).status_code in (404, 405)


def test_malformed_frames_are_answered_and_the_session_lives_on(server, small_universe):
    from websockets.asyncio.client import connect

    qid = small_universe.splits["train"][0]
    ws_url = server.replace("http://", "ws://") + "/ws"

    async def go():
        async with connect(ws_url) as ws:
            await ws.send(json.dumps({"type": "reset", "data": {"qid": qid}}))
            first = json.loads(await ws.recv())
            assert first["type"] == "observation"
            for bad in (b"\x00\xffbinary", "[1, 2, 3]", "42", '"reset"', "null", "{not json",
                        json.dumps({"type": "step", "data": 5}), "x" * (2 << 20),
                        '{"a":' * 2000 + "1" + "}" * 2000,  # past Python's recursion limit
                        # past pydantic's depth limit, in the error that echoes the frame
                        '{"type": "step", "data": {"action": "search", "args": {}}, "x": '
                        + "[" * 300 + "]" * 300 + "}"):
                await ws.send(bad)
                reply = json.loads(await ws.recv())
                assert reply["type"] == "error", bad[:20]
            await ws.send(json.dumps({"type": "step", "data": {"action": "search",
                                                              "args": {"query": "job"}}}))
            ok = json.loads(await ws.recv())
            assert ok["type"] == "observation" and ok["data"]["observation"]["phase"] == 1
            assert ok["data"]["observation"]["info"]["steps"] == 1  # the episode went on

    asyncio.run(go())


def test_an_idle_session_is_told_and_closed(server):
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    ws_url = server.replace("http://", "ws://") + "/ws"

    async def go():
        async with connect(ws_url) as ws:
            t = time.monotonic()
            reply = json.loads(await asyncio.wait_for(ws.recv(), 20))
            assert reply["type"] == "error" and "without a message" in reply["data"]["message"]
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 20)
            return time.monotonic() - t

    assert 2 <= asyncio.run(go()) < 15


def test_autoenv_finds_the_installed_kbgym_env_package(server, small_universe):
    pytest.importorskip("kbgym_env")  # pip install -e integrations/kbgym_env
    from openenv import AutoEnv

    from kbgym.serve import KBGymClient

    client = AutoEnv.from_env("kbgym", base_url=server)
    assert isinstance(client, KBGymClient)
    with client.sync() as env:
        r = env.reset(qid=small_universe.splits["test_in"][0], mode="probe")
        assert r.observation.phase == 0 and not r.done


def test_openenv_validate_passes_on_the_package_dir():
    from pathlib import Path

    pkg = Path(__file__).resolve().parents[2] / "integrations" / "kbgym_env"
    cli = Path(sys.executable).parent / "openenv"
    out = subprocess.run([str(cli), "validate", str(pkg), "--level", "static"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PASS  static.manifest" in out.stdout and "Verdict: PASS" in out.stdout


def test_huge_numbers_bad_utf8_and_half_open_connections(small_universe, tmp_path):
    """A frame with an integer past 4,300 digits, a float past the double range or a
    900,000-character string is answered and the session lives; a text frame that is not
    UTF-8 closes its connection with 1007 and one log line, no traceback; a connection that
    never completes its request head is closed after the handshake timeout."""
    import base64
    import os

    from websockets.asyncio.client import connect

    proc, url = start_server(["--handshake-timeout", "1"], tmp_path, small_universe)
    qid = small_universe.splits["train"][0]
    host, port = url.split("//")[1].split(":")
    try:
        async def frames():
            async with connect(url.replace("http://", "ws://") + "/ws", max_size=None) as ws:
                await ws.send(json.dumps({"type": "reset", "data": {"qid": qid}}))
                assert json.loads(await ws.recv())["type"] == "observation"
                search = '{"type": "step", "data": {"action": "search", "args": '
                for bad, kind in (
                        (search + '{"query": "x", "page": ' + "9" * 5000 + "}}}", "error"),
                        ('{"type": "reset", "data": {"seed": ' + "9" * 5000 + "}}", "error"),
                        (search + '{"query": "x", "page": 1e400}}}', "observation"),
                        (json.dumps({"type": "step", "data": {"action": "search", "args": {
                            "query": "x" * 900_000}}}), "observation")):
                    await ws.send(bad)
                    assert json.loads(await ws.recv())["type"] == kind
                await ws.send(json.dumps({"type": "step", "data": {"action": "search",
                                                                  "args": {"query": "job"}}}))
                ok = json.loads(await ws.recv())
                assert ok["type"] == "observation" and ok["data"]["observation"]["phase"] == 1

        asyncio.run(frames())
        raw = socket.create_connection((host, int(port)))
        raw.sendall((f"GET /ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: "
                     f"Upgrade\r\nSec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}"
                     "\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        assert raw.recv(1000).startswith(b"HTTP/1.1 101")
        payload, mask = b'{"type": "\xff\xfe"}', os.urandom(4)
        raw.sendall(bytes([0x81, 0x80 | len(payload)]) + mask
                    + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        raw.settimeout(5)
        assert raw.recv(4)[:4] == b"\x88\x02\x03\xef"  # close 1007
        raw.close()
        half = [socket.create_connection((host, int(port))) for _ in range(5)]
        half[0].sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\n")
        t = time.monotonic()
        for s in half:
            s.settimeout(10)
            assert s.recv(10) == b""  # closed by the server
        assert time.monotonic() - t < 8
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    log = proc.stdout.read().decode()
    assert "Traceback" not in log and "not UTF-8" in log
