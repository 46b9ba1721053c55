"""``kbgym serve`` over loopback: two OpenEnv clients play whole episodes at once, and every
observation, reward and info matches the in-process env for the same seed and actions.
Needs the ``openenv`` extra (skipped without it); slow: run with ``-m slow``."""

from __future__ import annotations

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


@pytest.fixture()
def server(small_universe, tmp_path):
    path = tmp_path / "universe.json"
    path.write_text(json.dumps(small_universe.to_json()))
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kbgym.cli", "serve", "--port", str(port),
                             "--universe", str(path), "--reward", "both", "--reward-k", "4"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail(proc.stdout.read().decode())
            time.sleep(0.2)
    yield f"http://127.0.0.1:{port}"
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


def test_bad_reset_and_step_before_reset_are_answered(server, small_universe):
    from kbgym.serve import KBGymAction, KBGymClient

    with KBGymClient(base_url=server).sync() as env:
        r = env.step(KBGymAction(action="done"))
        assert r.observation.text.startswith("ERROR") and r.done
        r = env.reset(qid="q9999")
        assert "unknown qid" in r.observation.text
        r = env.reset(qid=small_universe.splits["train"][0])
        assert r.observation.phase == 1 and not r.done
