"""The ``prior`` arm: answer every question with its template's most frequent training answer.

It reads nothing: one ``answer`` step per question, the answer being the template's most
frequent canonical gold in the universe's train split (``kbgym.answers``); a template
with no training question is answered "unknown". It runs through the environment like any
reader, so its test_log rows are scored by the env (``kbgym.scoring``) and pair with B1's in
``probe_table``. What a prior scores is what a template gives away without any reading.

On the command line it is the reader named ``prior`` (``kbgym test --reader prior``), built
here rather than through the agent plugins because it needs the universe's golds.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kbgym.library.graph import Library
from kbgym.runs.gradient import examine_probe, probe_questions
from kbgym.answers import prior_answers
from kbgym.types import Question, Universe

#: The reader name that selects the prior arm on the command line.
PRIOR = "prior"
#: The answer to a template that the train split never asks.
NO_PRIOR = "unknown"


class PriorReader:
    """An exam reader that answers ``answers[template of the qid]`` in one step."""

    meta = {"model": PRIOR}

    def __init__(self, answers: Mapping[str, str], templates: Mapping[str, str]):
        self.answers = dict(answers)
        self.templates = dict(templates)  # qid -> template

    @classmethod
    def for_questions(cls, universe: Universe,
                      questions: Mapping[str, Question]) -> "PriorReader":
        """The prior of ``universe``'s train split, for these questions (a probe's or the
        universe's own, by qid)."""
        return cls(prior_answers(universe), {qid: q.template for qid, q in questions.items()})

    def answer(self, qid: str) -> str:
        return self.answers.get(self.templates.get(qid, ""), NO_PRIOR)

    def reset(self) -> None:
        pass

    def act(self, observation: dict, info: dict) -> dict:
        return {"action": "answer", "text": self.answer(info["qid"])}


def examine_prior(universe: Universe, probe: Mapping, *, label: Any = PRIOR,
                  out: str | Path | None = None) -> list[dict]:
    """The prior arm's test_log rows on a probe file (written to ``out`` like any exam)."""
    reader = PriorReader.for_questions(universe, probe_questions(probe)[0])
    return examine_probe(universe, Library.from_universe(universe), reader, probe,
                         label=label, out=out, reader_name=PRIOR, library_name="B1")
