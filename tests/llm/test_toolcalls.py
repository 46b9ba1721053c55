"""Reading replies: tool calls, the single ``act`` tool, and JSON in text."""

from __future__ import annotations

import json

import pytest

from kbgym_agents.llm.toolcalls import (
    build_request,
    json_candidate,
    phase_schemas,
    read_reply,
    read_text_call,
    single_tool,
    text_protocol,
)
from kbgym.env.actions import parse_action, phase_tools


def call(name, arguments):
    return {"tool_calls": [{"id": "c", "type": "function",
                            "function": {"name": name, "arguments": arguments}}], "content": None}


@pytest.mark.parametrize("text, expected", [
    ('{"name": "search", "arguments": {"query": "x"}}', {"name": "search",
                                                         "arguments": {"query": "x"}}),
    ('Sure.\n```json\n{"name": "read", "arguments": {"id": "s0001"}}\n```\nDone.',
     {"name": "read", "arguments": {"id": "s0001"}}),
    ('```\n{"action": "answer", "text": "a {b} c"}\n```', {"action": "answer", "text": "a {b} c"}),
    ('I will call {"name": "answer", "arguments": {"text": "}"}} now',
     {"name": "answer", "arguments": {"text": "}"}}),
    ('<tool_call>\n{"name": "done", "arguments": {}}\n</tool_call>', {"name": "done",
                                                                     "arguments": {}}),
    ('{"tool": "search", "args": {"query": "y"}}', {"name": "search", "arguments": {"query": "y"}}),
    ('{"name": "act", "arguments": {"action": "read", "id": "s0002"}}',
     {"action": "read", "id": "s0002"}),
    # seen from Qwen2.5-Coder-1.5B on llama.cpp with tool_choice "required":
    ('{{"name": "search", "arguments": {"query": "lives in the city of Ambleford", "page": 1}}}',
     {"name": "search", "arguments": {"query": "lives in the city of Ambleford", "page": 1}}),
])
def test_text_calls_parse(text, expected):
    action, found = read_text_call(text)
    assert found and action == expected
    assert parse_action(action).valid


def test_text_without_json_is_no_call_and_broken_json_passes_through():
    assert read_text_call("I think the answer is Paris.") == (None, False)
    assert read_text_call("") == (None, False)
    action, found = read_text_call('{"name": "search", "arguments": {"query": ')
    assert found and isinstance(action, str)
    assert parse_action(action).error == "ERROR: bad input: could not read an action"
    assert json_candidate("x {a} y {b}") == "{a}"


def test_read_reply_shapes():
    r = read_reply(call("search", '{"query": "q"}'))
    assert r.how == "tool_call" and parse_action(r.action).query == "q"
    r = read_reply(call("act", '{"action": "read", "id": " s0003 "}'))
    assert r.how == "act" and parse_action(r.action).id == "s0003"
    r = read_reply(call("act", '{"action": "read", '))
    assert r.how == "act" and parse_action(r.action).error.startswith("ERROR: bad input")
    r = read_reply(call("frobnicate", "{}"))
    assert parse_action(r.action).error == "ERROR: unknown action frobnicate"
    r = read_reply(call("read", "{}"))
    assert parse_action(r.action).error == "ERROR: bad input: id is missing"
    r = read_reply({"content": "no idea", "tool_calls": None})
    assert r.how == "none" and r.action is None
    two = call("search", '{"query": "first"}')
    two["tool_calls"].append({"function": {"name": "answer", "arguments": '{"text": "x"}'}})
    assert parse_action(read_reply(two).action).query == "first"


def test_single_tool_schema_is_the_action_union():
    schemas = phase_schemas(2)
    tool = single_tool(schemas)
    assert tool["function"]["name"] == "act"
    variants = tool["function"]["parameters"]["anyOf"]
    assert [v["properties"]["action"]["enum"] for v in variants] == \
        [[n] for n in phase_tools("backward")]
    link_many = variants[phase_tools("backward").index("link_many")]
    assert link_many["required"] == ["action", "source", "targets"]
    flat = single_tool(schemas, flat=True)["function"]["parameters"]
    assert flat["properties"]["action"]["enum"] == list(phase_tools("backward"))
    assert single_tool(schemas) is single_tool(schemas)


def test_requests_per_mode():
    schemas = phase_schemas(0)
    r = build_request("tools", schemas)
    assert r.fields == {"tools": schemas, "tool_choice": "required",
                        "parallel_tool_calls": False}
    r = build_request("single", schemas)
    assert r.fields["tool_choice"] == {"type": "function", "function": {"name": "act"}}
    r = build_request("text", schemas, json_mode=True)
    assert "tools" not in r.fields and r.fields["response_format"] == {"type": "json_object"}
    assert r.system_suffix == text_protocol(schemas)
    assert "- search(query: string, page: integer = 1)" in r.system_suffix
    with pytest.raises(ValueError):
        build_request("magic", schemas)


def test_schemas_match_the_env(universe):
    from kbgym.env import KBGymEnv

    env = KBGymEnv(universe, mode="train")
    for code, name in ((1, "forward"), (2, "backward")):
        assert phase_schemas(code) == env.tool_schemas(name)
    assert json.dumps(phase_schemas(0)) == json.dumps(env.tool_schemas("probe"))
