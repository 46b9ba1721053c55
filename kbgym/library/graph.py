"""The library (SPEC §6.1): a directed graph of one-sentence notes with hidden provenance.

The core graph knows nothing about search or dedup. It *notifies* an optional search backend
(``upsert`` / ``remove``) and asks an optional dedup guard for a survivor; with neither (as in
replay) it is a plain graph.

Every refused operation raises :class:`LibraryOpError` whose message is the exact SPEC §8
``ERROR: ...`` result string, and changes nothing (not even ``version``). Every mutation of a
frozen library raises :class:`LibraryFrozenError`.

Storage and forks: notes live in a :class:`~kbgym.library.layers.LayeredMap` (a frozen base,
a frozen mid of changes, an owned top). A library built from a universe or loaded from a
binary snapshot keeps its notes as columns (:class:`NodeColumns`) and makes a
:class:`Node` only when something touches it. :meth:`Library.fork` (and :meth:`copy`) is
copy-on-write: the fork shares every note, counter and posting list with its parent, and a
note is copied by whichever library changes it first, so a fork costs the changes since the
last fork, never the library's size. :meth:`Library.absorb_fork` takes a fork's edits back
into its parent: a fast-forward when the parent is unchanged since the fork, else a replay
of the fork's logged operations (docs/protocol.md §15.2.1).
"""

from __future__ import annotations

import gc
import hashlib
from array import array
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
from kbgym.library.columns import IdPositions, LazyDict, LazySet
from kbgym.library.digest import DigestBase, library_digest, note_digest, origins_digest
from kbgym.library.layers import LayeredMap, LazyMap
from kbgym.collector import gc_paused

EDITED = "edited"
AUTHORED = "authored"
FLAGS = (None, EDITED, AUTHORED)

#: The typed-link vocabulary (SPEC §18).

#: Defaults (SPEC §1).
MAX_TEXT_CHARS = 1000
LINK_BATCH_MAX = 40

RefreshMode = Literal["immediate", "iteration"]

_NO_TYPES: Any = MappingProxyType({})  # what an untyped node's ``link_types`` shows


class _NoLinks(list):
    """The one empty ``links`` list that every note without links shares: a list per note
    is one more object each garbage collection walks (1.17M notes, 100,000 mixed steps of
    which 50,000 adds: a full collection took 72 ms with a list per added note, 20 ms
    without). Read-only, as every Node field is: the library gives a note its own list
    before its first link."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a note's links are read-only: change them through the Library")

    append = insert = extend = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __reduce__(self) -> str:  # pickles as the one shared instance
        return "NO_LINKS"


NO_LINKS: list[str] = _NoLinks()
_KEEP: Any = object()


_frozen_depth = 0


@contextmanager
def gc_frozen():
    """Move every object alive now (after a build: the universe, the library, its index)
    into the collector's permanent generation for the block. A full collection then walks
    only what is new instead of pausing for a second or more over 10^6 notes in the middle
    of a run. Nested blocks freeze again (what was built since); the outermost unfreezes
    everything, so a process that runs many runs, such as a sweep worker, does not keep
    frozen garbage from the earlier ones. This is a runner's tool (the sweep uses it): the
    environment and the library never freeze or tune the collector themselves."""
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
                 "_in", "_ain", "_hashes", "_dg")  # fmt: skip

    def __init__(self, id: str, num: int, text: str, origin: str | None, flag: str | None,
                 absorbed: tuple[str, ...] = ()):  # fmt: skip
        self.id = id
        self.num = num
        self.text = text
        self.links: list[str] = NO_LINKS  # (its own list from its first link)
        self._types: dict[str, str] | None = None
        self.origin = origin
        self.flag = flag
        self.absorbed: tuple[str, ...] = absorbed
        self._in: dict[str, None] | None = None  # in-adjacency: source ids (insertion order)
        self._ain = 0  # authored in-degree
        self._hashes: dict[str, str] | None = None  # target -> its text hash when linked
        self._dg: int | None = None  # its digest (kbgym.library.digest), once computed

    def clone(self) -> "Node":
        """A copy whose link lists and maps are its own (copy-on-write of a shared node)."""
        m = Node.__new__(Node)
        m.id, m.num, m.text, m.origin, m.flag, m.absorbed, m._ain, m._dg = (
            self.id, self.num, self.text, self.origin, self.flag, self.absorbed, self._ain,
            self._dg)
        m.links = self.links.copy() if self.links else NO_LINKS
        m._types = self._types.copy() if self._types else None
        m._in = self._in.copy() if self._in else None
        m._hashes = self._hashes.copy() if self._hashes else None
        return m

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


class NodeColumns:
    """Notes as columns (id order): what a library built from a universe or loaded from a
    binary snapshot keeps until a note is touched; :meth:`make` builds the i-th Node.
    ``origins``/``flags``/``absorbed`` may be None: every origin is the note's own id, every
    flag None, nothing absorbed. ``linked``: the ids of the notes that have links in this
    state (their Nodes are made with the columns), when known (None: not known). Read-only
    once made."""

    __slots__ = ("ids", "nums", "texts", "origins", "flags", "absorbed", "linked")

    def __init__(self, ids: list[str], nums: Any, texts: list[str], origins: Any = None,
                 flags: Any = None, absorbed: dict[int, tuple] | None = None,
                 linked: list[str] | None = None):
        self.ids, self.nums, self.texts = ids, nums, texts
        self.origins, self.flags, self.absorbed = origins, flags, absorbed
        self.linked = linked

    def make(self, i: int) -> "Node":
        nid = self.ids[i]
        return Node(nid, self.nums[i], self.texts[i],
                    nid if self.origins is None else self.origins[i],
                    None if self.flags is None else self.flags[i],
                    self.absorbed.get(i, ()) if self.absorbed else ())

    def lazy(self, made: dict | None = None) -> LazyMap:
        """A LazyMap over the columns; its id -> position map searches the notes' numbers
        (:class:`IdPositions`: the columns are in id order, so there is no map to make)."""
        return LazyMap(self.ids, IdPositions(self.ids, self.nums), self.make, made,
                       source=self)


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


#: The fields :meth:`Library.copy` takes over as they are (immutable values, or objects a copy
#: shares by design: the dedup guard, the search backend until it is forked below); every
#: other field of ``__init__`` is listed in :data:`_FORKED` and made anew by ``copy``.
_COPIED = ("origins", "_origin_set", "next_id", "merges", "version", "_content_hash",
           "max_text_chars", "link_batch_max", "dedup", "track_hashes", "refresh_mode",
           "_search", "last_regens", "_n_links", "_alive", "_dup", "_authored", "_edited",
           "_tokens", "_orph", "_indexed", "_base_version", "_dsum", "_dbase", "_odg")
#: The fields :meth:`Library.copy` makes anew (forked maps, a new lineage, its own log).
_FORKED = ("_nodes", "_carriers", "frozen", "_lineage", "_base_key", "_log", "_parent_key",
           "superseded", "_dirty", "_regen")


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
        self._nodes: LayeredMap = LayeredMap()  # id -> Node, shared with forks
        self.origins: tuple[str, ...] = tuple(origins)
        self._origin_set = LazySet(self.origins)  # (made when first asked: loads skip it)
        self.next_id = int(next_id)
        self.merges = int(merges)
        self.version = 0
        self.frozen = False
        self._content_hash: tuple[Any, Any] | None = None  # (state key, hash) last computed
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
        self._carriers: LayeredMap = LayeredMap()  # origin -> live nodes carrying it
        self._alive = 0
        self._dup = 0
        self._authored = 0
        self._edited = 0
        self._tokens = 0
        self._orph = 0
        self._indexed = 0  # live originals with an authored in-link
        # the digest (kbgym.library.digest): note sum = _dsum + the base columns' sum;
        # _dsum None: not tracked (computed in full by digest(), then tracked)
        self._dsum: int | None = 0
        self._dbase: DigestBase | None = None
        self._odg: str | None = None  # the origins digest (origins never change)
        # content identity for caches: (lineage, version), or the parent's key until a fork
        # diverges (see state_key)
        self._lineage = uuid.uuid4().hex
        self._base_key: tuple[str, int] | None = None
        self._base_version = -1
        # a fork's edits since it was made, for absorb_fork (None: not a fork)
        self._log: list[tuple] | None = None
        self._parent_key: tuple[str, int] | None = None
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
            ids = [i for _, i, _ in items]
            lib = cls(origins=ids, **kwargs)
            dup = next((i for i, j in zip(ids, ids[1:]) if i == j), None)  # (sorted: adjacent)
            if dup is not None:
                raise ValueError(f"duplicate node id {dup} in the universe nodes")
            # columns: Node objects are made only for the notes something touches
            cols = NodeColumns(ids, array("q", [num for num, _, _ in items]),
                               [t for _, _, t in items], linked=[])
            lib._nodes = LayeredMap.over(cols.lazy(), private=True)
            lib._dbase = DigestBase(cols)  # (summed when a digest is first asked for)
            lib._carriers = LayeredMap.over(LazyDict(lambda: dict.fromkeys(ids, 1), len(ids)))
            lib._alive = lib._orph = len(ids)
            lib._tokens = sum(len(t) // 4 for t in cols.texts)
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
        lib._dsum = None  # (the digest is computed in full when first asked for)
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
        plain: dict[str, Node] = {}
        carriers: dict[str, int] = {}
        lib._nodes, lib._carriers = plain, carriers  # type: ignore[assignment]  # while loading
        for p in parsed:
            if p[1] in plain:
                raise bad(f"duplicate node id {p[1]}")
            if p[0] >= lib.next_id:
                raise bad(f"node {p[1]} is not below next_id {lib.next_id}")
            lib._insert(Node(p[1], p[0], p[2], p[4], p[5], tuple(p[6])))
        lib._nodes, lib._carriers = LayeredMap(plain), LayeredMap(carriers)
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
        """An independent, unfrozen copy that shares every note with this library until one
        of the two changes it (copy-on-write: the cost is the changes since the last fork,
        never the library's size). By default it gets a fork of this library's search index
        (same refresh mode and pending dirty set) and shares the dedup guard; ``search=None``
        drops the index, another backend is filled from scratch."""
        other = Library.__new__(Library)
        for name in _COPIED:  # by name: a new field is a decision here, not an accident
            setattr(other, name, getattr(self, name))
        if "_ceiling" in self.__dict__:  # original_ceiling's cache: origins never change
            other._ceiling = self._ceiling
        other.frozen = False
        other._nodes = self._nodes.fork()
        other._carriers = self._carriers.fork()
        other._lineage = uuid.uuid4().hex
        other._base_key, other._base_version = self.state_key(), self.version
        other._log, other._parent_key = [], self.state_key()
        other.superseded = dict(self.superseded)
        other._dirty = dict(self._dirty)
        other._regen = set(self._regen)
        if dedup is not _KEEP:
            other.dedup = dedup
        if search is _KEEP:
            if self._search is not None:
                other._search = _fork_backend(self._search)
        else:
            other._search = None
            other._dirty = {}
            other._regen = set()
            if search is not None:
                other.attach_search(search, refresh=self.refresh_mode)
        return other

    def fork(self) -> "Library":
        """A copy for a group rollout: independent, unfrozen, sharing this library's notes
        and search index copy-on-write, with the same dedup guard; :meth:`state_key` equals
        this library's until either one is edited. It costs the changes since the last fork
        (well under 10 ms at 10^6 notes), never the library's size. Its edits can be taken
        back with :meth:`absorb_fork`."""
        return self.copy()

    def absorb_fork(self, fork: "Library") -> dict:
        """Take a fork's edits into this library (its parent), e.g. the best rollout of a
        GRPO group, so that the library learns.

        - If this library is unchanged since ``fork`` was made (its :meth:`state_key` is the
          one the fork started from), it becomes the fork's state at once: notes, links,
          hidden fields, counters, ``next_id`` and the search index, in O(changes).
        - Otherwise (another fork was absorbed first, or this library was edited) the fork's
          operations are replayed here in order, without dedup: ids the fork minted get this
          library's next ids, and an operation that no longer applies (a note deleted here
          meanwhile, a link already made) is skipped.

        The fork itself is left as it was (it can be discarded). Returns ``{"mode":
        "fast-forward" | "replay", "applied": int, "skipped": int, "ids": {fork id: id}}``.
        Raises ValueError when ``fork`` is not a fork of a state of this library's lineage
        (no edit log), :class:`LibraryFrozenError` when this library is frozen.
        """
        self._mutable()
        if fork._log is None or fork._parent_key is None:
            raise ValueError("absorb_fork needs a library made by fork() or copy()")
        if fork is self:
            raise ValueError("a library cannot absorb itself")
        if self.state_key() == fork._parent_key:
            keep = (self.dedup, self._log, self._parent_key, self.max_text_chars,
                    self.link_batch_max)
            twin = fork.copy()
            self.__dict__.update(twin.__dict__)
            self.dedup, self.max_text_chars, self.link_batch_max = keep[0], keep[3], keep[4]
            if keep[1] is not None:  # this library is itself a fork: its log goes on
                self._log, self._parent_key = keep[1] + fork._log, keep[2]
            else:
                self._log, self._parent_key = None, None
            return {"mode": "fast-forward", "applied": len(fork._log), "skipped": 0,
                    "ids": {}}
        return self._replay_log(fork._log)

    def _replay_log(self, log: list[tuple]) -> dict:
        ids: dict[str, str] = {}
        applied = skipped = 0
        for op in log:
            name, args = op[0], [ids.get(a, a) if isinstance(a, str) else a for a in op[1:]]
            try:
                if name == "add":
                    ids[op[2]] = self.add(args[0], dedup=False).id
                elif name == "edit":
                    self.edit(args[0], args[1], dedup=False)
                elif name == "delete":
                    self.delete(args[0])
                elif name == "link":
                    self.link(args[0], args[1], args[2])
                elif name == "unlink":
                    self.unlink(args[0], args[1])
                elif name == "merge":
                    self.merge(args[0], args[1])
                else:  # pragma: no cover - every logged name is handled above
                    raise AssertionError(name)
                applied += 1
            except LibraryOpError:
                skipped += 1
        return {"mode": "replay", "applied": applied, "skipped": skipped, "ids": ids}

    def _record(self, *op: Any) -> None:
        if self._log is not None:
            self._log.append(op)

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

    def text_of(self, node_id: str) -> str | None:
        """``self[node_id].text`` (None for no such note) without making the note's Node
        when it was never touched: a search page shows texts only, and Nodes made for
        every hit shown would pile up in the collector's oldest generation."""
        return self._nodes.text(node_id)

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
            nodes = self._nodes
            for n in [n for n in nodes.values() if n.links]:
                n = self._w(n)
                self._dg_out(n)
                if n._hashes is None:
                    n._hashes = {}
                for t in n.links:
                    n._hashes.setdefault(t, text_hash(nodes[t].text))
                self._dg_in(n)

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
                bulk = getattr(backend, "bulk_load", None)
                if bulk is not None and len(backend) == 0:
                    bulk(self._id_texts())
                else:
                    for i, t in self._id_texts():
                        backend.upsert(i, t)
            backend.refresh()

    def set_refresh(self, refresh: RefreshMode) -> None:
        """Switch the refresh mode of the attached index; switching to ``immediate`` indexes
        the pending dirty notes first."""
        if refresh not in ("immediate", "iteration"):
            raise ValueError(f"refresh must be 'immediate' or 'iteration', not {refresh!r}")
        if refresh != self.refresh_mode and refresh == "immediate":
            self.refresh()
        self.refresh_mode = refresh

    def _id_texts(self) -> Iterator[tuple[str, str]]:
        """(id, text) of every live note in id order, from the columns while they serve."""
        m = self._nodes
        base = m._base
        if not m._mid and not m._top and isinstance(base, LazyMap) and base.source is not None:
            return zip(base.source.ids, base.source.texts)
        return ((n.id, n.text) for n in m.values())

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The backend's top ``k`` (id, score) over live nodes."""
        if self._search is None:
            raise RuntimeError("this library has no search backend; attach_search() one first")
        hits = self._search.query(query, k)
        if getattr(self._search, "live_only", False):  # it never returns a deleted note
            return hits
        nodes = self._nodes
        return [(i, s) for i, s in hits if nodes.get(i) is not None]

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

    # -- the digest -------------------------------------------------------------------------
    def digest(self) -> str:
        """The library's content digest (:mod:`kbgym.library.digest`): equal for equal content
        (notes with every hidden field, origins, ``next_id``, ``merges``), kept up to date by
        every operation, so asking costs O(1) (the first time, for a library built from a
        universe, one pass over its notes). Not the snapshot ``content_hash``."""
        if self._dsum is None:
            self._dsum, self._dbase = sum(map(note_digest, self._nodes.values())), None
        if self._odg is None:
            self._odg = origins_digest(self.origins)
        total = self._dsum + (self._dbase.sum() if self._dbase is not None else 0)
        return library_digest(self.next_id, self.merges, self._odg, total)

    def _note_sum(self) -> int:
        """The note sum behind :meth:`digest` (the binary snapshot stores it)."""
        self.digest()
        assert self._dsum is not None  # digest() made it
        return (self._dsum + (self._dbase.sum() if self._dbase is not None else 0)) \
            & ((1 << 256) - 1)

    def _dg_out(self, node: Node) -> None:
        """Before ``node`` changes: its digest leaves the sum (the one it keeps from its last
        change, if any; untracked, the kept one is dropped: it is about to be stale)."""
        if self._dsum is not None:
            d = node._dg
            self._dsum -= note_digest(node) if d is None else d
        else:
            node._dg = None

    def _dg_in(self, node: Node) -> None:
        """After ``node`` changed (or was added): its digest joins the sum, and is kept."""
        if self._dsum is not None:
            d = node._dg = note_digest(node)
            self._dsum += d

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
        self._dg_in(node)
        self._carry(node.carried(), +1)
        if node.flag == AUTHORED:
            self._authored += 1
        elif node.flag == EDITED:
            self._edited += 1
        self._tokens += len(node.text) // 4
        self._orph += 1  # a new node has no links yet

    def _w(self, node: Node) -> Node:
        """The version of ``node`` this library may change in place: its own, or a copy of
        the one it shares with its forks (copy-on-write)."""
        return self._nodes.writable(node.id, node, Node.clone)

    def _add_edge(self, src: Node, dst: Node, ltype: str | None = None,
                  index: int | None = None) -> None:  # fmt: skip
        src, dst = self._w(src), self._w(dst)
        self._dg_out(src)
        before = (not src.links and not src._in) + (not dst.links and not dst._in)
        if src.links is NO_LINKS:
            src.links = []
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
        self._dg_in(src)
        self._n_links += 1
        if src.flag == AUTHORED:
            dst._ain += 1
            if dst._ain == 1 and dst.origin is not None:
                self._indexed += 1
        self._orph += (not src.links and not src._in) + (not dst.links and not dst._in) - before

    def _remove_edge(self, src: Node, dst: Node) -> tuple[int, str | None]:
        """Remove src -> dst; returns (its former position, its type)."""
        src, dst = self._w(src), self._w(dst)
        self._dg_out(src)
        before = (not src.links and not src._in) + (not dst.links and not dst._in)
        pos = src.links.index(dst.id)
        del src.links[pos]
        ltype = None
        if src._types:
            ltype = src._types.pop(dst.id, None)
        if src._hashes:
            src._hashes.pop(dst.id, None)
        self._dg_in(src)
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
        nid = node.id
        if node._in:
            for sid in list(node._in):
                self._remove_edge(nodes[sid], nodes[nid])
        for tid in list(nodes[nid].links):
            self._remove_edge(nodes[nid], nodes[tid])
        node = nodes[nid]
        self._dg_out(node)
        self._orph -= 1  # it is edge-free now, hence counted as an orphan
        self._carry(node.carried(), -1)
        if node.flag == AUTHORED:
            self._authored -= 1
        elif node.flag == EDITED:
            self._edited -= 1
        self._tokens -= len(node.text) // 4
        del nodes[nid]
        self._index_remove(nid)

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
        self._nodes.add_new(nid, node)  # (a fresh id: never in the library)
        self._dg_in(node)
        self._authored += 1
        self._tokens += len(t) // 4
        self._orph += 1
        self.version += 1
        self._index_upsert(node)
        self._record("add", t, nid)
        return AddOutcome(nid, False)

    def edit(self, node_id: str, text: str, *, dedup: bool = True) -> EditOutcome:
        """Replace a node's text (id and origin kept; an original becomes ``edited``), then
        run dedup excluding the node itself; on a duplicate, merge(id, survivor)."""
        self._mutable()
        node = self._need(node_id)
        t = self.normalize(text)
        node = self._w(node)
        self._dg_out(node)
        old = node.carried()
        self._tokens += len(t) // 4 - len(node.text) // 4
        node.text = t
        if node.flag is None:
            node.flag = EDITED
            self._edited += 1
            self._carry(old, -1)
            self._carry(node.carried(), +1)
        self._dg_in(node)
        self.version += 1
        self._index_upsert(node)
        self._record("edit", node.id, t)
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
        self._record("delete", node.id)
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
        self._record("link", src.id, dst.id, type)
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
        sid = src.id
        nodes = self._nodes
        made: list[str] = []
        skipped: list[tuple[str, str]] = []
        seen: set[str] = set()
        for raw in targets:
            key = raw.strip()
            dst = nodes.get(key)
            if key in seen:  # §8.2: a repeated id counts as already linked, whatever it was
                skipped.append((key, "already linked"))
                continue
            seen.add(key)
            if dst is None:
                skipped.append((key, "no such note"))
            elif key == sid:
                skipped.append((key, "self"))
            elif dst._in and sid in dst._in:
                skipped.append((key, "already linked"))
            else:
                self._add_edge(nodes[sid], dst, type)
                made.append(key)
                self._record("link", sid, key, type)
        if made:
            self.version += 1
        return LinkManyOutcome(sid, tuple(made), tuple(skipped), type, len(nodes[sid].links))

    def unlink(self, source: str, target: str) -> tuple[str, str]:
        """Remove target (and its type) from source's links."""
        self._mutable()
        src = self._need(source)
        dst = self._need(target)
        if not (dst._in and src.id in dst._in):
            raise LibraryOpError(err_not_linked(src.id, dst.id))
        self._remove_edge(src, dst)
        self.version += 1
        self._record("unlink", src.id, dst.id)
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
        lid, sid = lo.id, sv.id
        # 1. absorbed
        gained = set(lo.absorbed)
        if lo.origin is not None:
            gained.add(lo.origin)
        if not gained <= set(sv.absorbed):
            sv = self._w(sv)
            self._dg_out(sv)
            old = sv.carried()
            sv.absorbed = tuple(sorted(gained | set(sv.absorbed), key=_sort_key))
            self._dg_in(sv)
            self._carry(old, -1)
            self._carry(sv.carried(), +1)
        # 2. out-links appended, skipping existing links and self-links
        types = lo.link_types
        for tid in list(lo.links):
            dst = nodes[tid]
            if tid == sid or (dst._in and sid in dst._in):
                continue
            self._add_edge(nodes[sid], dst, types.get(tid))
        # 3. in-links rewired in place, dropping duplicates and self-links
        if lo._in:
            for src_id in sorted(lo._in, key=id_num):
                s = nodes[src_id]
                sv_in = nodes[sid]._in
                if src_id == sid or (sv_in and src_id in sv_in):
                    self._remove_edge(s, nodes[lid])
                else:
                    pos, ltype = self._remove_edge(s, nodes[lid])
                    self._add_edge(nodes[src_id], nodes[sid], ltype, index=pos)
        # 4. delete the loser
        self._remove_node(nodes[lid])
        self.merges += 1
        self.version += 1
        self._record("merge", lid, sid)
        return sid


def _fork_backend(backend: Any) -> Any:
    """A copy-on-write fork of a search backend (``fork()``), else its ``copy()``."""
    for name in ("fork", "copy"):
        make = getattr(backend, name, None)
        if make is not None:
            return make()
    raise TypeError("this search backend has neither fork() nor copy(); pass copy(search=...)")


def _sort_key(node_id: str) -> tuple[int, int | str]:
    return (0, id_num(node_id)) if is_note_id(node_id) else (1, node_id)
