"""The protocol's fixed task blocks (SPEC §9.1–§9.3). These are environment strings, not
prompts: every agent sees the same words."""

from __future__ import annotations

from kbgym.env.memory import clip

#: The most characters of the agent's answer the backward block repeats.
ANSWER_SHOWN = 1_000

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


def forward_block(qid: str, text: str) -> str:
    return f"TRAIN QUESTION {qid} [phase 1: answer it]\n{text}"


def probe_block(qid: str, text: str) -> str:
    return f"QUESTION {qid}\n{text}"


def backward_block(qid: str, text: str, answer: str | None, gold: str, f1: float) -> str:
    if answer is None:
        said = "your answer: (none - budget exhausted, scored F1 0.00)"
        outcome = OUTCOME_NO_ANSWER
    else:
        said = f'your answer: "{clip(answer, ANSWER_SHOWN)}"'
        outcome = OUTCOME_WRONG if f1 < 0.5 else OUTCOME_RIGHT
    return "\n".join([
        f"TRAIN QUESTION {qid} [phase 2: backward]",
        text,
        said,
        f'gold answer: "{gold}" | F1 {f1:.2f}',
        outcome,
        INSTRUCTION,
    ])
