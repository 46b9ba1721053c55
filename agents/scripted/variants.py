"""Curator variants for reward studies (scripts/experiments/reward_alignment.py, scripts/experiments/policy_search.py).

- :class:`Degraded` wraps any backward curator and distorts its actions: link only part of
  each member list, swap some members for random notes, stop after a number of new index
  notes (fewer keys) or after a number of steps.
- :class:`ParamIndexCurator` is the index curator restricted to some key families (hub, job,
  hobby, city, friends, children, grandchildren), with full or short titles.
- :class:`JunkLinker` links random notes to random notes, then stops.
- :func:`param_trainer` builds the reader + curator pair for one parameter vector.

The wrappers only rewrite action dicts; they rely on nothing inside the wrapped curator.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from typing import Any

from kbgym.protocol.ids import ids_in
from kbgym_agents.base import Action, BaseAgent
from kbgym_agents.scripted.curator import KEYS, SHORT_TITLES, TITLES, IndexCurator
from kbgym_agents.scripted.train import TrainAgent

FAMILIES = ("hub", "job", "hobby", "city", "friends", "children", "grandchildren")


def _max_id(text: str) -> int:
    nums = ids_in(text)
    return max(nums) if nums else 1


class Degraded(BaseAgent):
    """``inner``'s backward actions, distorted.

    ``member_frac``: each ``link_many`` keeps its first ceil(frac * n) targets.
    ``wrong_frac``: that share of each ``link_many``'s targets is swapped for random note ids
    (seeded, from the ids the observation shows). ``max_adds``: after this many ``add`` actions
    in an episode, the next ``add`` becomes ``done`` (fewer keys). ``max_steps``: ``done`` after
    this many backward actions.
    """

    def __init__(self, inner: Any, *, member_frac: float = 1.0, wrong_frac: float = 0.0,
                 max_adds: int | None = None, max_steps: int | None = None, seed: int = 0):
        self.inner = inner
        self.member_frac, self.wrong_frac = member_frac, wrong_frac
        self.max_adds, self.max_steps = max_adds, max_steps
        self.rng = random.Random(seed)
        self.name = f"degraded({getattr(inner, 'name', 'curator')})"
        self.reset()

    def reset(self) -> None:
        self.inner.reset()
        self.adds = 0
        self.steps = 0

    def act(self, observation: dict, info: dict | None = None) -> Action | None:
        action = self.inner.act(observation, info)
        if observation.get("phase") != 2 or not isinstance(action, dict):
            return action
        self.steps += 1
        if self.max_steps is not None and self.steps > self.max_steps:
            return {"action": "done"}
        name = action.get("action")
        if name == "add":
            if self.max_adds is not None and self.adds >= self.max_adds:
                return {"action": "done"}
            self.adds += 1
        if name == "link_many" and isinstance(action.get("targets"), list) and action["targets"]:
            targets = list(action["targets"])
            targets = targets[:max(1, math.ceil(self.member_frac * len(targets)))]
            n_wrong = round(self.wrong_frac * len(targets))
            if n_wrong:
                top = _max_id(observation.get("text", ""))
                for i in self.rng.sample(range(len(targets)), n_wrong):
                    targets[i] = f"s{self.rng.randint(1, top):04d}"
            action = {**action, "targets": targets}
        return action


class ParamIndexCurator(IndexCurator):
    """The index curator, building only the key families in ``families``."""

    def __init__(self, *, families: Iterable[str] = FAMILIES, **kwargs):
        self.families = frozenset(families)
        super().__init__(**kwargs)

    def plan(self):
        q = self.question
        if q is None:
            return
        for rel, slot in KEYS.get(q.template, ()):
            if rel not in self.families:
                continue
            key = q.slots.get(slot) if slot != "S" else (yield from self._spouse(q.X))
            if key:
                yield from self._build(rel, key)


class JunkLinker(BaseAgent):
    """Links ``n`` random pairs of notes (ids seen in the observation), then ``done``."""

    name = "junk-linker"

    def __init__(self, n: int = 6, seed: int = 0):
        self.n = n
        self.rng = random.Random(seed)
        self.reset()

    def reset(self) -> None:
        self.left = self.n

    def act(self, observation: dict, info: dict | None = None) -> Action:
        if self.left <= 0 or observation.get("steps_left", 0) <= 1:
            return {"action": "done"}
        self.left -= 1
        top = _max_id(observation.get("text", ""))
        src = f"s{self.rng.randint(1, top):04d}"
        return {"action": "link_many", "source": src,
                "targets": [f"s{self.rng.randint(1, top):04d}" for _ in range(4)]}


def reader():
    from kbgym_agents.scripted.reader import ScriptedReader

    return ScriptedReader()


def param_trainer(params: Mapping[str, Any], seed: int = 0) -> TrainAgent:
    """Reader + parametrised index curator. ``params``: ``families`` (names), ``member_frac``,
    ``short_titles`` (bool), ``max_steps`` (int or None)."""
    titles = SHORT_TITLES if params.get("short_titles") else TITLES
    inner = ParamIndexCurator(families=params.get("families", FAMILIES), titles=titles)
    curator = Degraded(inner, member_frac=params.get("member_frac", 1.0),
                       max_steps=params.get("max_steps"), seed=seed)
    return TrainAgent(reader(), curator)


def variant_trainers(seed: int = 0) -> dict[str, TrainAgent]:
    """The named curators of the reward-alignment study (reader + curator each)."""
    from kbgym_agents.scripted.curator import ContentWriter, NoopCurator, RandomCurator

    def idx(**kw) -> TrainAgent:
        return TrainAgent(reader(), Degraded(IndexCurator(), seed=seed, **kw))

    return {
        "noop": TrainAgent(reader(), NoopCurator()),
        "index": TrainAgent(reader(), IndexCurator()),
        "content": TrainAgent(reader(), ContentWriter()),
        "random": TrainAgent(reader(), RandomCurator(seed)),
        "junk-links": TrainAgent(reader(), JunkLinker(seed=seed)),
        "index-members50": idx(member_frac=0.5),
        "index-members25": idx(member_frac=0.25),
        "index-wrong25": idx(wrong_frac=0.25),
        "index-wrong75": idx(wrong_frac=0.75),
        "index-onekey": idx(max_adds=1),
        "index-short-titles": TrainAgent(reader(), IndexCurator(titles=SHORT_TITLES)),
        "index-hub-only": TrainAgent(reader(), ParamIndexCurator(families=("hub",))),
    }
