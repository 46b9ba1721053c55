"""KBGym as a verifiers v1 environment (``vf-eval kbgym_vf``).

:class:`KBGymTaskset` yields one task per question of a split (the question's task block is
the prompt; its qid travels in ``info``); :class:`KBGymVfEnv` plays each task host-side with a
:class:`kbgym.KBGymEnv`: every model reply is read as one action (a JSON object, fenced or
bare: ``{"name": "search", "arguments": {"query": ...}}`` or ``{"action": "search", ...}``),
stepped, and the env's next observation is the next user turn, until the episode ends. The
episode's reward (the answer's F1 in probe mode; with ``mode="train"`` the env's configured
reward) is recorded as ``kbgym_reward``.

Probe mode is the default: the library is a frozen copy and no gold is ever shown, so any
split may be examined. Train mode (the backward phase shows the gold) is refused on any split
but ``train``. :func:`load_environment` builds the env from keyword options.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Literal

import verifiers.v1 as vf

SYSTEM_PROMPT = (
    "You work with a library of one-sentence notes through tools. Each user turn shows the "
    "task, your recent actions with their results and how many actions are left. Reply with "
    "exactly one action as a JSON object and nothing else: "
    '{"name": TOOL, "arguments": {...}}. Tools: search(query, page), read(id), answer(text); '
    "in the backward phase also add(text), edit(id, text), delete(id), link(source, target), "
    "link_many(source, targets), unlink(source, target) and done(). Answer with a short name, "
    'number or "unknown".'
)


class KBGymTasksetConfig(vf.TasksetConfig):
    split: str = "test_in"
    mode: Literal["probe", "train"] = "probe"
    universe: str | None = None
    library: str | None = None


class KBGymData(vf.TaskData):
    info: dict
    """The question's qid, split and the episode mode."""


class KBGymTask(vf.Task[KBGymData, vf.State, vf.TaskConfig]):
    pass


@functools.lru_cache(maxsize=4)
def _universe(path: str | None):
    from kbgym.env.env import load_universe

    return load_universe(path)[0]


@functools.lru_cache(maxsize=4)
def _library(path: str):
    from kbgym.library.snapshot import load_snapshot

    return load_snapshot(path)[0]


class KBGymTaskset(vf.Taskset[KBGymTask, KBGymTasksetConfig]):
    def load(self) -> Iterator[KBGymTask]:
        from kbgym.protocol.tasks import format_forward as forward_block
        from kbgym.protocol.tasks import format_probe as probe_block

        cfg = self.config
        if cfg.mode == "train" and cfg.split != "train":
            raise ValueError("train episodes show the gold: only split 'train' may be used "
                             f"with mode='train', not {cfg.split!r}")
        u = _universe(cfg.universe)
        if cfg.split not in u.splits:
            raise ValueError(f"unknown split {cfg.split!r}; known: {', '.join(u.splits)}")
        block = probe_block if cfg.mode == "probe" else forward_block
        for qid in u.splits[cfg.split]:
            q = u.question(qid)
            yield KBGymTask(KBGymData(name=qid, prompt=block(qid, q.text),
                                      system_prompt=SYSTEM_PROMPT,
                                      info={"qid": qid, "split": cfg.split, "mode": cfg.mode}),
                            self.config.task)


class KBGymEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig()


def _action(reply: str | None):
    from kbgym_agents.llm.toolcalls import read_text_call

    action, found = read_text_call(reply)
    return action if found else (reply or "")


class KBGymVfEnv(vf.Env[KBGymEnvConfig]):
    async def run(self, task, agents):
        from kbgym.env.env import KBGymEnv
        from kbgym.library.graph import Library

        cfg = self.taskset.config
        u = _universe(cfg.universe)
        start = _library(cfg.library) if cfg.library else Library.from_universe(u)
        env = KBGymEnv(u, mode=task.data.info["mode"], library=start.copy(search=None))
        obs, _ = env.reset(options={"qid": task.data.info["qid"]})
        total, outcome = 0.0, {}
        async with agents.player.interaction(task) as interaction:
            # the task's prompt is the opening observation's task block: the model moves first
            segment = await interaction.turn()
            while not segment.terminated:
                obs, reward, term, trunc, info = env.step(_action(segment.last_reply))
                total += float(reward)
                if term or trunc:
                    outcome = info.get("episode_summary", {})
                    break
                segment = await interaction.turn(obs["text"])
        trace = interaction.trace
        trace.record_reward("kbgym_reward", total, 1.0)
        if outcome:
            trace.info["kbgym"] = {k: outcome.get(k) for k in ("qid", "status", "f1", "em",
                                                               "steps")}


def load_environment(**taskset: object) -> KBGymVfEnv:
    """The env for ``vf-eval``/Python use, with taskset options (split, mode, universe,
    library)."""
    from verifiers.v1.utils.loaders import load_environment as vf_load, resolve_env_config

    return vf_load(resolve_env_config({"taskset": {"id": "kbgym_vf", **taskset}}))


__all__ = ["KBGymTaskset", "KBGymVfEnv", "load_environment"]
