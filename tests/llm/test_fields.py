"""The fields mode: the model fills fields, the agent takes exactly one action (fake server)."""

from __future__ import annotations

from functools import partial

import pytest

from fake_server import FakeServer, Raw, Script
from kbgym_agents.llm.fields import (
    CurationView,
    curator_action,
    curator_schema,
    read_object,
    reader_action,
    reader_schema,
    response_format,
)
from kbgym_agents.llm.fields import reader_action as fields_reader_action
from kbgym_agents.llm.guards import StepView
from kbgym_agents.llm.skills import load_skill
from llm_helpers import make
from kbgym.env import KBGymEnv
from kbgym.errors import ConfigError
from kbgym.runs.episode import run_episode

HITS = ("- s0001: Ann Bell is married to Tom Reed.\n- s0002: Ann Bell's job is potter.\n"
        "- s0003: Friends of Ann Bell: everyone Ann Bell is a friend of.")


def view(question: str, history: list[str], remaining: int) -> StepView:
    lines = "\n".join(history) if history else "(no actions yet)"
    return StepView.of(f"QUESTION q0001\n{question}\n\nRecent actions (oldest first):\n"
                       f"{lines}\n\nRemaining actions this phase: {remaining}.")


Q = "What is the job of the spouse of Ann Bell?"
FIRST = {"phase": 0, "text": "QUESTION q0001\nWhat is the job of Ann Bell?\n\nRecent actions "
         "(oldest first):\n(no actions yet)\n\nRemaining actions this phase: 15."}
SEARCHED = [f"- search(query='Ann Bell is married to', page=1) -> page 1:\n{HITS}"]


def test_the_schema_follows_the_guards():
    first = reader_schema(view(Q, [], 15))
    assert list(first["properties"]) == ["target", "search"]  # nothing to quote or answer yet
    assert first["required"] == list(first["properties"])
    mid = reader_schema(view(Q, SEARCHED, 9))
    assert list(mid["properties"]) == ["evidence", "answer", "target", "read", "search"]
    # only authored notes are worth a read: a fact's note shows nothing more
    assert mid["properties"]["read"]["enum"] == ["", "s0003"]
    assert mid["properties"]["evidence"]["enum"] == [
        "", "Ann Bell is married to Tom Reed.", "Ann Bell's job is potter.",
        "Friends of Ann Bell: everyone Ann Bell is a friend of."]
    # answers are what the notes tied to the question offer, or "not yet"; Ann Bell's own
    # job does not answer a question about her spouse
    assert mid["properties"]["answer"]["enum"] == ["not yet"]
    spouse = SEARCHED + ["- search(query=\"Tom Reed's job is\", page=1) -> page 1:\n"
                         "- s0009: Tom Reed's job is baker.\n- s0010: Una Reed's job is cook."]
    assert reader_schema(view(Q, spouse, 8))["properties"]["answer"]["enum"] == \
        ["not yet", "baker"]
    assert mid["properties"]["target"]["minLength"] == 1
    last = reader_schema(view(Q, SEARCHED, 1))
    assert list(last["properties"]) == ["evidence", "answer"]
    assert last["properties"]["answer"]["enum"] == ["unknown"]
    count = reader_schema(view("How many friends does Ann Bell have?", SEARCHED, 9))
    assert list(count["properties"])[:2] == ["evidence", "matching"]
    assert count["properties"]["matching"]["items"]["enum"] == ["s0001", "s0002", "s0003"]


def test_reader_action_takes_one_action():
    # the mechanics without the relation chain (see the chain tests below)
    reader_action = partial(fields_reader_action, chain=False)
    v = view(Q, SEARCHED, 9)
    v_job = view("What is the job of Ann Bell?", SEARCHED, 9)
    assert reader_action({"answer": "potter", "search": "x"}, v_job).action == \
        {"action": "answer", "text": "potter"}
    # an answer no shown note offers is ignored (before the last step)
    assert reader_action({"answer": "baker", "search": "x"}, v).action == \
        {"action": "search", "query": "x", "page": 1}
    # an offered index note is read before a search; another note only when no search is given
    assert reader_action({"answer": "", "read": "s0003", "search": "x"}, v).action == \
        {"action": "read", "id": "s0003"}
    assert reader_action({"answer": "none", "read": "s0001", "search": "Tom Reed"}, v).action \
        == {"action": "search", "query": "Tom Reed", "page": 1}
    assert reader_action({"read": "s0001", "search": ""}, v).action == \
        {"action": "read", "id": "s0001"}
    # the same words again: their next page
    assert reader_action({"search": "Ann Bell is married to"}, v).action == \
        {"action": "search", "query": "Ann Bell is married to", "page": 2}
    # an id never shown, nothing else, or no object at all: the cheapest unseen step
    for obj in ({"read": "s9999"}, {}, None):
        d = reader_action(obj, v)
        assert d.how == "fallback" and d.action == {"action": "search", "query": Q, "page": 1}
    assert reader_action({"answer": ""}, view(Q, SEARCHED, 1)).action == \
        {"action": "answer", "text": "unknown"}
    # the target's words are searched when no search is given
    assert reader_action({"answer": "not yet", "target": "the job of Tom Reed"}, v).action \
        == {"action": "search", "query": "the job of Tom Reed", "page": 1}


def test_a_count_is_the_number_of_matching_shown_ids():
    v = view("How many friends does Ann Bell have?", SEARCHED, 9)
    d = reader_action({"matching": ["s0001", "s0002", "s0002", "s7777"], "answer": "5"}, v)
    assert d.action == {"action": "answer", "text": "2"} and d.how == "count"
    assert reader_action({"matching": [], "answer": "5"}, v).action["text"] == "5"
    assert reader_action({"matching": ["s0001"], "answer": ""}, v).how != "count"


def test_read_object_finds_the_json():
    assert read_object('```json\n{"answer": "x"}\n```') == {"answer": "x"}
    assert read_object('sure: {"answer": "x", "read": ""} done') == {"answer": "x", "read": ""}
    assert read_object("no json") is None and read_object(None) is None


def test_response_format_styles():
    schema = {"type": "object"}
    assert response_format(schema, "schema") == {"type": "json_object", "schema": schema}
    assert response_format(schema, "json_schema")["json_schema"]["schema"] == schema
    assert response_format(schema, "object") == {"type": "json_object"}
    assert response_format(schema, "off") is None


BACKWARD = ("TRAIN QUESTION q0001 [phase 2: backward]\nWho is ...?\n\nRecent actions (oldest "
            "first):\n- search(query='Ann Bell', page=1) -> page 1:\n" + HITS + "\n{more}"
            "\n\nRemaining actions this phase: 20.")


def cview(more: str = "") -> CurationView:
    return CurationView.of(BACKWARD.replace("{more}", more).replace("\n\n\n", "\n\n"))


def test_curator_action_searches_adds_links_and_finishes():
    fields = {"key": "Ann Bell", "title": "About Ann Bell", "members": ["s0001", "s0002"],
              "search": "", "finished": False}
    assert curator_action(fields, cview()).action == {"action": "search",
                                                      "query": "About Ann Bell."}
    searched = "- search(query='About Ann Bell.', page=1) -> page 1: (no results)"
    assert curator_action(fields, cview(searched)).action == {"action": "add",
                                                              "text": "About Ann Bell."}
    added = searched + "\n- add(text='About Ann Bell.') -> added s0100"
    assert curator_action(fields, cview(added)).action == {
        "action": "link_many", "source": "s0100", "targets": ["s0001", "s0002"]}
    linked = added + ("\n- link_many(source='s0100', targets=['s0001', 's0002']) -> linked "
                      "s0100 -> 2 notes: s0001, s0002 (s0100 now has 2 links)")
    assert curator_action({**fields, "search": "Ann Bell job"}, cview(linked)).action == \
        {"action": "search", "query": "Ann Bell job"}
    assert curator_action(fields, cview(linked)).action == {"action": "done"}
    assert curator_action({**fields, "finished": True}, cview()).action == {"action": "done"}
    # a shown note with the title's exact text is the index: extended, not added again
    shown = ("- search(query='Friends of Ann Bell: everyone Ann Bell is a friend of.', page=1)"
             " -> page 1:\n- s0003: Friends of Ann Bell: everyone Ann Bell is a friend of.")
    title = {**fields, "title": "Friends of Ann Bell: everyone Ann Bell is a friend of."}
    assert curator_action(title, cview(shown)).action == {
        "action": "link_many", "source": "s0003", "targets": ["s0001", "s0002"]}
    schema = curator_schema(cview())
    assert schema["properties"]["members"]["items"]["enum"] == ["s0001", "s0002", "s0003"]


def test_a_fields_training_iteration_is_all_valid(server, universe):
    agent = make("trainer", server, tool_mode="fields", skill_set="small")
    env = KBGymEnv(universe, mode="train")
    summary, rows, _ = run_episode(env, agent, universe.splits["train"][0])
    assert [r["action"] for r in rows] == ["search", "answer", "search", "add", "link_many",
                                           "done"]
    assert all(r["valid"] for r in rows)
    # the first step is the agent's own search of the question: five calls for six steps
    assert agent.stats["decisions"] == {"fields": 5}
    assert agent.stats["guards"] == {"first_search": 1} and agent.stats["calls"] == 5
    bodies = server.chat_requests()
    assert all("tools" not in b and b["response_format"]["type"] == "json_object"
               for b in bodies)
    assert bodies[0]["messages"][0]["content"] == load_skill("retrieval_small") + \
        bodies[0]["messages"][0]["content"][len(load_skill("retrieval_small")):]
    assert '"finished": false' in bodies[-1]["messages"][0]["content"]
    assert agent.meta["skill_set"] == "small" and agent.meta["request"]["fields_json"] == \
        "schema"


@pytest.mark.parametrize("style, expected", [("json_schema", "json_schema"),
                                             ("object", "json_object"), ("off", None)])
def test_fields_json_styles_as_sent(server, style, expected):
    agent = make("reader", server, tool_mode="fields", fields_json=style, first_search=False)
    assert agent.act(FIRST, {})["action"] == "search"
    body = server.chat_requests()[-1]
    assert (body.get("response_format") or {}).get("type") == expected


def test_unreadable_replies_are_counted():
    with FakeServer(Script([Raw(content="I think I should search.")])) as srv:
        agent = make("reader", srv, tool_mode="fields", first_search=False)
        assert agent.act(FIRST, {}) == {"action": "search", "query": "What is the job of Ann "
                                      "Bell?", "page": 1}
    assert agent.stats["fields"] == {"unreadable": 1}


def test_the_first_step_is_the_agents_own_search(server):
    agent = make("reader", server, tool_mode="fields")
    assert agent.act(FIRST, {}) == {"action": "search", "query": "What is the job of Ann Bell?",
                                    "page": 1}
    assert server.chat_requests() == [] and agent.stats["guards"] == {"first_search": 1}
    assert make("reader", server, tool_mode="tools").first_search is False


def test_bad_settings_are_refused(server):
    with pytest.raises(ConfigError, match="skill set"):
        make("reader", server, skill_set="tiny")
    with pytest.raises(ConfigError, match="fields_json"):
        make("reader", server, fields_json="yaml")
    with pytest.raises(ConfigError, match="unknown skill"):
        make("reader", server, skill_set="small", toolset="evidence")


def test_retrieval_steps_send_the_worked_turns_first(server):
    from kbgym_agents.llm.skills import load_turns

    agent = make("reader", server, tool_mode="fields", skill_set="small", first_search=False)
    agent.act(FIRST, {})
    messages = server.chat_requests()[-1]["messages"]
    turns = list(load_turns("retrieval_fields_demo"))
    assert [m["role"] for m in turns] == ["user", "assistant"] * (len(turns) // 2)
    assert messages[1:-1] == turns and messages[-1] == {"role": "user",
                                                        "content": FIRST["text"]}
    for t in turns:  # every worked reply is one the agent reads as fields
        if t["role"] == "assistant":
            assert read_object(t["content"]) is not None
    make("reader", server, tool_mode="fields", demo=None, first_search=False).act(FIRST, {})
    assert len(server.chat_requests()[-1]["messages"]) == 2
    assert agent.meta["demo"]["name"] == "retrieval_fields_demo"


def test_the_cli_steers_the_mode_and_skills_by_environment(server, monkeypatch):
    from kbgym_agents.llm import factories

    monkeypatch.setenv("KBGYM_LLM_TOOL_MODE", "fields")
    monkeypatch.setenv("KBGYM_LLM_SKILLS", "small")
    monkeypatch.setenv("KBGYM_LLM_FIELDS_JSON", "json_schema")
    agent = factories.reader(model="fake", base_url=server.url)
    assert (agent.tool_mode, agent.skill_set, agent.fields_json) == \
        ("fields", "small", "json_schema")
    assert agent.skill_names == {"probe": "retrieval_small", "forward": "retrieval_small"}


def test_a_stuck_reader_guesses_instead_of_paging_to_the_end():
    reader_action = partial(fields_reader_action, chain=False)  # the chain would search
    q = "What is the hobby of the father of Ann Bell?"
    pages = [f"- search(query='the hobby of Ann Bell', page={p}) -> page {p}:\n{HITS}"
             for p in (1, 2)]
    v = view(q, [f"- search(query='{q}', page=1) -> page 1:\n{HITS}"] + pages, 11)
    d = reader_action({"answer": "not yet", "target": "the hobby of Ann Bell"}, v)
    assert d.how == "stuck" and d.action == {"action": "answer", "text": "unknown"}
    # the model's own words page on to page 3, then they are stuck too
    d = reader_action({"answer": "not yet", "search": "the hobby of Ann Bell"}, v)
    assert d.action == {"action": "search", "query": "the hobby of Ann Bell", "page": 3}
    third = view(q, [f"- search(query='{q}', page=1) -> page 1:\n{HITS}"] + pages + [
        f"- search(query='the hobby of Ann Bell', page=3) -> page 3:\n{HITS}"], 10)
    assert reader_action({"search": "the hobby of Ann Bell"}, third).how == "stuck"


def test_a_note_about_x_does_not_answer_a_question_about_xs_mother():
    hits = ("- s0001: Ann Bell lives in the city of Dunmore.\n"
            "- s0002: Eve Moss is the mother of Ann Bell.\n"
            "- s0003: Eve Moss lives in the city of Elmbury.")
    v = view("In which city does the mother of Ann Bell live?",
             [f"- search(query='x', page=1) -> page 1:\n{hits}"], 9)
    assert reader_schema(v)["properties"]["answer"]["enum"] == ["not yet", "Elmbury"]
    v = view("In which city does Ann Bell live?",
             [f"- search(query='x', page=1) -> page 1:\n{hits}"], 9)
    assert reader_schema(v)["properties"]["answer"]["enum"] == ["not yet", "Dunmore", "Elmbury"]


# -- relation chains ---------------------------------------------------------------------------

CHAIN_Q = "What is the job of the spouse of Ann Bell?"
# the first page names Ann Bell's child next to her: the child is not her spouse
CHILD_PAGE = ("- s0001: Ann Bell's job is potter.\n- s0002: Ann Bell is the mother of Ivo Bell.\n"
              "- s0003: Ivo Bell's job is baker.")


def test_question_chains_are_read_from_the_words():
    from kbgym_agents.llm.chain import Chain, question_chain

    assert question_chain(CHAIN_Q) == Chain("job", "Ann Bell", ("spouse",))
    assert question_chain("What is the job of the spouse of the father of Ann Bell?") == \
        Chain("job", "Ann Bell", ("father", "spouse"))
    assert question_chain("In which city does the mother of the spouse of Ann Bell live?") == \
        Chain("city", "Ann Bell", ("spouse", "mother"))
    for q in ("What is the job of Ann Bell?", "How many friends does the spouse of Ann Bell "
              "have?", "Whose spouse has the job of baker?"):
        assert question_chain(q) is None


def test_a_chain_question_is_answered_only_by_the_person_at_its_end():
    from kbgym_agents.llm.chain import chain_line
    from kbgym_agents.llm.fields import chain_state

    v = view(CHAIN_Q, [f"- search(query='{CHAIN_Q}', page=1) -> page 1:\n{CHILD_PAGE}"], 14)
    # neither Ann Bell's own job nor her child's answers it
    assert reader_schema(v)["properties"]["answer"]["enum"] == ["not yet"]
    assert reader_schema(v, chain=False)["properties"]["answer"]["enum"] == \
        ["not yet", "baker"]
    d = reader_action({"answer": "baker", "search": "Ivo Bell's job is"}, v)
    assert d.how == "chain" and d.action == {"action": "search",
                                             "query": "Ann Bell is married to", "page": 1}
    assert chain_line(chain_state(v)) == (
        'Chain: no shown note says who the spouse of Ann Bell is (search "Ann Bell is married '
        'to").')
    # words asking for what the chain misses, of the person it waits on, are the model's own
    assert reader_action({"search": "Ann Bell married"}, v).action["query"] == "Ann Bell married"
    assert reader_action({"search": "Ann Bell's job is"}, v).how == "chain"  # not her job
    # the spouse found, then her job
    hist = [f"- search(query='{CHAIN_Q}', page=1) -> page 1:\n{CHILD_PAGE}",
            "- search(query='Ann Bell is married to', page=1) -> page 1:\n"
            "- s0004: Tom Reed is married to Ann Bell."]
    v = view(CHAIN_Q, hist, 13)
    assert reader_action({"search": "Ivo Bell's job is"}, v).action["query"] == \
        "Tom Reed's job is"
    assert "the spouse of Ann Bell is Tom Reed (s0004)" in chain_line(chain_state(v))
    v = view(CHAIN_Q, hist + ["- search(query=\"Tom Reed's job is\", page=1) -> page 1:\n"
                              "- s0005: Tom Reed's job is cook."], 12)
    assert reader_schema(v)["properties"]["answer"]["enum"] == ["not yet", "cook"]
    assert reader_action({"answer": "cook"}, v).action == {"action": "answer", "text": "cook"}
    assert chain_line(chain_state(v)).endswith("the job of Tom Reed is cook (s0005).")


def test_fathers_mothers_and_parents_named_by_child_of():
    from kbgym_agents.llm.chain import Chain, follow

    shown = {"s1": "Felix Bell is a child of Ursula Bell.", "s2": "Felix Bell is a child of Jasper Reed.",
             "s3": "Jasper Reed's hobby is chess.", "s4": "Ursula Bell's hobby is golf.",
             "s5": "Felix Bell is the father of Mabel Bell."}
    st = follow(Chain("hobby", "Felix Bell", ("father",)), shown)
    assert st.links == [{"Jasper Reed": "s2"}] and st.answers == ["chess"]
    st = follow(Chain("hobby", "Felix Bell", ("mother",)), shown)
    assert st.links == [{"Ursula Bell": "s1"}] and st.answers == ["golf"]
    st = follow(Chain("hobby", "Mabel Bell", ("mother",)), shown)
    assert st.missing == 0 and st.query == "is the mother of Mabel Bell" and st.answers == []


def test_the_agent_shows_the_chain_line_after_the_observation(server):
    hist = f"- search(query='{CHAIN_Q}', page=1) -> page 1:\n{CHILD_PAGE}"
    obs = {"phase": 0, "text": f"QUESTION q0001\n{CHAIN_Q}\n\nRecent actions (oldest first):\n"
           f"{hist}\n\nRemaining actions this phase: 14."}
    for chain, shown in ((True, True), (False, False)):
        agent = make("reader", server, tool_mode="fields", skill_set="small", chain=chain)
        agent.act(obs, {})
        user = server.chat_requests()[-1]["messages"][-1]["content"]
        assert ("\n\nChain: no shown note says who the spouse of Ann Bell is" in user) is shown
        assert agent.meta["chain"] is chain
        # the worked turns show chain lines only to an agent that adds them
        messages = server.chat_requests()[-1]["messages"]
        assert any("Chain:" in m["content"] for m in messages[1:-1]) is chain
    qc1 = dict(obs, text=obs["text"].replace(CHAIN_Q, "What is the job of Ann Bell?"))
    make("reader", server, tool_mode="fields", skill_set="small").act(qc1, {})
    assert "Chain:" not in server.chat_requests()[-1]["messages"][-1]["content"]


def test_the_worked_turns_show_the_chain_lines_the_agent_would_add():
    from kbgym_agents.llm.chain import chain_line
    from kbgym_agents.llm.fields import chain_state
    from kbgym_agents.llm.skills import load_turns

    seen = 0
    for t in load_turns("retrieval_fields_demo"):
        if t["role"] != "user":
            continue
        lines = t["content"].split("\n\nRemaining actions this phase: ", 1)[1]
        after = lines.split("\n\n", 1)[1] if "\n\n" in lines else ""
        # the agent reads the observation, not the lines it adds after it
        state = chain_state(StepView.of(t["content"].split("\n\nOffer:")[0]
                                        .split("\n\nChain:")[0]))
        got = [line for line in after.split("\n") if line.startswith("Chain:")]
        assert got == ([chain_line(state)] if state is not None else [])
        seen += bool(got)
    assert seen >= 4
