"""Agent actions (SPEC §8, §18): the pydantic models, and ``parse_action``, the one parser.

``parse_action`` never raises on agent input. It returns either an Action (one of the models
below) or an :class:`InvalidAction` carrying the exact ``ERROR: ...`` string, after the checks
of SPEC §8.3 steps 1-4:

1. ``ERROR: no action was given`` (the input is None);
2. ``ERROR: bad input: could not read an action`` / ``ERROR: unknown action {name}``;
3. ``ERROR: {name} is not available in this phase`` (only when ``allowed`` is given);
4. field checks, in schema order (first failing field wins).

Step 5, the semantic checks, belongs to execution. The stateless ones (empty query, page
range, link_many batch size, the evidence-tool argument rules) are in :func:`precheck`, which
the environment runs before it looks anything up in the library. The page range therefore is
*not* a parse error: ``search(query="", page=99)`` parses, and its first semantic error is
``ERROR: query must not be empty`` as §8.1 orders it.
"""

from __future__ import annotations

import json
import numbers
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, Union

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from kbgym.env.guard import check_input
from kbgym.protocol.errors import (
    ERR_BAD_INPUT,
    ERR_EMPTY_QUERY,
    ERR_EMPTY_TERMS,
    ERR_HOPS_EDGE_TYPE,
    ERR_HOPS_MIN,
    ERR_LINKS_PAGE_MIN,
    ERR_NO_ACTION,
    ERR_TARGETS_EMPTY,
    ERR_TYPES_DISABLED,
    ERR_UNKNOWN_TYPE,
    err_field_ids,
    err_field_integer,
    err_field_link_types,
    err_field_missing,
    err_field_string,
    err_field_terms,
    err_not_available,
    err_page_range,
    err_too_many_targets,
    err_unknown_action,
)
from kbgym.protocol.limits import (  # noqa: F401  (re-exported: the env's names)
    ACTION_NAMES,
    BACKWARD_TOOLS,
    EDIT_ACTIONS,
    EVIDENCE_TOOLS,
    FORWARD_TOOLS,
    LINK_TYPES,
    PHASES,
    PROBE_TOOLS,
    TOOLSETS,
    phase_tools,
)
from kbgym.protocol.observation import format_call

# ---------------------------------------------------------------------------------------------
# Names, limits and errors: the protocol's (kbgym.protocol)

TOOL_DESCRIPTIONS: dict[str, str] = {
    "search": "Find notes whose words match the query; 5 per page.",
    "read": "Show a note and the full text of every note it links to.",
    "answer": "Submit your final short answer; ends the phase.",
    "add": "Create a one-sentence note.",
    "edit": "Replace a note's text.",
    "delete": "Remove a note and all links to it.",
    "link": "Link source to target.",
    "link_many": "Link source to up to 40 targets.",
    "unlink": "Remove a link.",
    "done": "Finish curating.",
    # §18 gives no wording for these two; these strings are this implementation's choice.
    "locate": "Find notes containing every term; optionally only within a note and its links.",
    "expand": "List a note's out-links, or follow one link type for several hops.",
}


# ---------------------------------------------------------------------------------------------
# Models

LinkType = Literal["refers_to", "supersedes", "amends", "cites", "member_of", "related"]


class ActionModel(BaseModel):
    """Base of every action model. ``action`` is the discriminator; ``name`` is an alias."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    valid: ClassVar[bool] = True

    @property
    def name(self) -> str:
        return self.action  # type: ignore[attr-defined]


class Search(ActionModel):
    action: Literal["search"] = "search"
    query: str
    page: int = 1


class Read(ActionModel):
    action: Literal["read"] = "read"
    id: str
    links_page: int | None = None  # for notes with more links than one read shows


class Answer(ActionModel):
    action: Literal["answer"] = "answer"
    text: str
    cites: list[str] | None = None  # the note ids the answer rests on (stated citations)


class Add(ActionModel):
    action: Literal["add"] = "add"
    text: str


class Edit(ActionModel):
    action: Literal["edit"] = "edit"
    id: str
    text: str


class Delete(ActionModel):
    action: Literal["delete"] = "delete"
    id: str


class Link(ActionModel):
    action: Literal["link"] = "link"
    source: str
    target: str
    type: LinkType | None = None


class LinkMany(ActionModel):
    action: Literal["link_many"] = "link_many"
    source: str
    targets: list[str]
    type: LinkType | None = None


class Unlink(ActionModel):
    action: Literal["unlink"] = "unlink"
    source: str
    target: str


class Done(ActionModel):
    action: Literal["done"] = "done"


class Locate(ActionModel):
    action: Literal["locate"] = "locate"
    terms: str | list[str]
    within: str | None = None


class Expand(ActionModel):
    action: Literal["expand"] = "expand"
    node: str
    edges: list[str] | None = None
    hops: int = 1


Action = Annotated[
    Union[Search, Read, Answer, Add, Edit, Delete, Link, LinkMany, Unlink, Done, Locate, Expand],
    Field(discriminator="action"),
]
ACTION_ADAPTER: TypeAdapter = TypeAdapter(Action)

ACTION_MODELS: dict[str, type[ActionModel]] = {
    "search": Search, "read": Read, "answer": Answer, "add": Add, "edit": Edit,
    "delete": Delete, "link": Link, "link_many": LinkMany, "unlink": Unlink, "done": Done,
    "locate": Locate, "expand": Expand,
}  # fmt: skip

# How parse_action checks each field. Kinds:
#   str     a string, kept as given (text, query)
#   id      a string, stripped of surrounding whitespace
#   ids     a list of strings, each stripped
#   int     an int, integral float or integer string (page, hops)
#   type    an optional link type (only when typed links are on)
#   opt_id  an optional id (None allowed)
#   terms   a string or a list of strings
#   edges   an optional list of strings
_FIELD_KINDS: dict[str, dict[str, str]] = {
    "search": {"query": "str", "page": "int"},
    "read": {"id": "id", "links_page": "int"},
    "answer": {"text": "str", "cites": "ids"},
    "add": {"text": "str"},
    "edit": {"id": "id", "text": "str"},
    "delete": {"id": "id"},
    "link": {"source": "id", "target": "id", "type": "type"},
    "link_many": {"source": "id", "targets": "ids", "type": "type"},
    "unlink": {"source": "id", "target": "id"},
    "done": {},
    "locate": {"terms": "terms", "within": "opt_id"},
    "expand": {"node": "id", "edges": "edges", "hops": "int"},
}


@dataclass(frozen=True)
class InvalidAction:
    """An input that did not parse. ``str(error)`` is the step's result.

    - ``name``: the action name when one could be read (possibly an unknown one), else None;
    - ``args``: the arguments as given (a dict, or the raw argument string when that string
      could not be read), else None; used for the memory line ``{name}({given args})``;
    - ``raw``: ``repr(input)[:200]``, used for the memory line ``?({raw})`` when no name.
    """

    error: str
    name: str | None = None
    args: Any = None
    raw: str = ""
    valid: ClassVar[bool] = False


# ---------------------------------------------------------------------------------------------
# Parsing


class _Reject(Exception):
    """Internal: carries the error string of the first failing check."""

    def __init__(self, error: str):
        super().__init__(error)
        self.error = error


_INT_STRING = re.compile(r"[+-]?[0-9]+")


def _as_int(value: Any) -> int | None:
    """Page/hops coercion: ints, integral floats and integer strings; never booleans."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        s = value.strip()
        return int(s) if _INT_STRING.fullmatch(s) else None
    return None


#: Per action: (field, kind, required) in schema order, made once from the models.
_FIELDS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    name: tuple((field, _FIELD_KINDS[name][field], info.is_required())
                for field, info in model.model_fields.items() if field != "action")
    for name, model in ACTION_MODELS.items()
}


def _check_fields(name: str, args: Mapping[str, Any], typed_links: bool) -> dict[str, Any]:
    """Step 4: check and clean every field in schema order; raise _Reject on the first error."""
    values: dict[str, Any] = {}
    for field, kind, required in _FIELDS[name]:
        value = args.get(field)
        if value is None:
            if required:
                raise _Reject(err_field_missing(field))
            continue  # absent or null optional: the default applies
        if kind in ("str", "id", "opt_id"):
            if not isinstance(value, str):
                raise _Reject(err_field_string(field))
            values[field] = value if kind == "str" else value.strip()
        elif kind == "ids":
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                raise _Reject(err_field_ids(field))
            values[field] = [v.strip() for v in value]
        elif kind == "int":
            number = _as_int(value)
            if number is None:
                raise _Reject(err_field_integer(field))
            values[field] = number
        elif kind == "type":
            if not typed_links:
                raise _Reject(ERR_TYPES_DISABLED)
            if not isinstance(value, str) or value.strip() not in LINK_TYPES:
                raise _Reject(ERR_UNKNOWN_TYPE)
            values[field] = value.strip()
        elif kind == "terms":
            if isinstance(value, str):
                values[field] = value
            elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
                values[field] = list(value)
            else:
                raise _Reject(err_field_terms(field))
        elif kind == "edges":
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
                raise _Reject(err_field_link_types(field))
            values[field] = [v.strip() for v in value]
        else:  # pragma: no cover - guarded by a test over _FIELD_KINDS
            raise AssertionError(kind)
    return values


def _type_name(raw: Any) -> str:
    try:
        return type(raw).__name__[:40]
    except Exception:  # pragma: no cover
        return "object"


def _safe_repr(raw: Any) -> str:
    try:
        return repr(raw)[:200]
    except Exception:  # a hostile __repr__ must not break parsing
        return f"<{type(raw).__name__}>"[:200]


def _read_arguments(arguments: Any) -> dict[str, Any]:
    """The ``arguments`` of a tool call: a dict, a JSON object string, or empty."""
    if arguments is None:
        return {}
    if isinstance(arguments, (bytes, bytearray)):
        arguments = arguments.decode("utf-8")
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}
        arguments = json.loads(arguments)
    if isinstance(arguments, Mapping):
        return dict(arguments)
    raise ValueError("arguments is not an object")


def _read_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise _Reject(ERR_BAD_INPUT)
    return name.strip()


def _from_call(name: Any, arguments: Any, raw_repr: str) -> tuple[str, Any] | InvalidAction:
    """A (name, arguments) pair, as in ``{"name", "arguments"}`` and OpenAI tool calls."""
    try:
        name = _read_name(name)
    except _Reject as rej:
        return InvalidAction(rej.error, None, None, raw_repr)
    if name not in ACTION_MODELS:
        return InvalidAction(err_unknown_action(name), name, _given(arguments), raw_repr)
    try:
        return name, _read_arguments(arguments)
    except Exception:
        return InvalidAction(ERR_BAD_INPUT, name, _given(arguments), raw_repr)


def _given(arguments: Any) -> Any:
    """Arguments as given, for rendering: a dict stays a dict, anything else its text."""
    if arguments is None:
        return None
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if isinstance(arguments, (bytes, bytearray)):
        return arguments.decode("utf-8", "replace")[:200]
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments) if arguments.strip() else {}
        except Exception:
            return arguments[:200]
        return dict(decoded) if isinstance(decoded, Mapping) else arguments[:200]
    return _safe_repr(arguments)


def _from_mapping(obj: Mapping, raw_repr: str) -> tuple[str, Any] | InvalidAction:
    if "action" in obj:
        try:
            name = _read_name(obj["action"])
        except _Reject as rej:
            return InvalidAction(rej.error, None, None, raw_repr)
        args = {k: v for k, v in obj.items() if k != "action"}
        if name not in ACTION_MODELS:
            return InvalidAction(err_unknown_action(name), name, args, raw_repr)
        return name, args
    function = obj.get("function")
    if function is not None:
        if isinstance(function, Mapping):
            return _from_call(function.get("name"), function.get("arguments"), raw_repr)
        if hasattr(function, "name"):
            return _from_call(function.name, getattr(function, "arguments", None), raw_repr)
        return InvalidAction(ERR_BAD_INPUT, None, None, raw_repr)
    if "name" in obj:
        return _from_call(obj["name"], obj.get("arguments"), raw_repr)
    return InvalidAction(ERR_BAD_INPUT, None, None, raw_repr)


def _extract(raw: Any, raw_repr: str) -> tuple[str, Any] | InvalidAction:
    """Steps 1-2: find the action name and its argument mapping in any accepted shape."""
    if raw is None:
        return InvalidAction(ERR_NO_ACTION, None, None, raw_repr)
    if isinstance(raw, ActionModel):
        return raw.action, raw.model_dump(exclude={"action"}, exclude_none=True)  # type: ignore[attr-defined]
    if isinstance(raw, (str, bytes, bytearray)):
        try:
            decoded = json.loads(raw)
        except Exception:
            return InvalidAction(ERR_BAD_INPUT, None, None, raw_repr)
        if not isinstance(decoded, Mapping):
            return InvalidAction(ERR_BAD_INPUT, None, None, raw_repr)
        return _from_mapping(decoded, raw_repr)
    if isinstance(raw, Mapping):
        return _from_mapping(raw, raw_repr)
    function = getattr(raw, "function", None)
    if function is not None:  # an OpenAI chat tool call object
        if isinstance(function, Mapping):
            return _from_call(function.get("name"), function.get("arguments"), raw_repr)
        return _from_call(
            getattr(function, "name", None), getattr(function, "arguments", None), raw_repr
        )
    if hasattr(raw, "name") and hasattr(raw, "arguments"):  # a Responses-API function call
        return _from_call(raw.name, raw.arguments, raw_repr)
    return InvalidAction(ERR_BAD_INPUT, None, None, raw_repr)


def parse_action(
    raw: Any, *, allowed: Iterable[str] | None = None, typed_links: bool = False
) -> ActionModel | InvalidAction:
    """Parse any accepted input into an Action, or an InvalidAction with its error string.

    Accepted: an Action; ``{"action": name, ...}``; ``{"name": ..., "arguments": dict | JSON
    string}``; a JSON string of either; an OpenAI tool call as an object (``.function.name``,
    ``.function.arguments``) or as a dict ``{"function": {"name", "arguments"}}``. Unknown
    extra fields are ignored. ``allowed`` is the phase's tool set (None: every action).
    Never raises on agent input.
    """
    refused = check_input(raw)
    if refused is not None:  # beyond the input limits: nothing else is read from it
        return InvalidAction(refused, None, None, f"<{_type_name(raw)}>")
    raw_repr = _safe_repr(raw)
    try:
        found = _extract(raw, raw_repr)
        if isinstance(found, InvalidAction):
            return found
        name, args = found
        if allowed is not None and name not in (
                allowed if isinstance(allowed, (tuple, list, set, frozenset)) else set(allowed)):
            return InvalidAction(err_not_available(name), name, _given(args), raw_repr)
        try:
            values = _check_fields(name, args, typed_links)
        except _Reject as rej:
            return InvalidAction(rej.error, name, _given(args), raw_repr)
        return ACTION_MODELS[name].model_validate(values)
    except Exception:  # a safety net: agent input must never raise
        return InvalidAction(ERR_BAD_INPUT, None, None, raw_repr)


def precheck(
    action: ActionModel, *, max_page: int = 12, link_batch_max: int = 40
) -> str | None:
    """Step 5's stateless semantic checks, run by the env before any library lookup.

    search: empty query, then page range. link_many: empty targets, then the batch cap.
    locate: empty terms. expand: hops < 1, then hops > 1 without exactly one edge type.
    Returns the error string, or None when the action may go on to the library.
    """
    if isinstance(action, Search):
        if not action.query.strip():
            return ERR_EMPTY_QUERY
        if not 1 <= action.page <= max_page:
            return err_page_range(max_page)
    elif isinstance(action, Read):
        if action.links_page is not None and action.links_page < 1:
            return ERR_LINKS_PAGE_MIN
    elif isinstance(action, LinkMany):
        if not action.targets:
            return ERR_TARGETS_EMPTY
        if len(action.targets) > link_batch_max:
            return err_too_many_targets(len(action.targets), link_batch_max)
    elif isinstance(action, Locate):
        terms = [action.terms] if isinstance(action.terms, str) else action.terms
        if not any(t.strip() for t in terms):
            return ERR_EMPTY_TERMS
    elif isinstance(action, Expand):
        if action.hops < 1:
            return ERR_HOPS_MIN
        if action.hops > 1 and len(set(action.edges or ())) != 1:
            return ERR_HOPS_EDGE_TYPE
    return None


# ---------------------------------------------------------------------------------------------
# Rendering


def canonical_args(action: ActionModel) -> dict[str, Any]:
    """The canonical fields in schema order: defaults included, None omitted (§8.1). Made
    once per action (actions are frozen); each call returns a fresh dict."""
    cached = action.__dict__.get("_canonical")
    if cached is None:
        cached = action.model_dump(exclude={"action"}, exclude_none=True)
        action.__dict__["_canonical"] = cached
    return {k: list(v) if type(v) is list else v for k, v in cached.items()}


def call_repr(action: ActionModel | InvalidAction) -> str:
    """The call part of a memory line (§10): ``name(k=repr(v), ...)``.

    For an InvalidAction: ``{name}({given args})`` when a name was read, else ``?({raw})``
    with ``raw = repr(input)[:200]``.
    """
    if isinstance(action, InvalidAction):
        return format_call(action.name, action.args, action.raw)
    return format_call(action.action, canonical_args(action))  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------------
# Tool schemas


def _clean_schema(node: Any) -> Any:
    """Drop pydantic titles and collapse ``anyOf [X, null]`` to X (with its null default)."""
    if isinstance(node, list):
        return [_clean_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    node = {k: v for k, v in node.items() if k != "title"}
    any_of = node.get("anyOf")
    if isinstance(any_of, list):
        rest = [v for v in any_of if v != {"type": "null"}]
        if len(rest) < len(any_of):
            node.pop("anyOf")
            if node.get("default", 0) is None:
                node.pop("default")
            if len(rest) == 1:
                node = {**rest[0], **node}
            else:
                node["anyOf"] = rest
    return {k: _clean_schema(v) for k, v in node.items()}


def _parameters(name: str, typed_links: bool) -> dict[str, Any]:
    schema = ACTION_MODELS[name].model_json_schema()
    props = {
        k: _clean_schema(v)
        for k, v in schema.get("properties", {}).items()
        if k != "action" and (typed_links or k != "type")
    }
    required = [k for k in schema.get("required", []) if k in props]
    return {"type": "object", "properties": props, "required": required}


def tool_schemas(names: Iterable[str], typed_links: bool = False) -> list[dict[str, Any]]:
    """OpenAI function definitions for ``names``, in the given order.

    ``{"type": "function", "function": {"name", "description", "parameters"}}``; the
    parameters are generated from the pydantic models, without the ``action`` discriminator and
    without ``type`` unless typed links are on.
    """
    out = []
    for name in names:
        if name not in ACTION_MODELS:
            raise ValueError(f"unknown tool {name!r}; expected one of {', '.join(ACTION_NAMES)}")
        out.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": TOOL_DESCRIPTIONS[name],
                    "parameters": _parameters(name, typed_links),
                },
            }
        )
    return out


__all__ = [
    "ACTION_ADAPTER", "ACTION_MODELS", "ACTION_NAMES", "BACKWARD_TOOLS", "EDIT_ACTIONS",
    "EVIDENCE_TOOLS", "FORWARD_TOOLS", "LINK_TYPES", "PHASES", "PROBE_TOOLS", "TOOLSETS",
    "TOOL_DESCRIPTIONS", "Action", "ActionModel", "Add", "Answer", "Delete", "Done", "Edit",
    "Expand", "InvalidAction", "Link", "LinkMany", "Locate", "Read", "Search", "Unlink",
    "call_repr", "canonical_args", "parse_action", "phase_tools", "precheck", "tool_schemas",
]  # fmt: skip
