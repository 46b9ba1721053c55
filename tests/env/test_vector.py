"""Vector envs as RL libraries build them: Sync and Async (default arguments, shared memory)."""

from __future__ import annotations

import copy
import functools

import gymnasium as gym
import numpy as np
import pytest

from kbgym.env import KBGymEnv
from kbgym.env.spaces import SharedTexts, SharedUnicode, Unicode

ACTIONS = [
    {"action": "search", "query": "job"},
    {"action": "read", "id": "s0002"},
    "not an action at all",
    {"action": "answer", "text": "baker"},
    {"action": "add", "text": "Ünïcode note — 東京 ✓"},
    {"action": "done"},
]


def reference(universe, seeds):
    """obs texts and rewards of plain envs for the same seeds and actions."""
    out = []
    for s in seeds:
        env = KBGymEnv(universe)
        obs, _ = env.reset(seed=s)
        texts, rewards = [obs["text"]], []
        for a in ACTIONS:
            obs, r, term, trunc, _ = env.step(a)
            texts.append(obs["text"])
            rewards.append(r)
            if term or trunc:
                break
        out.append((texts, rewards))
    return out


def run_vector(venv, n):
    obs, _ = venv.reset(seed=list(range(n)))
    texts = [[t] for t in obs["text"]]
    rewards = [[] for _ in range(n)]
    for a in ACTIONS:
        obs, r, term, trunc, _ = venv.step([a] * n)
        assert isinstance(obs["text"], tuple) and all(isinstance(t, str) for t in obs["text"])
        assert obs["phase"].shape == (n,)
        for i in range(n):
            texts[i].append(obs["text"][i])
            rewards[i].append(float(r[i]))
        if term.all() or trunc.all():
            break
    venv.close()
    return list(zip(texts, rewards))


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_vector_env_with_default_arguments_steps_four_envs(small_universe, kind):
    make = functools.partial(KBGymEnv, small_universe)
    cls = gym.vector.SyncVectorEnv if kind == "sync" else gym.vector.AsyncVectorEnv
    venv = cls([make] * 4)  # AsyncVectorEnv: shared_memory=True, copy=True (its defaults)
    got = run_vector(venv, 4)
    assert [list(t) for t, _ in got] == [t for t, _ in reference(small_universe, range(4))]
    assert [r for _, r in got] == [r for _, r in reference(small_universe, range(4))]


def test_async_shared_memory_is_a_live_view_without_copy(small_universe):
    make = functools.partial(KBGymEnv, small_universe)
    venv = gym.vector.AsyncVectorEnv([make] * 2, copy=False)
    obs, _ = venv.reset(seed=[0, 1])
    assert isinstance(obs["text"], SharedTexts)
    first = tuple(obs["text"])
    venv.step([{"action": "search", "query": "city"}] * 2)
    assert tuple(obs["text"]) != first and "search" in obs["text"][0]
    assert copy.deepcopy(obs["text"]) == tuple(obs["text"])
    venv.close()


def test_long_texts_spill_and_unicode_round_trips():
    import multiprocessing

    space = Unicode(max_length=10_000, shared_bytes=16)
    shared = SharedUnicode(3, space.shared_bytes, multiprocessing)
    texts = ["short", "a much longer text than sixteen bytes", "東京 ✓ ü"]
    for i, t in enumerate(texts):
        shared.write(i, t)
    view = SharedTexts(shared)
    assert tuple(view) == tuple(texts) and view[-1] == texts[-1] and len(view) == 3
    shared.write(1, "tiny")  # back into the slot
    assert view[1] == "tiny"
    with pytest.raises(IndexError):
        view[3]


def test_shared_bytes_must_be_positive():
    with pytest.raises(ValueError, match="shared_bytes"):
        Unicode(10, shared_bytes=0)


def test_async_vector_with_spawn_context(small_universe):
    """Workers started with spawn get a pickled copy of the shared buffers."""
    make = functools.partial(KBGymEnv, small_universe)
    venv = gym.vector.AsyncVectorEnv([make] * 2, context="spawn")
    got = run_vector(venv, 2)
    assert [list(t) for t, _ in got] == [t for t, _ in reference(small_universe, range(2))]
    assert np.isfinite([sum(r) for _, r in got]).all()
