"""KBGym for LLM-RL trainers: one :class:`KBGymSession` per rollout, one method per tool.

The shape is that of TRL's ``GRPOTrainer(environment_factory=...)`` (TRL >= 1.x): the trainer
builds a pool of instances, calls ``reset(**row)`` with a dataset row before each rollout and
appends what it returns to the row's last user message, exposes the public methods as tools
(their type hints and docstrings are the tool schemas) and - because the session defines
``get_reward`` - adds ``get_reward()`` as a reward column of its own (named
``KBGymSession``, weight 1). So the wiring passes **no** ``reward_funcs`` for it (passing one
that reads ``get_reward`` counts the reward twice). Nothing here imports TRL or torch::

    from kbgym.rl import KBGymSession, session_rows
    rows = session_rows(split="train", system_prompt=open("agents/prompts/rl_session.md").read())
    trainer = GRPOTrainer(model=..., train_dataset=Dataset.from_list(rows),
                          environment_factory=KBGymSession, args=GRPOConfig(...))

A row names the question (``qid``), the starting library (``library``: a snapshot path, or ""
for the universe's B1) and the chat (``prompt``: an optional system message with the
instruction, then the user message with the question's task block). The session takes the
prompt as data; the env holds no prompt. ``reset`` returns only what that chat does not
already hold (the budget line, or the whole task block when the row has no prompt); each tool
returns its result, and the ``answer`` that ends the forward phase adds the backward task
block (the gold, the outcome, the curation instruction) and its budget.

Every reset starts from a fresh fork of the row's library (loaded once per process), so the
G rollouts of one row start from one state and a pooled instance keeps nothing from its
previous rollout. With a :class:`kbgym.runs.learner.LibraryLearner` (``learner=``) the start
is instead the learner's library, which advances between GRPO steps (see that module).
Tools are phase-gated by the environment: a tool called out of phase, or after the episode
ended, returns the environment's ``ERROR: ...`` string.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kbgym.env.config import KBGymConfig
from kbgym.env.env import KBGymEnv, load_universe
from kbgym.protocol.observation import COUNTER
from kbgym.library.graph import Library, format_id

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


def _last_user_text(prompt: Any) -> str | None:
    """The text of a row's last user message (a chat list or a plain string), if any."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        for message in reversed(prompt):
            if isinstance(message, Mapping) and message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, str):
                    return content
                if isinstance(content, list):  # multimodal parts
                    return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    return None


class KBGymSession:
    """One rollout of one training question: forward tools, then backward (curation) tools.

    ``universe``: a Universe, a universe.json path or None (the default universe).
    ``config``: a KBGymConfig or a mapping of its fields (default ``{"reward": "both"}``).
    ``learner``: a :class:`kbgym.runs.learner.LibraryLearner` whose library every rollout
    starts from (a fork), and which is told every finished rollout (see that class).
    """

    def __init__(self, universe: Any = None, config: KBGymConfig | Mapping | None = None, *,
                 learner: Any = None):
        self._universe, _ = load_universe(universe)
        cfg = KBGymConfig(**(DEFAULT_CONFIG if config is None else dict(config))) \
            if not isinstance(config, KBGymConfig) else config
        self._env = KBGymEnv(self._universe, config=cfg)
        self._learner = learner
        self._reward = 0.0
        self._info: dict = {}
        self._started = False
        self._steps: list[tuple[dict, list[str]]] = []  # (action, ids it created)
        self._start_key: Any = None
        self._reported = False

    # -- the trainer's side ----------------------------------------------------------------
    def reset(self, qid: str | None = None, library: str | None = None, prompt: Any = None,
              **_: Any) -> str:
        """Start a rollout on question ``qid`` from ``library`` (a snapshot path; "" or None:
        B1; ignored with a learner, whose library is used). Returns what the row's chat
        (``prompt``) does not already hold: the budget line when its last user message holds
        the task block, else the task block and the budget line."""
        cfg = self._env.config
        if self._learner is not None:
            start = self._learner.library
        elif library:
            start = _start_library(str(Path(library)), cfg.search_backend)
        else:
            start = _b1(self._universe, cfg.search_backend)
        self._start_key = start.state_key()
        options: dict[str, Any] = {"library": start.fork()}
        if qid:
            options["qid"] = qid
        obs, self._info = self._env.reset(options=options)
        self._reward = 0.0
        self._started = True
        self._steps = []
        self._reported = False
        task = self._env.episode.memory.task
        budget = COUNTER.format(r=obs["steps_left"])
        held = _last_user_text(prompt)
        if held is not None and task in held:
            return "\n\n" + budget
        return f"{task}\n\n{budget}"

    def get_reward(self) -> float:
        """The rollout's reward: the sum of the environment's step rewards. A rollout that
        stopped in the backward phase without ``done`` is ended here as if it called done
        (so the curation reward is computed); one that never answered keeps what it has.
        With a learner, the finished rollout is reported to it once."""
        ep = self._env.episode
        if ep is not None and not ep.over and ep.phase == "backward":
            self._step({"action": "done"})
        if self._learner is not None and self._started and not self._reported:
            self._reported = True
            self._learner.record(self._rollout())
        return float(self._reward)

    def _rollout(self) -> dict:
        """What a learner needs to commit this rollout: the question, the state it started
        from, its actions (each with the note ids it created) and its reward."""
        ep = self._env.episode
        return {"qid": ep.question.qid if ep else None, "start": self._start_key,
                "steps": [(dict(a), list(ids)) for a, ids in self._steps],
                "reward": float(self._reward), "over": bool(ep and ep.over)}

    @property
    def info(self) -> dict:
        """The environment's latest info (``info["curation"]`` once the episode is over)."""
        return self._info

    def _step(self, action: dict) -> str:
        if not self._started:
            return "ERROR: no rollout - the trainer must call reset() first"
        env = self._env
        ep = env.episode
        phase, was_over = ep.phase, ep.over
        before = env.library.next_id
        obs, reward, term, trunc, self._info = env.step(action)
        if not was_over:
            self._steps.append((action, [format_id(n) for n in
                                         range(before, env.library.next_id)]))
        self._reward += float(reward)
        result = self._info["result"]
        if ep.phase != phase and not ep.over:  # forward -> backward: the new task block
            return f"{result}\n\n{ep.memory.task}\n\n{COUNTER.format(r=obs['steps_left'])}"
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
            Your F1, then the backward task: the gold answer and what to curate.
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
                 limit: int | None = None, repeat: int = 1,
                 system_prompt: str | None = None) -> list[dict]:
    """Dataset rows for :class:`KBGymSession`: one per (library, question of ``split``), each
    ``{"prompt": [{"role": "system", "content": system_prompt}, {"role": "user", "content":
    <the question's task block>}], "qid": ..., "library": <snapshot path or "">}`` (no system
    message without ``system_prompt``), ``repeat`` times in a row. The instruction is agent
    text: pass a prompt file's text (e.g. ``agents/prompts/rl_session.md``). Only the train
    split (or another split the caller names deliberately) should feed training."""
    from kbgym.protocol.tasks import format_forward as forward_block

    u, _ = load_universe(universe)
    if split not in u.splits:
        raise ValueError(f"unknown split {split!r}; known: {', '.join(u.splits)}")
    qids = list(u.splits[split])[:limit]
    head = [{"role": "system", "content": system_prompt}] if system_prompt else []
    rows = []
    for lib in (libraries or [""]):
        for qid in qids:
            q = u.question(qid)
            row = {"prompt": head + [{"role": "user", "content": forward_block(qid, q.text)}],
                   "qid": qid, "library": str(lib) if lib else ""}
            rows += [dict(row) for _ in range(repeat)]
    return rows


def library_callback(learner: Any) -> Any:
    """A ``transformers.TrainerCallback`` that commits ``learner`` at the end of every
    optimizer step (``on_step_end``), so the next step's rollouts start from the advanced
    library, and closes it at the end of training. Needs transformers (TRL's dependency)::

        learner = LibraryLearner(universe, "runs/grpo/library", config={"reward": "both"})
        factory = functools.partial(KBGymSession, universe, {"reward": "both"}, learner=learner)
        trainer = GRPOTrainer(..., environment_factory=factory,
                              callbacks=[library_callback(learner)])
    """
    from transformers import TrainerCallback

    class LibraryCallback(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            learner.commit()
            return control

        def on_train_end(self, args, state, control, **kwargs):
            learner.close()
            return control

    return LibraryCallback()
