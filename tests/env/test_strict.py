"""The env's catch-all for internal errors: an agent sees ``ERROR: internal error (...)`` and
the episode goes on; ``strict=True`` (tests, the worlds' conformance suite) re-raises."""

from __future__ import annotations

import pytest

from kbgym.env import KBGymEnv
from kbgym.protocol import is_error
from kbgym.worlds.people import UniverseConfig, generate


class Boom(RuntimeError):
    pass


def _broken(env):
    def execute(ep, act):
        raise Boom("a bug of the environment")

    env._execute = execute
    return env


@pytest.fixture(scope="module")
def universe():
    return generate(UniverseConfig(n_people=30, n_cities=5, sizes=(10, 5, 5), eval_sizes=(2, 2)))


def test_an_internal_error_is_an_error_result_by_default(universe):
    env = _broken(KBGymEnv(universe))
    env.reset(options={"qid": universe.splits["train"][0]})
    _, _, _, _, info = env.step({"action": "search", "query": "baker"})
    assert is_error(info["result"]) and "internal" in info["result"]
    assert "Boom" in info["result"]


def test_strict_re_raises_it(universe):
    env = _broken(KBGymEnv(universe, strict=True))
    env.reset(options={"qid": universe.splits["train"][0]})
    with pytest.raises(Boom):
        env.step({"action": "search", "query": "baker"})
