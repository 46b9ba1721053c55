"""The curation reward: what a frozen reader gains on the curated library.

When a training episode's backward phase ends, a frozen reader (a plugin resolved by name,
``scripted-reader`` by default, used as a black box through ``reset()`` / ``act()``) examines a
*reward pool* of training questions on the library as it was before the episode's edits and as
it is after them. With ``S = mean F1 - mu * mean steps / M`` over the pool (``reward_norm=
"sum"``: summed instead of averaged) the reward is ``reward_scale * (S_after - S_before)``.

The pool (:func:`reward_pool`) holds, in order:

- the *transfer* questions: up to ``reward_transfer`` training questions that share a key
  (a person, city, job, hobby) with the episode's question, most shared keys first, then in a
  seeded order - structure built for this question's keys is paid where it serves questions
  the curator has not seen in this episode;
- ``reward_k`` others, the first in a fixed seeded order of the train split;
- the episode's own question only with ``reward_own=True``: its gold was just shown, so
  writing the answer into the library would pay there (the content-writer shortcut).

Only the env's train split (as cut to ``train_size``) is drawn from: never a test, eval or
held-out question, nor a question of the run's probe that was not trained on (a probe's exact
group copies trained questions; its share groups are questions outside the train split).

The others are the same in every episode, so the scores of one episode's "after" library serve
as the next episode's "before": results are cached per (library content key, qid) and an
episode costs about ``k + transfer`` examinations, none at all when it made no edit. The cache
is shared by the envs of a process with the same exam setup. With ``reward_shaping="edits"``
the pool is scored after every edit and each edit step is paid the change (the sum over the
episode is the same ΔS; an examination per pool question and edit).

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
from collections.abc import Mapping, Sequence
from typing import Any

from kbgym.env.reward import AnswerReward
from kbgym.library.graph import Library
from kbgym.seeding import stream
from kbgym.types import Question

#: Examination results kept per process, least recently used dropped first.
CACHE_MAX = 65_536

#: (exam setup, library state key, qid, question text) -> (f1, steps), shared by every env of
#: the process with the same exam setup (so G rollouts forked from one library examine its
#: "before" pool once).
_CACHE: OrderedDict[tuple, tuple[float, int]] = OrderedDict()
_CACHE_LOCK = threading.Lock()  # envs of one process may step in threads (kbgym serve)

#: The config fields that can change what the frozen reader does on a library.
_EXAM_FIELDS = ("m", "memory_k", "page_size", "max_page", "search_backend", "typed_links",
                "toolset", "collapse_repeats", "reward_reader")  # not reward_norm: the cache
#   holds per-question (f1, steps), whatever the pool score does with them


def transfer_qids(train_qids: Sequence[str], qid: str, keys: Mapping[str, Sequence[str]],
                  n: int, seed: int) -> list[str]:
    """Up to ``n`` train qids other than ``qid`` sharing a key with it (``keys``: qid ->
    its question's keys), most shared keys first, ties in the seeded order (stream
    ``order/reward-transfer``)."""
    if n <= 0:
        return []
    mine = set(keys.get(qid, ()))
    order = list(train_qids)
    stream(seed, "order/reward-transfer").shuffle(order)
    shared = [(len(mine.intersection(keys.get(q, ()))), i, q) for i, q in enumerate(order)
              if q != qid]
    return [q for s, _, q in sorted(shared, key=lambda t: (-t[0], t[1])) if s > 0][:n]


def reward_pool(train_qids: list[str], qid: str, k: int, seed: int, *,
                keys: Mapping[str, Sequence[str]] | None = None, transfer: int = 0,
                own: bool = False) -> list[str]:
    """The pool for an episode on ``qid`` (see the module docstring): its transfer
    questions, then the first ``k`` other train qids in the seeded order (stream
    ``order/reward-pool``), then ``qid`` itself when ``own`` and it is a training question;
    each qid once."""
    order = list(train_qids)
    stream(seed, "order/reward-pool").shuffle(order)
    pool = transfer_qids(train_qids, qid, keys or {}, transfer, seed)
    taken = set(pool) | {qid}
    pool += [q for q in order if q not in taken][:k]
    if own and qid in set(train_qids):
        pool.append(qid)
    return pool


def pool_score(results: list[tuple[float, int]], mu: float, m: int,
               norm: str = "mean") -> dict:
    """Mean F1, mean steps and ``S = f1 - mu * steps / m`` of (f1, steps) results; with
    ``norm="sum"`` the score is summed over the questions instead (``n * S``)."""
    n = len(results)
    f1 = sum(r[0] for r in results) / n if n else 0.0
    steps = sum(r[1] for r in results) / n if n else 0.0
    score = f1 - mu * steps / m
    return {"f1": f1, "steps": steps, "score": score * n if norm == "sum" else score}


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
        self.shaping = config.reward_shaping == "edits"
        self.keys = {q: tuple(questions[q].keys) for q in self.train_qids}
        self._paid = 0.0  # the part of this episode's ΔS already paid (edit shaping)
        self._last: dict | None = None
        self._version: int | None = None
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
        cfg = self.config
        return reward_pool(self.train_qids, qid, self.k, cfg.reward_seed, keys=self.keys,
                           transfer=cfg.reward_transfer, own=cfg.reward_own)

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
        return pool_score([self.examine(library, q) for q in pool], self.mu, self.m,
                          self.config.reward_norm)

    # -- the env's hooks (kbgym.env.reward.RewardFn) -----------------------------------------
    def episode_start(self, env: Any, episode: Any) -> None:
        episode.curation_before = self.before(env.library, episode.question.qid)
        self._paid, self._last, self._version = 0.0, episode.curation_before, \
            env.library.version

    def step(self, env: Any, episode: Any, action: str | None, answered: bool) -> float:
        reward = super().step(env, episode, action, answered) if self.with_answer else 0.0
        if (self.shaping and episode.curation_before is not None
                and episode.phase == "backward" and env.library.version != self._version):
            self._version = env.library.version  # an edit: pay the pool score's change
            now = self.score(env.library, self.pool(episode.question.qid))
            paid = self.config.reward_scale * (now["score"] - self._last["score"])
            self._last, self._paid = now, self._paid + paid
            reward += paid
        return reward

    def episode_end(self, env: Any, episode: Any, info: dict) -> float:
        if episode.curation_before is None:
            return 0.0
        info["curation"] = self.after(env.library, episode.question.qid,
                                      episode.curation_before)
        return info["curation"]["reward"] - self._paid

    # -- one episode -------------------------------------------------------------------------
    def before(self, library: Library, qid: str) -> dict:
        """Score the pool of ``qid`` on the library as the episode starts."""
        return self.score(library, self.pool(qid))

    def after(self, library: Library, qid: str, before: dict) -> dict:
        """The ``info["curation"]`` record: pool, before, after, mu and ``reward`` =
        ``reward_scale`` * ΔS (the episode's whole curation reward, however it was paid)."""
        pool = self.pool(qid)
        after = self.score(library, pool)
        return {"pool": pool, "mu": self.mu, "before": before, "after": after,
                "reward": self.config.reward_scale * (after["score"] - before["score"])}
