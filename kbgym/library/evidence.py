"""The evidence-graph reader tools ``locate`` and ``expand`` (SPEC §18, toolset ``evidence``).

Where §18 leaves a string open, the choice is: a term matches when all of its tokens occur in
a note's tokens; ``expand`` with no matching edges answers ``(no edges)``; path results put
``end`` or the branch header on the line after the path.
"""

from __future__ import annotations

from kbgym.library.graph import Library
from kbgym.library.search import tokenize

MAX_LOCATE = 10


def _err(node_id: str) -> str:
    return f"ERROR: no such note {node_id}"


def locate(library: Library, terms: str | list[str], within: str | None = None) -> str:
    wanted = [set(tokenize(t)) for t in ([terms] if isinstance(terms, str) else terms)]
    wanted = [w for w in wanted if w]
    if within is not None:
        root = library.get(within)
        if root is None:
            return _err(within)
        pool = [root] + [library[t] for t in root.links]
    else:
        pool = list(library)
    hits = [n for n in pool if all(w <= set(tokenize(n.text)) for w in wanted)]
    hits.sort(key=lambda n: (not n.is_authored, n.num))
    if not hits:
        return "(no matches)"
    return "\n".join(f"- {n.id}: {n.text}" for n in hits[:MAX_LOCATE])


def _edges(library: Library, node, types: list[str] | None) -> list[tuple[str, str]]:
    out = []
    for t in node.links:
        etype = (node.link_types or {}).get(t) or "untyped"
        if types is None or etype in types:
            out.append((etype, t))
    return out


def _line(library: Library, etype: str, target: str) -> str:
    return f"- {etype} -> {target}: {library[target].text}"


def expand(library: Library, node: str, edges: list[str] | None = None, hops: int = 1) -> str:
    start = library.get(node)
    if start is None:
        return _err(node)
    if hops == 1:
        lines = [_line(library, e, t) for e, t in _edges(library, start, edges)]
        return "\n".join(lines) if lines else "(no edges)"
    if not edges or len(set(edges)) != 1:
        return "ERROR: hops > 1 needs exactly one edge type"
    etype = edges[0]
    path, current = [start.id], start
    for _ in range(hops):
        out = _edges(library, current, [etype])
        if len(out) != 1:
            break
        current = library[out[0][1]]
        path.append(current.id)
    head = "path: " + " -> ".join(path)
    out = _edges(library, current, [etype])
    if len(out) > 1:
        lines = [_line(library, e, t) for e, t in out]
        return "\n".join([head, f"branch at {current.id} ({len(out)} {etype} edges):", *lines])
    return f"{head}\nend"


def run(library: Library, name: str, args: dict) -> str:
    if name == "locate":
        return locate(library, args["terms"], args.get("within"))
    return expand(library, args["node"], args.get("edges"), args.get("hops", 1))
