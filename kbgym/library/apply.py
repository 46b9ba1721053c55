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
from kbgym.library.graph import Library, LinkManyOutcome
from kbgym.library.search import page_slice
from kbgym.protocol import results as R
from kbgym.protocol.errors import (
    ERR_EMPTY_QUERY,
    ERR_PAGE_INTEGER,
    err_links_page_none,
    err_links_page_one,
    err_links_page_range,
    err_no_such_note,
    err_page_range,
    is_error,
)
from kbgym.protocol.ids import id_num, is_note_id
from kbgym.protocol.limits import EDIT_ACTIONS, MAX_PAGE, PAGE_SIZE

_INT_STR = re.compile(r"[+-]?[0-9]+")


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
    return R.format_search(p, [(i, t) for i, _ in hits if (t := library.text_of(i)) is not None])


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
            return err_links_page_none(node.id)
        return R.format_read(node.id, node.text, [])
    links = node.links
    n = len(links)
    shown = None
    if links_per_page is not None:
        pages = -(-n // links_per_page)
        if not 1 <= p <= pages:
            return err_links_page_range(node.id, pages, n)
        links = links[(p - 1) * links_per_page: p * links_per_page]
        if n > links_per_page:
            a = (p - 1) * links_per_page + 1
            b = a + len(links) - 1
            shown = R.LinksPage(a, b, n, p + 1 if b < n else None)
    elif p != 1:
        return err_links_page_one(node.id)
    types = node.link_types
    stale = library.track_hashes or library.superseded  # source drift: mark stale links
    hits = []
    for lid in links:
        ltype = types.get(lid)
        tags: tuple[str, ...] = (ltype,) if ltype else ()
        if stale and library.is_stale(node.id, lid):
            tags += ("stale",)
        hits.append(R.Hit(lid, library[lid].text, tags))
    return R.format_read(node.id, node.text, hits, shown)


# ---------------------------------------------------------------------------------------------
# Curator tools


def format_link_many(out: LinkManyOutcome) -> str:
    """SPEC §8.2 (:func:`kbgym.protocol.results.format_link_many`)."""
    return R.format_link_many(out.source, out.made, out.degree, out.type, out.skipped)


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
    recorded = R.parse_edit(forced) if forced is not None else None
    if name == "add":
        text = args["text"]
        if forced is not None:
            if recorded is not None and recorded.kind == "duplicate":
                lib._mutable()
                lib.normalize(text)
                survivor = recorded.ids[0]
                if survivor not in lib:
                    return err_no_such_note(survivor)
                return forced
            if recorded is not None and recorded.kind == "added" \
                    and recorded.ids[0] not in lib and _minted_after(lib, recorded.ids[0]):
                return R.format_added(lib.add(text, force_id=recorded.ids[0]).id)
            return R.format_added(lib.add(text, dedup=False).id)
        out = lib.add(text)
        if out.duplicate:
            return R.format_duplicate(out.id)
        return R.format_added(out.id)
    if name == "edit":
        if forced is not None:
            nid = lib.edit(args["id"], args["text"], dedup=False).id
            if recorded is not None and recorded.kind == "merged":
                return R.format_merged_into(lib.merge(nid, recorded.ids[0]))
            return R.format_edited(nid)
        edited = lib.edit(args["id"], args["text"])
        if edited.merged_into is not None:
            return R.format_merged_into(edited.merged_into)
        return R.format_edited(edited.id)
    if name == "delete":
        return R.format_deleted(lib.delete(args["id"]))
    if name == "link":
        ltype = args.get("type")
        a, b = lib.link(args["source"], args["target"], ltype)
        return R.format_linked(a, b, ltype)
    if name == "link_many":
        return format_link_many(lib.link_many(args["source"], list(args["targets"]),
                                              args.get("type")))
    a, b = lib.unlink(args["source"], args["target"])
    return R.format_unlinked(a, b)


def _minted_after(lib: Library, node_id: str) -> bool:
    """Whether ``node_id`` is a minted id at or past the library's next id (a recorded add
    whose id replay may force)."""
    return is_note_id(node_id) and id_num(node_id) >= lib.next_id


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
        and not is_error(row["result"])
    )


def replay_row(library: Library, row: dict) -> bool:
    """Replay one trace row if :func:`is_replayable`; returns whether it was applied."""
    if not is_replayable(row):
        return False
    replay_edit(library, row["action"], row.get("input") or {}, row["result"], row=row)
    return True
