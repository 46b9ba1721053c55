"""The observation (docs/protocol.md §10): ``obs["text"]`` is a pinned task block, the last K
(action, result) pairs and a counter line. :func:`render_observation` writes it (both
layouts); :func:`parse_observation` reads it back into an :class:`Observation`.

```
{task block}

Recent actions (oldest first):
- {name}({k}={v!r}, ...) -> {result}
...

Remaining actions this phase: {r}.
```

The first layout (``kbgym/KBGym-v0``) put the counter line between the task block and the
history; :func:`parse_observation` reads both, so an agent written against either runs
unchanged under the other.
"""

from __future__ import annotations

import ast
import copy
import numbers
import re
from functools import lru_cache
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kbgym.protocol.limits import CALL_MAX, PHASE_NAMES, RESULT_MAX
from kbgym.protocol.results import parse_hit
from kbgym.protocol.tasks import Task, clip, parse_task

NO_ACTIONS = "(no actions yet)"
HEADER = "Recent actions (oldest first):"
COUNTER = "Remaining actions this phase: {r}."
#: ``counter_last`` (current, v1) and ``counter_first`` (the first layout, v0).
LAYOUTS = ("counter_last", "counter_first")


# -- calls ---------------------------------------------------------------------------------------
def format_args(args: Any) -> str:
    """``k=repr(v)`` joined by ``, `` for a mapping; other given arguments as ``str``."""
    if args is None:
        return ""
    if isinstance(args, Mapping):
        return ", ".join(f"{k}={v!r}" for k, v in args.items())
    return str(args)


def format_call(name: str | None, args: Any, raw: str = "") -> str:
    """The call part of a memory line: ``name(k=repr(v), ...)`` with the canonical arguments
    in schema order; an unreadable input with no name shows as ``?({raw})``."""
    if name is None:
        return f"?({raw})"
    return f"{name}({format_args(args)})"


def format_line(call: str, result: str) -> str:
    """One memory line, call and result clipped to their bounds."""
    return f"- {clip(call, CALL_MAX)} -> {clip(result, RESULT_MAX)}"


def render_observation(task: str, lines: Sequence[str], remaining: int,
                       layout: str = "counter_last") -> str:
    """``obs["text"]`` from the task block, the memory lines (already formatted, oldest first)
    and the remaining budget of the phase."""
    history = "\n".join(lines) if lines else NO_ACTIONS
    counter = COUNTER.format(r=remaining)
    if layout == "counter_first":
        return f"{task}\n\n{counter}\n{HEADER}\n{history}"
    return f"{task}\n\n{HEADER}\n{history}\n\n{counter}"


# -- parsing -------------------------------------------------------------------------------------
@dataclass
class Entry:
    """One remembered step: the action's name (``?`` for an unreadable one), its arguments as
    shown (None when they do not read as keyword literals) and its result."""

    name: str
    args: dict | None
    result: str


@dataclass
class Observation:
    """A parsed observation: the task block (:class:`~kbgym.protocol.tasks.Task`, or None
    for text that has none), the remembered steps oldest first, the steps left in the phase
    and the phase (forward, backward, probe)."""

    task: Task | None
    history: list[Entry] = field(default_factory=list)
    steps_left: int | None = None
    phase: str | None = None
    block: str = ""

    @property
    def question(self) -> str:
        return self.task.question if self.task is not None else ""

    # the names the scripted agents used before this module existed
    @property
    def entries(self) -> list[Entry]:
        return self.history

    @property
    def remaining(self) -> int | None:
        return self.steps_left

    @property
    def task_lines(self) -> list[str]:
        return self.block.split("\n")


_CALL = re.compile(r"^- ([a-z_]+|\?)\(")
_COUNTER_LAST = re.compile(r"\n\nRemaining actions this phase: (-?\d+)\.\Z")
_REMAINING = "\n\nRemaining actions this phase: "
_RECENT = HEADER + "\n"


def _parse_args(text: str) -> dict | None:
    try:
        call = ast.parse(f"f({text})", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(call, ast.Call) or call.args:
        return None
    try:
        return {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None


def _split_call(line: str) -> tuple[str, dict | None, str] | None:
    m = _CALL.match(line)
    if m is None:
        return None
    name = m.group(1)
    start = m.end()
    pos = line.find(") -> ", start)
    while pos != -1:
        args = _parse_args(line[start:pos]) if name != "?" else None
        if args is not None or name == "?":
            return name, args, line[pos + 5:]
        pos = line.find(") -> ", pos + 1)
    return name, None, line.split(") -> ", 1)[-1]


@lru_cache(maxsize=8192)
def _call_line(line: str) -> tuple[str, tuple | None, str] | None:
    """A memory line's call (name, arguments as frozen items, first result line), or None
    for a line that continues the previous entry. Cached: each observation repeats the last
    K lines, and parsing a call's arguments (``ast``) is most of what reading one costs."""
    if parse_hit(line) is not None:
        return None
    call = _split_call(line)
    if call is None:
        return None
    name, args, first = call
    return name, None if args is None else tuple(args.items()), first


def _thaw(items: tuple) -> dict:
    """The arguments of a cached line as a dict of the caller's own (containers copied)."""
    return {k: v if isinstance(v, (str, int, float, type(None))) else copy.deepcopy(v)
            for k, v in items}


def parse_history(lines: str) -> list[Entry]:
    """The memory lines (the text under the header) as entries. A line that opens a call
    (``- name(`` … ``) -> ``) starts an entry; any other line — a hit of a multi-line result,
    or a line of a note's text — continues the previous entry's result."""
    entries: list[Entry] = []
    if lines == NO_ACTIONS:
        return entries
    for line in lines.split("\n"):
        call = _call_line(line)
        if call is not None:
            name, args, first = call
            entries.append(Entry(name, None if args is None else _thaw(args), first))
            continue
        if entries:
            entries[-1].result += "\n" + line
    return entries


def parse_observation(obs: Mapping | str) -> Observation:
    """``obs`` (the observation dict, or its ``text``) as an :class:`Observation`.

    Reads the current layout (counter line last) and the first one (counter line between the
    task block and the history). ``steps_left`` and ``phase`` come from the dict when given,
    else from the text (the counter line, the task block)."""
    text = obs["text"] if isinstance(obs, Mapping) else obs
    remaining = None
    m = _COUNTER_LAST.search(text)
    if m is not None:  # task block, history, counter
        remaining = int(m.group(1))
        block, _, lines = text[: m.start()].partition("\n\n" + _RECENT)
    else:  # the first layout: task block, counter, history
        block, _, rest = text.partition(_REMAINING)
        head, _, body = rest.partition("\n")
        if head.endswith("."):
            try:
                remaining = int(head[:-1])
            except ValueError:
                remaining = None
        _, _, lines = body.partition(_RECENT)
    task = parse_task(block)
    phase = task.phase if task is not None else None
    if isinstance(obs, Mapping):
        left, code = obs.get("steps_left"), obs.get("phase")
        if isinstance(left, numbers.Integral) and not isinstance(left, bool):
            remaining = int(left)
        if isinstance(code, numbers.Integral) and not isinstance(code, bool) \
                and int(code) in PHASE_NAMES:
            phase = PHASE_NAMES[int(code)]
    return Observation(task, parse_history(lines), remaining, phase, block)
