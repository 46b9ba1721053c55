"""The guards of every tool mode against the fake server: only answer on the last step, no
answer before anything was shown, a repeated call asked again once and then replaced by the
cheapest unseen step, and index offers - all read from the observation text alone."""

from __future__ import annotations

import json

import pytest

from fake_server import FakeServer, Intent, Raw, Script
from kbgym_agents.llm.guards import StepView, cheapest_unseen, question_keys
from llm_helpers import make
from kbgym.env import KBGymEnv
from kbgym.library.graph import Library
from kbgym.runs.episode import run_episode

QUESTION = "What is the job of Ann Bell?"
HITS = ("- s0001: Ann Bell's hobby is chess.\n- s0002: Ann Bell is a friend of Tom Reed.\n"
        "- s0003: Friends of Ann Bell: everyone Ann Bell is a friend of.")


def obs(history: list[str], remaining: int, phase: int = 0) -> dict:
    lines = "\n".join(history) if history else "(no actions yet)"
    return {"phase": phase, "text": f"QUESTION q0001\n{QUESTION}\n\nRecent actions (oldest "
            f"first):\n{lines}\n\nRemaining actions this phase: {remaining}."}


SEARCHED = [f"- search(query='Ann Bell', page=1) -> page 1:\n{HITS}"]
MODES = ["tools", "single", "text", "fields"]


def reply(mode: str, intent: Intent):
    """What the model "says" for ``intent`` in ``mode`` (fields: the matching fields)."""
    if mode != "fields":
        return intent
    a = intent.args
    answer = a.get("text", "") if intent.name == "answer" else ""
    return Raw(content=json.dumps({"evidence": "", "target": "", "answer": answer,
                                   "read": a.get("id", ""), "search": a.get("query", "")}))


def test_the_view_reads_only_the_observation():
    view = StepView.of(obs(SEARCHED + ["- read(id='s0002') -> s0002: Ann Bell is a friend of "
                                       "Tom Reed.\nlinks: (none)"], 5)["text"])
    assert view.question == QUESTION and view.remaining == 5
    assert list(view.shown) == ["s0001", "s0002", "s0003"] and view.read == {"s0002"}
    assert view.searched == {("Ann Bell", 1): True}
    assert view.calls == ["search(query='Ann Bell', page=1)", "read(id='s0002')"]
    assert view.is_repeat({"action": "search", "query": "Ann Bell"})        # page 1 default
    assert not view.is_repeat({"action": "search", "query": "Ann Bell", "page": 2})
    assert view.index_offers() == [("s0003", "Friends of Ann Bell: everyone Ann Bell is a "
                                    "friend of.", "Ann Bell")]
    assert question_keys("How many friends of Ann Bell have the job of baker?") == \
        ("Ann Bell", "baker")


def test_cheapest_unseen_step_order():
    first = StepView.of(obs([], 15)["text"])
    assert cheapest_unseen(first) == {"action": "search", "query": QUESTION, "page": 1}
    asked = [f"- search(query='{QUESTION}', page=1) -> page 1:\n{HITS}"]
    view = StepView.of(obs(asked, 14)["text"])
    assert cheapest_unseen(view) == {"action": "search", "query": QUESTION, "page": 2}
    empty = asked + [f"- search(query='{QUESTION}', page=2) -> page 2: (no results)"]
    view = StepView.of(obs(empty, 13)["text"])
    assert cheapest_unseen(view) == {"action": "read", "id": "s0001"}


@pytest.mark.parametrize("mode", MODES)
def test_last_step_allows_only_answer(mode):
    with FakeServer(Script([reply(mode, Intent("search", {"query": "more"}))])) as srv:
        action = make("reader", srv, tool_mode=mode).act(obs(SEARCHED, 1), {})
        body = srv.chat_requests()[-1]
    if mode == "fields":  # the schema has no field but notes and answer
        assert set(body["response_format"]["schema"]["properties"]) == {"evidence", "answer"}
        assert action == {"action": "answer", "text": "unknown"}
        return
    assert action in ({"action": "answer", "text": "unknown"},)
    if mode == "tools":  # the same tools as every step, answer forced by name
        assert [t["function"]["name"] for t in body["tools"]] == ["search", "read", "answer"]
        assert body["tool_choice"] == {"type": "function", "function": {"name": "answer"}}
    if mode == "single":
        variants = body["tools"][0]["function"]["parameters"]["anyOf"]
        assert [v["properties"]["action"]["enum"] for v in variants] == [["answer"]]
    if mode == "text":
        assert body["messages"][1]["content"].endswith("This is your last action: reply "
                                                       "with answer.")


@pytest.mark.parametrize("mode", MODES)
def test_an_answer_on_the_last_step_is_kept(mode):
    with FakeServer(Script([reply(mode, Intent("answer", {"text": "baker"}))])) as srv:
        action = make("reader", srv, tool_mode=mode).act(obs(SEARCHED, 1), {})
    assert parse(action) == ("answer", {"text": "baker"})


@pytest.mark.parametrize("mode", MODES)
def test_no_answer_before_anything_was_shown(mode):
    with FakeServer(Script([reply(mode, Intent("answer", {"text": "baker"}))])) as srv:
        agent = make("reader", srv, tool_mode=mode)
        action = agent.act(obs([], 15), {})
    assert parse(action) == ("search", {"query": QUESTION, "page": 1})
    if mode != "fields":  # the fields schema has no answer there, so no guard is needed
        assert agent.stats["guards"] == {"early_answer": 1}


@pytest.mark.parametrize("mode", MODES)
def test_a_repeat_is_asked_again_once_then_replaced(mode):
    again = reply(mode, Intent("search", {"query": "Ann Bell"}))
    if mode == "fields":  # the fields mode pages a repeated query itself: repeat a read
        again = Raw(content=json.dumps({"evidence": "", "target": "", "answer": "", "read": "s0002",
                                        "search": ""}))
    history = SEARCHED + ["- read(id='s0002') -> s0002: Ann Bell is a friend of Tom Reed.\n"
                          "links: (none)"]
    with FakeServer(Script([again, again])) as srv:
        agent = make("reader", srv, tool_mode=mode)
        action = agent.act(obs(history, 9), {})
        bodies = srv.chat_requests()
    if mode == "fields":  # a read already done is never chosen: the cheapest unseen step
        assert parse(action) == ("search", {"query": QUESTION, "page": 1})
        return
    assert len(bodies) == 2
    assert bodies[1]["messages"][1]["content"].endswith(
        "Note: you already did search(query='Ann Bell', page=1) and its result is above; "
        "do something else.")
    assert agent.stats["guards"] == {"reask": 1, "repeat_replaced": 1}
    assert parse(action) == ("search", {"query": QUESTION, "page": 1})
    assert agent.stats["steps"] == 1 and agent.stats["calls"] == 2


@pytest.mark.parametrize("mode", ["tools", "text"])
def test_a_reasked_step_that_changes_its_call_keeps_it(mode):
    script = Script([Intent("search", {"query": "Ann Bell"}), Intent("read", {"id": "s0001"})])
    with FakeServer(script) as srv:
        agent = make("reader", srv, tool_mode=mode)
        assert parse(agent.act(obs(SEARCHED, 9), {})) == ("read", {"id": "s0001"})
    assert agent.stats["guards"] == {"reask": 1}


def test_guards_off_pass_everything_through():
    script = Script([Intent("answer", {"text": "baker"}), Intent("search", {"query": "x"})])
    with FakeServer(script) as srv:
        agent = make("reader", srv, tool_mode="tools", guards=False)
        assert parse(agent.act(obs([], 15), {})) == ("answer", {"text": "baker"})
        assert parse(agent.act(obs(SEARCHED, 1), {})) == ("search", {"query": "x", "page": 1})
        assert srv.chat_requests()[-1]["tool_choice"] == "required"
    assert agent.stats["guards"] == {}


def test_index_offers_follow_the_observation(server):
    agent = make("reader", server, tool_mode="tools")
    agent.act(obs(SEARCHED, 9), {})
    user = server.chat_requests()[-1]["messages"][1]["content"]
    assert user.startswith(obs(SEARCHED, 9)["text"])  # the observation as given, then offers
    assert user.endswith("\n\nOffer: s0003 is an index note naming Ann Bell; read s0003 to "
                         "see every note it links to.")
    read = SEARCHED + ["- read(id='s0003') -> s0003: Friends of Ann Bell: everyone Ann Bell "
                       "is a friend of.\nlinks:\n- s0002: Ann Bell is a friend of Tom Reed."]
    agent.act(obs(read, 8), {})
    assert "Offer:" not in server.chat_requests()[-1]["messages"][1]["content"]
    make("reader", server, tool_mode="tools", offers=False).act(obs(SEARCHED, 9), {})
    assert server.chat_requests()[-1]["messages"][1]["content"] == obs(SEARCHED, 9)["text"]


def test_guarded_reader_on_a_real_exam_is_offered_and_reads_the_index(universe):
    """A library with one authored index note: the offer appears once the note is shown, and
    a fields reader that takes it reads the note and counts its links."""
    q = next(universe.question(qid) for qid in universe.splits["test_in"]
             + universe.splits["train"] if universe.question(qid).template == "qc4_children")
    person = q.text.removeprefix("How many children does ").removesuffix(" have?")
    lib = Library.from_universe(universe)
    children = [n.id for n in lib.nodes() if n.text.startswith(f"{person} is the ")
                and " of " in n.text and ("father" in n.text or "mother" in n.text)]
    assert children
    index = lib.add(f"Children of {person}.").id
    lib.link_many(index, children)

    def model(body):
        text = body["messages"][-1]["content"]
        view = StepView.of(text.split("\n\nOffer:")[0])
        if view.nothing_shown:
            return Raw(content=json.dumps({"evidence": "", "target": "", "search": person}))
        offers = view.index_offers()
        if offers:
            return Raw(content=json.dumps({"evidence": "", "target": "", "answer": "",
                                           "read": offers[0][0], "search": person}))
        return Raw(content=json.dumps({"evidence": "", "matching": children + ["s9999"],
                                       "answer": "many", "target": "", "search": ""}))

    with FakeServer(model) as srv:
        env = KBGymEnv(universe, mode="probe", library=lib, split="all",
                       questions=[q])
        agent = make("reader", srv, tool_mode="fields")
        summary, rows, _ = run_episode(env, agent, q.qid)
    assert [r["action"] for r in rows] == ["search", "read", "answer"]
    assert rows[1]["input"] == {"id": index}
    assert rows[2]["input"] == {"text": str(len(children))} and summary["f1"] == 1.0
    assert agent.stats["fields"] == {"count": 1, "read": 1}  # the search was the agent's
    assert agent.stats["guards"] == {"first_search": 1}


def parse(action):
    from kbgym.env.actions import canonical_args, parse_action

    a = parse_action(action)
    return a.name, canonical_args(a)
