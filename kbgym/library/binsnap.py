"""The binary snapshot format ``kbgs-1``: a library (and its BM25 index) as typed columns.

Why this format: a snapshot of 10^6 notes must round-trip in seconds, load without
rebuilding the search index, and be safe to open when it comes from someone else. So the
file holds only a JSON header and raw little-endian numpy arrays (no pickle, nothing that
executes on load), every length is checked against the file before anything is allocated,
and a sha256 of every byte before the trailer is verified before the columns are read.

Layout::

    b"KBGSNAP1"                       8 bytes, the magic (what load_snapshot sniffs)
    header length                     8 bytes, little-endian unsigned
    header                            canonical JSON: kind, schema_version, format, label,
                                      universe, content_hash (or null), digest, library
                                      {next_id, merges, n_nodes, note_sum, origins_digest},
                                      index {...} or null, and the sections:
                                      [{name, dtype, n, offset}] in file order
    the sections                      each an array's raw bytes, contiguous, in that order
    b"KBGSEND1" + sha256              the trailer: 8 + 32 bytes over everything before it

The library's columns: note numbers, ids, texts (one UTF-8 blob with character offsets),
flags, origins, absorbed origins and links (offsets + targets as node positions, types and
hashes aligned with them), the origin list. The index, when stored, is its compacted state:
live slots (as node positions: their texts are the notes'), posting lists per term, the
(tf, dl) codes and the MaxScore bounds. ``digest`` is the library's incremental digest
(:mod:`kbgym.library.digest`), which the library carries, so writing makes no pass over the
notes to hash them; ``content_hash`` is the one the JSON form of the same library has (SPEC
§15.2) when the writer knew it, else null (:func:`library_hash` computes it without building
the JSON objects).

The file is written as a stream (a temp file, fsync, rename); a failure leaves nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
from array import array
from collections import Counter
from itertools import compress, repeat
from operator import attrgetter, eq, is_
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from kbgym.errors import SnapshotIntegrityError
from kbgym.jsonio import _UNSAFE, _escape, atomic_file, canonical
from kbgym.library.digest import MASK, library_digest, node_json

MAGIC = b"KBGSNAP1"
TRAILER = b"KBGSEND1"
FORMAT = "kbgs-1"
_DTYPES = {"u1": np.uint8, "i4": np.int32, "i8": np.int64, "u8": np.uint64, "f8": np.float64}
_MAX_HEADER = 1 << 26
_CHUNK = 1 << 23
_FLAGS = (None, "edited", "authored")
_TYPES = (None, "refers_to", "supersedes", "amends", "cites", "member_of", "related")


def is_binary(path: str | os.PathLike) -> bool:
    """True when the file starts with the ``kbgs-1`` magic."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


# -- content hash ---------------------------------------------------------------------------
_js = encode_basestring
_node_json = node_json  # (the per-note canonical JSON lives in kbgym.library.digest)


def note_table(lib: Any) -> tuple[Any, list]:
    """The library's notes as :class:`~kbgym.library.graph.NodeColumns` (id order) and its
    notes with out-links (id order). A library whose notes are still its columns (built from
    a universe or a binary snapshot, nothing changed) hands them over without a copy; one
    whose changes lie over such columns copies the columns and writes the changed notes into
    them (no Node is made for an untouched note)."""
    from kbgym.library.graph import NodeColumns
    from kbgym.library.layers import LazyMap

    m = lib._nodes
    base = m._base
    if isinstance(base, LazyMap) and base.source is not None and base._all is None:
        if not m._mid and not m._top:
            if base.source.linked is not None:  # (in id order, as the columns)
                return base.source, [base.get(k) for k in base.source.linked]
            return base.source, sorted((n for n in base._made.values() if n.links),
                                       key=lambda n: n.num)
        return _overlay_table(base, m._over(), lib.merges > 0)
    if isinstance(base, LazyMap) and base.source is not None and base._all is not None \
            and not m._mid and not m._top:
        return base.source, sorted((n for n in base._all.values() if n.links),
                                   key=lambda n: n.num)
    ns = list(lib)
    cols = NodeColumns([n.id for n in ns], [n.num for n in ns], [n.text for n in ns],
                       [n.origin for n in ns], [n.flag for n in ns],
                       {i: n.absorbed for i, n in enumerate(ns) if n.absorbed})
    return cols, [n for n in ns if n.links]


def _same(a: Any, b: Any) -> bool:
    """Whether two sequences (lists, tuples, columns) hold the same items in order."""
    if a is b:
        return True
    if len(a) != len(b):
        return False
    return a == b if type(a) is type(b) else all(map(eq, a, b))


def _overlay_table(base: Any, over: dict, merged: bool = True) -> tuple[Any, list]:
    """:func:`note_table` of base columns with ``over`` (id -> Node, or None when deleted)
    on top: the same columns ``list(lib)`` would give, in the same (id) order (``merged``
    False: the library never merged, so no note absorbed anything the columns do not
    hold; notes absorb origins only in a merge). Flags and
    origins come out as byte codes (:class:`~kbgym.library.columns.CodeColumn`,
    :class:`~kbgym.library.columns.OriginColumn`): no list of them is made."""
    from kbgym.library.columns import CodeColumn, OriginColumn
    from kbgym.library.graph import NodeColumns

    src, pos = base.source, base._pos
    n0 = len(src.ids)
    ids = list(src.ids)
    nums = array("q", np.asarray(src.nums, dtype=np.int64).tobytes())  # (a copy, in C)
    absorbed = dict(src.absorbed or {})
    # the changes classified at once (a change to every note is the case to be fast for;
    # map with a C getter, not a comprehension, per column)
    keys, vals = list(over), list(over.values())
    # the base's notes with links that no change replaced (as the base made them)
    if src.linked is not None:
        linked = [base.get(k) for k in src.linked if k not in over]
    else:
        ms = list(base._made.values())
        linked = [n for n in compress(ms, map(_LINKS, ms)) if n.id not in over]
        del ms
    if len(keys) >= n0 and keys[:n0] == ids:  # every note changed, in id order
        at = np.concatenate((np.arange(n0, dtype=np.int64), np.fromiter(
            map(pos.get, keys[n0:], repeat(-1)), dtype=np.int64, count=len(keys) - n0)))
    else:
        if len(keys) * 8 > n0 and hasattr(pos, "to_dict"):
            pos = pos.to_dict()  # (many ids to look up: one dict beats their searches)
        at = np.fromiter(map(pos.get, keys, repeat(-1)), dtype=np.int64, count=len(keys))
    gone = np.fromiter(map(is_, vals, repeat(None)), dtype=bool, count=len(vals)) \
        if None in vals else np.zeros(len(vals), dtype=bool)  # (no deletion: one C scan)
    dead = at[(at >= 0) & gone]
    extra = [vals[i] for i in np.flatnonzero((at < 0) & ~gone).tolist()]
    upd = np.flatnonzero((at >= 0) & ~gone)
    nodes = vals if len(upd) == len(vals) else list(map(vals.__getitem__, upd.tolist()))
    where = at[upd]
    everyone = len(where) == n0 and bool((where == np.arange(n0)).all())
    # a pass per field with a C getter (cheaper than one pass making a tuple per note)
    n_text, n_flag, n_origin, n_links = (list(map(g, nodes)) for g in _GET)
    ab = list(map(_ABSORBED, nodes)) if merged or src.absorbed else []
    # (a changed note keeps its id: the base's, at its position)
    n_id = ids if everyone else list(map(ids.__getitem__, where.tolist()))
    texts = _scatter(src.texts, where, n_text, everyone)
    fcodes = _flag_codes(src.flags, n0)
    fcodes[where] = _flag_codes(n_flag, len(nodes))
    okind, oval = _origin_kinds(src.origins, src.ids, n0)
    new_kind, new_other = _origin_kinds(n_origin, n_id, len(nodes))
    okind[where] = new_kind
    if oval is not None or new_other is not None:  # (origins other than the notes' own)
        if oval is None:
            oval = np.empty(n0, dtype=object)
        if new_other is not None:
            oval[where] = new_other
    if absorbed:
        for p in where.tolist():
            absorbed.pop(p, None)
    if any(ab):
        absorbed.update((p, a) for p, a in zip(where.tolist(), ab) if a)
    linked.extend(compress(nodes, n_links))
    if extra:
        xk, xo = _origin_kinds([n.origin for n in extra], [n.id for n in extra], len(extra))
        okind = np.concatenate((okind, xk))
        if xo is not None or oval is not None:
            oval = np.concatenate((np.empty(n0, dtype=object) if oval is None else oval,
                                   np.empty(len(extra), dtype=object) if xo is None else xo))
        fcodes = np.concatenate((fcodes, _flag_codes([n.flag for n in extra], len(extra))))
        for n in extra:
            if n.absorbed:
                absorbed[len(ids)] = n.absorbed
            ids.append(n.id)
            nums.append(n.num)
            texts.append(n.text)
            if n.links:
                linked.append(n)
    if len(dead):
        keep = np.ones(len(ids), dtype=bool)
        keep[dead] = False
        kept = np.flatnonzero(keep).tolist()
        ids = [ids[i] for i in kept]
        nums = array("q", np.frombuffer(nums, dtype=np.int64)[keep].tobytes())
        texts = [texts[i] for i in kept]
        fcodes, okind = fcodes[keep], okind[keep]
        if oval is not None:
            oval = oval[keep]
        if absorbed:
            new_pos = np.cumsum(keep) - 1
            absorbed = {int(new_pos[i]): a for i, a in absorbed.items() if keep[i]}
    linked.sort(key=lambda n: n.num)
    others = [] if oval is None else oval[okind == 2].tolist()
    flags = CodeColumn(fcodes, _FLAGS) if fcodes.any() else None
    origins = None if bool((okind == 1).all()) else OriginColumn(okind, ids, others)
    return NodeColumns(ids, nums, texts, origins, flags, absorbed or None), linked


_FLAG_CODE = {f: i for i, f in enumerate(_FLAGS)}


def _flag_codes(flags: Any, n: int) -> np.ndarray:
    """The flags (None, a list, or a CodeColumn) as a new uint8 array of codes."""
    from kbgym.library.columns import CodeColumn

    if flags is None:
        return np.zeros(n, dtype=np.uint8)
    if isinstance(flags, CodeColumn) and flags.values == _FLAGS:
        return flags.codes.copy()
    try:
        if n and isinstance(flags, list) and flags.count(flags[0]) == n:  # (all the same)
            return np.full(n, _FLAG_CODE[flags[0]], dtype=np.uint8)
        return np.fromiter(map(_FLAG_CODE.__getitem__, flags), dtype=np.uint8, count=n)
    except KeyError:
        raise ValueError("unknown flag") from None


def _origin_kinds(origins: Any, ids: Any, n: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The origins (None, a list, or an OriginColumn) as a new uint8 array of kinds (0 none,
    1 the note's own id, 2 another) and, when some are another's, an object array holding
    those at their positions (else None)."""
    from kbgym.library.columns import OriginColumn

    if origins is None:
        return np.ones(n, dtype=np.uint8), None
    if isinstance(origins, OriginColumn):
        kind = origins.kind.copy()
        if not origins.others:
            return kind, None
        vals = np.empty(n, dtype=object)
        vals[kind == 2] = _objects(origins.others)
        return kind, vals
    if not isinstance(origins, list):
        origins = list(origins)
    if not isinstance(ids, list):
        ids = list(ids)
    if origins == ids:  # (every note carries its own id: one C comparison of the lists)
        return np.ones(n, dtype=np.uint8), None
    # (an original's origin is mostly its id's very string: identity first, then equality)
    same = np.fromiter(map(is_, origins, ids), dtype=bool, count=n)
    rest = np.flatnonzero(~same)
    if len(rest) == 0:
        return np.ones(n, dtype=np.uint8), None
    kind = same.astype(np.uint8)
    oval = None
    for i in rest.tolist():
        o = origins[i]
        if o is None:
            continue
        if o == ids[i]:
            kind[i] = 1
        else:
            if oval is None:
                oval = np.empty(n, dtype=object)
            kind[i] = 2
            oval[i] = o
    return kind, oval


_GET = tuple(map(attrgetter, ("text", "flag", "origin", "links")))
_LINKS, _ABSORBED = _GET[-1], attrgetter("absorbed")


def _scatter(column: Any, where: np.ndarray, values: list, everyone: bool | None = None
             ) -> list:
    """A copy of ``column`` (a sequence) with ``values`` at the positions ``where``
    (``everyone``: whether ``where`` is every position in order, if the caller knows)."""
    if everyone is None:
        everyone = len(where) == len(column) and bool((where == np.arange(len(column))).all())
    if everyone:
        return values  # (every entry replaced, in order)
    if not isinstance(column, list):
        column = list(column)
    out = np.array(column, dtype=object) if len(column) else np.zeros(0, dtype=object)
    if len(where):
        vals = np.empty(len(values), dtype=object)
        vals[:] = values
        out[where] = vals
    return out.tolist()


_PLAIN = '{"absorbed":[],"flag":%s,"id":"%s","links":[],"origin":%s,"text":%s}'
_SELF = '{"absorbed":[],"flag":null,"id":"%s","links":[],"origin":"%s","text":%s}'
_NULLS = ["null"] * (1 << 16)


def library_hash(lib: Any, table: tuple[Any, list] | None = None) -> str:
    """``content_hash(lib.snapshot())``, streamed: the canonical JSON text is hashed in
    chunks as it is made, from the note columns (``table``: :func:`note_table`'s, if the
    caller has it); plain notes (no links, nothing absorbed) take a template and only the
    others are written out field by field."""
    cols, linked = table if table is not None else note_table(lib)
    h = hashlib.sha256()

    def feed(text: str) -> None:
        if not text.isascii():  # (every character canonical() escapes is non-ASCII)
            text = _UNSAFE.sub(_escape, text)
        h.update(text.encode("utf-8"))

    feed(f'{{"merges":{int(lib.merges)},"next_id":{int(lib.next_id)},"nodes":[')
    ids, texts, n = cols.ids, cols.texts, len(cols.ids)
    pos = {node.id: node for node in linked}
    special = set(cols.absorbed or ()) | {i for i, x in enumerate(ids) if x in pos} \
        if pos or cols.absorbed else set()
    step = 1 << 16
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        enc = map(encode_basestring, texts[lo:hi])
        cid = ids[lo:hi]
        if cols.flags is None:
            fl = _NULLS[: hi - lo]
        else:
            fl = ["null" if f is None else f'"{f}"' for f in cols.flags[lo:hi]]
        if cols.origins is None and cols.flags is None:  # untouched originals
            strs = list(map(_SELF.__mod__, zip(cid, cid, enc)))
        else:
            og = ([f'"{x}"' for x in cid] if cols.origins is None else
                  ["null" if o is None else _js(o) for o in cols.origins[lo:hi]])
            strs = list(map(_PLAIN.__mod__, zip(fl, cid, og, enc)))
        for i in special:
            if lo <= i < hi:
                strs[i - lo] = _node_json(pos.get(ids[i]) or cols.make(i))
        feed(("," if lo else "") + ",".join(strs))
    feed('],"origins":' + json.dumps(list(lib.origins), ensure_ascii=False,
                                      separators=(",", ":")) + "}\n")
    return "sha256:" + h.hexdigest()


# -- columns --------------------------------------------------------------------------------
def _strings(items: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """A UTF-8 blob of ``items`` and their character offsets (len + 1). When no item holds
    a NUL the items are joined with NUL (the reader splits instead of slicing), which the
    offsets tell apart: they then count a separator after every item (the last ends one past
    the text)."""
    from kbgym.library.columns import StrColumn

    if isinstance(items, StrColumn):  # (a loaded column written again: no join)
        blob = np.frombuffer(items.text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
        return blob, np.frombuffer(items.off, dtype=np.int64)
    joined = "\x00".join(items)
    if items and joined.isascii():  # the offsets are where the NULs are, if none is an item's
        blob = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
        nul = np.flatnonzero(blob == 0)
        if len(nul) == len(items) - 1:
            off = np.empty(len(items) + 1, dtype=np.int64)
            off[0] = 0
            off[1:-1] = nul
            off[1:-1] += 1
            off[-1] = len(blob) + 1
            return blob, off
    sep = joined.count("\x00") == max(0, len(items) - 1)
    if not sep:
        joined = "".join(items)
    off = np.zeros(len(items) + 1, dtype=np.int64)
    if items:
        np.cumsum(np.fromiter(map(len, items), dtype=np.int64, count=len(items)), out=off[1:])
        if sep:
            off[1:] += np.arange(1, len(items) + 1, dtype=np.int64)  # a NUL after each
    blob = np.frombuffer(joined.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    return blob, off


def _unstrings(blob: np.ndarray, off: np.ndarray, what: str, column: bool = False) -> Any:
    """The strings of ``_strings``' blob and offsets: a list, or with ``column`` a
    :class:`~kbgym.library.columns.StrColumn` (one string, cut on access) when NUL-joined."""
    try:
        text = str(np.ascontiguousarray(blob).data, "utf-8", "surrogatepass")
    except UnicodeDecodeError:
        raise SnapshotIntegrityError(f"{what} is not UTF-8") from None
    n = len(off) - 1
    if n < 0 or off[0] != 0 or (n and (np.diff(off) < 0).any()):
        raise SnapshotIntegrityError(f"{what} offsets are inconsistent")
    if n == 0:
        return []
    if int(off[-1]) == len(text) + 1:  # NUL-joined
        if column and text.isascii():  # (character offsets are byte offsets)
            from kbgym.library.columns import StrColumn

            o = np.ascontiguousarray(off, dtype=np.int64)
            nuls = len(blob) - int(np.count_nonzero(blob))
            if nuls != n - 1 or (n > 1 and bool(blob[o[1:-1] - 1].any())):
                raise SnapshotIntegrityError(f"{what} offsets are inconsistent")
            return StrColumn(text, o, True)
        items = text.split("\x00")
        if len(items) != n:
            raise SnapshotIntegrityError(f"{what} offsets are inconsistent")
        return items
    if int(off[-1]) != len(text):
        raise SnapshotIntegrityError(f"{what} offsets are inconsistent")
    o = off.tolist()
    return [text[a:b] for a, b in zip(o, o[1:])]


def _positions(nums: np.ndarray, ids: Any, want: list[str], want_nums: Any) -> np.ndarray:
    """The positions of the notes ``want`` (ids, with their numbers ``want_nums``) in the
    table whose increasing numbers are ``nums``: found by number, checked by id. KeyError
    when one is missing."""
    q = np.asarray(want_nums, dtype=np.int64)
    p = np.searchsorted(nums, q)
    if len(p) and (int(p.max()) >= len(nums) or bool((nums[p] != q).any())):
        raise KeyError("a note is not in the table")
    for i, x in zip(p.tolist(), want):
        if ids[i] != x:
            raise KeyError(x)
    return p


def _objects(items: Any) -> np.ndarray:
    """``items`` as a 1-D object array (elementwise comparisons run in C)."""
    out = np.empty(len(items), dtype=object)
    out[:] = items if isinstance(items, list) else list(items)
    return out


def library_columns(lib: Any, notes: tuple[Any, list] | None = None
                    ) -> tuple[dict, dict[str, np.ndarray]]:
    """(header fields, columns) of a library (``notes``: its :func:`note_table`, if the
    caller has it). Positions are found by note number: no id -> position map is made."""
    from kbgym.library.columns import OriginColumn
    from kbgym.protocol.ids import id_num

    table, linked = notes if notes is not None else note_table(lib)
    ids, n = table.ids, len(table.ids)
    cols: dict[str, np.ndarray] = {}
    cols["num"] = nums = np.asarray(table.nums, dtype=np.int64)
    cols["id_blob"], cols["id_off"] = _strings(ids)
    cols["text_blob"], cols["text_off"] = _strings(table.texts)
    cols["flag"] = _flag_codes(table.flags, n)
    # origins: 1 = the note's own id (most originals), 0 = none, 2 = another (listed in order)
    okind, oval = _origin_kinds(table.origins, ids, n)
    others: list[str] = []
    if isinstance(table.origins, OriginColumn):
        others = table.origins.others
    elif oval is not None:
        others = oval[okind == 2].tolist()
    cols["origin_kind"] = okind
    cols["origin_blob"], cols["origin_off"] = _strings(others)
    absorbed = table.absorbed or {}
    acount = np.zeros(n, dtype=np.int64)
    flat_abs: list[str] = []
    for i in sorted(absorbed):
        acount[i] = len(absorbed[i])
        flat_abs.extend(absorbed[i])
    cols["abs_off"] = np.concatenate(([0], np.cumsum(acount))).astype(np.int64)
    cols["abs_blob"], cols["abs_soff"] = _strings(flat_abs)
    lcount = np.zeros(n, dtype=np.int64)
    targets = [t for node in linked for t in node.links]
    tpos = _positions(nums, ids, targets, [id_num(t) for t in targets]).tolist()
    lcount[_positions(nums, ids, [x.id for x in linked], [x.num for x in linked])] = \
        [len(x.links) for x in linked]
    dst, typ, hsh, has = tpos, [], [], []
    for node in linked:
        types, hashes = node.link_types, node._hashes or {}
        for t in node.links:
            typ.append(_TYPES.index(types.get(t)))
            h = hashes.get(t)
            if h is not None and len(h) != 16:
                raise ValueError("link hashes must be 16 hex digits")
            has.append(h is not None)
            hsh.append(int(h, 16) if h is not None else 0)
    cols["link_off"] = np.concatenate(([0], np.cumsum(lcount))).astype(np.int64)
    cols["link_dst"] = np.array(dst, dtype=np.int64)
    cols["link_type"] = np.array(typ, dtype=np.uint8)
    cols["link_hash"] = np.array(hsh, dtype=np.uint64)
    cols["link_has_hash"] = np.array(has, dtype=np.uint8)
    origins = lib.origins if isinstance(lib.origins, list) else list(lib.origins)
    k = len(origins)
    same = k == n and origins == list(ids)  # (B1, most libraries)
    if same:
        cols["origins_blob"], cols["origins_off"] = _strings([])
    elif 0 < k <= n and int(cols["id_off"][-1]) == len(cols["id_blob"]) + 1 \
            and origins == list(ids[:k]):
        # the first k notes' ids (the originals, then only additions): the same bytes as
        # their join, cut from the id column
        off = cols["id_off"][: k + 1]
        cols["origins_blob"], cols["origins_off"] = cols["id_blob"][: int(off[-1]) - 1], off
    else:
        cols["origins_blob"], cols["origins_off"] = _strings(origins)
    head = {"next_id": int(lib.next_id), "merges": int(lib.merges), "n_nodes": n,
            "origins_are_ids": same}
    return head, cols


def index_columns(lib: Any, nums: np.ndarray, table: Any = None
                  ) -> tuple[dict | None, dict[str, np.ndarray]]:
    """The compacted BM25 state, when the index is a BM25Index fully in step with the notes
    (nothing pending); else (None, {}) and the index is rebuilt on load. ``nums``: the note
    table's numbers (slots are matched to notes by number)."""
    from kbgym.library.search import BM25Index

    ix = lib.search_backend
    if type(ix) is not BM25Index or lib._dirty or len(ix) != len(lib):
        return None, {}
    n_old = ix._n_slots
    terms = sorted(ix._vocab, key=ix._vocab.__getitem__)
    if table is None:
        table = note_table(lib)[0]
    if not ix._n_dead and n_old == ix._nh and not any(ix._tn) and _same(ix._sid_h, table.ids):
        # compact already, slots in note order: the heads are the columns
        slot_node = np.arange(n_old, dtype=np.int64)
        post_s, post_c = ix._hs, ix._hc
        lens = list(map(len, post_s))
    elif not ix._n_dead and len(ix._doc_slot) == n_old == len(nums) and \
            np.array_equal(ix._nums(np.arange(n_old)), nums):
        # no dead slot, slots in note order (a fresh index with tails): each term's head
        # and tail as they are, no renumbering
        slot_node = np.arange(n_old, dtype=np.int64)
        post_s, post_c, lens = [], [], []
        for tid in range(len(terms)):
            for part in ix._parts(tid):
                post_s.append(part[0])
                post_c.append(part[1])
            lens.append(ix._plen(tid))
    else:
        alive = ~ix._dead[:n_old]
        live = np.flatnonzero(alive)
        remap = np.cumsum(alive) - 1
        try:  # (nothing pending: every indexed text is its note's current text)
            slot_node = _positions(nums, table.ids, [], ix._nums(live))
        except KeyError:
            return None, {}
        post_s, post_c, lens = [], [], []
        for tid in range(len(terms)):
            slots, codes = ix._post(tid)
            keep = alive[slots]
            post_s.append(remap[slots[keep]])
            post_c.append(codes[keep])
            lens.append(int(keep.sum()))
    cols = {"ix_slot_node": slot_node}
    cols["ix_vocab_blob"], cols["ix_vocab_off"] = _strings(terms)
    cols["ix_post_off"] = np.concatenate(([0], np.cumsum(lens, dtype=np.int64))).astype(np.int64)
    small = n_old < 2**31 and ix._n_codes < 2**31  # 4-byte postings: half the file
    dt = np.int32 if small else np.int64
    cols["ix_post_slot"] = np.concatenate(post_s, dtype=dt, casting="unsafe") if post_s \
        else np.zeros(0, dtype=dt)
    cols["ix_post_code"] = np.concatenate(post_c, dtype=dt, casting="unsafe") if post_c \
        else np.zeros(0, dtype=dt)
    cols["ix_df"] = np.array(ix._df, dtype=np.int64)
    cols["ix_maxtf"] = np.array(ix._maxtf, dtype=np.int64)
    cols["ix_mindl"] = np.array(ix._mindl, dtype=np.int64)
    cols["ix_code_tf"] = ix._code_tf[: ix._n_codes].astype(np.float64)
    cols["ix_code_dl"] = ix._code_dl[: ix._n_codes].astype(np.float64)
    head = {"k1": ix.k1, "b": ix.b, "total_len": int(ix._total_len), "n_codes": ix._n_codes,
            "dmap_min": ix.DMAP_MIN}
    return head, cols


# -- writing --------------------------------------------------------------------------------
def write_binary(path: str | os.PathLike, lib: Any, label: str, universe: dict,
                 content_hash: str | None = None) -> str:
    """Write ``lib`` as a ``kbgs-1`` file (temp file, fsync, os.replace); returns its
    digest (:meth:`Library.digest`, carried by the library: no pass over the notes). The
    snapshot ``content_hash`` goes into the header only when the caller knows it."""
    from kbgym.library.graph import gc_paused

    with gc_paused():  # (millions of short-lived lists and strings, none of them cyclic)
        notes = note_table(lib)
        digest = lib.digest()
        head, cols = library_columns(lib, notes)
        head.update(note_sum=f"{lib._note_sum():064x}", origins_digest=lib._odg)
        ihead, icols = index_columns(lib, cols["num"], notes[0])
        del notes
    cols.update(icols)
    sections, offset = [], 0
    for name, arr in cols.items():
        code = {np.dtype(v): k for k, v in _DTYPES.items()}[arr.dtype]
        sections.append({"name": name, "dtype": code, "n": int(arr.size), "offset": offset})
        offset += arr.nbytes
    header = {"schema_version": 1, "kind": "kbgym.snapshot", "format": FORMAT, "label": label,
              "universe": {"path": universe.get("path"), "hash": universe.get("hash")},
              "content_hash": content_hash, "digest": digest, "library": head, "index": ihead,
              "sections": sections}
    htext = canonical(header).encode("utf-8")
    with atomic_file(path) as fh:
        h = hashlib.sha256()

        def out(data) -> None:
            h.update(data)
            fh.write(data)

        out(MAGIC)
        out(len(htext).to_bytes(8, "little"))
        out(htext)
        for arr in cols.values():
            col = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False)
            out(col.data.cast("B"))
        fh.write(TRAILER + h.digest())
    return digest


# -- reading --------------------------------------------------------------------------------
def _read_header(fh: BinaryIO, size: int, source: str) -> dict:
    def bad(msg: str) -> SnapshotIntegrityError:
        return SnapshotIntegrityError(f"{source}: {msg}")

    if size < len(MAGIC) + 8 + len(TRAILER) + 32:
        raise bad("truncated binary snapshot (shorter than its fixed parts)")
    if fh.read(len(MAGIC)) != MAGIC:
        raise bad("not a kbgs-1 binary snapshot (bad magic)")
    n = int.from_bytes(fh.read(8), "little")
    if n > min(_MAX_HEADER, size - len(MAGIC) - 8 - len(TRAILER) - 32):
        raise bad("truncated or corrupt binary snapshot (header length beyond the file)")
    try:
        header = json.loads(fh.read(n).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise bad("corrupt binary snapshot header (not JSON)") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise bad(f"binary snapshot header is not {FORMAT}")
    sections = header.get("sections")
    if not isinstance(sections, list):
        raise bad("binary snapshot header has no sections")
    data_start = len(MAGIC) + 8 + n
    offset = 0
    for s in sections:
        if not (isinstance(s, dict) and s.get("dtype") in _DTYPES and type(s.get("n")) is int
                and s["n"] >= 0 and s.get("offset") == offset and isinstance(s.get("name"), str)):
            raise bad("binary snapshot has a malformed section table")
        offset += s["n"] * np.dtype(_DTYPES[s["dtype"]]).itemsize
    if data_start + offset + len(TRAILER) + 32 != size:
        raise bad(f"truncated or corrupt binary snapshot ({size} bytes; its sections need "
                  f"{data_start + offset + len(TRAILER) + 32})")
    header["_data_start"] = data_start
    return header


def _verify(mm: np.ndarray, size: int, source: str) -> None:
    """The trailer's sha256 against every byte before it, hashed in bounded slices of the
    mapped file (no copy of it; the columns are then read from the same mapping)."""
    h = hashlib.sha256()
    body = size - len(TRAILER) - 32
    view = mm.data if len(mm) == size else memoryview(b"")
    for lo in range(0, body if len(view) else 0, _CHUNK):
        h.update(view[lo: min(body, lo + _CHUNK)])
    tail = bytes(view[body:]) if len(view) else b""
    if tail[: len(TRAILER)] != TRAILER or tail[len(TRAILER):] != h.digest():
        raise SnapshotIntegrityError(
            f"{source}: binary snapshot checksum mismatch; the file is truncated or corrupt - "
            f"restore or rewrite it")


def read_binary(path: str | os.PathLike, **library_kwargs: Any) -> tuple[Any, dict]:
    """Load a ``kbgs-1`` file: (library, header). The stored index is used unless
    ``search=`` is given (then that backend is filled). One-line SnapshotIntegrityError on
    any damage."""
    path = Path(path)
    source = str(path)
    size = path.stat().st_size
    with open(path, "rb") as fh:
        header = _read_header(fh, size, source)
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    _verify(mm, size, source)
    cols = {}
    at = header["_data_start"]
    for s in header["sections"]:
        dt = np.dtype(_DTYPES[s["dtype"]]).newbyteorder("<")
        nbytes = s["n"] * dt.itemsize
        cols[s["name"]] = np.frombuffer(mm[at: at + nbytes], dtype=dt)
        at += nbytes
    from kbgym.library.graph import gc_paused

    try:
        with gc_paused():
            lib = _build(cols, header, source, library_kwargs)
    except SnapshotIntegrityError as err:
        msg = str(err)
        raise SnapshotIntegrityError(msg if msg.startswith(source) else f"{source}: {msg}") \
            from None
    except (KeyError, IndexError, ValueError, TypeError) as err:
        raise SnapshotIntegrityError(
            f"{source}: malformed binary snapshot ({type(err).__name__}: {err})") from None
    finally:
        del mm
    out = {k: v for k, v in header.items() if k not in ("sections", "_data_start", "library",
                                                         "index")}
    return lib, out


def _origin_list(cols: dict, ids: list) -> list:
    """The library's origin list; when its bytes are those of the first ids (the originals,
    then only additions) it is those ids, with no split of its blob."""
    blob, off = cols["origins_blob"], cols["origins_off"]
    k = len(off) - 1
    ioff, iblob = cols["id_off"], cols["id_blob"]
    if 0 < k <= len(ids) and int(off[-1]) == len(blob) + 1 and \
            int(ioff[-1]) == len(iblob) + 1 and np.array_equal(off, ioff[: k + 1]) and \
            np.array_equal(blob, iblob[: len(blob)]):
        return ids[:k]
    return _unstrings(blob, off, "origin list")


def _ids_are_numbers(blob: np.ndarray, off: np.ndarray, nums: np.ndarray, ids: list) -> bool:
    """Whether every id is ``s`` + the decimal digits of its note number (with the numbers
    increasing this makes the ids unique, without a set of them): over the id blob at once
    when the ids are short NUL-joined ASCII, else id by id."""
    from kbgym.protocol.ids import id_num

    n = len(nums)
    if n == 0:
        return True
    o = np.asarray(off, dtype=np.int64)
    starts, ends = o[:-1], o[1:] - 1
    lens = ends - starts
    if int(o[-1]) == len(blob) + 1 and int(lens.min()) >= 2 and int(lens.max()) <= 19:
        b = np.asarray(blob, dtype=np.uint8)
        if not bool((b[starts] == ord("s")).all()) or bool(b[ends[:-1]].any()):
            return False
        d = b - np.uint8(48)  # (wraps: a non-digit byte is >= 10)
        if not bool((np.add.reduceat((d < 10).view(np.uint8), starts + 1) == lens - 1).all()):
            return False  # (each segment runs to the next id's "s", its NUL included)
        val = np.zeros(n, dtype=np.int64)
        digits = lens - 1
        for k in range(int(lens.max()) - 1):  # the k-th digit from the right of each id
            # (read for every id, masked where it has fewer digits: cheaper than selecting)
            dk = d[np.maximum(ends - 1 - k, 0)].astype(np.int64)
            dk[digits <= k] = 0
            val += dk * 10 ** k
        return bool((val == np.asarray(nums, dtype=np.int64)).all())
    try:
        return [id_num(x) for x in ids] == np.asarray(nums).tolist()
    except ValueError:
        return False


def _build(cols: dict, header: dict, source: str, kwargs: dict) -> Any:
    from kbgym.library.graph import AUTHORED, Library, NodeColumns, gc_paused
    from kbgym.library.columns import CodeColumn, LazyDict, OriginColumn
    from kbgym.library.layers import LayeredMap

    head = header["library"]
    n = head["n_nodes"]
    ids = _unstrings(cols["id_blob"], cols["id_off"], "note ids")
    texts = _unstrings(cols["text_blob"], cols["text_off"], "note texts", column=True)
    numa = cols["num"]
    flags = cols["flag"]
    okind = cols["origin_kind"]
    if not (len(ids) == len(texts) == len(numa) == len(flags) == len(okind) == n):
        raise SnapshotIntegrityError("note columns disagree in length")
    if n and (int(flags.max()) > 2 or int(okind.max()) > 2):
        raise SnapshotIntegrityError("unknown flag or origin kind")
    if n and (int(numa.min()) < 0 or int(numa.max()) >= head["next_id"]
              or bool((np.diff(numa) <= 0).any())):
        raise SnapshotIntegrityError("note numbers are not increasing below next_id")
    if not _ids_are_numbers(cols["id_blob"], cols["id_off"], numa, ids):
        raise SnapshotIntegrityError("note ids do not match their numbers")
    nums = array("q", numa.astype(np.int64).tobytes())
    origins_of = None  # (kept as the file's codes: no list of them is made)
    if n and not bool((okind == 1).all()):
        others = _unstrings(cols["origin_blob"], cols["origin_off"], "origins")
        if len(others) != int(np.count_nonzero(okind == 2)):
            raise SnapshotIntegrityError("origins disagree with their kinds")
        origins_of = OriginColumn(np.array(okind, dtype=np.uint8), ids, others)
    flag_of = None
    if n and bool(flags.any()):
        flag_of = CodeColumn(np.array(flags, dtype=np.uint8), _FLAGS)
    ab = _unstrings(cols["abs_blob"], cols["abs_soff"], "absorbed origins")
    aoff = cols["abs_off"]
    origins = ids if head.get("origins_are_ids") else \
        _origin_list(cols, ids)
    loff = cols["link_off"]
    dst = cols["link_dst"]
    if len(aoff) != n + 1 or len(loff) != n + 1 or int(aoff[-1]) != len(ab) or \
            int(loff[-1]) != len(dst) or (len(dst) and (int(dst.min()) < 0 or int(dst.max()) >= n)):
        raise SnapshotIntegrityError("link or absorbed columns are inconsistent")
    absorbed = {}
    for i in np.flatnonzero(np.diff(aoff)).tolist():
        absorbed[i] = tuple(ab[int(aoff[i]): int(aoff[i + 1])])
    srcs = np.flatnonzero(np.diff(loff))
    table = NodeColumns(ids, nums, texts, origins_of, flag_of, absorbed or None,
                        [ids[i] for i in srcs.tolist()])
    search = kwargs.pop("search", None)
    with gc_paused():
        lib = Library(origins=origins, next_id=head["next_id"], merges=head["merges"], **kwargs)
        # notes with links are made now (their links and in-links); the rest when touched
        starts, stops = loff[srcs].tolist(), loff[srcs + 1].tolist()  # (not a list of n)
        touched = np.union1d(srcs, dst) if len(dst) else srcs
        made = {ids[i]: table.make(i) for i in touched.tolist()}
        types = cols["link_type"].tolist()
        hashes = cols["link_hash"].tolist()
        has = cols["link_has_hash"].tolist()
        dl = dst.tolist()
        for i, j0, j1 in zip(srcs.tolist(), starts, stops):
            src = made[ids[i]]
            links = src.links = []  # (a made note shares the empty NO_LINKS until now)
            for j in range(j0, j1):
                t = made[ids[dl[j]]]
                if t is src or (t._in and src.id in t._in):
                    raise SnapshotIntegrityError(f"node {src.id} has a bad link to {t.id}")
                links.append(t.id)
                if types[j]:
                    if types[j] >= len(_TYPES):
                        raise SnapshotIntegrityError(f"node {src.id} has an unknown link type")
                    if src._types is None:
                        src._types = {}
                    src._types[t.id] = str(_TYPES[types[j]])  # 0 is "untyped": not stored
                if has[j]:
                    if src._hashes is None:
                        src._hashes = {}
                    src._hashes[t.id] = f"{hashes[j]:016x}"
                if t._in is None:
                    t._in = {}
                t._in[src.id] = None
                if src.flag == AUTHORED:
                    t._ain += 1
        lazy = table.lazy(made)  # (ids are unique: they spell the increasing numbers)
        lib._nodes = LayeredMap.over(lazy, private=True)
        # counters (the values _insert and _add_edge would have counted)
        valid = lib._origin_set
        simple = not absorbed and not bool((okind == 2).any())
        if simple and (origins is ids or origins == ids):
            # every original carries its own id, unless edited (the map made when first needed)
            own = np.flatnonzero((okind == 1) & (flags != 1))
            if len(own) == n:
                carriers = LazyDict(lambda: dict.fromkeys(ids, 1), n)
            else:
                kl = own.tolist()
                carriers = LazyDict(lambda: dict.fromkeys([ids[i] for i in kl], 1), len(kl))
        elif simple:
            # no note carries another's origin: a carrier is an unedited note whose origin is
            # its own id (each once: ids are unique), counted if that id is an origin; only
            # those notes are looked at (after an edit to every note: none)
            own_ids = [ids[i] for i in np.flatnonzero((okind == 1) & (flags != 1)).tolist()]
            carriers = dict.fromkeys([x for x in own_ids if x in valid], 1)  # type: ignore[assignment]
        else:
            count: Counter[str] = Counter()
            ol = None if origins_of is None else list(origins_of)
            fl = None if flag_of is None else list(flag_of)
            for i in range(n):
                own = ids[i] if ol is None else ol[i]
                if fl is not None and fl[i] == "edited":
                    own = None
                if i in absorbed:
                    group = set(absorbed[i])
                    if own is not None:
                        group.add(own)
                    count.update(o for o in group if o in valid)
                elif own is not None and own in valid:
                    count[own] += 1
            carriers = dict(count)  # type: ignore[assignment]  # a plain dict is a base too
        lib._carriers = LayeredMap.over(carriers)
        lib._authored = int(np.count_nonzero(flags == 2))
        lib._edited = int(np.count_nonzero(flags == 1))
        lib._tokens = 0  # sum(len(t) // 4), from the character offsets
        if n:
            toff = cols["text_off"]
            sep = int(toff[-1] - toff[-2]) - len(texts[-1])  # 1: a NUL counted after each
            lib._tokens = int(((np.diff(toff) - sep) // 4).sum())
        lib._alive = len(carriers)
        lib._dup = 0 if isinstance(carriers, LazyDict) else \
            sum(1 for c in carriers.values() if c > 1)
        lib._n_links = len(dl)
        has_in = np.zeros(n, dtype=bool)
        if len(dst):
            has_in[dst] = True
        lib._orph = int(np.count_nonzero((np.diff(loff) == 0) & ~has_in))
        lib._indexed = sum(1 for x in made.values() if x._ain and x.origin is not None)
    ihead = header.get("index")
    if search is not None:
        lib.attach_search(search, refresh=lib.refresh_mode)
    elif ihead is not None:
        lib._search = _build_index(cols, ihead, table, lazy._pos)
    if isinstance(header.get("content_hash"), str):
        lib._content_hash = (lib.state_key(), header["content_hash"])
    _carry_digest(lib, header, table)
    return lib


def _carry_digest(lib: Any, header: dict, table: Any) -> None:
    """The loaded library's digest: the header's note sum as its base (checked against the
    header's digest), or, for a file written before the digest existed, not tracked until
    asked for (then computed in full)."""
    from kbgym.library.digest import DigestBase

    head = header["library"]
    want, ns, og = header.get("digest"), head.get("note_sum"), head.get("origins_digest")
    if not (isinstance(want, str) and isinstance(ns, str) and isinstance(og, str)):
        lib._dsum, lib._dbase = None, None
        return
    try:
        note_sum = int(ns, 16)
    except ValueError:
        raise SnapshotIntegrityError("bad note sum in the header") from None
    if not (0 <= note_sum <= MASK) or library_digest(head["next_id"], head["merges"], og,
                                                     note_sum) != want:
        raise SnapshotIntegrityError("the header's digest does not match its note sum")
    lib._dsum, lib._dbase, lib._odg = 0, DigestBase(value=note_sum), og


def _build_index(cols: dict, head: dict, table: Any, pos: dict):
    from kbgym.library.layers import LayeredMap
    from kbgym.library.search import BM25Index

    ix = BM25Index(head["k1"], head["b"])
    ids, texts = table.ids, table.texts
    slot_node = cols["ix_slot_node"]
    if len(slot_node) and (int(slot_node.min()) < 0 or int(slot_node.max()) >= len(ids)):
        raise SnapshotIntegrityError("index slots name missing notes")
    terms = _unstrings(cols["ix_vocab_blob"], cols["ix_vocab_off"], "index terms")
    off = cols["ix_post_off"]
    V = len(terms)
    if len(off) != V + 1 or int(off[-1]) != len(cols["ix_post_slot"]) or \
            len(cols["ix_df"]) != V or len(cols["ix_maxtf"]) != V or len(cols["ix_mindl"]) != V:
        raise SnapshotIntegrityError("index postings are inconsistent")
    ps = np.array(cols["ix_post_slot"], dtype=np.int64)
    pc = np.array(cols["ix_post_code"], dtype=np.intp)
    n_slots = len(slot_node)
    if len(ps) and (int(ps.min()) < 0 or int(ps.max()) >= n_slots):
        raise SnapshotIntegrityError("index postings name missing slots")
    if len(pc) and (int(pc.min()) < 1 or int(pc.max()) >= head["n_codes"]):
        raise SnapshotIntegrityError("index postings have unknown codes")
    o = off.tolist()
    ix._vocab = {t: i for i, t in enumerate(terms)}
    ix._hs = [ps[o[i]: o[i + 1]] for i in range(V)]
    ix._hc = [pc[o[i]: o[i + 1]] for i in range(V)]
    ix._ts = [np.zeros(4, dtype=np.int64) for _ in range(V)]
    ix._tc = [np.zeros(4, dtype=np.intp) for _ in range(V)]
    ix._tn = [0] * V
    ix._town = set(range(V))
    ix._df = cols["ix_df"].tolist()
    ix._pdead = [0] * V
    ix._maxtf = cols["ix_maxtf"].tolist()
    ix._mindl = cols["ix_mindl"].tolist()
    ix._code_tf = np.array(cols["ix_code_tf"], dtype=np.float64)
    ix._code_dl = np.array(cols["ix_code_dl"], dtype=np.float64)
    ix._n_codes = head["n_codes"]
    if len(ix._code_tf) != ix._n_codes or len(ix._code_dl) != ix._n_codes:
        raise SnapshotIntegrityError("index codes are inconsistent")
    ix._code_of = {(int(t), int(d)): c for c, (t, d) in
                   enumerate(zip(ix._code_tf.tolist(), ix._code_dl.tolist())) if c}
    if n_slots == len(ids) and bool((slot_node == np.arange(n_slots)).all()):
        # slots in note order (the usual case): the note columns serve as they are
        ix._sid_h, ix._stx_h = ids, texts
        ix._snum_h = np.asarray(cols["num"], dtype=np.int64).copy()
        ix._doc_slot = LayeredMap.over(pos)
    else:
        sn = slot_node.tolist()
        ix._sid_h = [ids[i] for i in sn]
        ix._stx_h = [texts[i] for i in sn]
        ix._snum_h = np.asarray(cols["num"], dtype=np.int64)[slot_node]
        ix._doc_slot = LayeredMap.over(dict(zip(ix._sid_h, range(n_slots))))
    ix._nh = ix._n_slots = n_slots
    ix._dead = np.zeros(max(64, 2 * n_slots), dtype=bool)
    ix._total_len = head["total_len"]
    return ix
