"""Shared helpers for the library tests: tiny fake universes and an independent BM25."""

from __future__ import annotations

import math
import re
from collections import Counter
from types import SimpleNamespace

from hypothesis import strategies as st

from kbgym.errors import LibraryOpError
from kbgym.library.stats import recompute_stats
from kbgym.library import BM25Index, Library

SENTENCES = [
    "Felix Abernathy's job is cooper.",
    "Felix Abernathy is a friend of Mara Quill.",
    "Mara Quill lives in the city of Fenmarch.",
    "Mara Quill's hobby is knitting.",
    "Tom Brand is a child of Mara Quill.",
    "Tom Brand was born on March 3, 1970.",
]


def fake_universe(texts=SENTENCES):
    """An object with ``.nodes`` like a Universe: ids s0001.. in order."""
    nodes = tuple(
        SimpleNamespace(id=f"s{i:04d}", text=t, fact=None) for i, t in enumerate(texts, 1))
    return SimpleNamespace(nodes=nodes)


def make_lib(texts=SENTENCES, search=True, **kw) -> Library:
    return Library.from_universe(fake_universe(texts), search=BM25Index() if search else None, **kw)


def brute_bm25(docs: dict[str, str], query: str, k: int, k1: float = 1.2, b: float = 0.75):
    """Textbook BM25 over ``docs`` (id -> text), written independently of the index."""
    toks = {i: re.findall(r"[^\W_]+", t.casefold()) for i, t in docs.items()}
    n = len(toks)
    total = sum(len(v) for v in toks.values())
    if n == 0 or total == 0:
        return []
    avgdl = total / n
    terms = sorted(set(re.findall(r"[^\W_]+", query.casefold())))
    df = {t: sum(1 for v in toks.values() if t in v) for t in terms}
    out = []
    for i, v in toks.items():
        c = Counter(v)
        dl = len(v)
        s = 0.0
        for t in terms:
            tf = c.get(t, 0)
            if tf:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * (tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)))
        if s > 0:
            out.append((i, s))
    out.sort(key=lambda x: (-x[1], int(x[0][1:])))
    return out[:k]


def check_invariants(lib: Library) -> None:
    """Graph invariants: no dangling or self or duplicate links, adjacency both ways agrees;
    a note's text read without its Node (``text_of``, as a search page reads it) is its
    Node's."""
    ids = set(lib.ids())
    texts = {i: lib.text_of(i) for i in ids}  # (before the loops below make every Node)
    assert lib.text_of(f"s{lib.next_id:04d}") is None and lib.text_of("x1") is None
    assert texts == {i: lib[i].text for i in ids}
    nums = [n.num for n in lib]
    assert nums == sorted(nums), "iteration is not in id order"
    assert all(num < lib.next_id for num in nums)
    inbound: dict[str, set[str]] = {i: set() for i in ids}
    ain: dict[str, int] = {i: 0 for i in ids}
    for n in lib:
        assert n.id == f"s{n.num:04d}"
        assert len(n.links) == len(set(n.links)), f"{n.id} has a duplicate link"
        assert n.id not in n.links, f"{n.id} links to itself"
        assert set(n.link_types) <= set(n.links)
        for t in n.links:
            assert t in ids, f"{n.id} -> {t} dangles"
            inbound[t].add(n.id)
            ain[t] += n.flag == "authored"
        assert list(n.absorbed) == sorted(n.absorbed, key=lambda x: int(x[1:]))
    for n in lib:
        assert set(n._in or ()) == inbound[n.id], f"in-adjacency of {n.id} disagrees"
        assert n._ain == ain[n.id]
        assert (n.origin is None) == (n.flag == "authored")
    assert lib.stats() == recompute_stats(lib)


# -- random edits (the fork and binary-snapshot tests) ----------------------------------------
WORDS = ["Felix", "Mara", "job", "is", "cooper", "friend", "of", "city", "Fenmarch", "index"]
QUERIES = ("felix job", "mara friend of", "cooper", "city of fenmarch", "index")


def apply(lib: Library, op: tuple) -> object:
    """One edit; a refused one returns its error string (both libraries must agree)."""
    name, a, b, text = op
    ids = lib.ids()
    x, y = ids[a % len(ids)], ids[b % len(ids)]
    try:
        if name == "add":
            return lib.add(text, dedup=False)
        if name == "edit":
            return lib.edit(x, text, dedup=False)
        if name == "delete":
            return lib.delete(x) if len(ids) > 1 else None
        if name == "link":
            return lib.link(x, y, "refers_to" if a % 2 else None)
        if name == "link_many":
            return lib.link_many(x, [y, ids[(b + 1) % len(ids)]])
        if name == "unlink":
            return lib.unlink(x, y)
        return lib.merge(x, y)
    except LibraryOpError as err:
        return str(err)


text_st = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)
op_st = st.tuples(st.sampled_from(["add", "edit", "delete", "link", "link_many", "unlink",
                                   "merge"]),
                  st.integers(0, 50), st.integers(0, 50), text_st)
