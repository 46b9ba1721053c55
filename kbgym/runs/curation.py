"""The curation reward: what a frozen reader gains on the curated library.

When a training episode's backward phase ends, a frozen reader (a plugin resolved by name,
``scripted-reader`` by default, used as a black box through ``reset()`` / ``act()``) examines a
*reward pool* of training questions on the library as it was before the episode's edits and as
it is after them. With ``S = mean F1 - mu * mean steps / M`` the reward is ``S_after - S_before``.

The pool is the episode's own question (when it is a training question) plus ``reward_k``
others taken in a fixed, seeded order from the env's train split (never a test, eval or probe
question). The others are the same in every episode, so the scores of one episode's "after"
library serve as the next episode's "before": results are cached per (library content key,
qid) and an episode costs about ``k + 2`` examinations, none at all when it made no edit. The
cache is shared by the envs of a process with the same exam setup.

Each examination goes through the one examiner (:class:`kbgym.runs.exam.Examiner`,
:meth:`~kbgym.runs.exam.Examiner.viewing`): an ordinary probe-mode episode on a read-only view
of the live library — the library object itself, frozen for the duration, with its search
index as it stands (no copy, no re-indexing).

The env is given this reward as an object (:class:`kbgym.env.reward.RewardFn`); ``import
kbgym`` registers it under the names ``curation`` (this reward alone) and ``both`` (plus the
answer's F1), so ``KBGymConfig(reward="curation")`` builds it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from kbgym.env.reward import AnswerReward
from kbgym.library.graph import Library
from kbgym.seeding import stream
from kbgym.universe.types import Question

#: Examination results kept per process, least recently used dropped first.
CACHE_MAX = 65_536

#: (exam setup, library state key, qid, question text) -> (f1, steps), shared by every env of
#: the process with the same exam setup (so G rollouts forked from one library examine its
#: "before" pool once).
_CACHE: OrderedDict[tuple, tuple[float, int]] = OrderedDict()
_CACHE_LOCK = threading.Lock()  # envs of one process may step in threads (kbgym serve)

#: The config fields that can change what the frozen reader does on a library.
_EXAM_FIELDS = ("m", "memory_k", "page_size", "max_page", "search_backend", "typed_links",
                "toolset", "collapse_repeats", "reward_reader")


def reward_pool(train_qids: list[str], qid: str, k: int, seed: int) -> list[str]:
    """The pool for an episode on ``qid``: ``qid`` itself if it is a training question, then
    the first ``k`` other train qids in the seeded order (stream ``order/reward-pool``)."""
    order = list(train_qids)
    stream(seed, "order/reward-pool").shuffle(order)
    own = [qid] if qid in set(train_qids) else []
    return own + [q for q in order if q != qid][:k]


def pool_score(results: list[tuple[float, int]], mu: float, m: int) -> dict:
    """Mean F1, mean steps and ``S = f1 - mu * steps / m`` of (f1, steps) results."""
    n = len(results)
    f1 = sum(r[0] for r in results) / n if n else 0.0
    steps = sum(r[1] for r in results) / n if n else 0.0
    return {"f1": f1, "steps": steps, "score": f1 - mu * steps / m}


class CurationReward(AnswerReward):
    """Examines reward pools for one env and caches the results (see the module docstring).

    ``universe``/``questions`` are the env's; ``train_qids`` its train split (as cut to
    ``train_size``); ``config`` its KBGymConfig (the exam uses its budgets and paging; its
    ``reward`` is ``curation`` — 0.0 on every step but the last — or ``both`` — the answer's
    F1 too). The reader and the examiner are built on first use.
    """

    def __init__(self, universe: Any, questions: Mapping[str, Question], train_qids: list[str],
                 config: Any):
        self.universe = universe
        self.questions = questions
        self.train_qids = list(train_qids)
        self.config = config
        self.k, self.mu, self.m = config.reward_k, config.reward_mu, config.m
        self.with_answer = config.reward == "both"
        self.exams = 0  # examinations run (for benchmarks and tests)
        self._setup_key = (getattr(universe, "hash", None),) + tuple(
            str(getattr(config, f)) for f in _EXAM_FIELDS)
        self._examiner: Any = None
        self._reader: Any = None

    @classmethod
    def for_env(cls, env: Any) -> AnswerReward:
        """The reward ``KBGymConfig(reward="curation"|"both")`` gives ``env``: this one in
        train mode, the answer's F1 in probe mode (an exam has no backward phase)."""
        if env.mode != "train":
            return AnswerReward()
        train = env.split_qids("train") if "train" in env._splits else []
        if not train:
            raise ValueError(f"reward={env.config.reward!r} needs a non-empty train split "
                             f"for its reward pool; this env has {', '.join(env._splits)}")
        return cls(env.universe, env.questions, train, env.config)

    def pool(self, qid: str) -> list[str]:
        return reward_pool(self.train_qids, qid, self.k, self.config.reward_seed)

    # -- examinations ------------------------------------------------------------------------
    def _setup(self) -> None:
        from kbgym.plugins import make_agent
        from kbgym.runs.exam import Examiner

        self._reader = make_agent(self.config.reward_reader)
        exam_cfg = self.config.model_copy(update={"reward": "answer"})
        self._examiner = Examiner(self.universe, [self.questions[q] for q in self.train_qids],
                                  exam_cfg)

    def examine(self, library: Library, qid: str) -> tuple[float, int]:
        """(F1, steps) of the frozen reader on ``qid`` over ``library`` (cached by content)."""
        key = (self._setup_key, library.state_key(), qid, self.questions[qid].text)
        with _CACHE_LOCK:
            hit = _CACHE.get(key)
            if hit is not None:
                _CACHE.move_to_end(key)
                return hit
        if self._examiner is None:
            self._setup()
        with self._examiner.viewing(library):
            summary, _, _ = self._examiner.run(self._reader, qid)
        self.exams += 1
        result = (float(summary["f1"]), int(summary["steps"]))
        with _CACHE_LOCK:
            _CACHE[key] = result
            if len(_CACHE) > CACHE_MAX:
                _CACHE.popitem(last=False)
        return result

    def score(self, library: Library, pool: list[str]) -> dict:
        return pool_score([self.examine(library, q) for q in pool], self.mu, self.m)

    # -- the env's hooks (kbgym.env.reward.RewardFn) -----------------------------------------
    def episode_start(self, env: Any, episode: Any) -> None:
        episode.curation_before = self.before(env.library, episode.question.qid)

    def step(self, env: Any, episode: Any, action: str | None, answered: bool) -> float:
        return super().step(env, episode, action, answered) if self.with_answer else 0.0

    def episode_end(self, env: Any, episode: Any, info: dict) -> float:
        if episode.curation_before is None:
            return 0.0
        info["curation"] = self.after(env.library, episode.question.qid,
                                      episode.curation_before)
        return info["curation"]["reward"]

    # -- one episode -------------------------------------------------------------------------
    def before(self, library: Library, qid: str) -> dict:
        """Score the pool of ``qid`` on the library as the episode starts."""
        return self.score(library, self.pool(qid))

    def after(self, library: Library, qid: str, before: dict) -> dict:
        """The ``info["curation"]`` record: pool, before, after, mu and ``reward`` = ΔS."""
        pool = self.pool(qid)
        after = self.score(library, pool)
        return {"pool": pool, "mu": self.mu, "before": before, "after": after,
                "reward": after["score"] - before["score"]}
