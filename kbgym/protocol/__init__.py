"""The KBGym protocol as code: one formatter and one parser for every string the environment
prints, offered to every agent — the examiner's scripted readers use exactly these.

This package is the lowest layer: it imports nothing else from ``kbgym``. Each string of
docs/protocol.md has a ``format_*`` (or ``render_*``) here, used by the environment, and a
``parse_*`` that reads it back (``parse(format(x)) == x``):

| docs/protocol.md | string | write | read |
|---|---|---|---|
| §7 | a search page | :func:`format_search` | :func:`parse_search` |
| §8.1 | a read | :func:`format_read` | :func:`parse_read` |
| §8.1 | answer / done | :func:`format_submitted`, :data:`PHASE_COMPLETE` | :func:`parse_submitted` |
| §8.1 | add / edit / delete / link / unlink | ``format_added`` … | :func:`parse_edit` |
| §8.2 | link_many | :func:`format_link_many` | :func:`parse_link_many` |
| §8.3 | errors | ``errors.err_*`` | :func:`is_error`, :func:`error_message` |
| §9 | task blocks | :func:`format_forward`, :func:`format_backward`, :func:`format_probe` | :func:`parse_task` |
| §10 | the observation (both layouts) | :func:`render_observation` | :func:`parse_observation` |
| §18 | locate / expand | :func:`format_locate`, :func:`format_expand`, :func:`format_walk` | :func:`parse_locate`, :func:`parse_expand` |

Also: the limits and tool names (:mod:`.limits`), note ids (:mod:`.ids`) and the search
tokenizer (:func:`tokenize`). A world's own sentences, question texts and answer statements
are its grammar, in its folder: :mod:`kbgym.worlds.people.facts`, ``.forms`` and
``.statements`` for the people world (docs/worlds.md).

A ten-line agent loop::

    from kbgym.protocol import parse_observation, parse_search
    obs = parse_observation(env.reset(options={"qid": qid})[0])
    page = parse_search(env.step({"action": "search", "query": obs.question})[4]["result"])
    ids = [hit.id for hit in page.hits]
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from kbgym._moved import alias

if TYPE_CHECKING:
    from kbgym.protocol import errors, limits
    from kbgym.protocol.errors import error_message, is_error
    from kbgym.protocol.ids import format_id, id_key, id_num, is_note_id
    from kbgym.protocol.limits import Mode, Phase, phase_tools
    from kbgym.protocol.observation import (
        Entry,
        Observation,
        format_call,
        parse_history,
        parse_observation,
        render_observation,
    )
    from kbgym.protocol.results import (
        NO_EDGES,
        NO_HITS,
        NO_MATCHES,
        PHASE_COMPLETE,
        SUBMITTED,
        Edge,
        EditResult,
        ExpandResult,
        Hit,
        LinkManyResult,
        LinksPage,
        ReadResult,
        SearchPage,
        format_added,
        format_collapsed,
        format_deleted,
        format_duplicate,
        format_edge,
        format_edited,
        format_expand,
        format_hit,
        format_link_many,
        format_linked,
        format_locate,
        format_merged_into,
        format_read,
        format_search,
        format_submitted,
        format_unlinked,
        format_walk,
        parse_collapsed,
        parse_edit,
        parse_expand,
        parse_hit,
        parse_link_many,
        parse_locate,
        parse_read,
        parse_search,
        parse_submitted,
        result_hits,
        result_ids,
    )
    from kbgym.protocol.tasks import Task, format_backward, format_forward, format_probe, parse_task
    from kbgym.protocol.tokens import tokenize

# The names below are imported on first use, from the module named: a command that needs one
# part (``kbgym build`` the tokenizer, through kbgym.keys) does not pay for every format.
_WHERE: dict[str, tuple[str, ...]] = {
    "errors": ("error_message", "is_error"),
    "ids": ("format_id", "id_key", "id_num", "is_note_id"),
    "limits": ("Mode", "Phase", "phase_tools"),
    "observation": ("Entry", "Observation", "format_call", "parse_history", "parse_observation",
                    "render_observation"),
    "results": ("NO_EDGES", "NO_HITS", "NO_MATCHES", "PHASE_COMPLETE", "SUBMITTED", "Edge",
                "EditResult", "ExpandResult", "Hit", "LinkManyResult", "LinksPage", "ReadResult",
                "SearchPage", "format_added", "format_collapsed", "format_deleted",
                "format_duplicate", "format_edge", "format_edited", "format_expand", "format_hit",
                "format_link_many", "format_linked", "format_locate", "format_merged_into",
                "format_read", "format_search", "format_submitted", "format_unlinked",
                "format_walk", "parse_collapsed", "parse_edit", "parse_expand", "parse_hit",
                "parse_link_many", "parse_locate", "parse_read", "parse_search", "parse_submitted",
                "result_hits", "result_ids"),
    "tasks": ("Task", "format_backward", "format_forward", "format_probe", "parse_task"),
    "tokens": ("tokenize",),
}

__all__ = [
    "Edge", "EditResult", "Entry", "ExpandResult", "Hit", "LinkManyResult", "LinksPage", "Mode",
    "NO_EDGES", "NO_HITS", "NO_MATCHES", "Observation", "PHASE_COMPLETE", "Phase", "ReadResult",
    "SUBMITTED", "SearchPage", "Task", "error_message", "errors", "format_added",
    "format_backward", "format_call", "format_collapsed", "format_deleted", "format_duplicate",
    "format_edge", "format_edited", "format_expand", "format_forward", "format_hit", "format_id",
    "format_link_many", "format_linked", "format_locate", "format_merged_into", "format_probe",
    "format_read", "format_search", "format_submitted", "format_unlinked", "format_walk",
    "id_key", "id_num", "is_error", "is_note_id", "limits", "parse_collapsed", "parse_edit",
    "parse_expand", "parse_history", "parse_hit", "parse_link_many", "parse_locate",
    "parse_observation", "parse_read", "parse_search", "parse_submitted", "parse_task",
    "phase_tools", "render_observation", "result_hits", "result_ids", "tokenize",
]

# Old paths of the world grammars that lived here, for one release (kbgym/_moved.py).
_moved_path = alias(__name__, {"facts": "kbgym.worlds.people.facts",
                               "questions": "kbgym.worlds.people.forms",
                               "statements": "kbgym.worlds.people.statements",
                               "policies": "kbgym.worlds.policies.grammar",
                               "phantomwiki": "kbgym.worlds.phantomwiki.grammar"},
                    names={**dict.fromkeys(("DRIFT_PREFIX", "Fact", "parse_fact", "render_date",
                                            "render_fact"), "kbgym.worlds.people.facts"),
                           **dict.fromkeys(("QUESTION_FORMS", "ParsedQuestion", "embeds_question",
                                            "parse_question", "question_slots",
                                            "render_question"), "kbgym.worlds.people.forms"),
                           **dict.fromkeys(("STATEMENTS", "answer_statement", "parse_statement"),
                                           "kbgym.worlds.people.statements")})


def __getattr__(name: str) -> object:
    if name in _WHERE:  # a submodule (errors and limits are exported as modules)
        return importlib.import_module(f"{__name__}.{name}")
    for module, names in _WHERE.items():
        if name in names:
            value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
            globals()[name] = value
            return value
    return _moved_path(name)
