"""The one place that turns a read, search or edit request into its SPEC §7/§8 result string.

Argument *types* are validated by the caller (the action parser). Everything here that an
agent can get wrong comes back as an ``ERROR: ...`` string, never as an exception; only API
misuse (an unknown edit name, a library without a search backend) raises.

Replay (SPEC §15.3) goes through the same code with ``forced`` set to the recorded result:
add ids and merges are taken from it, and the judge is never called.
"""

from __future__ import annotations

import re
from typing import Any

from kbgym.errors import LibraryOpError, ReplayMismatchError
from kbgym.library.graph import Library, LinkManyOutcome, err_no_such_note
from kbgym.library.search import MAX_PAGE, PAGE_SIZE, format_page, page_slice

EDIT_ACTIONS: tuple[str, ...] = ("add", "edit", "delete", "link", "link_many", "unlink")

ERR_EMPTY_QUERY = "ERROR: query must not be empty"
ERR_PAGE_INTEGER = "ERROR: page must be an integer"

_INT_STR = re.compile(r"[+-]?[0-9]+")
_ADDED = re.compile(r"added (s[0-9]+)")
_DUPLICATE = re.compile(r"duplicate of (s[0-9]+) - merged, no new note created")
_MERGED = re.compile(r"merged into (s[0-9]+)")


def err_page_range(max_page: int = MAX_PAGE) -> str:
    return f"ERROR: page must be between 1 and {max_page}"


def coerce_page(page: Any) -> int | None:
    """An int from an int, an integral float or an integer string; None otherwise
    (booleans included)."""
    if isinstance(page, bool):
        return None
    if isinstance(page, int):
        return page
    if isinstance(page, float):
        return int(page) if page.is_integer() else None
    if isinstance(page, str) and _INT_STR.fullmatch(page.strip()):
        return int(page.strip())
    return None


# ---------------------------------------------------------------------------------------------
# Reader tools


def search_result(
    library: Library, query: str, page: Any = 1, page_size: int = PAGE_SIZE,
    max_page: int = MAX_PAGE,
) -> str:  # fmt: skip
    """The §7 search result: ``page {p}:`` and its hits, or an empty-page / error string."""
    if not query.strip():
        return ERR_EMPTY_QUERY
    p = coerce_page(page)
    if p is None:
        return ERR_PAGE_INTEGER
    if not 1 <= p <= max_page:
        return err_page_range(max_page)
    hits = page_slice(library.search(query, p * page_size), p, page_size)
    return format_page(p, [(i, library[i].text) for i, _ in hits])


def search_ids(
    library: Library, query: str, page: int = 1, page_size: int = PAGE_SIZE
) -> list[str]:
    """The ids shown on one page (for collapse_repeats and analysis)."""
    return [i for i, _ in page_slice(library.search(query, page * page_size), page, page_size)]


def read_result(library: Library, node_id: str, page: int | None = None,
                links_per_page: int | None = None) -> str:
    """``{id}: {text}\\nlinks:`` and one line per link, or ``links: (none)``.

    With ``links_per_page``, a note with more links than that shows one page of them
    (``page``, default 1) and a last line ``(links {a}-{b} of {n}; read(id='{id}',
    links_page={p+1}) shows the next ones)``; a note within the cap reads exactly as
    without it.
    """
    node = library.get(node_id)
    if node is None:
        return err_no_such_note(node_id.strip())
    p = 1 if page is None else page
    if not node.links:
        if p != 1:
            return f"ERROR: links_page must be 1 - {node.id} has no links"
        return f"{node.id}: {node.text}\nlinks: (none)"
    links = node.links
    n = len(links)
    if links_per_page is not None:
        pages = -(-n // links_per_page)
        if not 1 <= p <= pages:
            return (f"ERROR: links_page must be between 1 and {pages} - {node.id} has {n} "
                    "links")
        links = links[(p - 1) * links_per_page: p * links_per_page]
    elif p != 1:
        return f"ERROR: links_page must be 1 - {node.id} shows all its links at once"
    parts = [f"{node.id}: {node.text}\nlinks:"]
    types = node.link_types
    stale = library.track_hashes or library.superseded  # source drift: mark stale links
    for lid in links:
        ltype = types.get(lid)
        tags = [ltype] if ltype else []
        if stale and library.is_stale(node.id, lid):
            tags.append("stale")
        tag = f" [{', '.join(tags)}]" if tags else ""
        parts.append(f"\n- {lid}{tag}: {library[lid].text}")
    if links_per_page is not None and n > links_per_page:
        a = (p - 1) * links_per_page + 1
        b = a + len(links) - 1
        more = (f"; read(id='{node.id}', links_page={p + 1}) shows the next ones" if b < n
                else "; this is the last page")
        parts.append(f"\n(links {a}-{b} of {n}{more})")
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# Curator tools


def format_link_many(out: LinkManyOutcome) -> str:
    """SPEC §8.2."""
    a = out.source
    if out.made:
        n = len(out.made)
        ids = ", ".join(out.made[:8])
        more = f", +{n - 8} more" if n > 8 else ""
        tag = f" [{out.type}]" if out.type else ""
        text = f"linked {a} -> {n} notes{tag}: {ids}{more} ({a} now has {out.degree} links)"
    else:
        text = f"no links made from {a}"
    if out.skipped:
        text += " | skipped: " + "; ".join(f"{i} ({r})" for i, r in out.skipped)
    return text


def apply_edit(library: Library, name: str, args: dict, forced: str | None = None) -> str:
    """Run one curator action and return its exact result string (``ERROR: ...`` on refusal).

    ``forced`` is a recorded result (replay): ``added {id}`` forces that id,
    ``duplicate of {id} ...`` creates nothing, ``merged into {s}`` applies the edit then
    merge(id, s); with ``forced`` the dedup judge is never called.
    """
    if name not in EDIT_ACTIONS:
        raise ValueError(f"unknown edit action {name!r}; expected one of {', '.join(EDIT_ACTIONS)}")
    try:
        return _apply(library, name, args, forced)
    except LibraryOpError as err:
        return str(err)


def _apply(lib: Library, name: str, args: dict, forced: str | None) -> str:
    replay = forced is not None
    if name == "add":
        text = args["text"]
        if replay:
            m = _DUPLICATE.fullmatch(forced)  # type: ignore[arg-type]
            if m:
                lib._mutable()
                lib.normalize(text)
                survivor = m.group(1)
                if survivor not in lib:
                    return err_no_such_note(survivor)
                return forced  # type: ignore[return-value]
            m = _ADDED.fullmatch(forced)  # type: ignore[arg-type]
            if m and m.group(1) not in lib and _num(m.group(1)) >= lib.next_id:
                return f"added {lib.add(text, force_id=m.group(1)).id}"
            return f"added {lib.add(text, dedup=False).id}"
        out = lib.add(text)
        if out.duplicate:
            return f"duplicate of {out.id} - merged, no new note created"
        return f"added {out.id}"
    if name == "edit":
        if replay:
            m = _MERGED.fullmatch(forced)  # type: ignore[arg-type]
            nid = lib.edit(args["id"], args["text"], dedup=False).id
            if m:
                return f"merged into {lib.merge(nid, m.group(1))}"
            return f"edited {nid}"
        out = lib.edit(args["id"], args["text"])
        if out.merged_into is not None:
            return f"merged into {out.merged_into}"
        return f"edited {out.id}"
    if name == "delete":
        return f"deleted {lib.delete(args['id'])}"
    if name == "link":
        ltype = args.get("type")
        a, b = lib.link(args["source"], args["target"], ltype)
        return f"linked {a} -> {b}" + (f" [{ltype}]" if ltype else "")
    if name == "link_many":
        out = lib.link_many(args["source"], list(args["targets"]), args.get("type"))
        return format_link_many(out)
    a, b = lib.unlink(args["source"], args["target"])
    return f"unlinked {a} -> {b}"


def _num(node_id: str) -> int:
    return int(node_id[1:])


# ---------------------------------------------------------------------------------------------
# Replay (SPEC §15.3)


def replay_edit(
    library: Library, name: str, args: dict, recorded_result: str, row: dict | None = None
) -> str:
    """Re-apply one recorded edit and check its result byte for byte.

    Raises :class:`ReplayMismatchError` (row, expected, got) on any difference. Needs no
    search backend and never calls the judge.
    """
    got = apply_edit(library, name, args, forced=recorded_result)
    if got != recorded_result:
        raise ReplayMismatchError(row if row is not None else {"action": name, "input": args},
                                  recorded_result, got)  # fmt: skip
    return got


def is_replayable(row: dict) -> bool:
    """A trace row that replay re-applies: train, phase 2, an edit action, not an ERROR."""
    return (
        row.get("kind") == "train"
        and row.get("phase") == 2
        and row.get("action") in EDIT_ACTIONS
        and isinstance(row.get("result"), str)
        and not row["result"].startswith("ERROR")
    )


def replay_row(library: Library, row: dict) -> bool:
    """Replay one trace row if :func:`is_replayable`; returns whether it was applied."""
    if not is_replayable(row):
        return False
    replay_edit(library, row["action"], row.get("input") or {}, row["result"], row=row)
    return True
