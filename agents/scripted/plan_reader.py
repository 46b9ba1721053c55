"""Shared plumbing of the plan-driven exam readers (the policies and PhantomWiki worlds).

A reader of this kind folds each observation into its knowledge store, parses the question
once, evaluates it as a plan generator (search and read actions; the answer is the
generator's return value) and answers a guess from what it was shown when one step is left.
Subclasses say how to parse a question (:meth:`PlanReader.parse_question`), which knowledge
store and engine a new episode gets (:meth:`PlanReader.new_episode`) and how to guess
(:meth:`PlanReader.guess`).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from kbgym_agents.base import Action, BaseAgent
from kbgym_agents.scripted.text import parse_observation


class PlanReader(BaseAgent):
    """Search, read and answer only: the plan of :meth:`parse_question`'s question."""

    def new_episode(self) -> tuple[Any, Any]:
        """A fresh ``(knowledge store, engine)`` for a new episode."""
        raise NotImplementedError

    def parse_question(self, text: str) -> Any:
        """The question's parsed form, or None for a question this reader cannot plan."""
        raise NotImplementedError

    def guess(self) -> str:
        """The answer from what was shown so far (the budget ran out)."""
        raise NotImplementedError

    def reset(self) -> None:
        """Forget the episode (a new one starts at the next observation anyway)."""
        self._clear()

    def _clear(self) -> None:
        self.kb, self.engine = self.new_episode()
        self._task: str | None = None
        self._plan: Generator[Action, Any, str | None] | None = None
        self.question: Any = None
        #: how the last episode ended: ``complete`` (the plan ran to its answer), ``budget``
        #: (the step budget ran out first: the answer is a guess from what was shown) or
        #: ``unparsed`` (a question shape this reader does not know).
        self.outcome: str | None = None

    def act(self, observation: dict, info: dict | None = None) -> Action | None:
        obs = parse_observation(observation["text"])
        if obs.task != self._task or not obs.entries:
            self._clear()
            self._task = obs.task
            for e in obs.entries:
                self.kb.ingest_entry(e.name, e.args, e.result)
        else:
            e = obs.entries[-1]
            self.kb.ingest_entry(e.name, e.args, e.result)
        steps_left = observation.get("steps_left", obs.remaining)
        if self._plan is None:
            self.question = self.parse_question(obs.question)
            if self.question is None:
                self.outcome = "unparsed"
                return {"action": "answer", "text": "unknown"}
            self._plan = self.engine.evaluate(self.question)
        if steps_left is not None and steps_left <= 1:
            self.outcome = "budget"
            return {"action": "answer", "text": self.guess()}
        try:
            return next(self._plan)
        except StopIteration as stop:
            self.outcome = "complete"
            return {"action": "answer", "text": stop.value or "unknown"}
