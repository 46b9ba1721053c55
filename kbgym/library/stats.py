"""Library statistics (SPEC §6.2) and coverage (SPEC §12.2), computed from scratch.

``Library.stats()`` answers from counters kept up to date by every mutation;
:func:`recompute_stats` recomputes the same dict by walking the graph, so the two can be
checked against each other.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kbgym.library.graph import AUTHORED, EDITED, Library

STATS_FIELDS: tuple[str, ...] = (
    "n_nodes", "n_links", "origins_total", "origins_alive", "preservation", "dup_origins",
    "authored_statements", "edited_statements", "statement_tokens", "orphan_nodes", "merges",
    "index_coverage",
)  # fmt: skip


def carried_origins(node: Any) -> set[str]:
    """Origins a node carries: its own unless edited, plus everything it absorbed."""
    out = set(node.absorbed)
    if node.origin is not None and node.flag != EDITED:
        out.add(node.origin)
    return out


def _indexed_originals(lib: Library) -> set[str]:
    """Live originals (edited or not) that are a link target of >= 1 live authored node."""
    out = set()
    for n in lib:
        if n.flag == AUTHORED:
            for t in n.links:
                if lib[t].origin is not None:
                    out.add(t)
    return out


def index_coverage(lib: Library) -> float:
    """SPEC §12.2: indexed live originals / origins_total."""
    total = len(lib.origins)
    return len(_indexed_originals(lib)) / total if total else 0.0


def index_coverage_2hop(lib: Library) -> float:
    """Like :func:`index_coverage`, also counting originals reached authored -> authored ->
    original. (Every authored node on such a path is itself live and authored, so this equals
    ``index_coverage`` on any library; it is kept as its own function because §12.2 names it.)
    """
    total = len(lib.origins)
    if not total:
        return 0.0
    reached = _indexed_originals(lib)
    for n in lib:
        if n.flag != AUTHORED:
            continue
        for mid in n.links:
            m = lib[mid]
            if m.flag == AUTHORED:
                reached.update(t for t in m.links if lib[t].origin is not None)
    return len(reached) / total


def _field(q: Any, name: str) -> Any:
    return q[name] if isinstance(q, dict) else getattr(q, name)


def question_index_coverage(lib: Library, questions: Iterable[Any]) -> dict:
    """SPEC §12.2: over questions with non-empty support and status != ``unavailable``, the
    share whose every support origin is carried by a live link target of a live authored
    node. Returns ``{"covered": int, "total": int, "share": float}``.

    ``questions`` are :class:`~kbgym.types.Question` objects or their JSON dicts.
    """
    reachable: set[str] = set()
    seen: set[str] = set()
    for n in lib:
        if n.flag != AUTHORED:
            continue
        for t in n.links:
            if t not in seen:
                seen.add(t)
                reachable |= carried_origins(lib[t])
    covered = total = 0
    for q in questions:
        support = _field(q, "support")
        if not support or _field(q, "support_status") == "unavailable":
            continue
        total += 1
        if all(o in reachable for o in support):
            covered += 1
    return {"covered": covered, "total": total, "share": covered / total if total else 0.0}


def recompute_stats(lib: Library) -> dict:
    """:meth:`Library.stats` recomputed from scratch."""
    origin_set = set(lib.origins)
    carriers: dict[str, int] = {}
    n_links = authored = edited = tokens = orphans = 0
    has_in: set[str] = set()
    for n in lib:
        for t in n.links:
            has_in.add(t)
    for n in lib:
        n_links += len(n.links)
        authored += n.flag == AUTHORED
        edited += n.flag == EDITED
        tokens += len(n.text) // 4
        orphans += not n.links and n.id not in has_in
        for o in carried_origins(n):
            if o in origin_set:
                carriers[o] = carriers.get(o, 0) + 1
    total = len(lib.origins)
    alive = len(carriers)
    extra = lib.staleness() if lib.track_hashes else {}
    return {**extra, 
        "n_nodes": len(lib),
        "n_links": n_links,
        "origins_total": total,
        "origins_alive": alive,
        "preservation": alive / total if total else 0.0,
        "dup_origins": sum(1 for c in carriers.values() if c > 1),
        "authored_statements": authored,
        "edited_statements": edited,
        "statement_tokens": tokens,
        "orphan_nodes": orphans,
        "merges": lib.merges,
        "index_coverage": index_coverage(lib),
    }
