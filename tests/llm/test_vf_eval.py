"""``vf-eval kbgym_vf`` (verifiers v1) against the fake OpenAI-compatible server on loopback:
the real CLI plays KBGym probe episodes with a model that first searches, then answers - the
gold for one question, a wrong name for the other - and the recorded rewards are the env's
F1 (1 and 0). Needs the verifiers package and integrations/kbgym_vf installed (skipped
otherwise); slow."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("verifiers")
pytest.importorskip("kbgym_vf")
pytestmark = pytest.mark.slow

from fake_server import FakeServer, Intent, observation_of  # noqa: E402


def test_vf_eval_plays_probe_episodes_and_records_the_envs_f1(tmp_path):
    from kbgym.env.env import default_universe

    u = default_universe()
    qids = list(u.splits["test_in"])[:2]
    golds = {u.question(q).text: (u.question(q).golds[0] if i == 0 else "Nobody Atall")
             for i, q in enumerate(qids)}
    prompts = []

    def responder(body):
        text = observation_of(body)
        prompts.append(text)
        question = next((q for q in golds if q in text), None)
        if "-> page 1" not in text and "- search(" not in text:
            return Intent("search", {"query": question or "job"})
        return Intent("answer", {"text": golds.get(question, "unknown")})

    vf_eval = str(Path(sys.executable).parent / "vf-eval")  # the venv running the tests
    with FakeServer(responder) as srv:
        out = subprocess.run(
            [vf_eval, "kbgym_vf", "-m", "toy", "--client.base-url", srv.url,
             "--client.api-key-var", "FAKE_KEY", "--no-push", "--select.limit", "2",
             "--env.player.runtime.type", "subprocess", "--env.player.harness.id", "null",
             "-o", str(tmp_path / "outputs")],
            cwd=tmp_path, env={**os.environ, "FAKE_KEY": "x"}, capture_output=True,
            text=True, timeout=900)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    traces = [json.loads(line) for f in (tmp_path / "outputs").glob("*/traces.jsonl")
              for line in f.read_text().splitlines()]
    assert len(traces) == 2
    got = {}
    for t in traces:
        trace = t["traces"][0]
        info = trace["info"]["kbgym"]
        got[info["qid"]] = (trace["rewards"]["kbgym_reward"]["score"], info)
    assert set(got) == set(qids)
    assert got[qids[0]][0] == 1.0 and got[qids[0]][1]["status"] == "answered"
    assert got[qids[1]][0] == 0.0 and got[qids[1]][1]["status"] == "wrong"
    assert all(g[1]["steps"] == 2 for g in got.values())  # search, then answer
    assert not any("gold answer" in p for p in prompts)  # probe episodes show no gold
