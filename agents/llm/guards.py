"""The guards of a retrieval step, read from ``obs["text"]`` alone (every tool mode).

A small model left to itself answers before it has seen anything, never answers at all, or
repeats its last call until the budget is gone. The LLM agent therefore checks each decision
of a retrieval phase (probe, forward) against what the observation shows:

- **last step**: only ``answer`` is allowed (the agent forces it where the mode can: a tool
  choice by name, a one-tool schema, a JSON schema, a one-line request); any other action
  there becomes ``answer("unknown")`` (a guess scores no less than nothing);
- **nothing shown yet**: an ``answer`` becomes the cheapest unseen step (the tools offered
  stay the same, so that a prompt cache keeps them);
- **a repeated identical call** (its canonical call is already a memory line) is asked again
  once with :func:`repeat_hint`, then replaced by :func:`cheapest_unseen`.

The *cheapest unseen step* is the first of: the question's own text searched, if it never
was; the next page of the latest search that showed notes, if that page was never asked for;
the first shown note never read; the next unasked page of the question's search. It costs one
step like any other and always shows something not shown before (or an empty page).

:class:`StepView` also finds **index offers**: a shown note that is not one of the corpus's
one-sentence facts (an authored note), names a key of the question (a person, a job, a hobby
or a city the question names) and was never read. Reading it shows every note it links to.
:meth:`StepView.relevant` keeps the shown notes tied to the question's keys by the names
they share.
Nothing here looks at the library: a view is a pure function of the observation text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kbgym_agents.scripted.text import (
    Entry,
    names_in,
    parse_fact,
    parse_observation,
    parse_question,
    parse_read,
    result_hits,
)
from kbgym.env.actions import InvalidAction, call_repr, parse_action

#: What the last step answers when the model chose anything else.
UNKNOWN = "unknown"
MAX_PAGE = 12


@dataclass
class StepView:
    """One retrieval observation, parsed: the question, the budget left, the remembered calls
    and every note shown so far (search hits, read notes and their links, first seen first)."""

    question: str
    remaining: int | None
    entries: list[Entry]
    calls: list[str]
    shown: dict[str, str] = field(default_factory=dict)
    read: set[str] = field(default_factory=set)
    searched: dict[tuple[str, int], bool] = field(default_factory=dict)  # -> showed notes
    keys: tuple[str, ...] = ()
    last_search: tuple[str, int] | None = None

    @classmethod
    def of(cls, text: str) -> "StepView":
        obs = parse_observation(str(text))
        calls = []
        for line in _history_lines(str(text)):
            call, sep, _ = line[2:].partition(" -> ")
            if sep:
                calls.append(call)
        view = cls(obs.question, obs.remaining, obs.entries, calls,
                   keys=question_keys(obs.question))
        for e in obs.entries:
            args = e.args or {}
            if e.name == "search" and "query" in args:
                hits = result_hits(e.result)
                view.last_search = (str(args["query"]), _page(args.get("page")))
                view.searched[view.last_search] = bool(hits)
                for nid, note in hits:
                    view.shown.setdefault(nid, note)
            elif e.name == "read":
                got = parse_read(e.result)
                if got is not None:
                    view.read.add(got.id)
                    view.shown.setdefault(got.id, got.text)
                    for nid, note in got.links:
                        view.shown.setdefault(nid, note)
            elif e.name in ("locate", "expand"):
                for nid, note in result_hits(e.result):
                    view.shown.setdefault(nid, note)
        return view

    # -- what may be done ----------------------------------------------------------------
    @property
    def last_step(self) -> bool:
        return self.remaining is not None and self.remaining <= 1

    @property
    def nothing_shown(self) -> bool:
        return not self.shown

    def is_repeat(self, action: Any) -> bool:
        """Whether ``action`` (any form ``env.step`` reads) is a call already in memory."""
        call = canonical_call(action)
        return call is not None and call in self.calls

    # -- what the agent may offer ----------------------------------------------------------
    def index_offers(self) -> list[tuple[str, str, str]]:
        """(id, text, key) of every shown authored note naming a key of the question that
        was never read, first shown first."""
        out = []
        for nid, text in self.shown.items():
            if nid in self.read or parse_fact(text) is not None:
                continue
            key = next((k for k in self.keys if _names(text, k)), None)
            if key is not None:
                out.append((nid, text, key))
        return out

    def relevant(self, rounds: int = 3) -> dict[str, str]:
        """The shown notes tied to the question: those naming one of its keys, then those
        naming a person such a note names, and so on (``rounds`` hops, one per round); all
        shown notes when none is."""
        names = {k for k in self.keys if " " in k}
        values = [k for k in self.keys if " " not in k]
        found: dict[str, str] = {}
        for _ in range(rounds):
            grew = False
            for nid, text in self.shown.items():
                if nid in found:
                    continue
                if any(n in text for n in names) or any(_names(text, v) for v in values):
                    found[nid] = text
                    names.update(_FULL_NAME.findall(text))
                    grew = True
            if not grew:
                break
        keep = [nid for nid in self.shown if nid in found]
        return {nid: self.shown[nid] for nid in keep} if keep else dict(self.shown)

    def unread_authored(self) -> list[str]:
        """Shown notes never read that are not one of the corpus's sentence forms (a fact's
        own note shows nothing more when read)."""
        return [nid for nid in self.unread() if parse_fact(self.shown[nid]) is None]

    def unread(self) -> list[str]:
        return [nid for nid in self.shown if nid not in self.read]


_FULL_NAME = re.compile(r"\b[A-Z][a-z][A-Za-z-]* [A-Z][a-z][A-Za-z-]*\b")


def _names(text: str, key: str) -> bool:
    if " " in key and key[:1].isupper():  # a person's full name
        return key in text
    words = text.casefold().replace(".", " ").replace(",", " ").replace(":", " ").split()
    return key.casefold() in words or key.casefold() + "s" in words


def question_keys(question: str) -> tuple[str, ...]:
    """The keys a question names: its people, then its job, hobby and city values."""
    parsed = parse_question(question)
    if parsed is not None:
        slots = parsed.slots
        return tuple(v for k in ("X", "Y", "job", "hobby", "city") if (v := slots.get(k)))
    return tuple(names_in(question))


def _page(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 1


def _history_lines(text: str) -> list[str]:
    """The memory lines that open a call (``- name(...) -> ...``)."""
    head = "Recent actions (oldest first):\n"
    if head not in text:
        return []
    body = text.split(head, 1)[1]
    body = body.rsplit("\n\nRemaining actions this phase:", 1)[0]
    return [line for line in body.split("\n")
            if line.startswith("- ") and "(" in line.split(" -> ", 1)[0]
            and line[2:].split("(", 1)[0].replace("_", "").isalpha()]


def canonical_call(action: Any) -> str | None:
    """The memory-line call of ``action`` (``search(query='x', page=1)``), None when the env
    could not read it as an action."""
    if action is None:
        return None
    parsed = parse_action(action)
    if isinstance(parsed, InvalidAction):
        return None
    return call_repr(parsed)


def action_name(action: Any) -> str | None:
    if action is None:
        return None
    parsed = parse_action(action)
    return None if isinstance(parsed, InvalidAction) else parsed.name


def repeat_hint(action: Any) -> str:
    """The one line added to a re-asked step."""
    return (f"Note: you already did {canonical_call(action)} and its result is above; "
            "do something else.")


def cheapest_unseen(view: StepView) -> dict:
    """The cheapest step that shows something not shown before (see the module text)."""
    q = view.question
    if q and (q, 1) not in view.searched:
        return {"action": "search", "query": q, "page": 1}
    if view.last_search is not None:
        query, page = view.last_search
        if view.searched[view.last_search] and page < MAX_PAGE \
                and (query, page + 1) not in view.searched:
            return {"action": "search", "query": query, "page": page + 1}
    unread = view.unread()
    if unread:
        return {"action": "read", "id": unread[0]}
    page = 2
    while (q, page) in view.searched and page < MAX_PAGE:
        page += 1
    return {"action": "search", "query": q or UNKNOWN, "page": page}


def last_step_answer() -> dict:
    return {"action": "answer", "text": UNKNOWN}
