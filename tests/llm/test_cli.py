"""The command line end to end against the fake server: `kbgym train` with the LLM curator,
killed and resumed, then `kbgym test` with the LLM reader (SPEC §9.4, §9.5, §16.4)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from fake_server import FakeServer
from kbgym.plugins import available
from kbgym.runs.logs import read_jsonl
from kbgym.runs.replay import verify_all_epochs

TRAINER = "kbgym_agents.llm.factories:trainer"
READER = "kbgym_agents.llm.factories:reader"


def kbgym(*args, **kw):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "KBGYM_LLM"))}
    env.update(kw.pop("env", {}))
    return subprocess.run([sys.executable, "-m", "kbgym.cli", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=120, **kw)


@pytest.fixture(scope="module")
def upath(tmp_path_factory, universe):
    path = tmp_path_factory.mktemp("u") / "universe.json"
    path.write_text(universe.dumps())
    return path


def train_args(upath, out, srv, *extra):
    return ["train", "--universe", upath, "--agent", TRAINER, "--model", "fake",
            "--base-url", srv.url, "--epochs", 2, "--train-size", 5, "--snapshot-every", 3,
            "--out", out, "--quiet", *extra]


def test_train_killed_resumed_then_test(upath, universe, tmp_path):
    # slow: four whole `kbgym` processes (reference, killed, resumed, test): the kill is the point
    with FakeServer(latency=0.01) as srv:
        ref = kbgym(*train_args(upath, tmp_path / "ref", srv))
        assert ref.returncode == 0, ref.stderr

        out = tmp_path / "run"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "KBGYM_"))}
        cmd = [sys.executable, "-m", "kbgym.cli", *map(str, train_args(upath, out, srv))]
        proc = subprocess.Popen(cmd, env=env)
        deadline = time.time() + 60
        while time.time() < deadline and len(read_jsonl(out / "train_log.jsonl")) < 3:
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        n = len(read_jsonl(out / "train_log.jsonl"))
        assert 3 <= n < 10, "the run should have been killed in the middle"
        resumed = kbgym(*train_args(upath, out, srv, "--resume"))
        assert resumed.returncode == 0, resumed.stderr

        for name in ("train_log.jsonl", "trace.jsonl", "kb_epoch_2.json", "meta.json"):
            assert (out / name).read_bytes() == (tmp_path / "ref" / name).read_bytes(), name
        assert verify_all_epochs(out, universe) == {0: None, 1: None, 2: None}
        meta = json.loads((out / "meta.json").read_text())
        assert meta["agent"]["model"] == "fake" and meta["agent"]["role"] == "trainer"
        assert meta["tokens"]["train"][0] > 0

        test = kbgym("test", "--universe", upath, "--library", out / "kb_epoch_2.json",
                     "--split", "test_in,test_out", "--limit", 4, "--reader", READER,
                     "--model", "fake", "--base-url", srv.url, "--out", tmp_path / "exam")
        assert test.returncode == 0, test.stderr
        assert "test_in" in test.stdout and "f1=" in test.stdout
        rows = read_jsonl(tmp_path / "exam" / "test_log.jsonl")
        assert len(rows) == 8 and all(r["tokens_in"] > 0 for r in rows)


def test_endpoint_from_the_environment(upath, tmp_path):
    with FakeServer() as srv:
        r = kbgym("test", "--universe", upath, "--limit", 2, "--reader", READER, "--model",
                  "fake", "--out", tmp_path / "e", env={"OPENAI_BASE_URL": srv.url})
        assert r.returncode == 0, r.stderr
        assert len(srv.chat_requests()) >= 2


def test_missing_key_for_a_remote_endpoint_is_one_line(upath, tmp_path):
    r = kbgym("test", "--universe", upath, "--limit", 1, "--reader", READER, "--model", "m",
              "--base-url", "https://api.example.invalid/v1", "--api-key-env", "NO_SUCH_KEY")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "kbgym test: error: no API key: set the environment variable NO_SUCH_KEY for "
        "https://api.example.invalid/v1 (or name another one with --api-key-env)"]


@pytest.mark.skipif("openai-trainer" not in available(),
                    reason="entry points openai-* not registered in pyproject.toml yet")
def test_entry_point_names(upath, tmp_path):
    with FakeServer() as srv:
        r = kbgym("train", "--universe", upath, "--agent", "openai-trainer", "--model", "fake",
                  "--base-url", srv.url, "--epochs", 1, "--train-size", 2, "--dedup",
                  "--judge-model", "fake", "--out", tmp_path / "t", "--quiet")
        assert r.returncode == 0, r.stderr
        r = kbgym("test", "--universe", upath, "--reader", "openai-reader", "--model", "fake",
                  "--base-url", srv.url, "--limit", 2, "--out", tmp_path / "x")
        assert r.returncode == 0, r.stderr
