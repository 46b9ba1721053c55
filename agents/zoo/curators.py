"""Curators written the way an outside user would write them from the README: they read
``obs["text"]`` and ``info["result"]`` with the protocol's published parsers
(:mod:`kbgym.protocol`), call ``env.step`` with plain dicts, and know nothing of the scripted
reader. Some build useful structure in their own
style, some are careless, some are hostile.

Each is a backward-phase agent (``act(observation, info)``, ``reset()``); the factories at the
bottom pair one with the scripted reader for the forward phase, so that
``kbgym train --agent kbgym_agents.zoo.curators:entity_pages`` trains it like any curator.
"""

from __future__ import annotations

import random
import re
from collections.abc import Generator

from kbgym import agent_factory
from kbgym.protocol import parse_edit, parse_observation, result_hits
from kbgym.worlds.people.facts import parse_fact, render_fact
from kbgym_agents.scripted.curator import IndexCurator
from kbgym_agents.scripted.reader import ScriptedReader
from kbgym_agents.scripted.train import TrainAgent
from kbgym_agents.zoo.titles import STYLES
from kbgym.worlds.people.vocab import CITIES, HOBBIES, JOBS

Plan = Generator[dict, None, None]

NAME = re.compile(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b")


class UserCurator:
    """Plumbing a user would write: the question and gold from the backward task block, the
    last action's result from ``info["result"]``, a plan generator, and ``done`` at the end or
    when one step is left."""

    name = "user-curator"

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.reset()

    def reset(self) -> None:
        self._plan: Plan | None = None
        self._task = None
        self.result = ""
        self.seen: dict[str, str] = {}  # every note id -> text shown so far this episode

    def act(self, observation: dict, info: dict | None = None) -> dict:
        obs = parse_observation(observation)
        if obs.task != self._task:
            self.reset()
            self._task = obs.task
        self.result = (info or {}).get("result", "") or ""
        for entry in obs.history:
            for hit in result_hits(entry.result):
                self.seen.setdefault(hit.id, hit.text)
        if obs.phase != "backward":
            return {"action": "answer", "text": "unknown"}
        if self._plan is None:
            gold = obs.task.gold if obs.task is not None else None
            self._plan = self.plan(obs.question, gold or "")
        if observation.get("steps_left", 2) <= 1:
            return {"action": "done"}
        try:
            return next(self._plan)
        except StopIteration:
            return {"action": "done"}

    def plan(self, question: str, gold: str) -> Plan:
        return
        yield

    # -- helpers a user would write ------------------------------------------------------
    def hits(self) -> list[tuple[str, str]]:
        return [(h.id, h.text) for h in result_hits(self.result)]

    def added_id(self) -> str | None:
        out = parse_edit(self.result)
        return out.ids[0] if out is not None and out.kind in ("added", "duplicate") else None

    def link_all(self, source: str, targets: list[str]) -> Plan:
        for i in range(0, len(targets), 40):
            yield {"action": "link_many", "source": source, "targets": targets[i:i + 40]}


def people_in(question: str) -> list[str]:
    return [n for n in NAME.findall(question) if not n.startswith(("Which ", "Who ", "What "))]


class EntityPages(UserCurator):
    """``About <Name>.``: one page per person the question names, linking every note that
    names them (paged until a page shows no new mention)."""

    name = "entity-pages"

    def plan(self, question: str, gold: str) -> Plan:
        for person in people_in(question):
            page_title = f"About {person}."
            found: list[str] = []
            existing = None
            for page in range(1, 13):
                yield {"action": "search", "query": person, "page": page}
                new = 0
                for nid, text in self.hits():
                    if text == page_title:
                        existing = nid
                    elif person in text and nid not in found:
                        found.append(nid)
                        new += 1
                if new == 0:
                    break
            if existing is None:
                yield {"action": "add", "text": page_title}
                existing = self.added_id()
            if existing:
                yield from self.link_all(existing, found)


class QuestionNotes(UserCurator):
    """The README's example: a note named after the question, linked to the first page of a
    search for the question's words."""

    name = "question-notes"

    def plan(self, question: str, gold: str) -> Plan:
        note = f"Notes for: {question}"
        yield {"action": "search", "query": question}
        hits = self.hits()
        if any(text == note for _, text in hits):  # written in an earlier epoch
            return
        targets = [nid for nid, _ in hits]
        if not targets:
            return
        yield {"action": "add", "text": note}
        nid = self.added_id()
        if nid and not self.result.startswith("duplicate"):
            yield {"action": "link_many", "source": nid, "targets": targets}


def wrong_answer(gold: str, rng: random.Random, names: list[str]) -> str:
    """Something plausible and false: another count, value or name."""
    if gold.isdigit():
        return str(int(gold) + 1 + rng.randrange(3))
    for vocab in (JOBS, HOBBIES, CITIES):
        if gold in vocab:
            return rng.choice([v for v in vocab if v != gold])
    others = [n for n in names if n not in gold]
    if gold == "unknown":
        return rng.choice(others) if others else "Felix Abernathy"
    return rng.choice(others) if others else "unknown"


class FalseStatements(UserCurator):
    """Hostile: writes a false answer in the scripted agents' answer-statement form
    (``The job of the spouse of X is tanner.``)."""

    name = "false-statements"

    def plan(self, question: str, gold: str) -> Plan:
        from kbgym_agents.scripted.text import answer_statement, parse_question

        q = parse_question(question)
        if q is None or not gold:
            return
        rng = random.Random(f"{self.seed}:{question}")
        names = sorted({n for t in self.seen.values() for n in NAME.findall(t)})
        yield {"action": "add", "text": answer_statement(q, wrong_answer(gold, rng, names))}


class FalseFacts(UserCurator):
    """Hostile: rewrites the sentences the answer rests on in the universe's own §3 forms,
    with the answer swapped for a false one (``S's job is tanner.``); for a count, adds a member
    that does not exist (``X is a friend of Z.``)."""

    name = "false-facts"

    def plan(self, question: str, gold: str) -> Plan:
        if not gold:
            return
        rng = random.Random(f"{self.seed}:{question}")
        names = sorted({n for t in self.seen.values() for n in NAME.findall(t)})
        wrong = wrong_answer(gold.split(", ")[0], rng, names)
        written = 0
        if gold.isdigit() or gold == "unknown":
            people = people_in(question)
            for nid, text in sorted(self.seen.items()):
                fact = parse_fact(text)
                if (fact is not None and fact.kind in ("friend_of", "father_of", "mother_of")
                        and people and fact.subj == people[0] and written < 2):
                    other = rng.choice([n for n in names if n not in text] or ["Felix Abernathy"])
                    yield {"action": "add", "text": render_fact(fact._replace(obj=other))}
                    written += 1
            return
        first = gold.split(", ")[0]
        for nid, text in sorted(self.seen.items()):
            if first in text and written < 3 and not text.startswith(("Notes", "About")):
                yield {"action": "add", "text": text.replace(first, wrong)}
                written += 1


class NaturalFalse(UserCurator):
    """Hostile, in natural wording rather than an answer statement: ``Word is that the
    answer to '…' is tanner.`` (the claim reader reads it as the quoted question's answer;
    since 2026-12-07 the exam reader believes it for that question, as it believes an
    answer statement, so the harm shows as F1↓ as well as false statements)."""

    name = "natural-false"

    def plan(self, question: str, gold: str) -> Plan:
        if not gold:
            return
        rng = random.Random(f"{self.seed}:{question}")
        names = sorted({n for t in self.seen.values() for n in NAME.findall(t)})
        yield {"action": "add",
               "text": f"Word is that the answer to '{question}' is "
                       f"{wrong_answer(gold, rng, names)}."}


class RandomLinks(UserCurator):
    """Careless: links a note it saw to a handful of other notes it saw, at random."""

    name = "random-links"

    def plan(self, question: str, gold: str) -> Plan:
        rng = random.Random(f"{self.seed}:{question}")
        ids = sorted(self.seen)
        if len(ids) < 2:
            return
        source = rng.choice(ids)
        targets = rng.sample([i for i in ids if i != source], min(8, len(ids) - 1))
        yield {"action": "link_many", "source": source, "targets": targets}


def _train(curator) -> TrainAgent:
    return TrainAgent(ScriptedReader(), curator)


@agent_factory
def entity_pages(seed: int = 0) -> TrainAgent:
    return _train(EntityPages(seed))


@agent_factory
def question_notes(seed: int = 0) -> TrainAgent:
    return _train(QuestionNotes(seed))


@agent_factory
def false_statements(seed: int = 0) -> TrainAgent:
    return _train(FalseStatements(seed))


@agent_factory
def false_facts(seed: int = 0) -> TrainAgent:
    return _train(FalseFacts(seed))


@agent_factory
def natural_false(seed: int = 0) -> TrainAgent:
    return _train(NaturalFalse(seed))


@agent_factory
def random_links(seed: int = 0) -> TrainAgent:
    return _train(RandomLinks(seed))


@agent_factory
def reworded_index(style: str = "reworded") -> TrainAgent:
    """The project's index curator with another title style (the same links, other words)."""
    titles = {rel: t.replace("{pair}", "{key}") for rel, t in STYLES[style].items()}
    return _train(IndexCurator(titles=titles))


#: zoo name -> factory spec for ``kbgym.plugins.make_agent`` / ``kbgym train --agent``.
ZOO = {
    "scripted-index": "scripted-index",
    "reworded-index": "kbgym_agents.zoo.curators:reworded_index",
    "entity-pages": "kbgym_agents.zoo.curators:entity_pages",
    "question-notes": "kbgym_agents.zoo.curators:question_notes",
    "false-statements": "kbgym_agents.zoo.curators:false_statements",
    "false-facts": "kbgym_agents.zoo.curators:false_facts",
    "natural-false": "kbgym_agents.zoo.curators:natural_false",
    "random-links": "kbgym_agents.zoo.curators:random_links",
    "noop": "scripted-noop",
}
