"""Tool modes and reply reading: what an agent sends for a phase, and the action it takes
from the reply.

Four modes (SPEC §9.5 gives the first; the others serve servers without it):

- ``tools``: the phase's tools, ``tool_choice="required"``, ``parallel_tool_calls=False``;
- ``single``: one tool named ``act`` whose arguments are the action union (``{"action":
  name, ...fields}``), forced *by name*. llama.cpp's server returns real ``tool_calls`` only
  when ``tool_choice`` names a function, and then constrains the arguments to the schema;
- ``text``: no tools; the system message gets a tool list and asks for one JSON object
  ``{"name": ..., "arguments": {...}}``, read from the reply text (fenced or bare);
- ``fields``: no tools; the model fills a few fields in one JSON object and the agent picks
  the action (:mod:`kbgym_agents.llm.fields`), optionally under a JSON schema.

Whatever the mode, the first tool call is used, and a call the env cannot read (bad JSON,
unknown tool, missing fields) is passed through so that the env answers with its error text.
A reply with no call at all is ``None``: the env's counted no-op.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from kbgym.env.actions import phase_tools, tool_schemas

MODES: tuple[str, ...] = ("tools", "single", "text", "fields")
PHASE_NAMES: dict[int, str] = {0: "probe", 1: "forward", 2: "backward"}
SINGLE_TOOL = "act"


def phase_name(phase: Any) -> str:
    """``obs["phase"]`` (0/1/2, or a name) as forward/backward/probe."""
    if isinstance(phase, str) and phase in PHASE_NAMES.values():
        return phase
    try:
        return PHASE_NAMES[int(phase)]
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"unknown phase {phase!r}; expected 0 (probe), 1 (forward) or "
                         "2 (backward)") from None


def phase_schemas(phase: Any, toolset: str = "paper", typed_links: bool = False) -> list[dict]:
    """The env's OpenAI function definitions for the phase (as ``env.tool_schemas``).

    Cached per (phase, toolset, typed_links): the same objects are returned each time, and
    nothing may mutate them."""
    return _schemas(phase_name(phase), toolset, bool(typed_links))


@lru_cache(maxsize=None)
def _schemas(phase: str, toolset: str, typed_links: bool) -> list[dict]:
    return tool_schemas(phase_tools(phase, toolset), typed_links=typed_links)


def single_tool(schemas: list[dict], flat: bool = False) -> dict:
    """See :func:`_single_tool`; cached per (tool names, flat)."""
    key = (tuple(s["function"]["name"] for s in schemas), flat,
           json.dumps(schemas, sort_keys=True))
    return _single_cached(key, flat, schemas)


_SINGLE_CACHE: dict = {}


def _single_cached(key, flat, schemas):
    if key not in _SINGLE_CACHE:
        _SINGLE_CACHE[key] = _single_tool(schemas, flat)
    return _SINGLE_CACHE[key]


def _single_tool(schemas: list[dict], flat: bool = False) -> dict:
    """One function ``act`` whose arguments are the union of the phase's actions.

    By default the parameters are an ``anyOf`` of one object per action, each with
    ``action`` fixed to its name, its own fields and ``additionalProperties: false``, so a
    grammar-constrained server produces only well-formed actions. ``flat`` gives a single
    object with ``action`` as an enum and every field optional (for servers that refuse
    ``anyOf``).
    """
    names = [s["function"]["name"] for s in schemas]
    lines = [f"- {s['function']['name']}: {s['function']['description']}" for s in schemas]
    description = ("Take exactly one action. Set `action` to the action's name and give its "
                   "fields next to it.\nActions:\n" + "\n".join(lines))
    if flat:
        props: dict[str, Any] = {"action": {"type": "string", "enum": names}}
        for s in schemas:
            for k, v in s["function"]["parameters"]["properties"].items():
                props.setdefault(k, v)
        params: dict[str, Any] = {"type": "object", "properties": props, "required": ["action"]}
    else:
        variants = []
        for s in schemas:
            p = s["function"]["parameters"]
            variants.append({
                "type": "object",
                "properties": {"action": {"type": "string", "enum": [s["function"]["name"]]},
                               **p["properties"]},
                "required": ["action", *p.get("required", [])],
                "additionalProperties": False,
            })
        params = {"type": "object", "anyOf": variants}
    return {"type": "function",
            "function": {"name": SINGLE_TOOL, "description": description, "parameters": params}}


def _signature(schema: dict) -> str:
    fn = schema["function"]
    params = fn["parameters"]
    required = set(params.get("required", []))
    parts = []
    for k, v in params["properties"].items():
        kind = v.get("type", "any")
        if kind == "array":
            kind = f"list of {v.get('items', {}).get('type', 'any')}"
        parts.append(f"{k}: {kind}" + ("" if k in required else
                                       f" = {json.dumps(v['default'])}" if "default" in v
                                       else " (optional)"))
    return f"- {fn['name']}({', '.join(parts)}): {fn['description']}"


def text_protocol(schemas: list[dict]) -> str:
    """The system-message appendix of the ``text`` mode: the tools and the reply format."""
    return ("\n\n## How to reply\nYou have no function-calling interface. Reply with exactly "
            "one JSON object and nothing else, of the form\n"
            '{"name": "<tool>", "arguments": {<the tool\'s fields>}}\n'
            "Available tools:\n" + "\n".join(_signature(s) for s in schemas) + "\n")


@dataclass(frozen=True)
class Request:
    """What one call sends besides model, messages and sampling."""

    mode: str
    system_suffix: str
    fields: dict


def build_request(mode: str, schemas: list[dict], *, json_mode: bool = False,
                  flat_single: bool = False, parallel_tool_calls: bool | None = False,
                  fields_suffix: str = "", response_format: dict | None = None) -> Request:
    """The request of one step in ``mode`` offering ``schemas`` (the fields mode takes its
    system-message appendix and its ``response_format`` from the caller)."""
    if mode == "tools":
        fields = {"tools": schemas, "tool_choice": "required"}
        if parallel_tool_calls is not None:
            fields["parallel_tool_calls"] = parallel_tool_calls
        return Request(mode, "", fields)
    if mode == "single":
        fields = {"tools": [single_tool(schemas, flat=flat_single)],
                  "tool_choice": {"type": "function", "function": {"name": SINGLE_TOOL}}}
        if parallel_tool_calls is not None:
            fields["parallel_tool_calls"] = parallel_tool_calls
        return Request(mode, "", fields)
    if mode == "text":
        fields = {"response_format": {"type": "json_object"}} if json_mode else {}
        return Request(mode, text_protocol(schemas), fields)
    if mode == "fields":
        return Request(mode, fields_suffix,
                       {"response_format": response_format} if response_format else {})
    raise ValueError(f"unknown tool mode {mode!r}; expected one of {', '.join(MODES)} or auto")


# -- reading replies ---------------------------------------------------------------------

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_NAME_KEYS = ("name", "action", "tool", "tool_name", "function")
_ARG_KEYS = ("arguments", "parameters", "args", "input")


def _balanced_object(text: str) -> str | None:
    """The first ``{...}`` in ``text`` with balanced braces (JSON strings respected), or the
    unterminated tail from the first ``{`` when it never closes."""
    start = text.find("{")
    if start < 0:
        return None
    depth, in_str, esc = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
    return text[start:]


def json_candidate(text: str | None) -> str | None:
    """The JSON object text a reply carries: the first fenced block holding one, else the
    first bare balanced object. None when the reply holds no ``{`` at all."""
    if not text:
        return None
    for _lang, body in _FENCE.findall(text):
        found = _balanced_object(body)
        if found is not None:
            return found
    return _balanced_object(text)


def normalize_call(obj: Any) -> Any:
    """A decoded text call in a shape ``env.step`` reads.

    ``{"name", "arguments"}``, ``{"action", ...}`` and ``{"function": {...}}`` pass as they
    are; ``{"tool": ..., "args": ...}``-style aliases are renamed; an ``act`` wrapper (the
    single tool written as text) is unwrapped.
    """
    if not isinstance(obj, Mapping):
        return obj
    obj = dict(obj)
    if obj.get("name") == SINGLE_TOOL or obj.get("tool") == SINGLE_TOOL:
        inner = next((obj[k] for k in _ARG_KEYS if k in obj), None)
        if isinstance(inner, str):
            try:
                inner = json.loads(inner)
            except ValueError:
                return inner
        if isinstance(inner, Mapping):
            return normalize_call(inner)
    if "action" in obj or "function" in obj or ("name" in obj and "arguments" in obj):
        return obj
    name = next((obj[k] for k in _NAME_KEYS if k in obj and isinstance(obj[k], str)), None)
    if name is None:
        return obj
    args = next((obj[k] for k in _ARG_KEYS if k in obj), None)
    if args is None:
        args = {k: v for k, v in obj.items() if k not in _NAME_KEYS}
    return {"name": name, "arguments": args}


_DECODER = json.JSONDecoder()


def first_object(text: str) -> Any:
    """The first JSON object that decodes starting at some ``{`` of ``text`` (so stray
    wrappers such as ``{{...}}`` or ``<tool_call>`` tags are skipped), else None."""
    pos = text.find("{")
    while pos >= 0:
        try:
            obj, _ = _DECODER.raw_decode(text, pos)
        except ValueError:
            obj = None
        if isinstance(obj, Mapping):
            return obj
        pos = text.find("{", pos + 1)
    return None


def read_text_call(text: str | None) -> tuple[Any, bool]:
    """(action, found) from reply text: a dict when a JSON object decodes (fenced blocks
    first, then the bare text), the raw candidate string when none does (the env will call it
    bad input), (None, False) when the text holds no ``{`` at all."""
    candidate = json_candidate(text)
    if candidate is None:
        return None, False
    bodies = [body for _lang, body in _FENCE.findall(text or "")] + [text or ""]
    for body in bodies:
        obj = first_object(body)
        if obj is not None:
            return normalize_call(obj), True
    return candidate, True


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


@dataclass(frozen=True)
class Reading:
    """What a reply said: the action for ``env.step`` and how it was found
    (``tool_call``, ``act``, ``text`` or ``none``)."""

    action: Any
    how: str


def read_reply(message: Any) -> Reading:
    """The action in a chat completion message (SDK object or dict): its first tool call,
    else a JSON call in its text, else None."""
    calls = _get(message, "tool_calls") or []
    if calls:
        fn = _get(calls[0], "function")
        name = _get(fn, "name")
        args = _get(fn, "arguments")
        if name == SINGLE_TOOL:
            if isinstance(args, str):
                try:
                    decoded = json.loads(args) if args.strip() else None
                except ValueError:
                    return Reading(args, "act")  # malformed: the env says bad input
                if isinstance(decoded, Mapping):
                    return Reading(normalize_call(decoded), "act")
                return Reading(args, "act")
            return Reading(normalize_call(args) if isinstance(args, Mapping) else args, "act")
        return Reading({"name": name, "arguments": args}, "tool_call")
    content = _get(message, "content")
    action, found = read_text_call(content if isinstance(content, str) else None)
    return Reading(action, "text") if found else Reading(None, "none")
