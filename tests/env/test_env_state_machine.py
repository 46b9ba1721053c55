"""Random valid and invalid action streams through KBGymEnv, with the library's invariants
checked after every step (SPEC §6, §8.3, §16.3): the env never raises, a refused action
changes nothing, stats agree with a recount, and search agrees with a brute-force BM25."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from kbgym.library.stats import recompute_stats
from kbgym.env import KBGymConfig, KBGymEnv
from kbgym.library.snapshot import snapshot_hash
from kbgym.worlds.people import UniverseConfig, generate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "library"))
from libtest_helpers import brute_bm25, check_invariants  # noqa: E402

UNIVERSE = generate(UniverseConfig(n_people=12, n_cities=4, sizes=(12, 6, 6), eval_sizes=(2, 2)))
WORDS = st.sampled_from(["job", "friend", "city", "of", "is", "baker", "married", "index",
                         "Residents", "the", "child"])
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids,
                                                             max_size=3), max_leaves=8)
EDIT_NAMES = ("add", "edit", "delete", "link", "link_many", "unlink")


class EnvMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.env = KBGymEnv(UNIVERSE, config=KBGymConfig(n1=6, n2=40))
        self.env.action_space.seed(0)
        self.env.reset(seed=0)
        self.over = False

    @property
    def lib(self):
        return self.env.library

    def _step(self, action):
        before_version, before_hash = self.lib.version, snapshot_hash(self.lib)
        obs, r, term, trunc, info = self.env.step(action)
        assert not (term and trunc)
        assert self.env.observation_space.contains(obs)
        if info["result"].startswith("ERROR"):
            assert self.lib.version == before_version
            assert snapshot_hash(self.lib) == before_hash
        self.over = term or trunc
        return info

    def _live(self, data):
        return data.draw(st.sampled_from(self.lib.ids()))

    @rule(seed=st.integers(0, 3))
    def reset(self, seed):
        self.env.reset(seed=seed)
        self.over = False

    @rule()
    def sampled(self):
        self._step(self.env.action_space.sample())

    @rule(raw=JSONISH)
    def garbage(self, raw):
        self._step(raw)

    @rule(data=st.data())
    def answer_now(self, data):
        self._step({"action": "answer", "text": data.draw(WORDS)})

    @precondition(lambda self: self.env.episode.phase == "backward" and not self.over)
    @rule(data=st.data(), name=st.sampled_from(EDIT_NAMES), words=st.lists(WORDS, max_size=5))
    def edit_action(self, data, name, words):
        text = " ".join(words)
        a = {"action": name}
        if name == "add":
            a["text"] = text
        elif name == "edit":
            a.update(id=self._live(data), text=text)
        elif name == "delete":
            a["id"] = self._live(data)
        elif name == "link_many":
            a.update(source=self._live(data),
                     targets=[self._live(data) for _ in range(data.draw(st.integers(0, 4)))])
        else:
            a.update(source=self._live(data), target=self._live(data))
        info = self._step(a)
        ok = not info["result"].startswith("ERROR")
        assert info["edits"][name] >= int(ok)

    @rule(data=st.data())
    def search_matches_brute_force(self, data):
        query = " ".join(data.draw(st.lists(WORDS, min_size=1, max_size=3)))
        if self.over:
            return
        docs = {n.id: n.text for n in self.lib}
        want = brute_bm25(docs, query, 60)
        got = self.lib.search(query, 60)
        assert [i for i, _ in got] == [i for i, _ in want]
        for (_, a), (_, b) in zip(got, want):
            assert abs(a - b) <= 1e-9 * max(1.0, abs(b))

    @invariant()
    def library_is_consistent(self):
        check_invariants(self.lib)
        assert self.lib.stats() == recompute_stats(self.lib)


EnvMachine.TestCase.settings = settings(max_examples=40, stateful_step_count=30, deadline=None,
                                        suppress_health_check=[HealthCheck.too_slow],
                                        database=None)
TestEnvMachine = EnvMachine.TestCase
