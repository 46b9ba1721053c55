"""SPEC §16.2: the Unicode space and the KBActionSpace."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest
from gymnasium.spaces import Dict, Discrete

from kbgym.env.actions import (
    ACTION_NAMES,
    BACKWARD_TOOLS,
    FORWARD_TOOLS,
    LINK_TYPES,
    InvalidAction,
    LinkMany,
    Search,
    parse_action,
    precheck,
)
from kbgym.env.spaces import PRINTABLE, KBActionSpace, Unicode


class _NextId:
    """A picklable next_id_fn."""

    def __init__(self, n: int):
        self.n = n

    def __call__(self) -> int:
        return self.n


# --- Unicode -----------------------------------------------------------------------------------


def test_unicode_contains():
    space = Unicode(max_length=5)
    assert space.contains("")
    assert "héllo" in space
    assert "日本語テキ" in space
    assert "toolong" not in space
    assert 5 not in space
    assert b"abc" not in space
    assert None not in space
    assert "x" * (2**24) in Unicode(max_length=2**24)


def test_unicode_sample_is_printable_and_bounded():
    space = Unicode(max_length=2**24, seed=0)
    samples = [space.sample() for _ in range(200)]
    assert all(isinstance(s, str) and s in space for s in samples)
    assert all(set(s) <= set(PRINTABLE) for s in samples)
    assert all(s.isprintable() for s in samples)
    assert max(len(s) for s in samples) <= 64
    assert len({len(s) for s in samples}) > 10
    small = Unicode(max_length=3, seed=1)
    assert all(len(small.sample()) <= 3 for _ in range(50))
    assert Unicode(max_length=0, seed=1).sample() == ""


def test_unicode_seeding_is_deterministic():
    a, b = Unicode(100), Unicode(100)
    a.seed(42)
    b.seed(42)
    assert [a.sample() for _ in range(20)] == [b.sample() for _ in range(20)]
    c = Unicode(100, seed=43)
    a.seed(42)
    assert [a.sample() for _ in range(20)] != [c.sample() for _ in range(20)]


def test_unicode_eq_repr_pickle():
    assert Unicode(10) == Unicode(10)
    assert Unicode(10) != Unicode(11)
    assert Unicode(10) != "Unicode(10)"
    assert repr(Unicode(2**24)) == "Unicode(max_length=16777216)"
    space = Unicode(7, seed=3)
    assert pickle.loads(pickle.dumps(space)) == space
    assert copy.deepcopy(space) == space
    with pytest.raises(ValueError):
        Unicode(-1)
    with pytest.raises(ValueError):
        Unicode(True)


def test_unicode_in_a_dict_space():
    obs_space = Dict(
        {"phase": Discrete(3), "steps_left": Discrete(31), "text": Unicode(max_length=2**24)}
    )
    assert {"phase": 1, "steps_left": 15, "text": "QUESTION q0001"} in obs_space
    obs_space.seed(5)
    sample = obs_space.sample()
    assert sample in obs_space and isinstance(sample["text"], str)


# --- KBActionSpace -----------------------------------------------------------------------------


def test_action_space_contains_is_parse_success():
    space = KBActionSpace(ACTION_NAMES)
    assert space.contains({"action": "search", "query": "x"})
    assert {"name": "read", "arguments": '{"id": "s1"}'} in space
    assert Search(query="x") in space
    assert '{"action": "done"}' in space
    assert None not in space
    assert {"action": "fly"} not in space
    assert {"action": "search", "query": "x", "page": True} not in space
    assert {"action": "link", "source": "a", "target": "b", "type": "cites"} not in space
    typed = KBActionSpace(ACTION_NAMES, typed_links=True)
    assert {"action": "link", "source": "a", "target": "b", "type": "cites"} in typed
    # no phase applies: a backward action is in a forward-only space
    assert {"action": "add", "text": "x"} in KBActionSpace(FORWARD_TOOLS)


def _draws(space: KBActionSpace, n: int) -> list[dict]:
    return [space.sample() for _ in range(n)]


def test_action_space_sample_shapes():
    space = KBActionSpace(ACTION_NAMES, typed_links=True, next_id_fn=_NextId(30), seed=0)
    draws = _draws(space, 3000)
    assert {d["action"] for d in draws} == set(ACTION_NAMES)
    for d in draws:
        assert d in space
        json.dumps(d)  # plain Python values only
        action = parse_action(d, typed_links=True)
        assert not isinstance(action, InvalidAction)
        for key in ("id", "source", "target", "node", "within"):
            if key in d:
                assert d[key].startswith("s") and 1 <= int(d[key][1:]) <= 30
                assert len(d[key]) == 5
        if d["action"] == "search":
            assert 0 <= d["page"] <= 13
            assert d["query"] and d["query"].replace(" ", "").islower()
        if d["action"] == "link_many":
            assert 0 <= len(d["targets"]) <= 3
        if "type" in d:
            assert d["type"] in LINK_TYPES
    pages = {d["page"] for d in draws if d["action"] == "search"}
    assert pages == set(range(14))
    assert {len(d["targets"]) for d in draws if d["action"] == "link_many"} == {0, 1, 2, 3}
    ids = {d["id"] for d in draws if "id" in d}
    assert "s0001" in ids and "s0030" in ids


def test_action_space_sample_uniform_over_tools():
    space = KBActionSpace(BACKWARD_TOOLS, seed=1)
    counts = {t: 0 for t in BACKWARD_TOOLS}
    for d in _draws(space, 9000):
        counts[d["action"]] += 1
    assert all(800 < c < 1200 for c in counts.values()), counts
    assert all("type" not in d for d in _draws(space, 500))  # untyped space never sends a type


def test_action_space_samples_valid_and_invalid_actions():
    """All samples parse; many still fail the stateless semantic checks at execution."""
    space = KBActionSpace(("search", "link_many"), next_id_fn=_NextId(10), seed=2)
    verdicts = [precheck(parse_action(d)) for d in _draws(space, 500)]
    assert any(v is None for v in verdicts)
    assert "ERROR: page must be between 1 and 12" in verdicts
    assert "ERROR: targets is empty" in verdicts


def test_action_space_next_id_is_read_at_each_draw():
    counter = _NextId(1)
    space = KBActionSpace(("read",), next_id_fn=counter, seed=0)
    assert {space.sample()["id"] for _ in range(20)} == {"s0001"}
    counter.n = 12000
    assert any(int(space.sample()["id"][1:]) > 9999 for _ in range(50))
    assert KBActionSpace(("read",), seed=0).sample() == {"action": "read", "id": "s0001"}


def test_action_space_seeding_is_deterministic():
    a = KBActionSpace(ACTION_NAMES, typed_links=True, next_id_fn=_NextId(50))
    b = KBActionSpace(ACTION_NAMES, typed_links=True, next_id_fn=_NextId(50))
    a.seed(7)
    b.seed(7)
    assert _draws(a, 200) == _draws(b, 200)
    a.seed(7)
    first = _draws(a, 200)
    a.seed(8)
    assert _draws(a, 200) != first
    c = KBActionSpace(ACTION_NAMES, typed_links=True, next_id_fn=_NextId(50), seed=7)
    assert _draws(c, 200) == first


def test_action_space_mask_and_errors():
    space = KBActionSpace(BACKWARD_TOOLS, seed=3)
    assert {space.sample(mask={"read", "done", "answer"})["action"] for _ in range(100)} == {
        "read",
        "done",
    }
    with pytest.raises(ValueError):
        space.sample(mask={"answer"})
    with pytest.raises(ValueError):
        space.sample(probability=np.ones(3))
    with pytest.raises(ValueError):
        KBActionSpace(())
    with pytest.raises(ValueError):
        KBActionSpace(("search", "fly"))


def test_action_space_eq_repr_pickle():
    a = KBActionSpace(FORWARD_TOOLS)
    assert a == KBActionSpace(list(FORWARD_TOOLS))
    assert a != KBActionSpace(FORWARD_TOOLS, typed_links=True)
    assert a != KBActionSpace(BACKWARD_TOOLS)
    assert repr(a) == "KBActionSpace(tools=('search', 'read', 'answer'), typed_links=False)"
    b = KBActionSpace(ACTION_NAMES, next_id_fn=_NextId(9), seed=4)
    c = pickle.loads(pickle.dumps(b))
    assert c == b and _draws(c, 30) == _draws(b, 30)
    d = copy.deepcopy(b)
    assert _draws(d, 30) == _draws(b, 30)


def test_spaces_never_touch_global_rng():
    _, keys, pos, *_ = np.random.get_state()  # read only; the global state is never set
    before = (keys.copy(), pos)
    space = KBActionSpace(ACTION_NAMES, seed=1)
    _draws(space, 50)
    Unicode(20, seed=1).sample()
    _, keys_after, pos_after, *_ = np.random.get_state()
    assert (keys_after == before[0]).all() and pos_after == before[1]


def test_link_many_sample_parses_to_model():
    space = KBActionSpace(("link_many",), next_id_fn=_NextId(5), seed=9)
    action = parse_action(space.sample())
    assert isinstance(action, LinkMany)
