"""``RunRecorder``: the wrapper that writes what an env does (SPEC §15.1).

One trace row per step, and one train_log row (train mode) or test_log row (probe mode) per
episode, including an episode abandoned by a mid-episode ``reset`` (SPEC §9.1), which the
env reports in the reset's ``info["abandoned"]``. Runners tell the recorder the agent's token
counts with :meth:`note_usage` before each step (prompt, completion, and ``tokens_cached``, the
part of the prompt the server read from its cache), and the next episode's epoch, iteration
and split with :meth:`begin`; without ``begin`` iterations are numbered 1, 2, … in epoch 1.
"""

from __future__ import annotations

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
    def __init__(self, env: gym.Env, files: Any, run_id: str | None = None):
        super().__init__(env)
        if isinstance(files, (str, Path)):
            files = RunDir(Path(files))
        self.files = files
        self.run_id = run_id
        self.kind = "train" if env.unwrapped.mode == "train" else "test"
        self._pending: dict | None = None
        self._ctx: dict = {}
        self._auto = 0
        self._usage = (0, 0, 0)
        self._tokens = [0, 0, 0]
        self._shown: list[dict] = []  # this test episode's trace rows (its evidence set)
        self._episodes: list[dict] = []  # train_log / test_log rows written, for the verdict
        self._steps: list[dict] = []  # each step's validity and error, for the verdict
        self.verdict: dict | None = None

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
        self._tokens = [0, 0, 0]
        self._shown = []
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
            row = train_row(self.run_id, self._ctx.get("epoch"), self._ctx.get("iteration"),
                            summary)
            self.files.log("train_log").write(row)
            self._episodes.append(row)
        else:
            q = self.env.unwrapped.question(summary["qid"])
            summary["evidence"] = evidence_set(self._shown, self.env.unwrapped.library)
            summary["repeat"] = self._ctx.get("repeat")
            row = test_row(self._ctx.get("epoch"), self._ctx.get("split"), q, summary)
            self.files.log("test_log").write({"run_id": self.run_id, **row})
            self._episodes.append(row)

    def close(self):
        """Close the logs and give the verdict (:attr:`verdict`): a :class:`VerdictWarning`
        when the agent made no edits, mostly acted invalidly, always ran out of steps, or
        (an exam) never answered."""
        self.files.close()
        if self._episodes and self.verdict is None:
            if self.kind == "train":
                self.verdict = train_verdict(self._episodes, self._steps)
            else:
                self.verdict = exam_verdict(self._episodes, self._steps)
            line = verdict_line(self.verdict, "curator" if self.kind == "train" else "reader")
            if line:
                warnings.warn(line, VerdictWarning, stacklevel=2)
        return super().close()
