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

from collections import deque
from typing import Any

from kbgym.env.actions import ActionModel, InvalidAction, call_repr
from kbgym.protocol.limits import CALL_MAX, RESULT_MAX
from kbgym.protocol.observation import HEADER, LAYOUTS, NO_ACTIONS, format_line, render_observation
from kbgym.protocol.results import format_collapsed, result_ids
from kbgym.protocol.tasks import clip

__all__ = ["CALL_MAX", "HEADER", "LAYOUTS", "NO_ACTIONS", "RESULT_MAX", "Memory", "clip",
           "collapsed_result", "max_obs_chars", "result_ids"]

COLLAPSIBLE = ("search", "read")


def max_obs_chars(k: int, task_chars: int) -> int:
    """The most characters ``obs["text"]`` can have with memory size ``k`` and a task block of
    ``task_chars``: the block, the header, k clipped lines and the counter line."""
    line = len("- ") + CALL_MAX + len(" -> ") + RESULT_MAX + 1
    return task_chars + 2 + len(HEADER) + 1 + max(len(NO_ACTIONS), k * line) + 2 + 64


def collapsed_result(name: str, result: str) -> str:
    """``same {name} as before, same result ({n} notes: {ids}) - use these ids, or try
    something else``; ``{ids}`` are the ids the result shows (``none`` if it shows none)."""
    return format_collapsed(name, result_ids(result))


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
        self._entries.append((clip(call, CALL_MAX), clip(shown, RESULT_MAX)))
        self._lines.append(format_line(call, shown))
        return shown

    def lines(self) -> str:
        if not self._entries:
            return NO_ACTIONS
        return "\n".join(self._lines)

    def render(self, remaining: int) -> str:
        """The §10 text of ``obs["text"]`` (:func:`kbgym.protocol.render_observation`)."""
        return render_observation(self.task, self._lines, remaining, self.layout)
