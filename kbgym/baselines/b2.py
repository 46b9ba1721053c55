"""B2, GraphRAG-style communities (SPEC §14): one summary note per community of people,
linking to every statement that mentions a member."""

from __future__ import annotations

from kbgym.library.graph import Library

from kbgym.baselines.common import (BuildMeta, Builder, LLMTally, Summarize, communities,
                                    llm_text, person, positive_int, sort_ids, with_gc_paused)
from kbgym.baselines.extract import Parser, mentions_of

NAME = "b2"
PREFIX = "Community summary: "
MAX_WORDS = 120
DEFAULTS = {"max_size": 10}


def stub_text(names: list[str]) -> str:
    return f"{PREFIX}{', '.join(names)}."


@with_gc_paused
def build_b2(library: Library, *, max_size: int = 10, summarize: Summarize | None = None,
             parser: Parser | None = None) -> BuildMeta:
    """Build B2 on a copy of ``library`` (node text only, read by ``parser``,
    :func:`kbgym.baselines.extract.parser_of`; None: the default world's).

    Every community (singletons included), ordered by its earliest-mentioned member, gets one
    authored node linking to each statement that mentions a member, in id order. The text is
    the stub ``Community summary: {names}.``, or with ``summarize`` the prefix plus the
    summariser's paragraph (at most 120 words) written from the linked statements; an empty
    reply falls back to the stub.
    """
    max_size = positive_int("max_size", max_size)
    b = Builder(library)
    m = mentions_of(b.lib, parser)
    llm = LLMTally(summarize) if summarize is not None else None
    for members in communities(m, max_size):
        targets = sort_ids([i for name in members for i in m.of(person(name))])
        stub = stub_text(members)
        text = stub
        if llm is not None:
            reply = llm([b.text(i) for i in targets], MAX_WORDS)
            text = llm_text(PREFIX, reply, stub, MAX_WORDS, b.lib.max_text_chars)
        node = b.add(text)
        b.link_all(node, targets)
    params = {"max_size": max_size, "summaries": "llm" if llm else "stub"}
    return b.finish(NAME, params, llm)
