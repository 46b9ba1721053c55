"""A library that learns during GRPO: :class:`LibraryLearner`.

Without it, every rollout forks a fixed start library and its edits are thrown away. With it,
the rollouts of a GRPO step all fork the learner's library, report themselves when scored
(:meth:`KBGymSession.get_reward <kbgym.rl.KBGymSession.get_reward>` calls :meth:`record`),
and between steps :meth:`commit` advances the library: per question group, a rule picks the
rollout(s) to keep (``"best"``: the highest reward; ``"best_positive"``: the best if its
reward is above 0; or a function ``group -> list of rollouts``), and each kept rollout's
actions are re-executed on the learner's own train-mode env through a
:class:`~kbgym.runs.recorder.RunRecorder`. So the learner's folder is an ordinary training
run: ``trace.jsonl`` (one iteration per committed rollout), ``train_log.jsonl``,
``series.jsonl``, ``kb_stats.jsonl``, ``kb_epoch_{n}.json`` after the n-th commit (a commit
is an epoch) and ``meta.json`` - and ``kbgym replay``, ``kbgym probe make / test / table`` and
``kbgym report`` work on it unchanged. ``rl_commits.jsonl`` adds one row per commit: the
groups, the kept rollouts, their reward in the rollout and on re-execution (a kept rollout
cut before it answered made no edit and is not re-executed: ``iteration`` and
``replayed_reward`` null).

Re-execution is the merge: the rollouts of one step started from the same state, so when a
second kept rollout added notes, the ids it saw (``s0105``) may now be taken; the ids it
created are mapped, in order, onto the ids its re-execution creates, and its later actions
use the mapped ids. :meth:`merge` is that seam (a copy-on-write fork with a merge-back, when
the library has one, can replace it without changing the run it writes).

Use it from TRL with :func:`kbgym.rl.library_callback` (a ``TrainerCallback`` that commits at
every step end), or by hand: ``learner.commit()`` after each batch of rollouts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import kbgym
from kbgym.env.config import KBGymConfig
from kbgym.env.env import KBGymEnv
from kbgym.errors import ConfigError
from kbgym.library.graph import Library, format_id
from kbgym.library.snapshot import snapshot_hash, write_snapshot
from kbgym.runs.logs import RunDir, run_id_of, write_json
from kbgym.runs.recorder import RunRecorder
from kbgym.types import Universe

Rule = Callable[[list[dict]], Sequence[dict]]
ID_FIELDS = ("id", "source", "target")


def _best(group: list[dict]) -> list[dict]:
    return [max(group, key=lambda r: r["reward"])]  # ties: the first


def _best_positive(group: list[dict]) -> list[dict]:
    best = _best(group)
    return best if best[0]["reward"] > 0 else []


RULES: dict[str, Rule] = {"best": _best, "best_positive": _best_positive}


def remap(action: dict, idmap: dict[str, str]) -> dict:
    """``action`` with every note id it names (id, source, target, targets) mapped."""
    if not idmap:
        return dict(action)
    out = dict(action)
    for k in ID_FIELDS:
        if isinstance(out.get(k), str):
            out[k] = idmap.get(out[k], out[k])
    if isinstance(out.get("targets"), list):
        out["targets"] = [idmap.get(t, t) if isinstance(t, str) else t for t in out["targets"]]
    return out


class LibraryLearner:
    """The library GRPO rollouts start from, advanced by :meth:`commit` and logged as a run.

    ``out``: the run folder (written like ``kbgym train``'s). ``config``: the sessions' env
    config (the learner re-executes under the same reward). ``rule``: ``"best"``,
    ``"best_positive"`` or a function. ``start``: the library to begin from (default B1).
    A folder that is not empty is refused unless ``overwrite`` (which removes the old run's
    logs, snapshots and meta.json first).
    """

    def __init__(self, universe: Universe, out: str | Path, *,
                 config: KBGymConfig | dict | None = None, rule: str | Rule = "best",
                 start: Library | None = None, universe_path: str | None = None,
                 overwrite: bool = False):
        if isinstance(rule, str) and rule not in RULES:
            raise ValueError(f"unknown rule {rule!r}; known: {', '.join(RULES)} or a function")
        self.universe = universe
        self.rule: Rule = RULES[rule] if isinstance(rule, str) else rule
        cfg = config if isinstance(config, KBGymConfig) else KBGymConfig(**dict(config or {}))
        self.config = cfg
        self.root = Path(out)
        if self.root.exists() and any(self.root.iterdir()):
            if not overwrite:
                raise ConfigError(f"{self.root} is not empty; give an empty folder, or "
                                  "overwrite=True to replace the run there")
            for old in [*self.root.glob("*.jsonl"), *self.root.glob("kb_*.json"),
                        self.root / "meta.json"]:
                old.unlink(missing_ok=True)
        self.root.mkdir(parents=True, exist_ok=True)
        self.files = RunDir(self.root)
        self.uref = {"path": universe_path, "hash": universe.hash}
        base = start.copy(search=None) if start is not None else \
            Library.from_universe(universe, typed_links=cfg.typed_links)
        if start is not None:
            write_snapshot(self.root / "kb_start.json", start, "start", self.uref)
        self.env = KBGymEnv(universe, mode="train", library=base, config=cfg)
        rc = {"kind": "kbgym.rl", "universe": universe.hash, "env": cfg.model_dump(),
              "rule": rule if isinstance(rule, str) else getattr(rule, "__name__", "custom"),
              "start_library": snapshot_hash(start) if start is not None else None}
        self.run_id = run_id_of(rc)
        self.recorder = RunRecorder(self.env, self.files, self.run_id)
        self.commits = 0
        self.iterations = 0
        self.pending: list[dict] = []
        self.stale = 0
        self._rollout_env: KBGymEnv | None = None
        self._write_meta()
        self.files.log("series").write(self._stats(iteration=0, epoch=0, run_id=self.run_id))
        self._end_epoch()

    @property
    def library(self) -> Library:
        """The learner's library: what the next rollouts fork (never edit it directly)."""
        return self.env.library

    # -- rollouts in, commits out --------------------------------------------------------------
    def rollout(self, agent: Any, qid: str) -> dict:
        """The plain-Python way to make a rollout: ``agent`` (any KBGym agent: ``reset()``,
        ``act(obs, info)``) plays ``qid`` on a fork of the learner's library, in an env of the
        learner's config; the rollout is recorded and returned."""
        from kbgym.runs.episode import reset_agent

        if self._rollout_env is None:
            self._rollout_env = KBGymEnv(self.universe, mode="train", library=Library(),
                                         config=self.config)
        env = self._rollout_env
        start = self.library.state_key()
        obs, info = env.reset(options={"library": self.library.fork(), "qid": qid})
        reset_agent(agent)
        steps, reward = [], 0.0
        while not env.episode.over:
            action = agent.act(obs, info)
            before = env.library.next_id
            obs, r, _, _, info = env.step(action)
            reward += float(r)
            steps.append((action if isinstance(action, dict) else
                          {**info["input"], "action": info["action"]} if info["action_valid"]
                          else {"action": str(action)},
                          [format_id(n) for n in range(before, env.library.next_id)]))
        rollout = {"qid": qid, "start": start, "steps": steps, "reward": reward, "over": True}
        self.record(rollout)
        return rollout

    def record(self, rollout: dict) -> None:
        """A scored rollout (what ``KBGymSession.get_reward`` reports); one that started from an older state
        of the library (before the last commit) is counted and dropped."""
        if rollout.get("qid") is None:
            return
        if rollout.get("start") != self.library.state_key():
            self.stale += 1
            return
        self.pending.append(rollout)

    def commit(self) -> dict:
        """Advance the library by the rule's picks of each question group of the recorded
        rollouts (in the order the groups first appeared), then write the epoch's snapshot and
        stats. Returns the commit's record (also appended to ``rl_commits.jsonl``)."""
        groups: dict[str, list[dict]] = {}
        for r in self.pending:
            groups.setdefault(r["qid"], []).append(r)
        self.pending = []
        self.commits += 1
        kept = []
        for qid, group in groups.items():
            for rollout in self.rule(group):
                replayed = self.merge(rollout)
                kept.append({"qid": qid,
                             "iteration": self.iterations if replayed is not None else None,
                             "index": next(i for i, r in enumerate(group) if r is rollout),
                             "reward": rollout["reward"], "replayed_reward": replayed,
                             "group": [r["reward"] for r in group]})
        record = {"commit": self.commits, "groups": len(groups), "kept": kept,
                  "stale": self.stale, "library": snapshot_hash(self.library)}
        self.stale = 0
        self.files.log("rl_commits").write(record)
        self._end_epoch()
        self._write_meta()
        return record

    def merge(self, rollout: dict) -> float | None:
        """Re-execute one rollout on the learner's library as the next iteration of the run
        (ids it created mapped onto the ids created now); returns the reward it earned. A
        rollout the trainer cut before it answered (``over`` false: it never reached the
        backward phase, so it made no edit) is not re-executed - it would leave an unfinished
        iteration the run's replay cannot place - and None is returned."""
        if not rollout.get("over", True):
            return None
        self.iterations += 1
        env, rec = self.env, self.recorder
        rec.begin(epoch=self.commits, iteration=self.iterations, split="train")
        rec.reset(options={"qid": rollout["qid"]})
        idmap: dict[str, str] = {}
        reward = 0.0
        for action, created in rollout["steps"]:
            if env.episode.over:
                break
            before = env.library.next_id
            _, r, _, _, _ = rec.step(remap(action, idmap))
            reward += float(r)
            made = [format_id(n) for n in range(before, env.library.next_id)]
            idmap.update((old, new) for old, new in zip(created, made) if old != new)
        if not env.episode.over:  # a rollout cut by the trainer ends as get_reward ends it
            if env.episode.phase == "backward":
                reward += float(rec.step({"action": "done"})[1])
        self.files.log("series").write(self._stats(iteration=self.iterations,
                                                   epoch=self.commits, run_id=self.run_id))
        return reward

    # -- the run folder ------------------------------------------------------------------------
    def _stats(self, **extra: Any) -> dict:
        return {**extra, **self.library.stats()}

    def _end_epoch(self) -> None:
        e = self.commits
        write_snapshot(self.root / f"kb_epoch_{e}.json", self.library, f"commit {e}", self.uref)
        self.files.log("kb_stats").write(self._stats(
            epoch=e, run_id=self.run_id, train_iterations=self.iterations,
            train_tokens_in=0, train_tokens_out=0))

    def _write_meta(self) -> None:
        cfg = self.config
        write_json(self.root / "meta.json", {
            "run_id": self.run_id, "kbgym_version": kbgym.__version__, "universe": self.uref,
            "seed": self.universe.meta.get("seed"), "epochs": self.commits, "train_size": None,
            "n1": cfg.n1, "n2": cfg.n2, "m": cfg.m, "k": cfg.memory_k, "snapshot_every": None,
            "search": {"backend": cfg.search_backend, "refresh": cfg.refresh,
                       "page_size": cfg.page_size, "max_page": cfg.max_page},
            "typed_links": cfg.typed_links, "toolset": cfg.toolset,
            "agent": {"model": "GRPO policy (committed rollouts)"},
            "dedup": {"enabled": False, "threshold": cfg.dedup_threshold, "judge_model": None,
                      "judge_tokens": [0, 0], "merges": self.library.merges,
                      "judge_calls": 0, "judge_errors": 0},
            "tokens_cached": {"train": 0, "test": 0},
            "tokens": {"train": [0, 0], "test": [0, 0]},
            "curator": {"plugin": "kbgym.rl", "options": {}, "classes": {}, "meta": {}},
            "rl": {"commits": self.commits, "iterations": self.iterations},
            "schema_version": 1,
        })

    def close(self) -> None:
        self.files.close()
