"""The KBGym protocol as code: one formatter and one parser for every string the environment
prints, offered to every agent — the examiner's scripted readers use exactly these.

This package is the lowest layer: it imports nothing else from ``kbgym``. Each string of
docs/protocol.md has a ``format_*`` (or ``render_*``) here, used by the environment, and a
``parse_*`` that reads it back (``parse(format(x)) == x``):

| docs/protocol.md | string | write | read |
|---|---|---|---|
| §3 | the fact sentences (``X's job is baker.``) | :func:`render_fact` | :func:`parse_fact` |
| §4 | question texts | :func:`render_question` | :func:`parse_question` |
| §7 | a search page | :func:`format_search` | :func:`parse_search` |
| §8.1 | a read | :func:`format_read` | :func:`parse_read` |
| §8.1 | answer / done | :func:`format_submitted`, :data:`PHASE_COMPLETE` | :func:`parse_submitted` |
| §8.1 | add / edit / delete / link / unlink | ``format_added`` … | :func:`parse_edit` |
| §8.2 | link_many | :func:`format_link_many` | :func:`parse_link_many` |
| §8.3 | errors | ``errors.err_*`` | :func:`is_error`, :func:`error_message` |
| §9 | task blocks | :func:`format_forward`, :func:`format_backward`, :func:`format_probe` | :func:`parse_task` |
| §10 | the observation (both layouts) | :func:`render_observation` | :func:`parse_observation` |
| §18 | locate / expand | :func:`format_locate`, :func:`format_expand`, :func:`format_walk` | :func:`parse_locate`, :func:`parse_expand` |
| answer statements | ``The job of X is baker.`` | :func:`answer_statement` | :func:`parse_statement` |

Also: the limits and tool names (:mod:`.limits`), note ids (:mod:`.ids`) and the search
tokenizer (:func:`tokenize`).

A ten-line agent loop::

    from kbgym.protocol import parse_observation, parse_search
    obs = parse_observation(env.reset(options={"qid": qid})[0])
    page = parse_search(env.step({"action": "search", "query": obs.question})[4]["result"])
    ids = [hit.id for hit in page.hits]
"""

from kbgym.protocol import errors, limits
from kbgym.protocol.errors import error_message, is_error
from kbgym.protocol.facts import DRIFT_PREFIX, Fact, parse_fact, render_date, render_fact
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
from kbgym.protocol.questions import (
    QUESTION_FORMS,
    ParsedQuestion,
    embeds_question,
    parse_question,
    question_slots,
    render_question,
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
from kbgym.protocol.statements import STATEMENTS, answer_statement, parse_statement
from kbgym.protocol.tasks import Task, format_backward, format_forward, format_probe, parse_task
from kbgym.protocol.tokens import tokenize

__all__ = [
    "DRIFT_PREFIX", "Edge", "EditResult", "Entry", "ExpandResult", "Fact", "Hit",
    "LinkManyResult", "LinksPage", "Mode", "NO_EDGES", "NO_HITS", "NO_MATCHES", "Observation",
    "PHASE_COMPLETE", "ParsedQuestion", "Phase", "QUESTION_FORMS", "ReadResult", "STATEMENTS",
    "SUBMITTED", "SearchPage", "Task", "answer_statement", "embeds_question", "error_message",
    "errors", "format_added", "format_backward", "format_call", "format_collapsed",
    "format_deleted", "format_duplicate", "format_edge", "format_edited", "format_expand",
    "format_forward", "format_hit", "format_id", "format_link_many", "format_linked",
    "format_locate", "format_merged_into", "format_probe", "format_read", "format_search",
    "format_submitted", "format_unlinked", "format_walk", "id_key", "id_num", "is_error",
    "is_note_id", "limits", "parse_collapsed", "parse_edit", "parse_expand", "parse_fact",
    "parse_history", "parse_hit", "parse_link_many", "parse_locate", "parse_observation",
    "parse_question", "parse_read", "parse_search", "parse_statement", "parse_submitted",
    "parse_task", "phase_tools", "question_slots", "render_date", "render_fact",
    "render_observation", "render_question", "result_hits", "result_ids", "tokenize",
]
