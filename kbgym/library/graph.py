"""The library (SPEC §6.1): a directed graph of one-sentence notes with hidden provenance.

The core graph knows nothing about search or dedup. It *notifies* an optional search backend
(``upsert`` / ``remove``) and asks an optional dedup guard for a survivor; with neither (as in
replay) it is a plain graph.

Every refused operation raises :class:`LibraryOpError` whose message is the exact SPEC §8
``ERROR: ...`` result string, and changes nothing (not even ``version``). Every mutation of a
frozen library raises :class:`LibraryFrozenError`.
"""

from __future__ import annotations

import gc
import hashlib
import unicodedata
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from kbgym.errors import KBGymError, LibraryFrozenError, LibraryOpError, SnapshotIntegrityError
from kbgym.protocol.errors import (
    ERR_EMPTY_TEXT,
    ERR_SELF_LINK,
    ERR_SELF_MERGE,
    ERR_TARGETS_EMPTY,
    err_already_linked,
    err_invisible_char,
    err_no_such_note,
    err_not_linked,
    err_text_too_long,
    err_too_many_targets,
)
from kbgym.protocol.ids import format_id, id_num, is_note_id
from kbgym.protocol.limits import LINK_TYPES

EDITED = "edited"
AUTHORED = "authored"
FLAGS = (None, EDITED, AUTHORED)

#: The typed-link vocabulary (SPEC §18).

#: Defaults (SPEC §1).
MAX_TEXT_CHARS = 1000
LINK_BATCH_MAX = 40

RefreshMode = Literal["immediate", "iteration"]

_NO_TYPES: Any = MappingProxyType({})  # what an untyped node's ``link_types`` shows
_KEEP: Any = object()


@contextmanager
def gc_paused():
    """Bulk loads allocate millions of long-lived objects; cyclic GC passes over them are
    wasted work (and dominate load time at 10^6 nodes). Restores the previous state."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


_frozen_depth = 0


@contextmanager
def gc_frozen():
    """Move every object alive now (after a build: the universe, the library, its index)
    into the collector's permanent generation for the block. A full collection then walks
    only what is new instead of pausing for a second or more over 10^6 notes in the middle
    of a run. Nested blocks freeze again (what was built since); the outermost unfreezes
    everything (also what environments froze at construction), so a process that runs many
    runs, such as a sweep worker, does not keep frozen garbage from the earlier ones."""
    global _frozen_depth
    try:  # count first, inside the try: an exception (an alarm) anywhere undoes it
        _frozen_depth += 1
        gc.freeze()
        yield
    finally:
        _frozen_depth -= 1
        if _frozen_depth == 0:
            gc.unfreeze()


def gc_refreeze() -> None:
    """Between the stages of a ``gc_frozen`` block: collect what the finished stage left
    (frozen garbage in reference cycles, such as a finished environment and its library,
    would otherwise stay until the block ends) and freeze what is still alive. A full
    collection, so call it between stages, never per step."""
    if _frozen_depth:
        gc.unfreeze()
        gc.collect()
        gc.freeze()


def text_hash(text: str) -> str:
    """The hidden content hash kept per link (16 hex digits of sha256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def normalize_text(text: str) -> str:
    """Strip and collapse every whitespace run (newlines included) to one space."""
    return " ".join(text.split())


def invisible_char(text: str) -> str | None:
    """The first control, format (bidi overrides, zero-width marks) or surrogate character
    of ``text``, or None. Notes are plain one-line text: such characters would hide or
    reorder what a reader sees."""
    if text.isprintable():  # the fast path: no C* / Z[lp] character (and no odd space)
        return None
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            return ch
    return None


class Node:
    """One note. ``links`` is ordered; ``link_types`` maps target -> type for typed links only.

    ``origin``, ``flag`` and ``absorbed`` are hidden: they never reach an observation. Treat
    every field as read-only; mutate through the :class:`Library`.
    """

    __slots__ = ("id", "num", "text", "links", "_types", "origin", "flag", "absorbed",
                 "_in", "_ain", "_hashes")  # fmt: skip

    def __init__(self, id: str, num: int, text: str, origin: str | None, flag: str | None,
                 absorbed: tuple[str, ...] = ()):  # fmt: skip
        self.id = id
        self.num = num
        self.text = text
        self.links: list[str] = []
        self._types: dict[str, str] | None = None
        self.origin = origin
        self.flag = flag
        self.absorbed: tuple[str, ...] = absorbed
        self._in: dict[str, None] | None = None  # in-adjacency: source ids (insertion order)
        self._ain = 0  # authored in-degree
        self._hashes: dict[str, str] | None = None  # target -> its text hash when linked

    @property
    def link_types(self) -> dict[str, str]:
        """Target -> type for the typed links (read-only; empty when none are typed)."""
        return self._types if self._types is not None else _NO_TYPES

    @property
    def is_original(self) -> bool:
        return self.origin is not None

    @property
    def is_authored(self) -> bool:
        return self.flag == AUTHORED

    @property
    def in_degree(self) -> int:
        return len(self._in) if self._in else 0

    def carried(self) -> tuple[str, ...] | set[str]:
        """The origins this node carries (SPEC §6.2)."""
        own = self.origin is not None and self.flag != EDITED
        if not self.absorbed:
            return (self.origin,) if own else ()  # type: ignore[return-value]
        s = set(self.absorbed)
        if own:
            s.add(self.origin)  # type: ignore[arg-type]
        return s

    def to_json(self) -> dict:
        d: dict[str, Any] = {
            "id": self.id, "text": self.text, "links": list(self.links),
            "origin": self.origin, "flag": self.flag, "absorbed": list(self.absorbed),
        }  # fmt: skip
        if self._types:
            d["link_types"] = dict(self._types)
        if self._hashes:
            d["link_hashes"] = dict(self._hashes)
        return d

    def __repr__(self) -> str:
        return f"Node({self.id!r}, {self.text!r}, links={self.links!r}, flag={self.flag!r})"


class AddOutcome(NamedTuple):
    id: str  # the new id, or the survivor when ``duplicate``
    duplicate: bool


class EditOutcome(NamedTuple):
    id: str
    merged_into: str | None


class LinkManyOutcome(NamedTuple):
    source: str
    made: tuple[str, ...]
    skipped: tuple[tuple[str, str], ...]  # (id, reason) in input order
    type: str | None
    degree: int  # the source's out-degree afterwards


class Library:
    """The mutable library (SPEC §6.1).

    Build one with :meth:`from_universe` or :meth:`from_snapshot`. ``search`` is a
    :class:`~kbgym.library.search.SearchBackend` or None (no indexing); ``refresh`` is
    ``"immediate"`` or ``"iteration"``; ``dedup`` is a
    :class:`~kbgym.library.dedup.DedupGuard` or None (off).
    """

    def __init__(
        self,
        *,
        origins: Iterable[str] = (),
        next_id: int = 1,
        merges: int = 0,
        search: Any = None,
        refresh: RefreshMode = "immediate",
        dedup: Any = None,
        max_text_chars: int = MAX_TEXT_CHARS,
        link_batch_max: int = LINK_BATCH_MAX,
    ):
        if refresh not in ("immediate", "iteration"):
            raise ValueError(f"refresh must be 'immediate' or 'iteration', not {refresh!r}")
        self._nodes: dict[str, Node] = {}
        self.origins: tuple[str, ...] = tuple(origins)
        self._origin_set = frozenset(self.origins)
        self.next_id = int(next_id)
        self.merges = int(merges)
        self.version = 0
        self.frozen = False
        self.max_text_chars = int(max_text_chars)
        self.link_batch_max = int(link_batch_max)
        self.dedup = dedup
        # staleness (source drift): off until enable_staleness(); hidden from every observation
        self.track_hashes = False
        self.superseded: dict[str, str] = {}  # old note -> the note that supersedes it
        self.refresh_mode: RefreshMode = refresh
        self._search: Any = None
        self._dirty: dict[str, None] = {}
        self._regen: set[str] = set()
        self.last_regens = 0
        # incrementally maintained stats
        self._n_links = 0
        self._carriers: dict[str, int] = {}
        self._alive = 0
        self._dup = 0
        self._authored = 0
        self._edited = 0
        self._tokens = 0
        self._orph = 0
        self._indexed = 0  # live originals with an authored in-link
        # content identity for caches: (lineage, version), or the parent's key until a fork
        # diverges (see state_key)
        self._lineage = uuid.uuid4().hex
        self._base_key: tuple[str, int] | None = None
        self._base_version = -1
        if search is not None:
            self.attach_search(search, refresh=refresh)

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def from_universe(cls, universe: Any, *, typed_links: bool = False, **kwargs: Any
                      ) -> "Library":
        """B1: every universe node as an untouched original (origin = own id), no links.

        A drifted universe's B1 keeps link-target hashes and knows the superseded notes; with
        ``typed_links`` each successor also gets a ``supersedes`` link to the note it replaces
        (:meth:`apply_drift`)."""
        lib = cls.from_texts(((n.id, n.text) for n in universe.nodes), **kwargs)
        drift = (getattr(universe, "meta", None) or {}).get("drift")
        if drift:
            lib.apply_drift(drift, typed_links)
        return lib

    def apply_drift(self, drift_meta: dict, typed_links: bool = False) -> None:
        """Make this library, on a drifted universe (docs/protocol.md §20), notice its sources:
        hidden link-target hashes and the superseded notes (:meth:`enable_staleness`), and with
        ``typed_links`` a ``supersedes`` link from each successor to the note it replaces
        (where both are live and not linked yet). Changes no version and no visible text."""
        sup = drift_meta.get("supersedes", {})
        self.enable_staleness({old: new for new, old in sup.items()})
        if typed_links:
            for new, old in sorted(sup.items(), key=lambda kv: id_num(kv[0])):
                a, b = self.get(new), self.get(old)
                if a is not None and b is not None and old not in a.links:
                    self._add_edge(a, b, "supersedes")

    @classmethod
    def from_texts(cls, nodes: Iterable[tuple[str, str]], **kwargs: Any) -> "Library":
        """B1 from (id, text) pairs: originals with origin = id, flag None, no links."""
        search = kwargs.pop("search", None)
        with gc_paused():
            items = sorted(((id_num(i), i, t) for i, t in nodes))
            lib = cls(origins=[i for _, i, _ in items], **kwargs)
            for num, i, t in items:
                if i in lib._nodes:
                    raise ValueError(f"duplicate node id {i} in the universe nodes")
                lib._insert(Node(i, num, t, i, None))
            lib.next_id = max(lib.next_id, (items[-1][0] + 1) if items else 1)
        if search is not None:
            lib.attach_search(search, refresh=lib.refresh_mode)
        return lib

    @classmethod
    def from_snapshot(cls, obj: dict, **kwargs: Any) -> "Library":
        """Rebuild from the ``library`` object of a snapshot (SPEC §15.2).

        Raises :class:`SnapshotIntegrityError` (one line) when the object is malformed.
        """
        with gc_paused():
            return cls._from_snapshot(obj, **kwargs)

    @classmethod
    def _from_snapshot(cls, obj: dict, **kwargs: Any) -> "Library":

        def bad(msg: str) -> SnapshotIntegrityError:
            return SnapshotIntegrityError(f"malformed snapshot library: {msg}")

        if not isinstance(obj, dict):
            raise bad("expected an object with nodes, origins, next_id and merges")
        for key in ("nodes", "origins", "next_id", "merges"):
            if key not in obj:
                raise bad(f"missing field {key!r}")
        nodes, origins = obj["nodes"], obj["origins"]
        if not isinstance(nodes, list) or not isinstance(origins, list):
            raise bad("nodes and origins must be lists")
        if not all(isinstance(o, str) for o in origins):
            raise bad("origins must be note ids")
        for key in ("next_id", "merges"):
            if type(obj[key]) is not int or obj[key] < 0:
                raise bad(f"{key} must be a non-negative integer")
        search = kwargs.pop("search", None)
        lib = cls(origins=origins, next_id=obj["next_id"], merges=obj["merges"], **kwargs)
        parsed = []
        for i, nd in enumerate(nodes):
            if not isinstance(nd, dict):
                raise bad(f"node #{i} is not an object")
            try:
                nid, text, links = nd["id"], nd["text"], nd["links"]
                origin, flag, absorbed = nd["origin"], nd["flag"], nd["absorbed"]
            except KeyError as err:
                raise bad(f"node #{i} lacks field {err.args[0]!r}") from None
            types = nd.get("link_types", {})
            hashes = nd.get("link_hashes", {})
            if not isinstance(hashes, dict) or not all(
                    k in links and isinstance(v, str) for k, v in hashes.items()):  # fmt: skip
                raise bad(f"node {nd.get('id')!r} link_hashes must map linked ids to hashes")
            if not is_note_id(nid):
                raise bad(f"node #{i} has a bad id {nid!r}")
            if not isinstance(text, str):
                raise bad(f"node {nid} text is not a string")
            if not isinstance(links, list) or not all(isinstance(x, str) for x in links):
                raise bad(f"node {nid} links must be a list of ids")
            if origin is not None and not isinstance(origin, str):
                raise bad(f"node {nid} origin must be an id or null")
            if flag not in FLAGS:
                raise bad(f"node {nid} has an unknown flag {flag!r}")
            if (flag == AUTHORED) != (origin is None):
                raise bad(f"node {nid}: authored nodes (only) must have a null origin")
            if not isinstance(absorbed, list) or not all(isinstance(x, str) for x in absorbed):
                raise bad(f"node {nid} absorbed must be a list of ids")
            if not isinstance(types, dict) or not all(
                    k in links and v in LINK_TYPES for k, v in types.items()):  # fmt: skip
                raise bad(f"node {nid} link_types must map linked ids to known types")
            parsed.append((id_num(nid), nid, text, links, origin, flag, absorbed, types, hashes))
        parsed.sort(key=lambda p: p[0])
        for p in parsed:
            if p[1] in lib._nodes:
                raise bad(f"duplicate node id {p[1]}")
            if p[0] >= lib.next_id:
                raise bad(f"node {p[1]} is not below next_id {lib.next_id}")
            lib._insert(Node(p[1], p[0], p[2], p[4], p[5], tuple(p[6])))
        for _num, nid, _t, links, _o, _f, _a, types, hashes in parsed:
            src = lib._nodes[nid]
            for target in links:
                dst = lib._nodes.get(target)
                if dst is None:
                    raise bad(f"node {nid} links to missing note {target}")
                if dst is src:
                    raise bad(f"node {nid} links to itself")
                if dst._in and nid in dst._in:
                    raise bad(f"node {nid} links to {target} twice")
                lib._add_edge(src, dst, types.get(target))
            if hashes:
                src._hashes = dict(hashes)
        if search is not None:
            lib.attach_search(search, refresh=lib.refresh_mode)
        return lib

    def snapshot(self) -> dict:
        """The ``library`` object of a snapshot: nodes in id order, origins, next_id, merges."""
        return {
            "nodes": [n.to_json() for n in self._nodes.values()],
            "origins": list(self.origins),
            "next_id": self.next_id,
            "merges": self.merges,
        }

    def copy(self, *, search: Any = _KEEP, dedup: Any = _KEEP) -> "Library":
        """An independent, unfrozen copy. By default it gets ``search.copy()`` of this library's
        backend (same refresh mode and pending dirty set) and shares the dedup guard."""
        other = Library.__new__(Library)
        other.__dict__.update(self.__dict__)
        other.frozen = False
        other._nodes = nodes = {}
        new = Node.__new__
        with gc_paused():  # millions of new objects: cyclic GC passes would dominate
            for n in self._nodes.values():
                m = new(Node)
                m.id, m.num, m.text, m.origin, m.flag, m.absorbed, m._ain = (
                    n.id, n.num, n.text, n.origin, n.flag, n.absorbed, n._ain)
                m.links = n.links.copy()
                m._types = n._types.copy() if n._types else None
                m._in = n._in.copy() if n._in else None
                m._hashes = n._hashes.copy() if n._hashes else None
                nodes[n.id] = m
        other._lineage = uuid.uuid4().hex
        other._base_key, other._base_version = self.state_key(), self.version
        other._carriers = dict(self._carriers)
        other.superseded = dict(self.superseded)
        other._dirty = dict(self._dirty)
        other._regen = set(self._regen)
        if dedup is not _KEEP:
            other.dedup = dedup
        if search is _KEEP:
            if self._search is not None:
                if not hasattr(self._search, "copy"):
                    raise TypeError("this search backend has no copy(); pass copy(search=...)")
                other._search = self._search.copy()
        else:
            other._search = None
            other._dirty = {}
            other._regen = set()
            if search is not None:
                other.attach_search(search, refresh=self.refresh_mode)
        return other

    def fork(self) -> "Library":
        """A copy for a group rollout: independent, unfrozen, with its own copy of the search
        index and the same dedup guard; :meth:`state_key` equals this library's until either
        one is edited."""
        with gc_paused():
            return self.copy()

    def state_key(self) -> tuple[str, int]:
        """A key that identifies this library's content (nodes, links, texts): equal keys mean
        equal content. Every edit changes it; a fresh copy shares its parent's key until the
        copy is edited. Reward caches are keyed on it (kbgym.runs.curation)."""
        if self._base_key is not None and self.version == self._base_version:
            return self._base_key
        return (self._lineage, self.version)

    # -- access -----------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._nodes)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._nodes

    def __iter__(self) -> Iterator[Node]:
        """Live nodes in id order."""
        return iter(self._nodes.values())

    def __getitem__(self, node_id: str) -> Node:
        return self._nodes[node_id]

    def get(self, node_id: str) -> Node | None:
        """The node whose id equals ``node_id`` after stripping surrounding whitespace."""
        return self._nodes.get(node_id.strip())

    def nodes(self) -> Iterator[Node]:
        return iter(self._nodes.values())

    def ids(self) -> list[str]:
        return list(self._nodes)

    def in_links(self, node_id: str) -> list[str]:
        """Ids of the nodes linking to ``node_id``, in id order."""
        src = self._nodes[node_id]._in
        return sorted(src, key=id_num) if src else []

    @property
    def search_backend(self) -> Any:
        return self._search

    @property
    def n_links(self) -> int:
        return self._n_links

    def peek_next_id(self) -> str:
        """The id the next ``add`` would mint."""
        return format_id(self.next_id)

    def to_networkx(self):
        """A ``networkx.DiGraph`` copy for analysis (node attrs text/origin/flag/absorbed;
        typed edges carry ``type``). Needs networkx: ``pip install 'kbgym[analysis]'``."""
        try:
            import networkx as nx
        except ImportError:
            raise KBGymError("to_networkx needs networkx: pip install 'kbgym[analysis]'") \
                from None

        g = nx.DiGraph()
        for n in self._nodes.values():
            g.add_node(n.id, text=n.text, origin=n.origin, flag=n.flag,
                       absorbed=list(n.absorbed))  # fmt: skip
        for n in self._nodes.values():
            for t in n.links:
                ltype = n.link_types.get(t)
                if ltype is None:
                    g.add_edge(n.id, t)
                else:
                    g.add_edge(n.id, t, type=ltype)
        return g

    # -- staleness (source drift) ------------------------------------------------------------
    def enable_staleness(self, superseded: dict[str, str] | None = None) -> None:
        """Keep, hidden, the text hash of each link's target as of when the link was made
        (links that have none yet get their target's current one), and take ``superseded``
        (old note -> successor, from a drifted universe). Idempotent."""
        if superseded:
            self.superseded.update(superseded)
        if not self.track_hashes:
            self.track_hashes = True
            for n in self._nodes.values():
                for t in n.links:
                    if n._hashes is None:
                        n._hashes = {}
                    n._hashes.setdefault(t, text_hash(self._nodes[t].text))

    def is_stale(self, source: str, target: str) -> bool:
        """A link is stale when its target was superseded or its text changed since."""
        if target in self.superseded:
            return True
        h = self._nodes[source]._hashes
        recorded = h.get(target) if h else None
        return recorded is not None and recorded != text_hash(self._nodes[target].text)

    def staleness(self) -> dict:
        """``stale_links`` and ``stale_index_notes`` (authored notes with a stale link)."""
        links = notes = 0
        for n in self._nodes.values():
            k = sum(self.is_stale(n.id, t) for t in n.links)
            links += k
            notes += bool(k) and n.flag == AUTHORED
        return {"stale_links": links, "stale_index_notes": notes}

    def original_ceiling(self) -> int | None:
        """The highest numeric id among the origins, if every authored node lies above it and
        every other node at or below it (and, since only authored nodes are ever minted, from
        ``next_id`` upwards, always will); else None.

        With it, a node's id alone tells original from authored (``locate``). Computed once
        per library: origins never change, and ``next_id`` only grows."""
        cached = self.__dict__.get("_ceiling", _KEEP)
        if cached is _KEEP:
            top = max((id_num(o) for o in self.origins), default=0)
            ok = self.next_id > top and all(
                (n.num > top) == (n.flag == AUTHORED) for n in self._nodes.values())
            cached = top if ok else None
            self._ceiling = cached
        return cached

    # -- stats ------------------------------------------------------------------------------
    def stats(self) -> dict:
        """SPEC §6.2, from incrementally maintained integer counters."""
        total = len(self.origins)
        return {
            "n_nodes": len(self._nodes),
            "n_links": self._n_links,
            "origins_total": total,
            "origins_alive": self._alive,
            "preservation": self._alive / total if total else 0.0,
            "dup_origins": self._dup,
            "authored_statements": self._authored,
            "edited_statements": self._edited,
            "statement_tokens": self._tokens,
            "orphan_nodes": self._orph,
            "merges": self.merges,
            "index_coverage": self._indexed / total if total else 0.0,
            **(self.staleness() if self.track_hashes else {}),
        }

    # -- search plumbing --------------------------------------------------------------------
    def attach_search(self, backend: Any, *, refresh: RefreshMode | None = None) -> None:
        """Index every live node into ``backend`` (id order) and keep it updated."""
        if refresh is not None:
            if refresh not in ("immediate", "iteration"):
                raise ValueError(f"refresh must be 'immediate' or 'iteration', not {refresh!r}")
            self.refresh_mode = refresh
        self._search = backend
        self._dirty = {}
        self._regen = set()
        if backend is not None:
            with gc_paused():
                for n in self._nodes.values():
                    backend.upsert(n.id, n.text)
            backend.refresh()

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The backend's top ``k`` (id, score) over live nodes."""
        if self._search is None:
            raise RuntimeError("this library has no search backend; attach_search() one first")
        return [(i, s) for i, s in self._search.query(query, k) if i in self._nodes]

    @property
    def dirty(self) -> list[str]:
        """Ids awaiting re-indexing (iteration refresh), in id order."""
        return sorted(self._dirty, key=id_num)

    def refresh(self) -> int:
        """End of iteration: re-index dirty nodes (iteration mode) and return ``regens``, the
        number of distinct nodes (re)indexed since the previous refresh."""
        if self._search is not None:
            for nid in sorted(self._dirty, key=id_num):
                node = self._nodes.get(nid)
                if node is not None:
                    self._search.upsert(nid, node.text)
                    self._regen.add(nid)
            self._dirty = {}
            self._search.refresh()
        self.last_regens = len(self._regen)
        self._regen = set()
        return self.last_regens

    def _index_upsert(self, node: Node) -> None:
        if self._search is None:
            return
        if self.refresh_mode == "immediate":
            self._search.upsert(node.id, node.text)
            self._regen.add(node.id)
        else:
            self._dirty[node.id] = None

    def _index_remove(self, node_id: str) -> None:
        if self._search is None:
            return
        self._search.remove(node_id)
        self._dirty.pop(node_id, None)

    # -- checks -----------------------------------------------------------------------------
    def freeze(self) -> None:
        self.frozen = True

    def _mutable(self) -> None:
        if self.frozen:
            raise LibraryFrozenError("the library is frozen; mutate a copy() instead")

    def _need(self, node_id: str) -> Node:
        key = node_id.strip()
        node = self._nodes.get(key)
        if node is None:
            raise LibraryOpError(err_no_such_note(key))
        return node

    def normalize(self, text: str) -> str:
        """Normalised note text, or :class:`LibraryOpError` with the §6.1 text error."""
        t = normalize_text(text)
        if not t:
            raise LibraryOpError(ERR_EMPTY_TEXT)
        if len(t) > self.max_text_chars:
            raise LibraryOpError(err_text_too_long(self.max_text_chars))
        bad = invisible_char(t)
        if bad is not None:
            raise LibraryOpError(err_invisible_char(bad))
        return t

    @staticmethod
    def _check_type(ltype: str | None) -> None:
        if ltype is not None and ltype not in LINK_TYPES:
            raise ValueError(
                f"unknown link type {ltype!r}; expected one of {', '.join(LINK_TYPES)}")

    def _find_duplicate(self, text: str, exclude: str | None) -> str | None:
        guard = self.dedup
        if guard is None or self._search is None:
            return None
        return guard.find_duplicate(self, text, exclude)

    # -- bookkeeping primitives -------------------------------------------------------------
    def _carry(self, origins: Iterable[str], delta: int) -> None:
        carriers, valid = self._carriers, self._origin_set
        for o in origins:
            if o not in valid:
                continue
            before = carriers.get(o, 0)
            after = before + delta
            if after:
                carriers[o] = after
            else:
                del carriers[o]
            if before == 0 and after == 1:
                self._alive += 1
            elif before == 1 and after == 0:
                self._alive -= 1
            elif before == 1 and after == 2:
                self._dup += 1
            elif before == 2 and after == 1:
                self._dup -= 1

    def _insert(self, node: Node) -> None:
        self._nodes[node.id] = node
        self._carry(node.carried(), +1)
        if node.flag == AUTHORED:
            self._authored += 1
        elif node.flag == EDITED:
            self._edited += 1
        self._tokens += len(node.text) // 4
        self._orph += 1  # a new node has no links yet

    def _add_edge(self, src: Node, dst: Node, ltype: str | None = None,
                  index: int | None = None) -> None:  # fmt: skip
        before = (not src.links and not src._in) + (not dst.links and not dst._in)
        if index is None:
            src.links.append(dst.id)
        else:
            src.links.insert(index, dst.id)
        if ltype is not None:
            if src._types is None:
                src._types = {}
            src._types[dst.id] = ltype
        if dst._in is None:
            dst._in = {}
        dst._in[src.id] = None
        if self.track_hashes:
            if src._hashes is None:
                src._hashes = {}
            src._hashes[dst.id] = text_hash(dst.text)
        self._n_links += 1
        if src.flag == AUTHORED:
            dst._ain += 1
            if dst._ain == 1 and dst.origin is not None:
                self._indexed += 1
        self._orph += (not src.links and not src._in) + (not dst.links and not dst._in) - before

    def _remove_edge(self, src: Node, dst: Node) -> tuple[int, str | None]:
        """Remove src -> dst; returns (its former position, its type)."""
        before = (not src.links and not src._in) + (not dst.links and not dst._in)
        pos = src.links.index(dst.id)
        del src.links[pos]
        ltype = None
        if src._types:
            ltype = src._types.pop(dst.id, None)
        if src._hashes:
            src._hashes.pop(dst.id, None)
        del dst._in[src.id]  # type: ignore[union-attr]
        self._n_links -= 1
        if src.flag == AUTHORED:
            dst._ain -= 1
            if dst._ain == 0 and dst.origin is not None:
                self._indexed -= 1
        self._orph += (not src.links and not src._in) + (not dst.links and not dst._in) - before
        return pos, ltype

    def _remove_node(self, node: Node) -> None:
        nodes = self._nodes
        if node._in:
            for sid in list(node._in):
                self._remove_edge(nodes[sid], node)
        for tid in list(node.links):
            self._remove_edge(node, nodes[tid])
        self._orph -= 1  # it is edge-free now, hence counted as an orphan
        self._carry(node.carried(), -1)
        if node.flag == AUTHORED:
            self._authored -= 1
        elif node.flag == EDITED:
            self._edited -= 1
        self._tokens -= len(node.text) // 4
        del nodes[node.id]
        self._index_remove(node.id)

    # -- operations -------------------------------------------------------------------------
    def add(self, text: str, force_id: str | None = None, *, dedup: bool = True) -> AddOutcome:
        """Mint an authored node, unless the dedup guard finds a duplicate (nothing created).

        ``force_id`` (replay) uses that id instead of minting one and skips dedup; it must be a
        fresh id at or after ``next_id``.
        """
        self._mutable()
        t = self.normalize(text)
        if force_id is not None:
            num = id_num(force_id)
            if num < self.next_id or force_id in self._nodes:
                raise ValueError(
                    f"cannot force id {force_id}: ids are never reused and the next is "
                    f"{self.peek_next_id()}"
                )
            nid = force_id
        else:
            if dedup:
                survivor = self._find_duplicate(t, None)
                if survivor is not None:
                    return AddOutcome(survivor, True)
            num = self.next_id
            nid = format_id(num)
        self.next_id = num + 1
        node = Node(nid, num, t, None, AUTHORED)
        self._insert(node)
        self.version += 1
        self._index_upsert(node)
        return AddOutcome(nid, False)

    def edit(self, node_id: str, text: str, *, dedup: bool = True) -> EditOutcome:
        """Replace a node's text (id and origin kept; an original becomes ``edited``), then
        run dedup excluding the node itself; on a duplicate, merge(id, survivor)."""
        self._mutable()
        node = self._need(node_id)
        t = self.normalize(text)
        old = node.carried()
        self._tokens += len(t) // 4 - len(node.text) // 4
        node.text = t
        if node.flag is None:
            node.flag = EDITED
            self._edited += 1
            self._carry(old, -1)
            self._carry(node.carried(), +1)
        self.version += 1
        self._index_upsert(node)
        if dedup:
            survivor = self._find_duplicate(t, node.id)
            if survivor is not None:
                self.merge(node.id, survivor)
                return EditOutcome(node.id, survivor)
        return EditOutcome(node.id, None)

    def delete(self, node_id: str) -> str:
        """Remove the node and every inbound link; returns its id."""
        self._mutable()
        node = self._need(node_id)
        self._remove_node(node)
        self.version += 1
        return node.id

    def link(self, source: str, target: str, type: str | None = None) -> tuple[str, str]:
        """Append target to source's links; returns (source id, target id)."""
        self._mutable()
        src = self._need(source)
        dst = self._need(target)
        if src is dst:
            raise LibraryOpError(ERR_SELF_LINK)
        if dst._in and src.id in dst._in:
            raise LibraryOpError(err_already_linked(src.id, dst.id))
        self._check_type(type)
        self._add_edge(src, dst, type)
        self.version += 1
        return src.id, dst.id

    def link_many(
        self, source: str, targets: list[str], type: str | None = None
    ) -> LinkManyOutcome:
        """Link source to each target in order, collecting skips (SPEC §8.2)."""
        self._mutable()
        if not targets:
            raise LibraryOpError(ERR_TARGETS_EMPTY)
        if len(targets) > self.link_batch_max:
            raise LibraryOpError(err_too_many_targets(len(targets), self.link_batch_max))
        src = self._need(source)
        self._check_type(type)
        made: list[str] = []
        skipped: list[tuple[str, str]] = []
        seen: set[str] = set()
        for raw in targets:
            key = raw.strip()
            dst = self._nodes.get(key)
            if key in seen:  # §8.2: a repeated id counts as already linked, whatever it was
                skipped.append((key, "already linked"))
                continue
            seen.add(key)
            if dst is None:
                skipped.append((key, "no such note"))
            elif dst is src:
                skipped.append((key, "self"))
            elif dst._in and src.id in dst._in:
                skipped.append((key, "already linked"))
            else:
                self._add_edge(src, dst, type)
                made.append(key)
        if made:
            self.version += 1
        return LinkManyOutcome(src.id, tuple(made), tuple(skipped), type, len(src.links))

    def unlink(self, source: str, target: str) -> tuple[str, str]:
        """Remove target (and its type) from source's links."""
        self._mutable()
        src = self._need(source)
        dst = self._need(target)
        if not (dst._in and src.id in dst._in):
            raise LibraryOpError(err_not_linked(src.id, dst.id))
        self._remove_edge(src, dst)
        self.version += 1
        return src.id, dst.id

    def merge(self, loser: str, survivor: str) -> str:
        """Fold ``loser`` into ``survivor`` (SPEC §6.1, steps 1-4); returns the survivor id.

        Link types travel with the links they belong to; where a duplicate is dropped the
        survivor's existing link (and type) stays.
        """
        self._mutable()
        lo = self._need(loser)
        sv = self._need(survivor)
        if lo is sv:
            raise LibraryOpError(ERR_SELF_MERGE)
        nodes = self._nodes
        # 1. absorbed
        gained = set(lo.absorbed)
        if lo.origin is not None:
            gained.add(lo.origin)
        if not gained <= set(sv.absorbed):
            old = sv.carried()
            sv.absorbed = tuple(sorted(gained | set(sv.absorbed), key=_sort_key))
            self._carry(old, -1)
            self._carry(sv.carried(), +1)
        # 2. out-links appended, skipping existing links and self-links
        for tid in lo.links:
            dst = nodes[tid]
            if dst is sv or (dst._in and sv.id in dst._in):
                continue
            self._add_edge(sv, dst, lo.link_types.get(tid))
        # 3. in-links rewired in place, dropping duplicates and self-links
        if lo._in:
            for sid in sorted(lo._in, key=id_num):
                s = nodes[sid]
                if s is sv or (sv._in and sid in sv._in):
                    self._remove_edge(s, lo)
                else:
                    pos, ltype = self._remove_edge(s, lo)
                    self._add_edge(s, sv, ltype, index=pos)
        # 4. delete the loser
        self._remove_node(lo)
        self.merges += 1
        self.version += 1
        return sv.id


def _sort_key(node_id: str) -> tuple[int, int | str]:
    return (0, id_num(node_id)) if is_note_id(node_id) else (1, node_id)
