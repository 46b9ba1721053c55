"""Curator variants for the reward studies: what each distortion does to the actions."""

from __future__ import annotations

import pytest

from kbgym_agents.scripted.variants import Degraded, JunkLinker, param_trainer, variant_trainers
from kbgym.env import KBGymEnv
from kbgym.runs.episode import EpisodeRun
from kbgym.worlds.people import UniverseConfig, generate


@pytest.fixture(scope="module")
def small_universe():
    return generate(UniverseConfig(n_people=60, n_cities=8, sizes=(40, 30, 20),
                                   eval_sizes=(10, 6)))

BACKWARD = {"phase": 2, "steps_left": 30, "text": "notes s0001 s0002 s0050"}


class Scripted:
    """An inner curator that replays a fixed list of actions."""

    def __init__(self, actions):
        self.actions = actions
        self.reset()

    def reset(self):
        self.i = 0

    def act(self, obs, info=None):
        a = self.actions[self.i % len(self.actions)]
        self.i += 1
        return a


TARGETS = [f"s{i:04d}" for i in range(1, 9)]


def test_member_frac_keeps_the_first_part_of_each_member_list():
    d = Degraded(Scripted([{"action": "link_many", "source": "s0100", "targets": TARGETS}]),
                 member_frac=0.25)
    assert d.act(BACKWARD)["targets"] == TARGETS[:2]


def test_wrong_frac_swaps_members_for_seen_ids_deterministically():
    make = lambda: Degraded(Scripted([{"action": "link_many", "source": "s0100",  # noqa: E731
                                       "targets": TARGETS}]), wrong_frac=0.5, seed=3)
    a, b = make().act(BACKWARD), make().act(BACKWARD)
    assert a == b and len(a["targets"]) == 8
    swapped = [t for t, o in zip(a["targets"], TARGETS) if t != o]
    assert 1 <= len(swapped) <= 4
    assert all(1 <= int(t[1:]) <= 50 for t in a["targets"])


def test_max_adds_and_max_steps_end_the_phase_early():
    d = Degraded(Scripted([{"action": "add", "text": "x"}]), max_adds=2)
    assert [d.act(BACKWARD)["action"] for _ in range(3)] == ["add", "add", "done"]
    d.reset()
    assert d.act(BACKWARD)["action"] == "add"  # counted per episode
    d = Degraded(Scripted([{"action": "search", "query": "x"}]), max_steps=1)
    assert [d.act(BACKWARD)["action"] for _ in range(2)] == ["search", "done"]


def test_forward_actions_pass_through():
    d = Degraded(Scripted([{"action": "add", "text": "x"}]), max_adds=0)
    assert d.act({"phase": 1, "steps_left": 5, "text": ""})["action"] == "add"


def test_junk_linker_links_then_stops():
    j = JunkLinker(n=2, seed=1)
    acts = [j.act(BACKWARD) for _ in range(3)]
    assert [a["action"] for a in acts] == ["link_many", "link_many", "done"]
    assert all(1 <= int(t[1:]) <= 50 for a in acts[:2] for t in a["targets"])


def test_variants_and_param_trainer_play_curation_episodes(small_universe):
    u = small_universe
    agents = variant_trainers(seed=0)
    assert len(agents) >= 8 and "noop" in agents
    agents["param"] = param_trainer({"families": ["job", "city"], "member_frac": 0.5,
                                     "short_titles": True, "max_steps": 8})
    for name, agent in agents.items():
        env = KBGymEnv(u, config={"reward": "curation", "reward_k": 2})
        run = EpisodeRun(env, agent, u.splits["train"][0])
        while not run.step(agent.act(run.obs, run.info)):
            pass
        assert "curation" in run.info, name
        if name == "noop":
            assert run.info["curation"]["reward"] == 0.0
