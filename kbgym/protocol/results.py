"""Every result string of a successful action (docs/protocol.md §7, §8, §18), each written by
one ``format_*`` function and read back by its ``parse_*`` twin (``parse(format(x)) == x``).
Errors are in :mod:`kbgym.protocol.errors`.

Result lines that show a note are ``- {id}: {text}`` (search pages, locate) or, with tags,
``- {id} [{tags}]: {text}`` (a read's links: a link type and/or ``stale``); a read starts with
the note itself, ``{id}: {text}``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kbgym.protocol.errors import is_error
from kbgym.protocol.ids import NOTE_ID

_ID = rf"(?P<id>{NOTE_ID})"
_HIT = re.compile(rf"^- {_ID}(?: \[(?P<tags>[^\]\n]*)\])?: (?P<text>.*)$")
_OWN = re.compile(rf"^{_ID}: (?P<text>.*)$")
_RESULT_ID = re.compile(rf"^(?:- )?({NOTE_ID})(?: \[[^\]\n]*\])?: ", re.MULTILINE)


@dataclass(frozen=True)
class Hit:
    """A note shown in a result: its id, text and tags (a link type, ``stale``)."""

    id: str
    text: str
    tags: tuple[str, ...] = ()

    @property
    def type(self) -> str | None:
        """The link type among the tags, if any."""
        return next((t for t in self.tags if t != "stale"), None)

    @property
    def stale(self) -> bool:
        return "stale" in self.tags


def format_hit(hit: Hit) -> str:
    tag = f" [{', '.join(hit.tags)}]" if hit.tags else ""
    return f"- {hit.id}{tag}: {hit.text}"


def parse_hit(line: str) -> Hit | None:
    """A ``- {id}[ [tags]]: {text}`` line, or None."""
    m = _HIT.match(line)
    if m is None:
        return None
    tags = tuple(t.strip() for t in m.group("tags").split(",")) if m.group("tags") else ()
    return Hit(m.group("id"), m.group("text"), tags)


def result_hits(result: str) -> list[Hit]:
    """Every hit line of a result (a search page, a read's links, a locate list), in order."""
    return [h for h in map(parse_hit, result.split("\n")) if h is not None]


def result_ids(result: str) -> list[str]:
    """The note ids a search/read/locate result shows, in order of first appearance: ids that
    open a result line (``{id}: ...`` or ``- {id}: ...``), never ids inside a note's text."""
    seen: dict[str, None] = {}
    for m in _RESULT_ID.finditer(result):
        seen.setdefault(m.group(1), None)
    return list(seen)


# -- search (§7) ---------------------------------------------------------------------------------
NO_HITS = "(no hits)"


@dataclass(frozen=True)
class SearchPage:
    """One page of a search: its number and hits. ``hits == []`` is an empty page: ``(no
    hits)`` on page 1, ``(page {p} is empty - no further matches)`` after it."""

    page: int
    hits: list[Hit] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.hits


def format_search(page: int, hits: Iterable[tuple[str, str]]) -> str:
    """``page {p}:`` plus one ``\\n- {id}: {text}`` per (id, text); the empty-page strings
    when there are none."""
    lines = [f"\n- {i}: {t}" for i, t in hits]
    if lines:
        return f"page {page}:" + "".join(lines)
    if page == 1:
        return NO_HITS
    return f"(page {page} is empty - no further matches)"


_EMPTY_PAGE = re.compile(r"\(page (\d+) is empty - no further matches\)")
_PAGE_HEAD = re.compile(r"page (\d+):")


def parse_search(result: str) -> SearchPage | None:
    """A search result as a :class:`SearchPage`; None for an error or any other text."""
    if result == NO_HITS:
        return SearchPage(1, [])
    m = _EMPTY_PAGE.fullmatch(result)
    if m is not None:
        return SearchPage(int(m.group(1)), [])
    head, _, rest = result.partition("\n")
    m = _PAGE_HEAD.fullmatch(head)
    if m is None:
        return None
    return SearchPage(int(m.group(1)), result_hits(rest))


# -- read (§8.1) ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class LinksPage:
    """The paging line of a note with more links than one read shows: links ``first``-``last``
    of ``total``; ``next_page`` is the ``links_page`` of the next ones (None on the last)."""

    first: int
    last: int
    total: int
    next_page: int | None


@dataclass(frozen=True)
class ReadResult:
    """A read: the note, the linked notes shown (in link order) and, for a note with many
    links, which of them this page shows."""

    id: str
    text: str
    links: list[Hit] = field(default_factory=list)
    page: LinksPage | None = None

    @property
    def link_ids(self) -> list[str]:
        return [h.id for h in self.links]


def format_read(node_id: str, text: str, links: Sequence[Hit], page: LinksPage | None = None
                ) -> str:
    """``{id}: {text}\\nlinks:`` then one :func:`format_hit` line per link, or ``links:
    (none)``; with ``page`` the paging line last."""
    if not links:
        return f"{node_id}: {text}\nlinks: (none)"
    parts = [f"{node_id}: {text}\nlinks:"]
    parts += ["\n" + format_hit(h) for h in links]
    if page is not None:
        more = (f"; read(id='{node_id}', links_page={page.next_page}) shows the next ones"
                if page.next_page is not None else "; this is the last page")
        parts.append(f"\n(links {page.first}-{page.last} of {page.total}{more})")
    return "".join(parts)


_LINKS_PAGE = re.compile(r"\(links (\d+)-(\d+) of (\d+); (?:read\(id='[^'\n]*', "
                         r"links_page=(\d+)\) shows the next ones|this is the last page)\)")


def parse_read(result: str) -> ReadResult | None:
    """A read result as a :class:`ReadResult`; None for an error or any other text."""
    if is_error(result):
        return None
    first, _, rest = result.partition("\n")
    m = _OWN.match(first)
    if m is None:
        return None
    page = None
    if rest.startswith("links: (none)"):
        links = []
    else:
        body, _, last = rest.rpartition("\n")
        p = _LINKS_PAGE.fullmatch(last)
        if p is not None:
            rest = body
            nxt = p.group(4)
            page = LinksPage(int(p.group(1)), int(p.group(2)), int(p.group(3)),
                             int(nxt) if nxt else None)
        links = result_hits(rest)
    return ReadResult(m.group("id"), m.group("text"), links, page)


# -- answer, done (§8.1) -------------------------------------------------------------------------
SUBMITTED = "submitted"
PHASE_COMPLETE = "phase complete"
_SUBMITTED_F1 = re.compile(r"submitted \| your F1: (\d+\.\d\d)")


def format_submitted(f1: float | None = None) -> str:
    """``submitted | your F1: {f1:.2f}`` in training, ``submitted`` in an exam (no F1)."""
    return SUBMITTED if f1 is None else f"submitted | your F1: {f1:.2f}"


def parse_submitted(result: str) -> tuple[bool, float | None]:
    """(whether ``result`` is an answer's, the F1 it shows or None)."""
    if result == SUBMITTED:
        return True, None
    m = _SUBMITTED_F1.fullmatch(result)
    return (True, float(m.group(1))) if m else (False, None)


# -- edits (§8.1, §8.2) --------------------------------------------------------------------------
def format_added(node_id: str) -> str:
    return f"added {node_id}"


def format_duplicate(node_id: str) -> str:
    return f"duplicate of {node_id} - merged, no new note created"


def format_edited(node_id: str) -> str:
    return f"edited {node_id}"


def format_merged_into(node_id: str) -> str:
    return f"merged into {node_id}"


def format_deleted(node_id: str) -> str:
    return f"deleted {node_id}"


def format_linked(source: str, target: str, link_type: str | None = None) -> str:
    return f"linked {source} -> {target}" + (f" [{link_type}]" if link_type else "")


def format_unlinked(source: str, target: str) -> str:
    return f"unlinked {source} -> {target}"


@dataclass(frozen=True)
class EditResult:
    """What a successful edit result says: its ``kind`` (added, duplicate, edited, merged,
    deleted, linked, unlinked) and the ids it names (for link results: source, target)."""

    kind: str
    ids: tuple[str, ...]
    type: str | None = None


_EDITS = (
    ("added", re.compile(rf"added ({NOTE_ID})")),
    ("duplicate", re.compile(rf"duplicate of ({NOTE_ID}) - merged, no new note created")),
    ("edited", re.compile(rf"edited ({NOTE_ID})")),
    ("merged", re.compile(rf"merged into ({NOTE_ID})")),
    ("deleted", re.compile(rf"deleted ({NOTE_ID})")),
    ("linked", re.compile(rf"linked ({NOTE_ID}) -> ({NOTE_ID})(?: \[(\w+)\])?")),
    ("unlinked", re.compile(rf"unlinked ({NOTE_ID}) -> ({NOTE_ID})")),
)


def parse_edit(result: str) -> EditResult | None:
    """An add/edit/delete/link/unlink result as an :class:`EditResult`; None otherwise
    (errors, link_many: :func:`parse_link_many`)."""
    for kind, pattern in _EDITS:
        m = pattern.fullmatch(result)
        if m is not None:
            groups = m.groups()
            if kind == "linked":
                return EditResult(kind, groups[:2], groups[2])
            return EditResult(kind, groups)
    return None


@dataclass(frozen=True)
class LinkManyResult:
    """A link_many result: the source, how many links were made, the first ids shown (at
    most 8), the source's degree afterwards (None when nothing was made), the link type, and
    every skipped target with its reason (``no such note``, ``self``, ``already linked``)."""

    source: str
    made: int
    shown: tuple[str, ...]
    degree: int | None
    type: str | None = None
    skipped: tuple[tuple[str, str], ...] = ()


def format_link_many(source: str, made: Sequence[str], degree: int, link_type: str | None,
                     skipped: Sequence[tuple[str, str]]) -> str:
    """§8.2: ``linked {a} -> {n} notes[ [type]]: {first 8 ids}[, +{k} more] ({a} now has
    {deg} links)`` or ``no links made from {a}``, then `` | skipped: {id} ({reason}); …``."""
    if made:
        n = len(made)
        ids = ", ".join(made[:8])
        more = f", +{n - 8} more" if n > 8 else ""
        tag = f" [{link_type}]" if link_type else ""
        text = f"linked {source} -> {n} notes{tag}: {ids}{more} ({source} now has {degree} links)"
    else:
        text = f"no links made from {source}"
    if skipped:
        text += " | skipped: " + "; ".join(f"{i} ({r})" for i, r in skipped)
    return text


_LINK_MANY = re.compile(rf"linked (?P<src>{NOTE_ID}) -> (?P<n>\d+) notes(?: \[(?P<type>\w+)\])?: "
                        rf"(?P<ids>{NOTE_ID}(?:, {NOTE_ID})*)(?:, \+(?P<more>\d+) more)? "
                        rf"\((?P=src) now has (?P<deg>\d+) links\)")
_NO_LINKS = re.compile(rf"no links made from (?P<src>{NOTE_ID})")
_SKIP = re.compile(r"(\S+) \((no such note|self|already linked)\)")


def parse_link_many(result: str) -> LinkManyResult | None:
    """A link_many result as a :class:`LinkManyResult`; None for an error or other text."""
    head, sep, tail = result.partition(" | skipped: ")
    skipped = tuple((m.group(1), m.group(2)) for m in map(_SKIP.fullmatch, tail.split("; "))
                    if m) if sep else ()
    m = _LINK_MANY.fullmatch(head)
    if m is not None:
        return LinkManyResult(m.group("src"), int(m.group("n")), tuple(m.group("ids").split(", ")),
                              int(m.group("deg")), m.group("type"), skipped)
    m = _NO_LINKS.fullmatch(head)
    if m is not None:
        return LinkManyResult(m.group("src"), 0, (), None, None, skipped)
    return None


# -- locate, expand (§18) ------------------------------------------------------------------------
NO_MATCHES = "(no matches)"
NO_EDGES = "(no edges)"


def format_locate(hits: Iterable[tuple[str, str]]) -> str:
    """At most ten ``- {id}: {text}`` lines, or ``(no matches)``."""
    lines = [f"- {i}: {t}" for i, t in hits]
    return "\n".join(lines) if lines else NO_MATCHES


def parse_locate(result: str) -> list[Hit] | None:
    """A locate result's hits; None for an error."""
    if is_error(result):
        return None
    return [] if result == NO_MATCHES else result_hits(result)


@dataclass(frozen=True)
class Edge:
    """One out-edge of an expand result: its type (``untyped`` when none) and target."""

    type: str
    id: str
    text: str


@dataclass(frozen=True)
class ExpandResult:
    """An expand result: the edges listed; for a walk (hops > 1) its ``path`` and, where it
    stopped at a node with several edges of the type, that node (``branch``)."""

    edges: list[Edge] = field(default_factory=list)
    path: list[str] | None = None
    branch: str | None = None


def format_edge(edge: Edge) -> str:
    return f"- {edge.type} -> {edge.id}: {edge.text}"


def format_expand(edges: Sequence[Edge]) -> str:
    """hops = 1: one :func:`format_edge` line per out-edge, or ``(no edges)``."""
    return "\n".join(map(format_edge, edges)) if edges else NO_EDGES


def format_walk(path: Sequence[str], branch: tuple[str, str, Sequence[Edge]] | None) -> str:
    """hops > 1: ``path: {id} -> {id} …`` then ``end``, or ``branch at {id} ({k} {type}
    edges):`` and the candidate edges (``branch`` = (node, type, edges))."""
    head = "path: " + " -> ".join(path)
    if branch is None:
        return f"{head}\nend"
    node, etype, edges = branch
    return "\n".join([head, f"branch at {node} ({len(edges)} {etype} edges):",
                      *map(format_edge, edges)])


_EDGE = re.compile(rf"^- (\S+) -> ({NOTE_ID})(?: \[[^\]\n]*\])?: (.*)$")
_BRANCH = re.compile(rf"branch at ({NOTE_ID}) \(\d+ \S+ edges\):")


def parse_expand(result: str) -> ExpandResult | None:
    """An expand result as an :class:`ExpandResult`; None for an error."""
    if is_error(result):
        return None
    if result == NO_EDGES:
        return ExpandResult()
    lines = result.split("\n")
    path = branch = None
    if lines[0].startswith("path: "):
        path = lines[0][len("path: "):].split(" -> ")
        lines = lines[1:]
        head = _BRANCH.fullmatch(lines[0]) if lines else None
        if head is not None:
            branch = head.group(1)
            lines = lines[1:]
    edges = [Edge(m.group(1), m.group(2), m.group(3)) for m in map(_EDGE.match, lines) if m]
    return ExpandResult(edges, path, branch)


# -- collapse_repeats (§8.3) ---------------------------------------------------------------------
def format_collapsed(name: str, ids: Sequence[str]) -> str:
    """``same {name} as before, same result ({n} notes: {ids}) - use these ids, or try
    something else`` (``none`` when the result showed no note)."""
    shown = ", ".join(ids) if ids else "none"
    return (f"same {name} as before, same result ({len(ids)} notes: {shown}) - use these ids, "
            "or try something else")


_COLLAPSED = re.compile(r"same (\w+) as before, same result \((\d+) notes: (.*)\) - use these "
                        r"ids, or try something else")


def parse_collapsed(result: str) -> tuple[str, list[str]] | None:
    """(action name, ids) of a collapsed repeat; None otherwise."""
    m = _COLLAPSED.fullmatch(result)
    if m is None:
        return None
    ids = [] if m.group(3) == "none" else m.group(3).split(", ")
    return m.group(1), ids
