"""KBGym for LLM-RL trainers: one :class:`KBGymSession` per rollout, one method per tool.

The shape is that of TRL's ``GRPOTrainer(environment_factory=...)``: the trainer builds a pool
of instances, calls ``reset(**row)`` with a dataset row before each rollout, exposes the
public methods as tools (their type hints and docstrings are the tool schemas) and asks
``get_reward()`` at the end. Nothing here imports TRL or torch::

    from kbgym.rl import KBGymSession, session_rows
    rows = session_rows(split="train")              # [{"prompt": [...], "qid": ..., "library": ...}]
    trainer = GRPOTrainer(..., train_dataset=Dataset.from_list(rows),
                          environment_factory=KBGymSession,
                          reward_funcs=lambda environments, **_: [e.get_reward() for e in environments])

A row names the question (``qid``) and the starting library (``library``: a snapshot path, or
"" for the universe's B1). Every reset starts from a fresh fork of that library (loaded once
per process), so the G rollouts of one row start from one state and a pooled instance keeps
nothing from its previous rollout. Tools are phase-gated by the environment: a tool called
out of phase, or after the episode ended, returns the environment's ``ERROR: ...`` string.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kbgym.env.config import KBGymConfig
from kbgym.env.env import KBGymEnv, load_universe
from kbgym.library.graph import Library

#: The env config a session uses unless given one: the curation reward plus answer F1.
DEFAULT_CONFIG: dict[str, Any] = {"reward": "both"}


@functools.lru_cache(maxsize=8)
def _start_library(path: str, search_backend: str) -> Library:
    """The library a row starts from, loaded once per process (every reset forks it)."""
    from kbgym.library.search import make_backend
    from kbgym.library.snapshot import load_snapshot

    lib, _ = load_snapshot(path, search=make_backend(search_backend))
    return lib


_B1: dict[tuple[str, str], Library] = {}


def _b1(universe: Any, search_backend: str) -> Library:
    """The universe's B1 with a search index, built once per process."""
    from kbgym.library.search import make_backend

    key = (universe.hash, search_backend)
    if key not in _B1:
        _B1[key] = Library.from_universe(universe, search=make_backend(search_backend))
    return _B1[key]


class KBGymSession:
    """One rollout of one training question: forward tools, then backward (curation) tools.

    ``universe``: a Universe, a universe.json path or None (the default universe).
    ``config``: a KBGymConfig or a mapping of its fields (default ``{"reward": "both"}``).
    """

    def __init__(self, universe: Any = None, config: KBGymConfig | Mapping | None = None):
        self._universe, _ = load_universe(universe)
        cfg = KBGymConfig(**(DEFAULT_CONFIG if config is None else dict(config))) \
            if not isinstance(config, KBGymConfig) else config
        self._env = KBGymEnv(self._universe, config=cfg)
        self._reward = 0.0
        self._info: dict = {}
        self._started = False

    # -- the trainer's side ----------------------------------------------------------------
    def reset(self, qid: str | None = None, library: str | None = None, **_: Any) -> str:
        """Start a rollout on question ``qid`` from ``library`` (a snapshot path; "" or None:
        B1). Other row fields (e.g. ``prompt``) are ignored. Returns the first observation."""
        cfg = self._env.config
        if library:
            start = _start_library(str(Path(library)), cfg.search_backend)
        else:
            start = _b1(self._universe, cfg.search_backend)
        options: dict[str, Any] = {"library": start.fork()}
        if qid:
            options["qid"] = qid
        obs, self._info = self._env.reset(options=options)
        self._reward = 0.0
        self._started = True
        return obs["text"]

    def get_reward(self) -> float:
        """The rollout's reward: the sum of the environment's step rewards. A rollout that
        stopped in the backward phase without ``done`` is ended here as if it called done
        (so the curation reward is computed); one that never answered keeps what it has."""
        ep = self._env.episode
        if ep is not None and not ep.over and ep.phase == "backward":
            self._step({"action": "done"})
        return float(self._reward)

    @property
    def info(self) -> dict:
        """The environment's latest info (``info["curation"]`` once the episode is over)."""
        return self._info

    def _step(self, action: dict) -> str:
        if not self._started:
            return "ERROR: no rollout - the trainer must call reset() first"
        ep = self._env.episode
        phase, was_over = ep.phase, ep.over
        obs, reward, term, trunc, self._info = self._env.step(action)
        self._reward += float(reward)
        result = self._info["result"]
        if ep.phase != phase or (ep.over and not was_over):
            return f"{result}\n\n{obs['text']}"  # a new phase: its task block, with the gold
        return result

    # -- tools (forward: search, read, answer; backward: search, read and the edits) -------
    def search(self, query: str, page: int = 1) -> str:
        """Search the library's notes.

        Args:
            query: Words to look for.
            page: Result page, 1 for the best hits.

        Returns:
            The page of matching notes as "- id: text" lines.
        """
        return self._step({"action": "search", "query": query, "page": page})

    def read(self, id: str) -> str:
        """Read one note and the notes it links to.

        Args:
            id: The note id, e.g. s0042.

        Returns:
            The note's text and its links.
        """
        return self._step({"action": "read", "id": id})

    def answer(self, text: str) -> str:
        """Answer the question (forward phase); this ends the forward phase.

        Args:
            text: The answer.

        Returns:
            The score and, for the backward phase, the gold answer and the task.
        """
        return self._step({"action": "answer", "text": text})

    def add(self, text: str) -> str:
        """Add a new note (backward phase).

        Args:
            text: One sentence.

        Returns:
            The new note's id, or the note it duplicates.
        """
        return self._step({"action": "add", "text": text})

    def edit(self, id: str, text: str) -> str:
        """Replace a note's text (backward phase).

        Args:
            id: The note id.
            text: The new sentence.

        Returns:
            What happened to the note.
        """
        return self._step({"action": "edit", "id": id, "text": text})

    def delete(self, id: str) -> str:
        """Delete a note and every link to it (backward phase).

        Args:
            id: The note id.

        Returns:
            What was deleted.
        """
        return self._step({"action": "delete", "id": id})

    def link(self, source: str, target: str) -> str:
        """Link one note to another (backward phase).

        Args:
            source: The id of the note that gets the link.
            target: The id of the note it points at.

        Returns:
            What was linked.
        """
        return self._step({"action": "link", "source": source, "target": target})

    def link_many(self, source: str, targets: list[str]) -> str:
        """Link one note to several notes at once (backward phase).

        Args:
            source: The id of the note that gets the links.
            targets: The ids of the notes it points at.

        Returns:
            The links made and the ids skipped, with reasons.
        """
        return self._step({"action": "link_many", "source": source, "targets": targets})

    def unlink(self, source: str, target: str) -> str:
        """Remove a link (backward phase).

        Args:
            source: The id of the note that has the link.
            target: The id of the note it points at.

        Returns:
            What was unlinked.
        """
        return self._step({"action": "unlink", "source": source, "target": target})

    def done(self) -> str:
        """Finish the backward phase (and the rollout).

        Returns:
            The final result.
        """
        return self._step({"action": "done"})


def session_rows(universe: Any = None, *, split: str = "train", libraries: list[str] | None = None,
                 limit: int | None = None, repeat: int = 1) -> list[dict]:
    """Dataset rows for :class:`KBGymSession`: one per (library, question of ``split``), each
    ``{"prompt": [{"role": "user", "content": <the question's task block>}], "qid": ...,
    "library": <snapshot path or "">}``, ``repeat`` times in a row. Only the train split (or
    another split the caller names deliberately) should feed training."""
    from kbgym.protocol.tasks import format_forward as forward_block

    u, _ = load_universe(universe)
    if split not in u.splits:
        raise ValueError(f"unknown split {split!r}; known: {', '.join(u.splits)}")
    qids = list(u.splits[split])[:limit]
    rows = []
    for lib in (libraries or [""]):
        for qid in qids:
            q = u.question(qid)
            row = {"prompt": [{"role": "user", "content": forward_block(qid, q.text)}],
                   "qid": qid, "library": str(lib) if lib else ""}
            rows += [dict(row) for _ in range(repeat)]
    return rows
