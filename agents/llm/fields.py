"""The ``fields`` tool mode: the model fills a few fields, the agent turns them into one action.

A small model asked for a tool call chooses the action as its first free token, before it has
written anything about the notes; asked to *describe* first, it does much better. In this mode
the reply is one JSON object, and the agent, not the model, picks the action.

Retrieval (probe, forward) — the fields, in the order the model writes them:

========== ==================================================================================
evidence    the shown note that matters most for the question, copied (with a schema: one
            of the texts of the shown notes tied to the question, or empty)
matching    (questions asking "How many") the ids of the shown notes that count
answer      the answer when the notes give it, else empty (with a schema: one of
            :func:`answer_choices`)
target      the person or fact to find next
read        the id of one shown note to read, else empty (with a schema: an authored one)
search      words to search for, else empty
========== ==================================================================================

The action: ``answer`` when the answer field is filled (for a "How many" question with ids in
``matching``, the number of distinct shown ids listed); else ``read`` of an offered index note
(:meth:`~kbgym_agents.llm.guards.StepView.index_offers`); else, for a question asking along a
relation chain ("the job of the spouse of X", :mod:`kbgym_agents.llm.chain`) whose words do
not ask for what the chain misses (a relation or value word and the name of someone the chain
waits on), the chain's next search (at most :data:`MODEL_PAGES` pages);
else ``search`` of the words, at the
first page of them not yet asked for (at most :data:`MODEL_PAGES` pages); else a search of
the target's words the same way (at most :data:`AGENT_PAGES` pages); else ``read`` of any shown note not yet read; else the
cheapest unseen step (:func:`kbgym_agents.llm.guards.cheapest_unseen`) — unless that would
page a search past :data:`AGENT_PAGES`, where the agent answers ``unknown`` (stuck). An
answer no shown note offers (:func:`answer_choices`) is ignored before the last step; for a
chain question only the values stated of the people at the chain's end are offered. The agent
also shows the chain's state in one line after the observation (``chain=False`` turns all of
this off).

Curation (backward) — ``key`` (one thing the question names), ``title`` (its index note's
title), ``members`` (ids of shown notes about the key), ``search`` (words to find more of
them) and ``finished``. The action: ``done`` when finished; else, for a title that has no note
yet, a search of the title (once) and then ``add`` of it — or the shown note of that exact
text is taken as the index; else ``link_many`` from the index to the listed members it does
not link yet; else ``search`` of the words; else ``done``.

With a JSON schema (``fields_json="schema"``, llama.cpp's ``response_format`` form, or
``"json_schema"``, OpenAI's), each step's schema follows the guards: no ``evidence`` or
``answer`` before anything was shown, only ``evidence`` and ``answer`` on the last step, ids
drawn from the shown notes (reads: authored ones), the evidence one of the texts of the shown
notes tied to the question, answers from :func:`answer_choices`, bounded lengths. Everything
is read from ``obs["text"]``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from kbgym.protocol.errors import is_error
from kbgym_agents.llm.chain import ChainState, follow, question_chain
from kbgym_agents.llm.guards import UNKNOWN, StepView, cheapest_unseen, last_step_answer
from kbgym_agents.llm.toolcalls import first_object, json_candidate
from kbgym_agents.scripted.curator import added_id
from kbgym_agents.scripted.text import parse_observation, result_hits

FIELDS_JSON = ("schema", "json_schema", "object", "off")
NOTES_MAX = 240
#: The pages the agent asks for of one query: of the target's words or its own fallback
#: search, and of the model's own words (a 1.5B reader otherwise pages one query to the end of
#: its budget).
AGENT_PAGES = 2
MODEL_PAGES = 3
QUERY_MAX = 100
TITLE_MAX = 100
#: What the answer field says while the notes do not give the answer yet.
NOT_YET = "not yet"
_EMPTY = {"", "none", "null", "n/a", "empty", "-", "nothing", NOT_YET}

READER_PROTOCOL = """

## How to reply
Reply with one JSON object and nothing else, with these fields in this order:
{"evidence": "the shown note that matters most for the question, copied exactly",
 "answer": "the short answer if the notes give it, else \"not yet\"",
 "target": "the person or fact to find next",
 "read": "the id of one shown note to read, else empty",
 "search": "words to search for, else empty"}
For a question asking "How many", put "matching": [the ids of the shown notes that count]
before "answer". The answer ends the question, so give it as soon as the notes show it.
"""

CURATOR_PROTOCOL = """

## How to reply
Reply with one JSON object and nothing else, with these fields in this order:
{"key": "one person, job, hobby or city the question names",
 "title": "a short title for that key's index note",
 "members": [the ids of shown notes about that key],
 "search": "words to find more notes about the key, else empty",
 "finished": false}
Set "finished" to true when every key has its index note.
"""


def is_counting(question: str) -> bool:
    return question.strip().lower().startswith("how many")


def _text(value: Any) -> str:
    if value is None or isinstance(value, (dict, list)):
        return ""
    out = str(value).strip()
    return "" if out.casefold() in _EMPTY else out


def read_object(text: str | None) -> dict | None:
    """The first JSON object in a reply text (fenced or bare), else None."""
    if not text:
        return None
    candidate = json_candidate(text)
    if candidate is None:
        return None
    obj = first_object(text)
    if obj is None:
        try:
            obj = json.loads(candidate)
        except ValueError:
            return None
    return dict(obj) if isinstance(obj, dict) else None


def response_format(schema: dict, style: str) -> dict | None:
    """The request's ``response_format`` for ``schema`` in ``style`` (see FIELDS_JSON)."""
    if style == "schema":
        return {"type": "json_object", "schema": schema}
    if style == "json_schema":
        return {"type": "json_schema",
                "json_schema": {"name": "fields", "schema": schema, "strict": True}}
    if style == "object":
        return {"type": "json_object"}
    return None


def _string(max_len: int, min_len: int = 0) -> dict:
    out: dict[str, Any] = {"type": "string", "maxLength": max_len}
    if min_len:
        out["minLength"] = min_len
    return out


def _ids(ids: list[str], min_len: int = 0) -> dict:
    """A string that is empty or one of ``ids``."""
    choices = ([""] if not min_len else []) + list(ids)
    return {"type": "string", "enum": choices} if choices else _string(0)


def _object(props: dict[str, Any]) -> dict:
    return {"type": "object", "properties": props, "required": list(props),
            "additionalProperties": False}


# -- retrieval -----------------------------------------------------------------------------


_NAME = re.compile(r"\b[A-Z][A-Za-z-]+(?: [A-Z][A-Za-z-]+)+\b")
_WHO = ("who ", "whose ", "which ")
_KIN = ("(?:spouse|husband|wife|father|mother|parent|brother|sister|sibling|child|son|daughter"
        "|grandchild|friend)")
_LINKING = frozenset(("of", "to", "the", "a", "an", "in", "on", "by", "with", "for"))


def asks_for_a_name(question: str) -> bool:
    return question.strip().lower().startswith(_WHO)


def chain_state(view: StepView) -> ChainState | None:
    """How far the shown notes follow the question's relation chain
    (:mod:`kbgym_agents.llm.chain`), None for a question that asks along none."""
    chain = question_chain(view.question)
    return None if chain is None else follow(chain, view.shown)


def answer_choices(view: StepView, chain: bool = True) -> list[str]:
    """The answers the shown notes tied to the question offer
    (:meth:`~kbgym_agents.llm.guards.StepView.relevant`): for a who/whose/which question the
    full names they
    show; otherwise what a note says a thing *is* (``... is baker.`` gives ``baker``) and a
    last capitalised word that is no name (``... the city of Dunmore.`` gives ``Dunmore``),
    leaving out the notes about X itself when the question asks about someone related to X
    (``the job of the spouse of X``);
    for a "How many" question the numbers 0-40. With ``chain``, a question asking along a
    relation chain ("the job of the spouse of X") is offered only the values the shown notes
    state of the people at the chain's end (nothing while the chain is not followed there;
    on the last step the choices above when it is not). ``unknown`` only on the last step."""
    state = chain_state(view) if chain else None
    if state is not None and (state.answers or not view.last_step):
        return state.answers + ([UNKNOWN] if view.last_step else [])
    if is_counting(view.question):
        out = [str(i) for i in range(41)]
    elif asks_for_a_name(view.question):
        out = list(dict.fromkeys(n for text in view.relevant().values()
                                 for n in _NAME.findall(text)
                                 if n.split()[0] not in ("Friends", "Children", "About")))
    else:
        out = []
        # "the job of the spouse of X", "the city the mother of X lives in": a note about X
        # itself does not answer it
        others = [k for k in view.keys if " " in k
                  and re.search(rf"\bthe {_KIN} of " + re.escape(k), view.question)]
        for text in view.relevant().values():
            body = text.strip().rstrip(".")
            if any(body.startswith(k + " ") or body.startswith(k + "'s ") for k in others):
                continue
            if " is " in body:
                tail = body.rsplit(" is ", 1)[1]
                if tail and len(tail.split()) <= 3 and not any(c.isupper() for c in tail) \
                        and tail.split()[-1] not in _LINKING:
                    out.append(tail)
            last = body.rsplit(" ", 1)[-1]
            if last[:1].isupper() and not re.search(_NAME.pattern + "$", body):
                out.append(last)
        out = list(dict.fromkeys(out))
    if view.last_step:
        out.append(UNKNOWN)
    return out


def reader_schema(view: StepView, chain: bool = True) -> dict:
    """This step's schema for the retrieval fields (see the module text)."""
    counting = is_counting(view.question)
    shown = list(view.shown)
    props: dict[str, Any] = {}
    if shown:
        props["evidence"] = {"type": "string",
                             "enum": [""] + list(dict.fromkeys(view.relevant().values()))}
    if counting and shown:
        props["matching"] = {"type": "array", "items": {"type": "string", "enum": shown},
                             "maxItems": 40}
    choices = answer_choices(view, chain)
    if view.last_step:
        props["answer"] = {"type": "string", "enum": choices}
        return _object(props)
    if not view.nothing_shown:
        props["answer"] = {"type": "string", "enum": [NOT_YET] + choices}
    props["target"] = _string(NOTES_MAX, 1)
    readable = view.unread_authored()
    if readable:
        props["read"] = _ids(readable)
    props["search"] = _string(QUERY_MAX)
    return _object(props)


@dataclass
class FieldsDecision:
    """The action taken from a reply's fields and why (``answer``, ``count``, ``read``,
    ``search``, ``fallback`` or ``last``)."""

    action: dict
    how: str
    fields: dict = field(default_factory=dict)


def reader_action(obj: dict | None, view: StepView, chain: bool = True) -> FieldsDecision:
    """The one action a retrieval reply's fields ask for (see the module text)."""
    obj = obj or {}
    answer = _text(obj.get("answer"))
    how = "answer"
    matching = obj.get("matching")
    if answer and is_counting(view.question) and isinstance(matching, list):
        ids = {str(i).strip() for i in matching if str(i).strip() in view.shown}
        if ids:
            answer, how = str(len(ids)), "count"
    if view.last_step:
        return FieldsDecision({"action": "answer", "text": answer} if answer
                              else last_step_answer(), "last", obj)
    if answer and how != "count" and answer not in answer_choices(view, chain):
        answer, how = "", "unshown"  # an answer no shown note offers: ignored
    if answer and not view.nothing_shown:
        return FieldsDecision({"action": "answer", "text": answer}, how, obj)
    read = _text(obj.get("read"))
    readable = bool(read) and read in view.shown and read not in view.read
    if readable and read in {nid for nid, _, _ in view.index_offers()}:
        return FieldsDecision({"action": "read", "id": read}, "read", obj)
    state = chain_state(view) if chain else None
    if state is not None and state.query and \
            not state.asks_for_missing(_text(obj.get("search"))):
        # the model's words do not ask for what the chain misses: the chain's own next search
        page = _next_page(view, state.query)
        if page and page <= MODEL_PAGES:
            return FieldsDecision({"action": "search", "query": state.query, "page": page},
                                  "chain", obj)
    for key, how in (("search", "search"), ("target", "target")):
        query = _text(obj.get(key))[:QUERY_MAX]
        page = _next_page(view, query) if query else 0
        if page and page <= (MODEL_PAGES if key == "search" else AGENT_PAGES):
            return FieldsDecision({"action": "search", "query": query, "page": page}, how, obj)
    if readable:
        return FieldsDecision({"action": "read", "id": read}, "read", obj)
    step = cheapest_unseen(view)
    if step["action"] == "search" and step.get("page", 1) > AGENT_PAGES:
        # the model asks for nothing new and the agent would only page on: a guess now
        # costs one step, paging to the budget's end costs them all
        return FieldsDecision({"action": "answer", "text": UNKNOWN}, "stuck", obj)
    return FieldsDecision(step, "fallback", obj)


def _next_page(view: StepView, query: str) -> int:
    """The first page of ``query`` not yet asked for, 0 when its pages ran out."""
    page = 1
    while (query, page) in view.searched:
        if not view.searched[(query, page)] or page >= 12:
            return 0
        page += 1
    return page


# -- curation ------------------------------------------------------------------------------


@dataclass
class CurationView:
    """A backward observation, parsed: every note shown in the phase's memory, the notes the
    agent added (text -> id), the links it made (source -> targets) and its searches."""

    shown: dict[str, str]
    added: dict[str, str]
    linked: dict[str, set]
    searched: set
    remaining: int | None

    @classmethod
    def of(cls, text: str) -> "CurationView":
        obs = parse_observation(str(text))
        view = cls({}, {}, {}, set(), obs.remaining)
        for e in obs.entries:
            args = e.args or {}
            for nid, note in result_hits(e.result):
                view.shown.setdefault(nid, note)
            if e.name == "search" and "query" in args:
                view.searched.add(str(args["query"]))
            added = added_id(e.result) if e.name == "add" else None
            if added is not None and "text" in args:
                view.added[str(args["text"])] = added
                view.shown.setdefault(added, str(args["text"]))
            if e.name in ("link", "link_many") and not is_error(e.result):
                targets = args.get("targets") or [args.get("target")]
                view.linked.setdefault(str(args.get("source")), set()).update(
                    str(t) for t in targets if t)
        return view


def curator_schema(view: CurationView) -> dict:
    shown = list(view.shown)
    members = ({"type": "array", "items": {"type": "string", "enum": shown}, "maxItems": 40}
               if shown else {"type": "array", "maxItems": 0})
    return _object({"key": _string(TITLE_MAX), "title": _string(TITLE_MAX, 1),
                    "members": members, "search": _string(QUERY_MAX),
                    "finished": {"type": "boolean"}})


def _sentence(title: str) -> str:
    title = " ".join(title.split())[:TITLE_MAX]
    return title if title.endswith((".", "?", "!")) else title + "."


def curator_action(obj: dict | None, view: CurationView) -> FieldsDecision:
    """The one action a curation reply's fields ask for (see the module text)."""
    obj = obj or {}
    if obj.get("finished") is True:
        return FieldsDecision({"action": "done"}, "done", obj)
    title = _text(obj.get("title"))
    index = None
    if title:
        title = _sentence(title)
        index = view.added.get(title) or next(
            (nid for nid, text in view.shown.items() if text == title), None)
        if index is None:
            if title not in view.searched:
                return FieldsDecision({"action": "search", "query": title}, "find", obj)
            return FieldsDecision({"action": "add", "text": title}, "add", obj)
    raw = obj.get("members")
    members: list = raw if isinstance(raw, list) else []
    if index is not None:
        have = view.linked.get(index, set())
        new = []
        for m in members:
            m = str(m).strip()
            if m in view.shown and m != index and m not in have and m not in new:
                new.append(m)
        if new:
            return FieldsDecision({"action": "link_many", "source": index,
                                   "targets": new[:40]}, "link", obj)
    query = _text(obj.get("search"))[:QUERY_MAX]
    if query and query not in view.searched:
        return FieldsDecision({"action": "search", "query": query}, "search", obj)
    return FieldsDecision({"action": "done"}, "fallback", obj)
