"""SPEC §8 / §18: action models, parse_action (every error and input shape), rendering, schemas."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbgym.env.actions import (
    ACTION_MODELS,
    ACTION_NAMES,
    BACKWARD_TOOLS,
    EVIDENCE_TOOLS,
    FORWARD_TOOLS,
    LINK_TYPES,
    PROBE_TOOLS,
    TOOL_DESCRIPTIONS,
    _FIELD_KINDS,
    Add,
    Done,
    Edit,
    Expand,
    InvalidAction,
    Link,
    LinkMany,
    Locate,
    Read,
    Search,
    call_repr,
    canonical_args,
    parse_action,
    phase_tools,
    precheck,
    tool_schemas,
)


def err(raw, **kw) -> str:
    out = parse_action(raw, **kw)
    assert isinstance(out, InvalidAction), out
    return out.error


def ok(raw, **kw):
    out = parse_action(raw, **kw)
    assert not isinstance(out, InvalidAction), out
    return out


# --- constants ---------------------------------------------------------------------------------


def test_constants():
    assert LINK_TYPES == ("refers_to", "supersedes", "amends", "cites", "member_of", "related")
    assert set(ACTION_NAMES) == set(ACTION_MODELS) == set(TOOL_DESCRIPTIONS) == set(_FIELD_KINDS)
    assert FORWARD_TOOLS == PROBE_TOOLS == ("search", "read", "answer")
    assert BACKWARD_TOOLS == (
        "search", "read", "add", "edit", "delete", "link", "link_many", "unlink", "done",
    )  # fmt: skip
    for name, model in ACTION_MODELS.items():
        fields = [f for f in model.model_fields if f != "action"]
        assert fields == list(_FIELD_KINDS[name]), name


def test_tool_descriptions_exact():
    assert TOOL_DESCRIPTIONS["search"] == "Find notes whose words match the query; 5 per page."
    assert TOOL_DESCRIPTIONS["read"] == "Show a note and the full text of every note it links to."
    assert TOOL_DESCRIPTIONS["answer"] == "Submit your final short answer; ends the phase."
    assert TOOL_DESCRIPTIONS["add"] == "Create a one-sentence note."
    assert TOOL_DESCRIPTIONS["edit"] == "Replace a note's text."
    assert TOOL_DESCRIPTIONS["delete"] == "Remove a note and all links to it."
    assert TOOL_DESCRIPTIONS["link"] == "Link source to target."
    assert TOOL_DESCRIPTIONS["link_many"] == "Link source to up to 40 targets."
    assert TOOL_DESCRIPTIONS["unlink"] == "Remove a link."
    assert TOOL_DESCRIPTIONS["done"] == "Finish curating."


def test_phase_tools():
    assert phase_tools("forward") == ("search", "read", "answer")
    assert phase_tools("probe") == ("search", "read", "answer")
    assert phase_tools("backward") == BACKWARD_TOOLS
    assert phase_tools("forward", "evidence") == ("search", "read", "answer", *EVIDENCE_TOOLS)
    assert phase_tools("probe", "evidence") == ("search", "read", "answer", "locate", "expand")
    assert phase_tools("backward", "evidence") == BACKWARD_TOOLS
    with pytest.raises(ValueError):
        phase_tools("sideways")
    with pytest.raises(ValueError):
        phase_tools("forward", "fancy")


# --- accepted input shapes ---------------------------------------------------------------------

EXPECTED = Search(query="Ann Bell", page=2)
ARGS = {"query": "Ann Bell", "page": 2}


@pytest.mark.parametrize(
    "raw",
    [
        Search(query="Ann Bell", page=2),
        {"action": "search", **ARGS},
        {"name": "search", "arguments": ARGS},
        {"name": "search", "arguments": json.dumps(ARGS)},
        json.dumps({"action": "search", **ARGS}),
        json.dumps({"name": "search", "arguments": ARGS}),
        json.dumps({"name": "search", "arguments": json.dumps(ARGS)}),
        json.dumps({"action": "search", **ARGS}).encode(),
        {"function": {"name": "search", "arguments": json.dumps(ARGS)}},
        {"id": "call_1", "type": "function", "function": {"name": "search", "arguments": ARGS}},
        SimpleNamespace(function=SimpleNamespace(name="search", arguments=json.dumps(ARGS))),
        SimpleNamespace(id="c", function={"name": "search", "arguments": ARGS}),
        SimpleNamespace(type="function_call", name="search", arguments=json.dumps(ARGS)),
        {"function": SimpleNamespace(name="search", arguments=json.dumps(ARGS))},
    ],
)
def test_accepted_shapes(raw):
    assert ok(raw) == EXPECTED


def test_openai_tool_call_object():
    chat = pytest.importorskip("openai.types.chat")
    call = chat.ChatCompletionMessageToolCall(
        id="call_1",
        type="function",
        function={"name": "read", "arguments": '{"id": " s0042 "}'},
    )
    assert ok(call) == Read(id="s0042")
    assert err(call, allowed=("search",)) == "ERROR: read is not available in this phase"
    dumped = call.model_dump()
    assert ok(dumped) == Read(id="s0042")


@pytest.mark.parametrize("arguments", [None, "", "  ", "{}", {}])
def test_no_argument_tools(arguments):
    assert ok({"name": "done", "arguments": arguments}) == Done()
    assert ok({"function": {"name": "done", "arguments": arguments}}) == Done()


def test_name_only_dict_and_action_dict_without_args():
    assert ok({"name": "done"}) == Done()
    assert ok({"action": "done"}) == Done()
    assert ok('{"action": "done"}') == Done()


def test_action_instance_is_revalidated():
    assert ok(Read(id="  s0001 ")) == Read(id="s0001")
    assert err(Link(source="s1", target="s2", type="cites")) == (
        "ERROR: bad input: link types are disabled"
    )
    assert ok(Link(source="s1", target="s2", type="cites"), typed_links=True).type == "cites"
    assert err(Add(text="x"), allowed=FORWARD_TOOLS) == "ERROR: add is not available in this phase"


def test_extra_fields_ignored():
    out = ok({"action": "read", "id": "s0001", "reason": "because", "page": 99})
    assert out == Read(id="s0001")
    out = ok({"name": "done", "arguments": {"thoughts": "x"}, "id": "call_9"})
    assert out == Done()


def test_ids_are_stripped_text_is_not():
    assert ok({"action": "read", "id": "\t s0001 \n"}).id == "s0001"
    a = ok({"action": "link_many", "source": " s1", "targets": [" s2 ", "s3\n"]})
    assert a == LinkMany(source="s1", targets=["s2", "s3"])
    e = ok({"action": "edit", "id": " s1 ", "text": "  keep me  "})
    assert e == Edit(id="s1", text="  keep me  ")  # the library normalises note text
    assert ok({"action": "answer", "text": " Ann "}).text == " Ann "
    assert ok({"action": "search", "query": " ann "}).query == " ann "
    assert ok({"action": "unlink", "source": " s1 ", "target": " s2"}).target == "s2"


def test_action_name_is_stripped_but_case_sensitive():
    assert ok({"action": " read ", "id": "s1"}) == Read(id="s1")
    assert err({"action": "Read", "id": "s1"}) == "ERROR: unknown action Read"


# --- errors, in §8.3 order ---------------------------------------------------------------------


def test_step1_no_action():
    assert err(None) == "ERROR: no action was given"
    assert err(None, allowed=()) == "ERROR: no action was given"


@pytest.mark.parametrize(
    "raw",
    [
        "", "not json", "[1, 2]", '"search"', "42", "null", 42, 3.5, True, [1], ("search",),
        object(), {}, {"query": "x"}, {"action": None}, {"action": 5}, {"action": ""},
        {"name": None, "arguments": {}}, {"name": ["search"]}, {"function": "search"},
        {"function": {"arguments": "{}"}}, b"\xff\xfe", "{bad json",
    ],
)  # fmt: skip
def test_step2_could_not_read(raw):
    out = parse_action(raw)
    assert isinstance(out, InvalidAction)
    assert out.error == "ERROR: bad input: could not read an action"
    assert out.name is None
    assert call_repr(out) == f"?({repr(raw)[:200]})"


@pytest.mark.parametrize(
    "raw",
    [
        {"name": "search", "arguments": "{not json"},
        {"name": "search", "arguments": "[1, 2]"},
        {"name": "search", "arguments": 7},
        {"function": {"name": "search", "arguments": '"x"'}},
    ],
)
def test_step2_unreadable_arguments_with_known_name(raw):
    out = parse_action(raw)
    assert out.error == "ERROR: bad input: could not read an action"
    assert out.name == "search"
    assert call_repr(out).startswith("search(")


def test_step2_unknown_action():
    assert err({"action": "fly"}) == "ERROR: unknown action fly"
    assert err({"name": "fly", "arguments": "{bad"}) == "ERROR: unknown action fly"
    assert err('{"action": "fly", "to": "moon"}') == "ERROR: unknown action fly"
    out = parse_action({"action": "fly", "to": "moon"})
    assert call_repr(out) == "fly(to='moon')"


def test_step3_phase():
    assert err({"action": "add", "text": "x"}, allowed=FORWARD_TOOLS) == (
        "ERROR: add is not available in this phase"
    )
    assert err({"action": "answer", "text": "x"}, allowed=BACKWARD_TOOLS) == (
        "ERROR: answer is not available in this phase"
    )
    assert err({"action": "locate", "terms": "x"}, allowed=phase_tools("probe")) == (
        "ERROR: locate is not available in this phase"
    )
    assert ok({"action": "locate", "terms": "x"}, allowed=phase_tools("probe", "evidence"))
    # phase is checked before fields
    assert err({"action": "add"}, allowed=FORWARD_TOOLS) == (
        "ERROR: add is not available in this phase"
    )
    # parse errors come before the phase
    assert err({"action": "fly"}, allowed=FORWARD_TOOLS) == "ERROR: unknown action fly"
    assert err({"name": "add", "arguments": "{"}, allowed=FORWARD_TOOLS) == (
        "ERROR: bad input: could not read an action"
    )


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ({"action": "search"}, "ERROR: bad input: query is missing"),
        ({"action": "search", "query": None}, "ERROR: bad input: query is missing"),
        ({"action": "search", "query": 3}, "ERROR: bad input: query must be a string"),
        ({"action": "read"}, "ERROR: bad input: id is missing"),
        ({"action": "read", "id": 17}, "ERROR: bad input: id must be a string"),
        ({"action": "answer"}, "ERROR: bad input: text is missing"),
        ({"action": "answer", "text": 3}, "ERROR: bad input: text must be a string"),
        ({"action": "add", "text": ["a"]}, "ERROR: bad input: text must be a string"),
        ({"action": "edit", "text": "x"}, "ERROR: bad input: id is missing"),
        ({"action": "edit", "id": "s1"}, "ERROR: bad input: text is missing"),
        ({"action": "edit", "id": 1, "text": 2}, "ERROR: bad input: id must be a string"),
        ({"action": "delete"}, "ERROR: bad input: id is missing"),
        ({"action": "link", "target": "s2"}, "ERROR: bad input: source is missing"),
        ({"action": "link", "source": "s1"}, "ERROR: bad input: target is missing"),
        (
            {"action": "link", "source": "s1", "target": 2},
            "ERROR: bad input: target must be a string",
        ),
        ({"action": "link_many", "source": "s1"}, "ERROR: bad input: targets is missing"),
        ({"action": "link_many", "targets": ["s2"]}, "ERROR: bad input: source is missing"),
        (
            {"action": "link_many", "source": "s1", "targets": "s2"},
            "ERROR: bad input: targets must be a list of note ids",
        ),
        (
            {"action": "link_many", "source": "s1", "targets": ["s2", 3]},
            "ERROR: bad input: targets must be a list of note ids",
        ),
        (
            {"action": "link_many", "source": "s1", "targets": {"s2": 1}},
            "ERROR: bad input: targets must be a list of note ids",
        ),
        ({"action": "unlink", "source": "s1"}, "ERROR: bad input: target is missing"),
        ({"action": "unlink", "target": "s1"}, "ERROR: bad input: source is missing"),
        ({"action": "locate"}, "ERROR: bad input: terms is missing"),
        (
            {"action": "locate", "terms": 5},
            "ERROR: bad input: terms must be a string or a list of strings",
        ),
        (
            {"action": "locate", "terms": "x", "within": 5},
            "ERROR: bad input: within must be a string",
        ),
        ({"action": "expand"}, "ERROR: bad input: node is missing"),
        (
            {"action": "expand", "node": "s1", "edges": "cites"},
            "ERROR: bad input: edges must be a list of link types",
        ),
        ({"action": "expand", "node": "s1", "hops": "two"}, "ERROR: hops must be an integer"),
    ],
)
def test_step4_field_errors(raw, error):
    assert err(raw) == error


def test_step4_schema_order():
    # the first failing field in schema order wins
    assert err({"action": "edit", "id": 5}) == "ERROR: bad input: id must be a string"
    assert err({"action": "link", "source": 1, "target": 2}) == (
        "ERROR: bad input: source must be a string"
    )
    assert err({"action": "link_many", "source": 1, "targets": "x"}) == (
        "ERROR: bad input: source must be a string"
    )
    assert err({"action": "search", "query": 1, "page": "x"}) == (
        "ERROR: bad input: query must be a string"
    )
    assert err({"action": "search", "page": "x"}) == "ERROR: bad input: query is missing"
    assert err({"action": "link", "source": "s1", "type": "cites"}) == (
        "ERROR: bad input: target is missing"
    )


def test_link_types():
    untyped = {"action": "link", "source": "s1", "target": "s2"}
    assert ok(untyped) == Link(source="s1", target="s2")
    assert ok({**untyped, "type": None}) == Link(source="s1", target="s2")
    assert err({**untyped, "type": "cites"}) == "ERROR: bad input: link types are disabled"
    assert err({**untyped, "type": "bogus"}) == "ERROR: bad input: link types are disabled"
    assert ok({**untyped, "type": "cites"}, typed_links=True).type == "cites"
    assert ok({**untyped, "type": " member_of "}, typed_links=True).type == "member_of"
    for bad in ("bogus", "Cites", 3, ["cites"]):
        assert err({**untyped, "type": bad}, typed_links=True) == (
            "ERROR: bad input: type is not a known link type"
        )
    many = {"action": "link_many", "source": "s1", "targets": ["s2"]}
    assert err({**many, "type": "cites"}) == "ERROR: bad input: link types are disabled"
    assert err({**many, "type": "x"}, typed_links=True) == (
        "ERROR: bad input: type is not a known link type"
    )
    assert ok({**many, "type": "related"}, typed_links=True).type == "related"
    # unlink has no type field: a type there is an ignored extra
    assert ok({"action": "unlink", "source": "s1", "target": "s2", "type": "cites"})


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        (1, 1), (12, 12), (3.0, 3), ("4", 4), (" 5 ", 5), ("+6", 6), (None, 1),
        (0, 0), (13, 13), (-2, -2), ("-1", -1), (10**30, 10**30),  # range: precheck's job
    ],
)  # fmt: skip
def test_page_accepted(page, expected):
    assert ok({"action": "search", "query": "x", "page": page}).page == expected


@pytest.mark.parametrize(
    "page",
    [True, False, 2.5, float("nan"), float("inf"), "2.0", "two", "", "1e2", [1], {"p": 1}, "٣"],
)
def test_page_rejected(page):
    assert err({"action": "search", "query": "x", "page": page}) == "ERROR: page must be an integer"


def test_page_default_and_hops_default():
    assert ok({"action": "search", "query": "x"}).page == 1
    assert ok({"action": "expand", "node": "s1"}).hops == 1
    assert ok({"action": "expand", "node": "s1", "hops": "2"}).hops == 2
    hops_false = {"action": "expand", "node": "s1", "hops": False}
    assert err(hops_false) == "ERROR: hops must be an integer"


def test_numpy_integers_are_integers():
    np = pytest.importorskip("numpy")
    assert ok({"action": "search", "query": "x", "page": np.int64(3)}).page == 3
    assert ok({"action": "search", "query": "x", "page": np.float64(2.0)}).page == 2
    assert err({"action": "search", "query": "x", "page": np.bool_(True)}) == (
        "ERROR: page must be an integer"
    )


def test_evidence_models():
    assert ok({"action": "locate", "terms": ["ann", "bell"]}) == Locate(terms=["ann", "bell"])
    loc = ok({"action": "locate", "terms": "ann", "within": " s3 "})
    assert loc == Locate(terms="ann", within="s3")
    exp = ok({"action": "expand", "node": "s1", "edges": ["cites"], "hops": 3})
    assert exp == Expand(node="s1", edges=["cites"], hops=3)


# --- precheck (stateless step-5 checks) --------------------------------------------------------


def test_precheck_search():
    assert precheck(Search(query="x")) is None
    assert precheck(Search(query="", page=99)) == "ERROR: query must not be empty"
    assert precheck(Search(query="   ")) == "ERROR: query must not be empty"
    assert precheck(Search(query="x", page=0)) == "ERROR: page must be between 1 and 12"
    assert precheck(Search(query="x", page=13)) == "ERROR: page must be between 1 and 12"
    assert precheck(Search(query="x", page=12)) is None
    assert precheck(Search(query="x", page=9), max_page=8) == "ERROR: page must be between 1 and 8"
    # §8.3 order: the page type (a field check) comes before the empty query (semantic)
    assert err({"action": "search", "query": "", "page": "x"}) == "ERROR: page must be an integer"


def test_precheck_link_many():
    assert precheck(LinkMany(source="s1", targets=[])) == "ERROR: targets is empty"
    many = LinkMany(source="s1", targets=[f"s{i}" for i in range(41)])
    assert precheck(many) == (
        "ERROR: targets has 41 ids, more than 40 - link only the notes that actually belong, "
        "in several calls if needed"
    )
    assert precheck(LinkMany(source="s1", targets=["s2"] * 40)) is None
    assert precheck(LinkMany(source="s1", targets=["s2"] * 3), link_batch_max=2).startswith(
        "ERROR: targets has 3 ids, more than 2 - "
    )


def test_precheck_evidence_and_others():
    assert precheck(Locate(terms=[])) == "ERROR: terms must not be empty"
    assert precheck(Locate(terms=" ")) == "ERROR: terms must not be empty"
    assert precheck(Locate(terms=["", "ann"])) is None
    assert precheck(Expand(node="s1", hops=0)) == "ERROR: hops must be at least 1"
    assert precheck(Expand(node="s1", hops=2)) == "ERROR: hops > 1 needs exactly one edge type"
    assert precheck(Expand(node="s1", hops=2, edges=["cites", "amends"])) == (
        "ERROR: hops > 1 needs exactly one edge type"
    )
    assert precheck(Expand(node="s1", hops=2, edges=["cites", "cites"])) is None
    assert precheck(Expand(node="s1", edges=["cites", "amends"])) is None
    assert precheck(Read(id="nope")) is None
    assert precheck(Done()) is None


# --- canonical form and rendering --------------------------------------------------------------


def test_canonical_args_and_call_repr():
    assert canonical_args(Search(query="x")) == {"query": "x", "page": 1}
    assert list(canonical_args(Edit(id="s1", text="t"))) == ["id", "text"]
    assert canonical_args(Link(source="a", target="b")) == {"source": "a", "target": "b"}
    assert canonical_args(Done()) == {}
    assert call_repr(Search(query="Ann's job")) == "search(query=\"Ann's job\", page=1)"
    assert call_repr(Read(id="s0001")) == "read(id='s0001')"
    assert call_repr(Done()) == "done()"
    assert call_repr(Link(source="a", target="b", type="cites")) == (
        "link(source='a', target='b', type='cites')"
    )
    assert call_repr(LinkMany(source="a", targets=["b", "c"])) == (
        "link_many(source='a', targets=['b', 'c'])"
    )
    assert call_repr(Expand(node="s1")) == "expand(node='s1', hops=1)"
    assert call_repr(Locate(terms=["a"], within="s2")) == "locate(terms=['a'], within='s2')"


def test_call_repr_invalid():
    assert call_repr(parse_action(None)) == "?(None)"
    long = "x" * 500
    assert call_repr(parse_action(long)) == f"?({repr(long)[:200]})"
    assert len(call_repr(parse_action(long))) == 203
    out = parse_action({"action": "read", "idd": "s1"})
    assert out.error == "ERROR: bad input: id is missing"
    assert call_repr(out) == "read(idd='s1')"
    out = parse_action({"name": "search", "arguments": '{"query": "x"'})
    assert call_repr(out) == 'search({"query": "x")'
    out = parse_action({"name": "search", "arguments": '{"query": 3}'})
    assert call_repr(out) == "search(query=3)"
    out = parse_action({"action": "add", "text": "hi"}, allowed=FORWARD_TOOLS)
    assert call_repr(out) == "add(text='hi')"


def test_canonical_round_trip():
    for action in (
        Search(query="x", page=3),
        Link(source="a", target="b"),
        LinkMany(source="a", targets=["b"], type="cites"),
        Expand(node="n", edges=["cites"], hops=2),
        Done(),
    ):
        again = parse_action({"action": action.action, **canonical_args(action)}, typed_links=True)
        assert again == action


# --- tool schemas ------------------------------------------------------------------------------


def test_tool_schemas_shape():
    schemas = tool_schemas(BACKWARD_TOOLS)
    assert [s["function"]["name"] for s in schemas] == list(BACKWARD_TOOLS)
    for s in schemas:
        assert set(s) == {"type", "function"} and s["type"] == "function"
        fn = s["function"]
        assert set(fn) == {"name", "description", "parameters"}
        assert fn["description"] == TOOL_DESCRIPTIONS[fn["name"]]
        params = fn["parameters"]
        assert params["type"] == "object"
        assert "action" not in params["properties"]
        assert "type" not in params["properties"]
        assert set(params["required"]) <= set(params["properties"])
        assert "title" not in json.dumps(params)
        json.dumps(s)  # plain JSON
    by_name = {s["function"]["name"]: s["function"]["parameters"] for s in schemas}
    assert by_name["search"] == {
        "type": "object",
        "properties": {"query": {"type": "string"}, "page": {"default": 1, "type": "integer"}},
        "required": ["query"],
    }
    assert by_name["link_many"]["properties"]["targets"] == {
        "items": {"type": "string"},
        "type": "array",
    }
    assert by_name["link_many"]["required"] == ["source", "targets"]
    assert by_name["edit"]["required"] == ["id", "text"]
    assert by_name["done"] == {"type": "object", "properties": {}, "required": []}


def test_tool_schemas_typed_and_evidence():
    schemas = tool_schemas(["link", "link_many"], typed_links=True)
    typed = {s["function"]["name"]: s for s in schemas}
    for name in ("link", "link_many"):
        params = typed[name]["function"]["parameters"]
        assert params["properties"]["type"] == {"enum": list(LINK_TYPES), "type": "string"}
        assert "type" not in params["required"]
    ev = {s["function"]["name"]: s["function"]["parameters"] for s in tool_schemas(EVIDENCE_TOOLS)}
    assert ev["locate"]["required"] == ["terms"]
    assert ev["locate"]["properties"]["within"] == {"type": "string"}
    assert ev["expand"]["required"] == ["node"]
    assert ev["expand"]["properties"]["edges"] == {"items": {"type": "string"}, "type": "array"}


def test_tool_schemas_deterministic_and_strict_names():
    first = json.dumps(tool_schemas(ACTION_NAMES, True))
    assert json.dumps(tool_schemas(ACTION_NAMES, True)) == first
    with pytest.raises(ValueError):
        tool_schemas(["fly"])


# --- never raises ------------------------------------------------------------------------------

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20),
    st.sampled_from(list(ACTION_NAMES) + ["action", "name", "arguments", "function", "id"]),
)  # fmt: skip
_keys = st.one_of(
    st.sampled_from(
        ["action", "name", "arguments", "function", "query", "page", "id", "text", "source",
         "target", "targets", "type", "terms", "within", "node", "edges", "hops"]
    ),
    st.text(max_size=8),
)  # fmt: skip
_json = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(_keys, children, max_size=5),
        children.map(json.dumps),
    ),
    max_leaves=20,
)
_action_dicts = st.builds(
    lambda name, args: {"action": name, **args},
    st.sampled_from(ACTION_NAMES),
    st.dictionaries(_keys, _json, max_size=5),
)
_calls = st.builds(
    lambda name, args, enc: {
        "function": {"name": name, "arguments": json.dumps(args) if enc else args}
    },
    st.sampled_from(ACTION_NAMES),
    st.dictionaries(_keys, _json, max_size=5),
    st.booleans(),
)


@settings(max_examples=400, deadline=None)
@given(
    raw=st.one_of(_json, _action_dicts, _calls, _action_dicts.map(json.dumps)),
    allowed=st.one_of(st.none(), st.sampled_from([FORWARD_TOOLS, BACKWARD_TOOLS])),
    typed=st.booleans(),
)
def test_parse_action_never_raises(raw, allowed, typed):
    out = parse_action(raw, allowed=allowed, typed_links=typed)
    if isinstance(out, InvalidAction):
        assert out.error.startswith("ERROR: ")
        assert "validation error" not in out.error and "pydantic" not in out.error
        assert isinstance(call_repr(out), str)
    else:
        assert type(out) in ACTION_MODELS.values()
        assert allowed is None or out.action in allowed
        assert isinstance(call_repr(out), str)
        assert parse_action(out, allowed=allowed, typed_links=typed) == out  # idempotent


def test_hostile_repr_does_not_raise():
    class Hostile:
        def __repr__(self):
            raise RuntimeError("boom")

    out = parse_action(Hostile())
    assert out.error == "ERROR: bad input: could not read an action"
    assert call_repr(out) == "?(<Hostile>)"


def test_deeply_nested_json_does_not_raise():
    deep = "[" * 100_000 + "]" * 100_000
    assert err(deep) == "ERROR: bad input: more than 65536 characters"
    nested = "[" * 1_000 + "]" * 1_000
    assert err(nested) == "ERROR: bad input: nested deeper than 32 levels"
    obj: dict = {"action": "search", "query": "x"}
    for _ in range(1_000):
        obj = {"action": "search", "query": "x", "more": obj}
    assert err(obj) == "ERROR: bad input: nested deeper than 32 levels"
