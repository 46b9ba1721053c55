"""Task blocks (docs/protocol.md §9): the pinned first lines of every observation, which tell
the agent the question and, in the backward phase, its own answer, the gold and its F1.
:func:`format_forward`/:func:`format_backward`/:func:`format_probe` write them and
:func:`parse_task` reads any of them back as a :class:`Task`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kbgym.protocol.limits import ANSWER_SHOWN

INSTRUCTION = (
    "Now curate the library. Name the keys this question mentioned: the people, places, jobs, "
    "hobbies and relations. Each key should have one complete index note whose links point at "
    "its members. Build the index for a key that has none, extend one that is partial, and "
    "change nothing that is already complete. Call done() when you are finished."
)
OUTCOME_NO_ANSWER = (
    "Outcome: the budget ran out before you answered - the library did not lead you to the "
    "answer quickly enough."
)
OUTCOME_WRONG = (
    "Outcome: your answer was wrong - the library let you miss or miscount what the question "
    "needed."
)
OUTCOME_RIGHT = (
    "Outcome: your answer was right - check whether an index would have made it cheaper."
)
NO_ANSWER_LINE = "your answer: (none - budget exhausted, scored F1 0.00)"
OUTCOMES = {OUTCOME_NO_ANSWER: "no_answer", OUTCOME_WRONG: "wrong", OUTCOME_RIGHT: "right"}


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, marked ``… [{n} characters in all]``."""
    if len(text) <= limit:
        return text
    marker = f"… [{len(text)} characters in all]"
    return text[: max(0, limit - len(marker))] + marker


@dataclass(frozen=True)
class Task:
    """A parsed task block. ``phase`` is forward, backward or probe; ``answer`` (the agent's
    own, as shown — cut at 1,000 characters), ``gold``, ``f1`` and ``outcome`` (``right``,
    ``wrong`` or ``no_answer``) are set in the backward block only. ``text`` is the block."""

    phase: str
    qid: str
    question: str
    text: str
    answer: str | None = None
    gold: str | None = None
    f1: float | None = None
    outcome: str | None = None


def format_forward(qid: str, question: str) -> str:
    return f"TRAIN QUESTION {qid} [phase 1: answer it]\n{question}"


def format_probe(qid: str, question: str) -> str:
    return f"QUESTION {qid}\n{question}"


def format_backward(qid: str, question: str, answer: str | None, gold: str, f1: float) -> str:
    """The six lines of §9.2."""
    if answer is None:
        said, outcome = NO_ANSWER_LINE, OUTCOME_NO_ANSWER
    else:
        said = f'your answer: "{clip(answer, ANSWER_SHOWN)}"'
        outcome = OUTCOME_WRONG if f1 < 0.5 else OUTCOME_RIGHT
    return "\n".join([f"TRAIN QUESTION {qid} [phase 2: backward]", question, said,
                      f'gold answer: "{gold}" | F1 {f1:.2f}', outcome, INSTRUCTION])


_FORWARD = re.compile(r"TRAIN QUESTION (\S+) \[phase 1: answer it\]")
_BACKWARD = re.compile(r"TRAIN QUESTION (\S+) \[phase 2: backward\]")
_PROBE = re.compile(r"QUESTION (\S+)")
_ANSWER = re.compile(r'your answer: "(.*)"', re.DOTALL)
_GOLD = re.compile(r'gold answer: "(.*)" \| F1 (\d+\.\d\d)', re.DOTALL)


def parse_task(block: str) -> Task | None:
    """Any task block as a :class:`Task`; None when ``block`` is not one.

    The question is the block's second line. In the backward block the lines after it are
    read from the end (instruction, outcome, gold), so an answer holding newlines or quotes
    cannot shift them."""
    head, _, rest = block.partition("\n")
    for phase, pattern in (("forward", _FORWARD), ("backward", _BACKWARD), ("probe", _PROBE)):
        m = pattern.fullmatch(head)
        if m is not None:
            break
    else:
        return None
    qid = m.group(1)
    if phase != "backward":
        return Task(phase, qid, rest, block)
    question, _, rest = rest.partition("\n")
    lines = rest.split("\n")
    if len(lines) < 4 or lines[-1] != INSTRUCTION or lines[-2] not in OUTCOMES:
        return None
    said, gold_line = "\n".join(lines[:-3]), lines[-3]
    g = _GOLD.fullmatch(gold_line)
    if g is None:
        return None
    if said == NO_ANSWER_LINE:
        answer = None
    else:
        a = _ANSWER.fullmatch(said)
        if a is None:
            return None
        answer = a.group(1)
    return Task(phase, qid, question, block, answer, g.group(1), float(g.group(2)),
                OUTCOMES[lines[-2]])
