"""The OpenAI agent against the fake server: requests as sent, tool modes, meta, endpoint."""

from __future__ import annotations

import time

import pytest

from kbgym_agents.llm.client import make_sampling, resolve_endpoint
from llm_helpers import make
from fake_server import Fault, FakeServer, Intent, Raw
from kbgym.env import KBGymEnv
from kbgym.errors import ConfigError
from kbgym.runs.episode import run_episode

PROBE_OBS = {"phase": 0, "steps_left": 15,
             "text": "QUESTION q0001\nWhat is the job of Ann Bell?\n\nRemaining actions this "
                     "phase: 15.\nRecent actions (oldest first):\n(no actions yet)"}


def test_request_as_sent_for_a_reasoning_model(server):
    agent = make("reader", server, model="gpt-5-mini-2025-08-07", temperature=0.7,
                 tool_mode="tools")
    action = agent.act(PROBE_OBS, {})
    assert action == {"name": "search", "arguments": '{"query": "What is the job of Ann Bell?"}'}
    body = server.chat_requests()[-1]
    assert body["model"] == "gpt-5-mini-2025-08-07"
    assert body["messages"][1] == {"role": "user", "content": PROBE_OBS["text"]}
    assert [t["function"]["name"] for t in body["tools"]] == ["search", "read", "answer"]
    assert body["tool_choice"] == "required" and body["parallel_tool_calls"] is False
    assert body["max_completion_tokens"] == 12000 and body["reasoning_effort"] == "low"
    assert "temperature" not in body and "top_p" not in body
    assert agent.meta["sampling"] == {"max_completion_tokens": 12000, "reasoning_effort": "low"}
    assert agent.last_usage[0] > 0 and agent.last_usage[1] > 0


def test_chat_model_sampling_as_sent(server):
    agent = make("reader", server, model="qwen2.5", temperature=0.0, max_tokens=256,
                 reasoning_effort="high")
    agent.act(PROBE_OBS, {})
    body = server.chat_requests()[-1]
    assert body["temperature"] == 0.0 and body["max_tokens"] == 256
    assert "reasoning_effort" not in body and "max_completion_tokens" not in body
    assert agent.meta["sampling"] == {"max_tokens": 256, "temperature": 0.0}
    assert make_sampling("o3-mini", temperature=1.0).as_sent() == {}


@pytest.mark.parametrize("mode, how", [("tools", "tool_call"), ("single", "act"),
                                       ("text", "text")])
def test_each_mode_plays_a_whole_training_iteration(server, universe, mode, how):
    agent = make("trainer", server, tool_mode=mode)
    env = KBGymEnv(universe, mode="train")
    summary, rows, _ = run_episode(env, agent, universe.splits["train"][0])
    assert [r["action"] for r in rows] == ["search", "answer", "add", "link", "done"]
    assert all(r["valid"] for r in rows)
    assert agent.stats["decisions"] == {how: 5}
    body = server.chat_requests()[-1]
    if mode == "single":
        assert [t["function"]["name"] for t in body["tools"]] == ["act"]
        assert body["tool_choice"] == {"type": "function", "function": {"name": "act"}}
    if mode == "text":
        assert "tools" not in body and "tool_choice" not in body
    assert summary["tokens_in"] == sum(r["tokens_in"] for r in rows) > 0


def test_text_fallback_reads_bare_json():
    with FakeServer(fenced=False) as srv:
        agent = make("reader", srv, tool_mode="text")
        assert agent.act(PROBE_OBS, {})["name"] == "search"


def test_auto_moves_to_the_single_tool_when_calls_come_back_as_text(universe):
    """llama.cpp's quirk: with tool_choice "required" the call arrives as text."""
    with FakeServer(text_unless_named=True) as srv:
        agent = make("trainer", srv)  # auto
        env = KBGymEnv(universe, mode="train")
        _, rows, _ = run_episode(env, agent, universe.splits["train"][1])
        assert all(r["valid"] for r in rows)
        stats = agent.stats
        assert stats["mode"] == "single" and stats["decisions"] == {"text": 1, "act": 4}
        assert stats["switches"][0][:2] == ["tools", "single"]
        assert srv.chat_requests()[-1]["tool_choice"]["function"]["name"] == "act"


def test_auto_falls_back_when_the_server_refuses_tools(server):
    server.faults.extend([Fault.http(400, message="tools are not supported"),
                          Fault.http(400, message="tool_choice is not supported")])
    agent = make("reader", server)
    action = agent.act(PROBE_OBS, {})
    assert action["name"] == "search"
    assert agent.stats["mode"] == "text" and agent.stats["noops"] == 0
    assert [s[:2] for s in agent.stats["switches"]] == [["tools", "single"], ["single", "text"]]
    assert len(server.chat_requests()) == 3
    # a fixed mode does not move: the refusal is a failed call (a no-op)
    server.faults.append(Fault.http(400, message="tools are not supported"))
    fixed = make("reader", server, tool_mode="tools")
    assert fixed.act(PROBE_OBS, {}) is None and fixed.stats["errors"] == {"bad_request": 1}
    # a 400 about something else (a context overflow) is not a refusal of tools
    server.faults.append(Fault.http(400, message="Requested tokens exceed context window"))
    other = make("reader", server)
    assert other.act(PROBE_OBS, {}) is None and other.stats["switches"] == []


def test_auto_asks_again_when_the_reply_holds_no_call(server):
    """A server that ignores tools answers in prose: auto moves on and asks again at once."""
    server.faults.append(Fault.answer_with(Raw(content="Let me search for Ann Bell.")))
    agent = make("reader", server)
    assert agent.act(PROBE_OBS, {}) == {"action": "search",
                                        "query": "What is the job of Ann Bell?"}
    assert agent.stats["mode"] == "single" and agent.stats["noops"] == 0
    assert agent.stats["decisions"] == {"none": 1, "act": 1}
    assert agent.last_usage[0] > len(PROBE_OBS["text"]) // 4  # both calls counted


def test_reply_without_a_call_is_a_noop(server):
    server.faults.append(Fault.answer_with(Raw(content="The answer is probably Paris.")))
    agent = make("reader", server, tool_mode="tools")
    assert agent.act(PROBE_OBS, {}) is None
    assert agent.stats["noops"] == 1 and agent.stats["decisions"] == {"none": 1}


def test_wrong_phase_for_the_role_is_a_config_error(server):
    with pytest.raises(ConfigError, match="no skill for the backward phase"):
        make("reader", server).act({**PROBE_OBS, "phase": 2}, {})


def test_question_wall_clock_cap(server, universe):
    server.faults.extend([Fault.delay(0.3)] * 3)
    agent = make("reader", server, question_timeout_s=0.5, max_retries=0)
    env = KBGymEnv(universe, mode="probe")
    t0 = time.monotonic()
    summary, rows, _ = run_episode(env, agent, universe.splits["test_in"][0])
    assert time.monotonic() - t0 < 3  # the cap bounds the question, faults or not
    assert summary["steps"] == 15 and summary["status"] == "unanswered"
    assert rows[0]["action"] == "search"
    assert [r["action"] for r in rows[1:]] == ["__noop__"] * 14
    errors = agent.stats["errors"]
    assert errors.get("capped", 0) >= 1 and errors.get("capped", 0) + errors.get("timeout", 0) == 14
    # the next question starts a fresh cap: its first call is made, not capped at once (how
    # far it gets within 0.5 s depends on the machine's load, so only the start is checked)
    summary, rows, _ = run_episode(env, agent, universe.splits["test_in"][1])
    assert rows[0]["action"] == "search"


def test_endpoint_resolution(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    ep = resolve_endpoint()
    assert ep.base_url == "http://127.0.0.1:9/v1" and ep.base_url_env == "OPENAI_BASE_URL"
    assert ep.api_key == "sk-no-key-required"
    monkeypatch.setenv("MY_KEY", "sk-secret")
    ep = resolve_endpoint("https://api.example.com/v1", "MY_KEY")
    assert ep.api_key == "sk-secret" and ep.base_url_env is None and "sk-secret" not in repr(ep)
    monkeypatch.delenv("OPENAI_BASE_URL")
    with pytest.raises(ConfigError, match="set the environment variable OPENAI_API_KEY"):
        resolve_endpoint()


def test_meta_names_variables_never_values(server, monkeypatch):
    monkeypatch.setenv("SECRET_VAR", "sk-do-not-log")
    agent = make("trainer", server, api_key_env="SECRET_VAR")
    meta = agent.meta
    assert meta["api_key_env"] == "SECRET_VAR" and "sk-do-not-log" not in repr(meta)
    assert meta["model"] == "fake" and meta["role"] == "trainer"
    assert set(meta["skills"]) == {"forward", "backward"}
    assert str(server.port) not in repr(meta)  # the run id must not depend on the port


def test_prices_give_a_cost(server):
    agent = make("reader", server, prices={"fake": {"in": 1.0, "out": 2.0}})
    agent.act(PROBE_OBS, {})
    s = agent.stats
    assert s["cost_usd"] == pytest.approx((s["tokens_in"] + 2 * s["tokens_out"]) / 1e6)


def test_factories_ignore_seed_and_need_a_model(server):
    from kbgym_agents.llm import factories

    agent = factories.reader(model="fake", base_url=server.url, seed=3)
    assert "seed" not in agent.meta["sampling"]
    with pytest.raises(ConfigError, match="need a model"):
        factories.trainer(base_url=server.url)
    assert factories.judge(model="fake", base_url=server.url, seed=1).caller.model == "fake"


def test_spawn_shares_counters_and_settings(server):
    agent = make("reader", server, tool_mode="single")
    child = agent.spawn()
    child.act(PROBE_OBS, {})
    assert agent.stats["calls"] == 1 and child.meta == agent.meta
    assert agent.last_usage == (0, 0, 0) and child.last_usage != (0, 0, 0)


def test_intent_rendering_round_trip(server):
    server.faults.append(Fault.answer_with(Intent("answer", {"text": "Paris"})))
    # guards off: with them, an answer before anything was shown becomes a search
    assert make("reader", server, tool_mode="single", guards=False).act(PROBE_OBS, {}) == \
        {"action": "answer", "text": "Paris"}
