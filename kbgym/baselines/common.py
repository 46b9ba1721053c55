"""What every baseline builder shares: the build record, bulk linking, optional LLM text and
the GraphRAG-style communities that B2 and B4 both use."""

from __future__ import annotations

import functools

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kbgym.errors import ConfigError
from kbgym.library.graph import Library, gc_paused, id_num, normalize_text

from kbgym.baselines.extract import Entity, Mentions

SCHEMA_VERSION = 1

#: An injected summariser: ``summarize(texts, max_words) -> str``. It receives the texts the
#: summary is written from (in id order) and the word limit, and returns one paragraph
#: (the builder adds the fixed prefix). It may expose ``last_usage = (tokens_in, tokens_out)``
#: of its latest call and ``meta = {"model": ...}`` (or ``model``), as agents do.
Summarize = Callable[[Sequence[str], int], str]


@dataclass
class BuildMeta:
    """The outcome of one build: the built library (a copy) and its ``build_meta.json``."""

    baseline: str
    params: dict
    library: Library = field(repr=False)
    nodes_added: int = 0
    links_added: int = 0
    llm: dict | None = None

    def to_json(self) -> dict:
        return {"schema_version": SCHEMA_VERSION, "baseline": self.baseline,
                "params": dict(self.params), "nodes_added": self.nodes_added,
                "links_added": self.links_added, "llm": self.llm}  # fmt: skip


class LLMTally:
    """Calls the injected summariser and counts calls and tokens."""

    def __init__(self, summarize: Summarize):
        self.fn = summarize
        self.calls = self.tokens_in = self.tokens_out = 0

    @property
    def model(self) -> str | None:
        meta = getattr(self.fn, "meta", None)
        if isinstance(meta, dict) and meta.get("model"):
            return str(meta["model"])
        model = getattr(self.fn, "model", None)
        return str(model) if model else None

    def __call__(self, texts: Sequence[str], max_words: int) -> str:
        reply = self.fn(list(texts), max_words)
        self.calls += 1
        usage = getattr(self.fn, "last_usage", None)
        if usage:
            self.tokens_in += int(usage[0])
            self.tokens_out += int(usage[1])
        return reply if isinstance(reply, str) else ""

    def meta(self) -> dict:
        return {"model": self.model, "calls": self.calls, "tokens_in": self.tokens_in,
                "tokens_out": self.tokens_out}


def llm_text(prefix: str, reply: str | None, stub: str, max_words: int, cap: int) -> str:
    """``prefix`` + the reply cut to ``max_words`` words (and to the text cap); the stub when
    the reply is empty. A reply that repeats the prefix does not get it twice."""
    body = normalize_text(reply or "")
    if body.casefold().startswith(prefix.strip().casefold()):
        body = body[len(prefix.strip()):].strip()
    words = body.split()
    if not words:
        return stub
    words = words[:max_words]
    text = prefix + " ".join(words)
    while len(text) > cap and len(words) > 1:
        words.pop()
        text = prefix + " ".join(words)
    return text if len(text) <= cap else stub


class Builder:
    """A working copy of a library with fast, counted additions.

    The copy has no search backend and no dedup guard (nothing is searched while building;
    the exam rebuilds its index on load), and its ``link_batch_max`` is lifted during the
    build so whole member lists go through one ``link_many``.
    """

    def __init__(self, library: Library):
        self.lib = library.copy(search=None, dedup=None)
        self._batch = self.lib.link_batch_max
        self.lib.link_batch_max = 1 << 62
        self._nodes0 = len(self.lib)
        self._links0 = self.lib.n_links

    def text(self, node_id: str) -> str:
        return self.lib[node_id].text

    def add(self, text: str) -> str:
        if len(text) > self.lib.max_text_chars:
            raise ConfigError(
                f"a baseline note would be {len(text)} characters, over the "
                f"{self.lib.max_text_chars}-character cap; use a smaller group size")
        return self.lib.add(text, dedup=False).id

    def link_all(self, source: str, targets: Sequence[str]) -> int:
        """Link ``source`` to each target in order, skipping itself and existing links."""
        if not targets:
            return 0
        return len(self.lib.link_many(source, list(targets)).made)

    def link(self, source: str, target: str) -> None:
        self.lib.link(source, target)

    def finish(self, baseline: str, params: dict, llm: LLMTally | None = None) -> BuildMeta:
        self.lib.link_batch_max = self._batch
        return BuildMeta(baseline, params, self.lib, len(self.lib) - self._nodes0,
                         self.lib.n_links - self._links0, llm.meta() if llm else None)


def with_gc_paused(fn):
    """Decorator form of :func:`gc_paused`."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with gc_paused():
            return fn(*args, **kwargs)

    return wrapper


def sort_ids(ids: Sequence[str]) -> list[str]:
    """Distinct ids in id order."""
    return sorted(set(ids), key=id_num)


def positive_int(name: str, value: Any, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def communities(mentions: Mentions, max_size: int) -> list[list[str]]:
    """GraphRAG-style communities of person names (SPEC §14, B2 steps 1-3).

    Each person-person statement adds 1 to its unordered pair's weight; edges are taken by
    (-weight, nameA, nameB) with nameA < nameB, and union-find merges two sets when their
    combined size is at most ``max_size``. Returns the communities, singletons included,
    ordered by their earliest-mentioned member, each listing members in first-mention order.
    """
    max_size = positive_int("max_size", max_size)
    weights: Counter[tuple[str, str]] = Counter()
    for s, o in mentions.person_pairs():
        weights[(s, o) if s < o else (o, s)] += 1
    people = mentions.people
    parent = {p: p for p in people}
    size = dict.fromkeys(people, 1)

    def find(x: str) -> str:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    for (a, b), _w in sorted(weights.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1])):
        ra, rb = find(a), find(b)
        if ra != rb and size[ra] + size[rb] <= max_size:
            if size[ra] < size[rb]:
                ra, rb = rb, ra
            parent[rb] = ra
            size[ra] += size[rb]
    groups: dict[str, list[str]] = {}
    for p in people:
        groups.setdefault(find(p), []).append(p)
    return list(groups.values())


def person(name: str) -> Entity:
    return Entity("person", name)
