"""env.step never raises and stays bounded, for any input object (hostile ones included)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kbgym.env import KBGymEnv
from kbgym.env.guard import MAX_DEPTH, MAX_INPUT_CHARS
from kbgym.env.memory import CALL_MAX


class RaisingRepr:
    def __repr__(self):
        raise RuntimeError("no repr for you")


class RaisingAttr:
    def __getattr__(self, name):
        raise RuntimeError(name)


def deep(n: int) -> dict:
    obj: dict = {"action": "answer", "text": "x"}
    for _ in range(n):
        obj = {"action": "answer", "text": "x", "more": obj}
    return obj


HOSTILE = [
    RaisingRepr(), RaisingAttr(), {"action": "answer", "text": RaisingRepr()},
    {"action": "search", "query": "x", "page": RaisingRepr()}, deep(1_000),
    "[" * 5_000 + "]" * 5_000, {"action": "answer", "text": "\ud800"},
    '{"action": "answer", "text": "\\ud800"}', {"action": "search", "query": "x", "page": float("nan")},
    {"action": "search", "query": "x", "page": float("inf")}, {"action": "answer", "text": "y" * 10**6},
    {"action": "read", "id": "s" * 50_000}, {"action": "fly", "x": float("nan")},
    {"name": "answer", "arguments": '{"text": NaN}'}, {"action": "add", "text": "a\u202eb"},
    {"action": "add", "text": "zero\u200bwidth"}, {"action": "add", "text": "esc \x1b[31m"},
    {"action": "answer", "text": "line\u2028sep"}, b"\xff", None, 10**400, [[[[]]]],
    {"action": "search", "query": "x", "page": 10**5000}, {"action": "fly", "n": -(10**301)},
]

PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids,
                                                                max_size=4),
    max_leaves=20,
)
ACTIONS = st.one_of(
    st.sampled_from(HOSTILE),
    PLAIN,
    st.builds(lambda name, args: {"action": name, **args},
              st.sampled_from(["search", "read", "answer", "add", "edit", "delete", "link",
                               "link_many", "unlink", "done"]),
              st.dictionaries(st.sampled_from(["query", "page", "id", "text", "source",
                                               "target", "targets", "links_page"]), PLAIN,
                              max_size=4)),
)


def check(env, obs, info):
    assert env.observation_space.contains(obs)
    assert len(obs["text"]) <= env.max_obs_chars()
    assert obs["steps_left"] >= 0
    json.dumps(info, allow_nan=False)  # strict JSON
    obs["text"].encode("utf-8")  # no lone surrogates


@settings(max_examples=40, deadline=None)
@given(mode=st.sampled_from(["train", "probe"]),
       actions=st.lists(ACTIONS, min_size=1, max_size=60))
def test_any_input_is_answered_not_raised(small_universe, mode, actions):
    env = KBGymEnv(small_universe, mode=mode, config={"n1": 5, "n2": 8, "m": 6})
    obs, info = env.reset(seed=0)
    check(env, obs, info)
    for action in actions:
        obs, reward, term, trunc, info = env.step(action)
        check(env, obs, info)
        if term or trunc:
            obs, info = env.reset()
            check(env, obs, info)


def test_hostile_inputs_get_one_line_errors(small_universe):
    env = KBGymEnv(small_universe, mode="train", config={"n1": 100, "n2": 100})
    env.reset(seed=0)
    version = env.library.version
    expected = {
        0: "ERROR: bad input: could not read an action",
        4: f"ERROR: bad input: nested deeper than {MAX_DEPTH} levels",
        6: "ERROR: bad input: lone surrogate U+D800 is not valid Unicode",
        7: "ERROR: bad input: lone surrogate U+D800 is not valid Unicode",
        8: "ERROR: page must be an integer",
        10: f"ERROR: bad input: more than {MAX_INPUT_CHARS} characters",
    }
    for action in HOSTILE[-2:]:
        assert env.step(action)[4]["result"] == "ERROR: bad input: an integer longer than 300 digits"
    for i, action in enumerate(HOSTILE[:11]):
        obs, _, _, _, info = env.step(action)
        if i in expected:
            assert info["result"] == expected[i], i
        assert info["result"].startswith("ERROR") and "\n" not in info["result"]
    assert env.library.version == version


def test_notes_refuse_control_bidi_and_zero_width(small_universe):
    env = KBGymEnv(small_universe, mode="train", config={"n1": 1})
    env.reset(seed=0)
    env.step({"action": "answer", "text": "x"})
    for text, code in [("a\u202eb", "202E"), ("zero\u200bwidth", "200B"), ("esc \x1b[31m", "001B"),
                       ("bom\ufeff", "FEFF")]:
        _, _, _, _, info = env.step({"action": "add", "text": text})
        assert info["result"] == (f"ERROR: note text contains the control or invisible "
                                  f"character U+{code} - write plain text")
    _, _, _, _, info = env.step({"action": "add", "text": "Tabs\tand\nnewlines collapse."})
    assert info["result"].startswith("added ")


def test_memory_lines_clip_echoed_inputs(small_universe):
    env = KBGymEnv(small_universe, mode="probe")
    env.reset(seed=0)
    obs, *_ = env.step({"action": "search", "query": "q" * 60_000})
    line = obs["text"].split("Recent actions (oldest first):\n", 1)[1]
    call = line.split(" -> ", 1)[0]
    assert len(call) <= CALL_MAX + 2 and "characters in all]" in call


def test_read_pages_the_links_of_a_heavily_linked_note(small_universe):
    env = KBGymEnv(small_universe, mode="train", config={"n1": 1, "n2": 1000})
    env.reset(seed=0)
    env.step({"action": "answer", "text": "x"})
    ids = sorted(env.library.ids())[:250]
    hub = ids[0]
    for i in range(1, 250, 40):
        env.step({"action": "link_many", "source": hub, "targets": ids[i:i + 40]})
    n = len(env.library[hub].links)
    assert n == 249
    _, _, _, _, info = env.step({"action": "read", "id": hub})
    assert info["result"].count("\n- ") == 100
    assert info["result"].endswith(f"(links 1-100 of {n}; read(id='{hub}', links_page=2) "
                                   "shows the next ones)")
    _, _, _, _, info = env.step({"action": "read", "id": hub, "links_page": 3})
    assert info["result"].count("\n- ") == 49
    assert info["result"].endswith(f"(links 201-{n} of {n}; this is the last page)")
    _, _, _, _, info = env.step({"action": "read", "id": hub, "links_page": 4})
    assert info["result"] == f"ERROR: links_page must be between 1 and 3 - {hub} has {n} links"
    _, _, _, _, info = env.step({"action": "read", "id": ids[5]})  # few links: unchanged
    assert "links_page" not in info["result"] and "(links " not in info["result"]


def test_steps_left_never_negative(small_universe):
    env = KBGymEnv(small_universe, mode="probe", config={"m": 2})
    env.reset(seed=0)
    for _ in range(4):
        obs, _, _, _, info = env.step({"action": "search", "query": "x"})
        assert obs["steps_left"] >= 0 and info["steps_left"] >= 0



@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=8), st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=40),
    st.lists(st.text(max_size=6), max_size=5)), max_size=6))
def test_guard_fast_path_agrees_with_the_full_walk(raw):
    """The O(1) fast path for small flat dicts never passes what the full walk refuses."""
    from kbgym.env import guard

    if guard._plainly_fine(raw):
        guard._Walk().value(raw, 0, decode=True)  # raises _Refuse if it should have refused


def test_guard_fast_path_takes_ordinary_actions():
    from kbgym.env import guard

    for raw in ({"action": "search", "query": "Felix job", "page": 2},
                {"action": "link_many", "source": "s0001", "targets": ["s0002", "s0003"]},
                {"action": "read", "id": "s0001", "links_page": None}):
        assert guard._plainly_fine(raw)
    for raw in ({"name": "read", "arguments": '{"id": "s0001"}'},  # decoded: the full walk
                {"action": "add", "text": "\ud800"}, {"action": "add", "text": "x" * 5000}):
        assert not guard._plainly_fine(raw)
