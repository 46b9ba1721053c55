"""The evidence-graph reader tools ``locate`` and ``expand`` (SPEC §18, toolset ``evidence``).

Where §18 leaves a string open, the choice is: a term matches when all of its tokens occur in
a note's tokens; ``expand`` with no matching edges answers ``(no edges)``; path results put
``end`` or the branch header on the line after the path.
"""

from __future__ import annotations

import numpy as np

from kbgym.library.graph import Library
from kbgym.protocol import results as R
from kbgym.protocol.errors import ERR_HOPS_EDGE_TYPE, err_no_such_note
from kbgym.protocol.limits import MAX_LOCATE
from kbgym.protocol.tokens import tokenize


def _wanted(terms: str | list[str]) -> list[set[str]]:
    wanted = [set(tokenize(t)) for t in ([terms] if isinstance(terms, str) else terms)]
    return [w for w in wanted if w]


def _format(hits) -> str:
    return R.format_locate((n.id, n.text) for n in hits[:MAX_LOCATE])


def locate_scan(library: Library, terms: str | list[str], within: str | None = None) -> str:
    """``locate`` by scanning every candidate note: the reference the indexed path must match
    (and the path taken for ``within``, whose pool is one note and its links)."""
    wanted = _wanted(terms)
    if within is not None:
        root = library.get(within)
        if root is None:
            return err_no_such_note(within)
        pool = [root] + [library[t] for t in root.links]
    else:
        pool = list(library)
    hits = [n for n in pool if all(w <= set(tokenize(n.text)) for w in wanted)]
    hits.sort(key=lambda n: (not n.is_authored, n.num))
    return _format(hits)


def _bm25(library: Library):
    """The library's BM25 index (unwrapping a shared read-only view), or None."""
    backend = library.search_backend
    backend = getattr(backend, "backend", backend)
    return backend if hasattr(backend, "slots_containing") else None


def _lowest(library: Library, index, slots: np.ndarray, nums: np.ndarray) -> list:
    """The notes of the MAX_LOCATE lowest ids among ``slots`` (unordered)."""
    if len(slots) > MAX_LOCATE:
        slots = slots[np.argpartition(nums, MAX_LOCATE - 1)[:MAX_LOCATE]]
    return [n for n in map(library.get, index.slot_ids(slots)) if n is not None]


def locate(library: Library, terms: str | list[str], within: str | None = None) -> str:
    """SPEC §18 ``locate``. Without ``within`` it intersects the BM25 index's posting lists
    (no second index): a note matches when it holds every token of every term, which is
    exactly "all tokens of the union occur". Notes whose index entry is pending (iteration
    refresh: added or edited since the last refresh) are checked on their current text
    instead. Authored notes come first, then originals, each in id order; since ids above
    the highest origin id are exactly the authored ones (:meth:`Library.original_ceiling`),
    each half is the ten lowest matching ids on its side of that line, found by a partial
    sort, so the cost follows the rarest term's posting list, not the library size. Falls
    back to :func:`locate_scan` where that does not hold (no BM25 index, no terms, within)."""
    wanted = _wanted(terms)
    index = _bm25(library) if within is None and wanted else None
    ceiling = library.original_ceiling() if index is not None else None
    if index is None or ceiling is None:
        return locate_scan(library, terms, within)
    tokens = set().union(*wanted)
    slots = index.slots_containing(tokens)
    pending = library.dirty
    if pending:
        stale = [s for s in (index.slot_of(i) for i in pending) if s is not None]
        if stale:
            slots = np.setdiff1d(slots, np.asarray(stale, dtype=slots.dtype), assume_unique=True)
    nums = index.slot_nums(slots)
    high = nums > ceiling  # authored (the ceiling's guarantee), the rest originals
    authored = _lowest(library, index, slots[high], nums[high])
    originals = _lowest(library, index, slots[~high], nums[~high])
    for nid in pending:  # not (or not currently) indexed: their live text decides
        node = library.get(nid)
        if node is not None and all(w <= set(tokenize(node.text)) for w in wanted):
            (authored if node.is_authored else originals).append(node)
    authored.sort(key=lambda n: n.num)
    originals.sort(key=lambda n: n.num)
    return _format((authored + originals)[:MAX_LOCATE])


def _edges(library: Library, node, types: list[str] | None) -> list[R.Edge]:
    out = []
    for t in node.links:
        etype = (node.link_types or {}).get(t) or "untyped"
        if types is None or etype in types:
            out.append(R.Edge(etype, t, library[t].text))
    return out


def expand(library: Library, node: str, edges: list[str] | None = None, hops: int = 1) -> str:
    start = library.get(node)
    if start is None:
        return err_no_such_note(node)
    if hops == 1:
        return R.format_expand(_edges(library, start, edges))
    if not edges or len(set(edges)) != 1:
        return ERR_HOPS_EDGE_TYPE
    etype = edges[0]
    path, current = [start.id], start
    for _ in range(hops):
        out = _edges(library, current, [etype])
        if len(out) != 1:
            break
        current = library[out[0].id]
        path.append(current.id)
    out = _edges(library, current, [etype])
    return R.format_walk(path, (current.id, etype, out) if len(out) > 1 else None)


def run(library: Library, name: str, args: dict) -> str:
    if name == "locate":
        return locate(library, args["terms"], args.get("within"))
    return expand(library, args["node"], args.get("edges"), args.get("hops", 1))
