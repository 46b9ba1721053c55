"""B4, a RAPTOR-style two-level tree (SPEC §14). Deterministic; the paper cited RAPTOR but
never built it.

Level 1 has one note per person linking to the statements whose subject is that person, so
every statement sits under exactly one level-1 note; level 2 groups level-1 notes by the B2
communities with ``max_size = branching``."""

from __future__ import annotations

from kbgym.library.graph import Library

from kbgym.baselines.common import (BuildMeta, Builder, LLMTally, Summarize, communities,
                                    llm_text, with_gc_paused, positive_int)
from kbgym.baselines.extract import Parser, mentions_of

NAME = "b4"
L1_PREFIX = "Level-1 summary: "
L2_PREFIX = "Level-2 summary: "
L1_WORDS = 60
L2_WORDS = 120
DEFAULTS = {"branching": 10}


def level1_stub(name: str) -> str:
    return f"{L1_PREFIX}notes about {name}."


def level2_stub(names: list[str]) -> str:
    return f"{L2_PREFIX}a group of {len(names)} people: {', '.join(names)}."


@with_gc_paused
def build_b4(library: Library, *, branching: int = 10, summarize: Summarize | None = None,
             parser: Parser | None = None) -> BuildMeta:
    """Build B4 on a copy of ``library`` (node text only, read by ``parser``,
    :func:`kbgym.baselines.extract.parser_of`; None: the default world's).

    1. Level 1: for each person in first-mention order who is the subject of at least one
       statement, a note linking to those statements in id order.
    2. Level 2: each B2 community (``max_size = branching``) with >= 2 members that have
       level-1 notes gets a note linking to them.

    With ``summarize``, texts are the prefixes plus LLM paragraphs (at most 60 words for
    level 1, written from the person's statements; 120 for level 2, written from the members'
    level-1 texts); an empty reply falls back to the stub.
    """
    branching = positive_int("branching", branching, 2)
    b = Builder(library)
    m = mentions_of(b.lib, parser)
    llm = LLMTally(summarize) if summarize is not None else None
    level1: dict[str, str] = {}
    for name in m.people:
        ids = m.by_subject.get(name)
        if not ids:
            continue  # mentioned only as an object: nothing of theirs to summarise
        text = level1_stub(name)
        if llm is not None:
            reply = llm([b.text(i) for i in ids], L1_WORDS)
            text = llm_text(L1_PREFIX, reply, text, L1_WORDS, b.lib.max_text_chars)
        level1[name] = b.add(text)
        b.link_all(level1[name], ids)
    for members in communities(m, branching):
        members = [p for p in members if p in level1]
        if len(members) < 2:
            continue
        targets = [level1[p] for p in members]
        text = level2_stub(members)
        if llm is not None:
            reply = llm([b.text(i) for i in targets], L2_WORDS)
            text = llm_text(L2_PREFIX, reply, text, L2_WORDS, b.lib.max_text_chars)
        b.link_all(b.add(text), targets)
    params = {"branching": branching, "summaries": "llm" if llm else "stub"}
    return b.finish(NAME, params, llm)
