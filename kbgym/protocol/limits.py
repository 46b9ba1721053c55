"""The protocol's numbers and names (docs/protocol.md §1, §8, §18): budgets, paging, caps,
the action and tool names per phase, and the link types."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """An episode's phase; ``obs["phase"]`` is its code (:data:`PHASE_CODES`)."""

    PROBE = "probe"
    FORWARD = "forward"
    BACKWARD = "backward"


class Mode(StrEnum):
    """An environment's mode: training episodes (forward then backward) or exams."""

    TRAIN = "train"
    PROBE = "probe"


class Status(StrEnum):
    """How an episode ended (test_log ``status``): an exam answered exactly, answered wrongly
    (partial F1 included) or ran out of steps; a training episode abandoned by a reset."""

    ANSWERED = "answered"
    WRONG = "wrong"
    UNANSWERED = "unanswered"
    ABANDONED = "abandoned"


#: ``obs["phase"]``: 0 = probe, 1 = forward, 2 = backward (§16.2).
PHASE_CODES: dict[str, int] = {Phase.PROBE: 0, Phase.FORWARD: 1, Phase.BACKWARD: 2}
PHASE_NAMES: dict[int, str] = {v: str(k) for k, v in PHASE_CODES.items()}

# Defaults (SPEC §1); every one is configurable in KBGymConfig.
N1 = 15  #: forward budget
N2 = 30  #: backward budget
M = 15  #: exam budget
MEMORY_K = 30  #: remembered (action, result) pairs
PAGE_SIZE = 5  #: hits per search page
MAX_PAGE = 12  #: the last search page
LINK_BATCH_MAX = 40  #: targets of one link_many
MAX_TEXT_CHARS = 1000  #: characters of one note
READ_LINKS_PER_PAGE = 100  #: linked notes one read shows (``links_page`` for the next ones)
MAX_LOCATE = 10  #: lines of one locate result

#: The most characters of a call (``name(args)``) a memory line shows.
CALL_MAX = 1_000
#: The most characters of a result a memory line shows.
RESULT_MAX = 131_072
#: The most characters of the agent's answer the backward task block repeats.
ANSWER_SHOWN = 1_000

LINK_TYPES: tuple[str, ...] = ("refers_to", "supersedes", "amends", "cites", "member_of", "related")

#: Every action name, in §8.1 order, then the §18 evidence tools.
ACTION_NAMES: tuple[str, ...] = (
    "search", "read", "answer", "add", "edit", "delete", "link", "link_many", "unlink", "done",
    "locate", "expand",
)  # fmt: skip

#: The backward actions counted in ``edits`` (§8.3) and replayed (§15.3).
EDIT_ACTIONS: tuple[str, ...] = ("add", "edit", "delete", "link", "link_many", "unlink")

FORWARD_TOOLS: tuple[str, ...] = ("search", "read", "answer")
BACKWARD_TOOLS: tuple[str, ...] = (
    "search", "read", "add", "edit", "delete", "link", "link_many", "unlink", "done",
)  # fmt: skip
PROBE_TOOLS: tuple[str, ...] = ("search", "read", "answer")
#: Added to forward and probe by ``toolset="evidence"`` (§18).
EVIDENCE_TOOLS: tuple[str, ...] = ("locate", "expand")

PHASES: tuple[str, ...] = ("forward", "backward", "probe")
TOOLSETS: tuple[str, ...] = ("paper", "evidence")


def phase_tools(phase: str, toolset: str = "paper") -> tuple[str, ...]:
    """The tool names offered in ``phase`` (forward/backward/probe) under ``toolset``."""
    if toolset not in TOOLSETS:
        raise ValueError(f"unknown toolset {toolset!r}; expected one of {', '.join(TOOLSETS)}")
    if phase == "backward":
        return BACKWARD_TOOLS
    if phase in ("forward", "probe"):
        base = FORWARD_TOOLS if phase == "forward" else PROBE_TOOLS
        return base + EVIDENCE_TOOLS if toolset == "evidence" else base
    raise ValueError(f"unknown phase {phase!r}; expected one of {', '.join(PHASES)}")
