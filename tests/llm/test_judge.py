"""The LLM dedup judge (SPEC §6.3)."""

from __future__ import annotations

import pytest

from kbgym_agents.llm.judge import JudgeError, make_judge
from kbgym_agents.llm.skills import load_skill
from fake_server import Fault, Raw, Script
from kbgym.env import KBGymEnv
from kbgym.env.env import dedup_counters

FAST = {"backoff_initial_s": 0.001, "backoff_max_s": 0.01, "timeout_s": 5.0}


def judge_for(server, **kw):
    return make_judge(model=kw.pop("model", "fake"), base_url=server.url, **{**FAST, **kw})


@pytest.mark.parametrize("reply, verdict", [("yes", True), ("Yes.", True),
                                            ("YES - same fact", True), ("no", False),
                                            ("No, different people.", False), ("", False),
                                            (" yes", False), ("Maybe yes", False)])
def test_verdict_is_yes_iff_the_reply_starts_with_yes(server, reply, verdict):
    server.responder = Script([Raw(content=reply)])
    judge = judge_for(server)
    assert judge("A B's job is baker.", "A B works as a baker.") is verdict
    assert judge.calls == 1 and judge.yes == int(verdict)


def test_messages_and_sampling(server):
    server.responder = Script([Raw(content="no")] * 2)
    judge_for(server, model="gpt-5-mini")("first one.", "second one.")
    body = server.chat_requests()[-1]
    assert body["messages"] == [{"role": "system", "content": load_skill("judge")},
                                {"role": "user", "content": "1. first one.\n2. second one."}]
    assert body["max_completion_tokens"] == 500 and body["reasoning_effort"] == "minimal"
    assert "tools" not in body and "temperature" not in body
    judge_for(server, model="small-chat", max_tokens=4)("a.", "b.")
    assert server.chat_requests()[-1]["max_tokens"] == 4


def test_api_error_is_counted_and_not_a_duplicate(server):
    server.faults.extend([Fault.http(500)] * 2)
    judge = judge_for(server, max_retries=1)
    with pytest.raises(JudgeError):
        judge("a.", "b.")
    assert judge.errors == 1 and judge.meta["judge_api_errors"] == 1
    server.faults.extend([Fault.http(500)] * 2)
    soft = judge_for(server, max_retries=1, on_error="false")
    assert soft("a.", "b.") is False and soft.errors == 1


def test_judge_in_the_env(server, universe):
    server.responder = Script([Raw(content="yes"), Raw(content="no")])
    judge = judge_for(server)
    env = KBGymEnv(universe, mode="train", library=None, judge=judge)
    env.reset(options={"qid": universe.splits["train"][0]})
    env.step({"action": "answer", "text": "x"})
    text = env.library["s0001"].text
    _, _, _, _, info = env.step({"action": "add", "text": text})
    assert info["result"] == "duplicate of s0001 - merged, no new note created"
    _, _, _, _, info = env.step({"action": "add", "text": text})
    assert info["result"].startswith("added s")
    server.faults.extend([Fault.http(500)] * 6)
    _, _, _, _, info = env.step({"action": "add", "text": env.library["s0002"].text})
    assert info["result"].startswith("added s")
    counters = dedup_counters(env.library)
    assert counters["judge_calls"] == 3 and counters["judge_errors"] == 1
    assert judge.calls == 3 and judge.errors == 1 and judge.tokens_in > 0
    assert judge.meta["judge_tokens"] == [judge.tokens_in, judge.tokens_out]


def test_judge_tokens_reach_meta_json(server, universe, tmp_path):
    """A training run with the LLM judge records its calls and tokens under ``dedup``."""
    import json

    from llm_helpers import make
    from fake_server import ToyPolicy
    from kbgym.runs.train import TrainConfig, train

    policy = ToyPolicy()

    def responder(body):
        if body["messages"][0]["content"] == load_skill("judge"):
            return Raw(content="yes")
        return policy(body)

    server.responder = responder
    judge = judge_for(server)
    meta = train(universe, make("trainer", server), tmp_path, judge=judge,
                 judge_meta=judge.meta_view, config=TrainConfig(epochs=2, train_size=2))
    on_disk = json.loads((tmp_path / "meta.json").read_text())
    assert on_disk == json.loads(json.dumps(meta))
    dedup = on_disk["dedup"]
    assert dedup["enabled"] and dedup["judge_model"] == "fake"
    assert dedup["judge_calls"] == judge.calls >= 2   # epoch 2 re-adds the same notes
    assert dedup["judge_tokens"] == [judge.tokens_in, judge.tokens_out] != [0, 0]
    assert dedup["merges"] >= 1 or any(
        "duplicate of" in json.loads(x)["result"]
        for x in (tmp_path / "trace.jsonl").read_text().splitlines())
