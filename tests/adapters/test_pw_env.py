"""The adapted universe in the environment, the library and the run commands."""

from __future__ import annotations

import json

from kbgym.cli import main as kbgym_main
from kbgym.env.env import KBGymEnv
from kbgym.library.graph import Library


def test_library_from_universe(pw_universe):
    lib = Library.from_universe(pw_universe)
    assert len(lib) == len(pw_universe.nodes) == 206
    assert lib.next_id == 207


def test_train_episode_with_dict_actions(pw_universe):
    u = pw_universe
    q = next(q for q in u.split("train") if q.keys)
    name = q.keys[0].split(":", 1)[1]
    env = KBGymEnv(u, mode="train")
    obs, info = env.reset(options={"qid": q.qid})
    assert q.text in obs["text"]
    obs, r, term, trunc, _ = env.step({"action": "search", "query": name})
    assert r == 0.0 and "s0" in obs["text"]
    obs, r, term, trunc, _ = env.step({"action": "read", "id": q.support[0]})
    assert u.node(q.support[0]).text in obs["text"]
    obs, r, term, trunc, _ = env.step({"action": "answer", "text": q.golds[0]})
    assert r == 1.0 and not term  # the backward phase follows
    obs, r, term, trunc, _ = env.step({"action": "done"})
    assert term


def test_probe_episode_on_reserved_split(pw_universe):
    u = pw_universe
    env = KBGymEnv(u, mode="probe", split="test_out")
    q = u.split("test_out")[0]
    env.reset(options={"qid": q.qid})
    _, r, term, _, _ = env.step({"action": "answer", "text": "nobody"})
    assert term and r == 0.0
    env.reset(seed=3)  # a random test_out question
    _, r, term, _, _ = env.step({"action": "answer", "text": q.golds[-1]})
    assert term


def test_train_and_test_commands(pw_universe, tmp_path):
    path = tmp_path / "pw_universe.json"
    path.write_text(pw_universe.dumps(), encoding="utf-8")
    run = tmp_path / "run"
    assert kbgym_main(["train", "--universe", str(path), "--out", str(run), "--train-size", "4",
                       "--epochs", "1", "--quiet"]) == 0
    rows = [json.loads(line) for line in (run / "train_log.jsonl").read_text().splitlines()]
    assert sorted(r["qid"] for r in rows) == list(pw_universe.splits["train"][:4])
    assert {r["category"] for r in rows} <= {"PW_REL", "PW_PERSON", "PW_ATTR", "PW_AGG"}
    out = tmp_path / "test"
    assert kbgym_main(["test", "--universe", str(path), "--library",
                       str(run / "kb_epoch_1.json"), "--split", "test_out,eval",
                       "--out", str(out), "--quiet"]) == 0
    rows = [json.loads(line) for line in (out / "test_log.jsonl").read_text().splitlines()]
    assert len(rows) == 12 + 10
