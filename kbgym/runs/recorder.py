"""``RunRecorder``: the wrapper that writes what an env does (SPEC §15.1).

One trace row per step, and one train_log row (train mode) or test_log row (probe mode) per
episode, including an episode abandoned by a mid-episode ``reset`` (SPEC §9.1), which the
env reports in the reset's ``info["abandoned"]``. Runners tell the recorder the agent's token
counts with :meth:`note_usage` before each step (prompt, completion, and ``tokens_cached``, the
part of the prompt the server read from its cache), and the next episode's epoch, iteration
and split with :meth:`begin`; without ``begin`` iterations are numbered 1, 2, … in epoch 1.
A training episode's rows go trace, timing, train_log (which records ``trace_head``, the chain
after the episode's trace rows), so a kill never loses or doubles a timing row.

Given a folder (``RunRecorder(env, "runs/mine")``) the recorder makes it a run directory that
``kbgym probe make``, ``kbgym replay`` and ``kbgym report`` read like a ``kbgym train`` run:
``meta.json``, the untrained library as ``kb_epoch_0.json`` (and ``kb_start.json`` when the env
did not start from B1), ``series.jsonl`` after every iteration, and on :meth:`close` (or when
the epoch of :meth:`begin` moves on) ``kb_epoch_{e}.json`` and its ``kb_stats.jsonl`` row. The
folder is locked while the recorder is open, and one holding an earlier run is refused unless
``overwrite=True`` (:mod:`kbgym.runs.outdir`). The env's public helpers (``split_qids``,
``question``, ``library``, ``tool_schemas``, …) are reachable through the wrapper.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from pathlib import Path
from typing import Any

import gymnasium as gym

from kbgym.env.env import EPISODE_OVER
from kbgym.metrics.consistency import evidence_set
from kbgym.runs.episode import PHASE_CODE
from kbgym.runs.logs import RunDir
from kbgym.runs.rows import step_row, test_row, trace_row, train_row
from kbgym.runs.verdict import exam_verdict, train_verdict, verdict_line


class VerdictWarning(UserWarning):
    """A recorded run whose agent did nothing useful (:mod:`kbgym.runs.verdict`)."""


class RunRecorder(gym.Wrapper):
    def __init__(self, env: gym.Env, files: Any, run_id: str | None = None, *,
                 overwrite: bool = False):
        super().__init__(env)
        self.kind = "train" if env.unwrapped.mode == "train" else "test"
        self._run: _RunFolder | None = None
        if isinstance(files, (str, Path)):
            self._run = _RunFolder(env.unwrapped, Path(files), run_id, self.kind, overwrite)
            run_id = self._run.run_id
            files = self._run.files
        self.files = files
        self.run_id = run_id
        self._pending: dict | None = None
        self._ctx: dict = {}
        self._auto = 0
        self._usage = (0, 0, 0)
        self._tokens = [0, 0, 0]
        self._shown: list[dict] = []  # this test episode's trace rows (its evidence set)
        self._t0 = time.perf_counter()
        self._closed = False
        self._episodes: list[dict] = []  # train_log / test_log rows written, for the verdict
        self._steps: list[dict] = []  # each step's validity and error, for the verdict
        self.verdict: dict | None = None

    # -- the env's public helpers, through the wrapper --------------------------------------
    @property
    def library(self):
        return self.env.unwrapped.library

    @property
    def universe(self):
        return self.env.unwrapped.universe

    @property
    def config(self):
        return self.env.unwrapped.config

    @property
    def mode(self) -> str:
        return self.env.unwrapped.mode

    @property
    def split(self) -> str:
        return self.env.unwrapped.split

    @property
    def questions(self):
        return self.env.unwrapped.questions

    @property
    def episode(self):
        return self.env.unwrapped.episode

    def question(self, qid: str):
        return self.env.unwrapped.question(qid)

    def split_qids(self, name: str) -> list[str]:
        return self.env.unwrapped.split_qids(name)

    def tool_schemas(self, phase: str | None = None) -> list[dict]:
        return self.env.unwrapped.tool_schemas(phase)

    def snapshot(self, path, label: str = "snapshot") -> str:
        return self.env.unwrapped.snapshot(path, label)

    def max_obs_chars(self) -> int:
        return self.env.unwrapped.max_obs_chars()

    def fork_library(self):
        return self.env.unwrapped.fork_library()

    # -- recording --------------------------------------------------------------------------
    def begin(self, *, epoch: Any = None, iteration: int | None = None,
              split: str | None = None, repeat: int | None = None) -> None:
        """Context of the episode the next ``reset`` starts (``repeat``: repeated exams)."""
        self._pending = {"epoch": epoch, "iteration": iteration, "split": split}
        if repeat is not None:
            self._pending["repeat"] = repeat

    def note_usage(self, tokens_in: int, tokens_out: int, tokens_cached: int = 0) -> None:
        """The agent's tokens for the action about to be stepped."""
        self._usage = (int(tokens_in), int(tokens_out), int(tokens_cached))

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        if "abandoned" in info:
            self._episode_row(info["abandoned"])
        if self._pending is None:
            self._auto += 1
            default = {"epoch": 1, "iteration": self._auto} if self.kind == "train" else {}
            self._pending = {"split": self.env.unwrapped.split, **default}
        self._ctx, self._pending = self._pending, None
        if self.kind == "test":
            self._ctx["iteration"] = None
        elif self._run is not None:
            self._run.epoch_starts(self._ctx.get("epoch"))
        self._tokens = [0, 0, 0]
        self._shown = []
        self._t0 = time.perf_counter()
        return obs, info

    def step(self, action):
        ep = self.env.unwrapped.episode
        over = ep is not None and ep.over
        phase, step_no = (PHASE_CODE[ep.phase], ep.phase_steps + 1) if ep is not None else (0, 0)
        obs, reward, terminated, truncated, info = self.env.step(action)
        if over or info["result"] == EPISODE_OVER:  # nothing changes and nothing is logged
            return obs, reward, terminated, truncated, info
        t_in, t_out, cached = self._usage
        self._usage = (0, 0, 0)
        self._tokens[0] += t_in
        self._tokens[1] += t_out
        self._tokens[2] += cached
        row = trace_row(self.run_id, self.kind, self._ctx,
                        step_row(ep.question.qid, phase, step_no, info, (t_in, t_out, cached)))
        self.files.log("trace").write(row)
        self._steps.append({"valid": row["valid"],
                            "result": row["result"] if not row["valid"] else ""})
        if self.kind == "test":
            self._shown.append(row)
        if terminated or truncated:
            self._episode_row(info["episode_summary"])
        return obs, reward, terminated, truncated, info

    def _episode_row(self, summary: dict) -> None:
        summary = dict(summary, tokens_in=self._tokens[0], tokens_out=self._tokens[1],
                       tokens_cached=self._tokens[2])
        if self.kind == "train":
            epoch, iteration = self._ctx.get("epoch"), self._ctx.get("iteration")
            head = self.files.log("trace").head  # the chain after this episode's rows
            self.files.log("timing").write({
                "kind": "train", "iteration": iteration, "qid": summary["qid"],
                "seconds": round(time.perf_counter() - self._t0, 6)})
            row = train_row(self.run_id, epoch, iteration, summary)
            self.files.log("train_log").write({**row, "trace_head": head})
            self._episodes.append(row)
            if self._run is not None:
                self._run.iteration_done(epoch, iteration, summary)
        else:
            q = self.env.unwrapped.question(summary["qid"])
            summary["evidence"] = evidence_set(self._shown, self.env.unwrapped.library)
            summary["repeat"] = self._ctx.get("repeat")
            row = test_row(self._ctx.get("epoch"), self._ctx.get("split"), q, summary)
            self.files.log("test_log").write({"run_id": self.run_id, **row})
            self._episodes.append(row)

    def close(self):
        """Close the logs (a recorded folder gets its final snapshot and meta.json, and its
        lock is released) and give the verdict (:attr:`verdict`): a :class:`VerdictWarning`
        when the agent made no edits, mostly acted invalidly, always ran out of steps, or
        (an exam) never answered."""
        if self._episodes and self.verdict is None:
            if self.kind == "train":
                self.verdict = train_verdict(self._episodes, self._steps)
            else:
                self.verdict = exam_verdict(self._episodes, self._steps)
            line = verdict_line(self.verdict, "curator" if self.kind == "train" else "reader")
            if line:
                warnings.warn(line, VerdictWarning, stacklevel=2)
        if not self._closed:
            self._closed = True
            try:
                if self._run is not None:
                    self._run.finish(self.verdict)
            finally:
                self.files.close()
                if self._run is not None:
                    self._run.release()
        return super().close()


class _RunFolder:
    """What makes a recorded folder a run directory (the module doc): meta.json, the epoch
    snapshots and their kb_stats rows, series rows, and the folder's lock."""

    def __init__(self, env, root: Path, run_id: str | None, kind: str, overwrite: bool):
        from kbgym.library.snapshot import snapshot_hash
        from kbgym.runs.lock import run_lock
        from kbgym.runs.logs import run_id_of
        from kbgym.runs.outdir import check_out, clear

        flags = "overwrite=True to replace it, or choose another folder"
        check_out(root, what="a run", flags=flags, overwrite=overwrite, name="RunRecorder:")
        self._lock = contextlib.ExitStack()
        self._lock.enter_context(run_lock(root))
        try:
            check_out(root, what="a run", flags=flags, overwrite=overwrite, locked=True,
                      name="RunRecorder:")
            clear(root)
        except BaseException:
            self._lock.close()
            raise
        self.env, self.root, self.kind = env, root, kind
        u = env.universe
        self.uref = {"path": env.universe_path, "hash": u.hash}
        start = env.library
        self.start_hash = snapshot_hash(start)
        self.run_id = run_id or run_id_of({"universe": u.hash, "env": env.config.model_dump(),
                                           "start_library": self.start_hash,
                                           "recorded": kind})
        self.files = RunDir(root)
        self.tokens = [0, 0, 0]
        self.epoch: int | None = None
        self.iterations = 0
        if kind == "train":
            self._write_meta()
            if not _pristine(start, u):
                self._snapshot("kb_start.json", "start")
            self.files.log("series").write({"iteration": 0, "epoch": 0, "run_id": self.run_id,
                                            **start.stats()})
            self._end_epoch(0)

    def _snapshot(self, name: str, label: str) -> None:
        from kbgym.library.snapshot import write_snapshot

        write_snapshot(self.root / name, self.env.library, label, self.uref)

    def _end_epoch(self, epoch: int) -> None:
        self._snapshot(f"kb_epoch_{epoch}.json", f"epoch {epoch}")
        self.files.log("kb_stats").write({
            "epoch": epoch, "run_id": self.run_id, "train_iterations": self.iterations,
            "train_tokens_in": self.tokens[0], "train_tokens_out": self.tokens[1],
            **self.env.library.stats()})

    def epoch_starts(self, epoch: Any) -> None:
        """A training episode of ``epoch`` begins: an epoch before it is finished now."""
        if isinstance(epoch, int) and self.epoch is not None and epoch != self.epoch:
            self._end_epoch(self.epoch)
            self.epoch = None

    def iteration_done(self, epoch: Any, iteration: Any, summary: dict) -> None:
        self.iterations += 1
        self.tokens = [t + summary[k] for t, k in zip(self.tokens, ("tokens_in", "tokens_out",
                                                                    "tokens_cached"))]
        if isinstance(epoch, int):
            self.epoch = epoch
        self.files.log("series").write({"iteration": iteration, "epoch": epoch,
                                        "run_id": self.run_id, **self.env.library.stats()})

    def _write_meta(self, verdict: dict | None = None) -> None:
        import kbgym
        from kbgym.runs.logs import write_json
        from kbgym.runs.manifest import file_manifest, seal, sign

        cfg = self.env.config
        meta = {
            "run_id": self.run_id, "kbgym_version": kbgym.__version__, "universe": self.uref,
            "seed": self.env.universe.meta.get("seed", 0), "epochs": None,
            "train_size": cfg.train_size, "n1": cfg.n1, "n2": cfg.n2, "m": cfg.m,
            "k": cfg.memory_k, "snapshot_every": None,
            "search": {"backend": cfg.search_backend, "refresh": cfg.refresh,
                       "page_size": cfg.page_size, "max_page": cfg.max_page},
            "typed_links": cfg.typed_links, "toolset": cfg.toolset,
            "agent": {"model": "recorded"}, "recorded": True, "curator": None,
            "start_library": self.start_hash,
            "tokens": {"train": self.tokens[:2], "test": [0, 0]},
            "tokens_cached": {"train": self.tokens[2], "test": 0}, "schema_version": 1,
            **({"verdict": verdict} if verdict is not None else {}),
            "files": file_manifest(self.root)}
        write_json(self.root / "meta.json", seal(sign(meta, self.root) if verdict is not None
                                                 else meta))

    def finish(self, verdict: dict | None = None) -> None:
        if self.kind != "train":
            return
        if self.epoch is not None:
            self._end_epoch(self.epoch)
            self.epoch = None
        self._write_meta(verdict)

    def release(self) -> None:
        self._lock.close()


def _pristine(lib, universe) -> bool:
    """Whether ``lib`` is the untrained library B1 of ``universe`` (replay starts there)."""
    s = lib.stats()
    return (s["n_links"] == 0 and s["authored_statements"] == 0 and s["edited_statements"] == 0
            and s["n_nodes"] == len(universe.nodes) and s["merges"] == 0)
