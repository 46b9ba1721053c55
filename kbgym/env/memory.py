"""The agent's memory and its rendering as ``obs["text"]`` (SPEC §10, §8.3 collapse_repeats).

Memory is a pinned task block plus a FIFO of the last K (call, result) pairs. The environment
pushes one entry per step and renders after each step. The counter line comes last, so within
a phase each observation extends the previous one (prompt caches reuse the whole prefix).

Bounds: a memory line shows at most :data:`CALL_MAX` characters of the call (echoed inputs are
cut with a ``… [n more characters]`` marker) and :data:`RESULT_MAX` of the result (results
within the protocol's own limits - a search page, a read page of links - are far shorter and
kept whole; the trace always keeps the full result). :func:`max_obs_chars` is therefore a
bound on ``obs["text"]`` for every action sequence.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any

from kbgym.env.actions import ActionModel, InvalidAction, call_repr

NO_ACTIONS = "(no actions yet)"
HEADER = "Recent actions (oldest first):"
COUNTER = "Remaining actions this phase: {r}."

#: The most characters of a call (``name(args)``) a memory line shows.
CALL_MAX = 1_000
#: The most characters of a result a memory line shows.
RESULT_MAX = 131_072
#: Layouts: ``counter_last`` (current, SPEC §10 as revised) and ``counter_first`` (the first
#: version, kept for the old ``kbgym/KBGym-v0`` id).
LAYOUTS = ("counter_last", "counter_first")


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, marked ``… [n more characters]``."""
    if len(text) <= limit:
        return text
    marker = f"… [{len(text)} characters in all]"
    return text[: max(0, limit - len(marker))] + marker


def max_obs_chars(k: int, task_chars: int) -> int:
    """The most characters ``obs["text"]`` can have with memory size ``k`` and a task block of
    ``task_chars``: the block, the header, k clipped lines and the counter line."""
    line = len("- ") + CALL_MAX + len(" -> ") + RESULT_MAX + 1
    return task_chars + 2 + len(HEADER) + 1 + max(len(NO_ACTIONS), k * line) + 2 + 64

# A note id at the start of a result line: "s0001: ..." (read's own note), "- s0002: ..."
# (search hits, read's links) or "- s0003 [cites]: ..." (typed links).
_RESULT_ID = re.compile(r"^(?:- )?([A-Za-z_]*[0-9]+)(?: \[[^\]\n]*\])?: ", re.MULTILINE)

COLLAPSIBLE = ("search", "read")


def result_ids(result: str) -> list[str]:
    """The note ids a search/read result shows, in order of first appearance.

    An id counts when it opens a result line (``{id}: ...`` or ``- {id}: ...``, with an
    optional `` [{type}]``), so ids mentioned inside a note's text are not picked up.
    """
    seen: dict[str, None] = {}
    for m in _RESULT_ID.finditer(result):
        seen.setdefault(m.group(1), None)
    return list(seen)


def collapsed_result(name: str, result: str) -> str:
    """``same {name} as before, same result ({n} notes: {ids}) - use these ids, or try
    something else``; ``{ids}`` is :func:`result_ids` joined by ``, `` (``none`` if empty)."""
    ids = result_ids(result)
    shown = ", ".join(ids) if ids else "none"
    return (
        f"same {name} as before, same result ({len(ids)} notes: {shown}) - use these ids, "
        "or try something else"
    )


class Memory:
    """Task block + FIFO of (call, result) lines.

    - ``set_task(block)`` replaces the block, keeps the FIFO and starts a new phase for
      ``collapse_repeats`` (every task-block change in the protocol is a phase boundary);
    - ``new_phase()`` only resets repeat tracking;
    - ``clear()`` empties the FIFO and repeat tracking (the task block stays until replaced).
    """

    def __init__(self, k: int = 30, *, collapse_repeats: bool = False, task: str = "",
                 layout: str = "counter_last"):
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ValueError(f"memory k must be a non-negative int, got {k!r}")
        if layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
        self.k = k
        self.layout = layout
        self.collapse_repeats = collapse_repeats
        self.task = task
        self._entries: deque[tuple[str, str]] = deque(maxlen=k)
        self._lines: deque[str] = deque(maxlen=k)  # each entry's rendered line, made once
        self._seen: dict[str, str] = {}

    @property
    def entries(self) -> tuple[tuple[str, str], ...]:
        """The (call, shown result) pairs, oldest first."""
        return tuple(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def set_task(self, block: str) -> None:
        self.task = block
        self.new_phase()

    def new_phase(self) -> None:
        self._seen.clear()

    def clear(self) -> None:
        self._entries.clear()
        self._lines.clear()
        self._seen.clear()

    def push(self, action: ActionModel | InvalidAction | str | Any, result: str) -> str:
        """Append one step; returns the result as it will be shown.

        ``action`` is an Action, an InvalidAction, or an already-rendered call string. With
        ``collapse_repeats``, a search/read whose canonical call and (non-error) result both
        equal an earlier one in this phase is shown collapsed; the caller's trace keeps the
        real result.
        """
        if isinstance(action, (ActionModel, InvalidAction)):
            call = call_repr(action)
        else:
            call = str(action)
        shown = result
        if (
            self.collapse_repeats
            and isinstance(action, ActionModel)
            and action.name in COLLAPSIBLE
        ):
            if self._seen.get(call) == result:
                shown = collapsed_result(action.name, result)
            self._seen[call] = result
        call, clipped = clip(call, CALL_MAX), clip(shown, RESULT_MAX)
        self._entries.append((call, clipped))
        self._lines.append(f"- {call} -> {clipped}")
        return shown

    def lines(self) -> str:
        if not self._entries:
            return NO_ACTIONS
        return "\n".join(self._lines)

    def render(self, remaining: int) -> str:
        """The SPEC §10 text of ``obs["text"]``: task block, history, then the counter."""
        counter = COUNTER.format(r=remaining)
        if self.layout == "counter_first":
            return f"{self.task}\n\n{counter}\n{HEADER}\n{self.lines()}"
        return f"{self.task}\n\n{HEADER}\n{self.lines()}\n\n{counter}"
