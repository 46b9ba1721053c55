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
                                      universe, content_hash, library {next_id, merges,
                                      n_nodes}, index {...} or null, and the sections:
                                      [{name, dtype, n, offset}] in file order
    the sections                      each an array's raw bytes, contiguous, in that order
    b"KBGSEND1" + sha256              the trailer: 8 + 32 bytes over everything before it

The library's columns: note numbers, ids, texts (one UTF-8 blob with character offsets),
flags, origins, absorbed origins and links (offsets + targets as node positions, types and
hashes aligned with them), the origin list. The index, when stored, is its compacted state:
live slots (as node positions: their texts are the notes'), posting lists per term, the
(tf, dl) codes and the MaxScore bounds. ``content_hash`` is the one the JSON form of the same
library has (SPEC §15.2): :func:`library_hash` computes it without building the JSON objects.

The file is written as a stream (a temp file, fsync, rename); a failure leaves nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from kbgym.errors import SnapshotIntegrityError
from kbgym.jsonio import _UNSAFE, _escape, canonical

MAGIC = b"KBGSNAP1"
TRAILER = b"KBGSEND1"
FORMAT = "kbgs-1"
_DTYPES = {"u1": np.uint8, "i8": np.int64, "u8": np.uint64, "f8": np.float64}
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
def _js(s: str) -> str:
    return encode_basestring(s)


def _node_json(n: Any) -> str:
    """The canonical JSON of ``n.to_json()`` (sorted keys, no spaces), before escaping."""
    flag = "null" if n.flag is None else f'"{n.flag}"'
    origin = "null" if n.origin is None else _js(n.origin)
    parts = ['{"absorbed":[', ",".join(map(_js, n.absorbed)), '],"flag":', flag,
             ',"id":', _js(n.id)]
    if n._hashes:
        parts += [',"link_hashes":{',
                  ",".join(f"{_js(k)}:{_js(v)}" for k, v in sorted(n._hashes.items())), "}"]
    if n._types:
        parts += [',"link_types":{',
                  ",".join(f"{_js(k)}:{_js(v)}" for k, v in sorted(n._types.items())), "}"]
    parts += [',"links":[', ",".join(map(_js, n.links)), '],"origin":', origin, ',"text":',
              _js(n.text), "}"]
    return "".join(parts)


def library_hash(lib: Any) -> str:
    """``content_hash(lib.snapshot())``, streamed: the canonical JSON text is hashed in
    chunks as it is made, and plain notes (no links, nothing absorbed) take a template."""
    h = hashlib.sha256()

    def feed(text: str) -> None:
        h.update(_UNSAFE.sub(_escape, text).encode("utf-8"))

    feed(f'{{"merges":{int(lib.merges)},"next_id":{int(lib.next_id)},"nodes":[')
    plain = '{"absorbed":[],"flag":%s,"id":"%s","links":[],"origin":%s,"text":%s}'
    buf: list[str] = []
    first = True
    for n in lib:
        if n.links or n.absorbed or n._hashes or n._types or not n.id.isascii():
            buf.append(_node_json(n))
        else:
            buf.append(plain % ("null" if n.flag is None else f'"{n.flag}"', n.id,
                                "null" if n.origin is None else _js(n.origin), _js(n.text)))
        if len(buf) >= 16384:
            feed(("" if first else ",") + ",".join(buf))
            first, buf = False, []
    if buf:
        feed(("" if first else ",") + ",".join(buf))
    feed('],"origins":[' + ",".join(map(_js, lib.origins)) + "]}\n")
    return "sha256:" + h.hexdigest()


# -- columns --------------------------------------------------------------------------------
def _strings(items: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """A UTF-8 blob and the character offsets of ``items`` (len + 1)."""
    joined = "".join(items)
    off = np.zeros(len(items) + 1, dtype=np.int64)
    if items:
        np.cumsum(np.fromiter(map(len, items), dtype=np.int64, count=len(items)), out=off[1:])
    return np.frombuffer(joined.encode("utf-8", "surrogatepass"), dtype=np.uint8), off


def _unstrings(blob: np.ndarray, off: np.ndarray, what: str) -> list[str]:
    try:
        text = blob.tobytes().decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        raise SnapshotIntegrityError(f"{what} is not UTF-8") from None
    o = off.tolist()
    if o[0] != 0 or o[-1] != len(text) or any(b < a for a, b in zip(o, o[1:])):
        raise SnapshotIntegrityError(f"{what} offsets are inconsistent")
    return [text[a:b] for a, b in zip(o, o[1:])]


def library_columns(lib: Any) -> tuple[dict, dict[str, np.ndarray], dict[str, int]]:
    """(header fields, columns, id -> position) of a library."""
    nodes = list(lib)
    pos = {n.id: i for i, n in enumerate(nodes)}
    cols: dict[str, np.ndarray] = {}
    cols["num"] = np.fromiter((n.num for n in nodes), dtype=np.int64, count=len(nodes))
    cols["id_blob"], cols["id_off"] = _strings([n.id for n in nodes])
    cols["text_blob"], cols["text_off"] = _strings([n.text for n in nodes])
    cols["flag"] = np.fromiter((_FLAGS.index(n.flag) for n in nodes), dtype=np.uint8,
                               count=len(nodes))
    # origins: 1 = the note's own id (most originals), 0 = none, 2 = another (listed in order)
    okind = np.fromiter((0 if n.origin is None else 1 if n.origin == n.id else 2
                         for n in nodes), dtype=np.uint8, count=len(nodes))  # fmt: skip
    cols["origin_kind"] = okind
    cols["origin_blob"], cols["origin_off"] = _strings(
        [n.origin for n, k in zip(nodes, okind.tolist()) if k == 2])
    absorbed = [n.absorbed for n in nodes]
    cols["abs_off"] = np.cumsum([0] + [len(a) for a in absorbed], dtype=np.int64)
    cols["abs_blob"], cols["abs_soff"] = _strings([o for a in absorbed for o in a])
    linked = [n for n in nodes if n.links]
    lcount = np.zeros(len(nodes), dtype=np.int64)
    dst, typ, hsh, has = [], [], [], []
    for n in linked:
        lcount[pos[n.id]] = len(n.links)
        types, hashes = n.link_types, n._hashes or {}
        for t in n.links:
            dst.append(pos[t])
            typ.append(_TYPES.index(types.get(t)))
            h = hashes.get(t)
            has.append(h is not None)
            hsh.append(int(h, 16) if h is not None else 0)
    cols["link_off"] = np.concatenate(([0], np.cumsum(lcount))).astype(np.int64)
    cols["link_dst"] = np.array(dst, dtype=np.int64)
    cols["link_type"] = np.array(typ, dtype=np.uint8)
    cols["link_hash"] = np.array(hsh, dtype=np.uint64)
    cols["link_has_hash"] = np.array(has, dtype=np.uint8)
    cols["origins_blob"], cols["origins_off"] = _strings(list(lib.origins))
    if any(len(h) != 16 for n in linked for h in (n._hashes or {}).values()):
        raise ValueError("link hashes must be 16 hex digits")
    head = {"next_id": int(lib.next_id), "merges": int(lib.merges), "n_nodes": len(nodes)}
    return head, cols, pos


def index_columns(lib: Any, pos: dict[str, int]) -> tuple[dict | None, dict[str, np.ndarray]]:
    """The compacted BM25 state, when the index is a BM25Index fully in step with the notes
    (nothing pending); else (None, {}) and the index is rebuilt on load."""
    from kbgym.library.search import BM25Index

    ix = lib.search_backend
    if type(ix) is not BM25Index or lib._dirty or len(ix) != len(lib):
        return None, {}
    n_old = ix._n_slots
    alive = ~ix._dead[:n_old]
    live = np.flatnonzero(alive)
    remap = np.cumsum(alive) - 1
    ids = ix._ids(live.tolist())
    try:
        slot_node = np.fromiter((pos[i] for i in ids), dtype=np.int64, count=len(ids))
    except KeyError:
        return None, {}
    if any(ix._text(s) != lib[i].text for s, i in zip(live.tolist(), ids)):
        return None, {}
    terms = sorted(ix._vocab, key=ix._vocab.__getitem__)
    post_s, post_c, lens = [], [], []
    for tid in range(len(terms)):
        slots, codes = ix._post(tid)
        keep = alive[slots]
        post_s.append(remap[slots[keep]])
        post_c.append(codes[keep].astype(np.int64))
        lens.append(int(keep.sum()))
    cols = {"ix_slot_node": slot_node}
    cols["ix_vocab_blob"], cols["ix_vocab_off"] = _strings(terms)
    cols["ix_post_off"] = np.concatenate(([0], np.cumsum(lens, dtype=np.int64))).astype(np.int64)
    cols["ix_post_slot"] = (np.concatenate(post_s) if post_s else np.zeros(0)).astype(np.int64)
    cols["ix_post_code"] = (np.concatenate(post_c) if post_c else np.zeros(0)).astype(np.int64)
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
    """Write ``lib`` as a ``kbgs-1`` file (temp file, fsync, os.replace); its content hash."""
    digest = content_hash or library_hash(lib)
    head, cols, pos = library_columns(lib)
    ihead, icols = index_columns(lib, pos)
    cols.update(icols)
    sections, offset = [], 0
    for name, arr in cols.items():
        code = {np.dtype(v): k for k, v in _DTYPES.items()}[arr.dtype]
        sections.append({"name": name, "dtype": code, "n": int(arr.size), "offset": offset})
        offset += arr.nbytes
    header = {"schema_version": 1, "kind": "kbgym.snapshot", "format": FORMAT, "label": label,
              "universe": {"path": universe.get("path"), "hash": universe.get("hash")},
              "content_hash": digest, "library": head, "index": ihead, "sections": sections}
    htext = canonical(header).encode("utf-8")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as fh:
            h = hashlib.sha256()

            def out(data) -> None:
                h.update(data)
                fh.write(data)

            out(MAGIC)
            out(len(htext).to_bytes(8, "little"))
            out(htext)
            for arr in cols.values():
                out(memoryview(np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"),
                                                                copy=False)).cast("B"))
            fh.write(TRAILER + h.digest())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
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


def _verify(path: Path, size: int, source: str) -> None:
    """The trailer's sha256 against every byte before it, read in bounded chunks."""
    h = hashlib.sha256()
    body = size - len(TRAILER) - 32
    with open(path, "rb") as fh:
        left = body
        while left:
            chunk = fh.read(min(_CHUNK, left))
            if not chunk:
                break
            h.update(chunk)
            left -= len(chunk)
        tail = fh.read()
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
    _verify(path, size, source)
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    cols = {}
    at = header["_data_start"]
    for s in header["sections"]:
        dt = np.dtype(_DTYPES[s["dtype"]]).newbyteorder("<")
        nbytes = s["n"] * dt.itemsize
        cols[s["name"]] = np.frombuffer(mm[at: at + nbytes], dtype=dt)
        at += nbytes
    try:
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


def _build(cols: dict, header: dict, source: str, kwargs: dict) -> Any:
    from kbgym.library.graph import AUTHORED, Library, Node, gc_paused
    from kbgym.library.layers import LayeredMap

    head = header["library"]
    n = head["n_nodes"]
    ids = _unstrings(cols["id_blob"], cols["id_off"], "note ids")
    texts = _unstrings(cols["text_blob"], cols["text_off"], "note texts")
    nums = cols["num"].tolist()
    flags = cols["flag"]
    okind = cols["origin_kind"]
    if not (len(ids) == len(texts) == len(nums) == len(flags) == len(okind) == n):
        raise SnapshotIntegrityError("note columns disagree in length")
    if len(flags) and int(flags.max()) > 2 or len(okind) and int(okind.max()) > 2:
        raise SnapshotIntegrityError("unknown flag or origin kind")
    others = iter(_unstrings(cols["origin_blob"], cols["origin_off"], "origins"))
    okl = okind.tolist()
    origins_of = [None if k == 0 else ids[i] if k == 1 else next(others)
                  for i, k in enumerate(okl)]
    absorbed = _unstrings(cols["abs_blob"], cols["abs_soff"], "absorbed origins")
    aoff = cols["abs_off"].tolist()
    origins = _unstrings(cols["origins_blob"], cols["origins_off"], "origin list")
    loff = cols["link_off"]
    dst = cols["link_dst"]
    if len(aoff) != n + 1 or len(loff) != n + 1 or (len(dst) and (int(dst.min()) < 0 or
                                                                  int(dst.max()) >= n)):
        raise SnapshotIntegrityError("link or absorbed columns are inconsistent")
    search = kwargs.pop("search", None)
    fl = flags.tolist()
    with gc_paused():
        lib = Library(origins=origins, next_id=head["next_id"], merges=head["merges"], **kwargs)
        plain: dict[str, Node] = {}
        for i in range(n):
            a, b = aoff[i], aoff[i + 1]
            node = Node(ids[i], nums[i], texts[i], origins_of[i], _FLAGS[fl[i]],
                        tuple(absorbed[a:b]) if b > a else ())
            plain[ids[i]] = node
        if len(plain) != n or any(x >= head["next_id"] for x in nums):
            raise SnapshotIntegrityError("duplicate note ids or ids beyond next_id")
        # counters, vectorised (the same values _insert and _add_edge would count)
        valid = lib._origin_set
        carriers = Counter()
        for i in range(n):
            own = origins_of[i] if fl[i] != 1 else None
            a, b = aoff[i], aoff[i + 1]
            if b > a:
                group = set(absorbed[a:b])
                if own is not None:
                    group.add(own)
                carriers.update(o for o in group if o in valid)
            elif own is not None and own in valid:
                carriers[own] += 1
        lib._authored = int(np.count_nonzero(flags == 2))
        lib._edited = int(np.count_nonzero(flags == 1))
        lib._tokens = int((np.diff(cols["text_off"]) // 4).sum())
        lib._alive = len(carriers)
        lib._dup = sum(1 for c in carriers.values() if c > 1)
        lib._n_links = int(len(dst))
        nodes = [plain[i] for i in ids]
        lo = loff.tolist()
        types = cols["link_type"].tolist()
        hashes = cols["link_hash"].tolist()
        has = cols["link_has_hash"].tolist()
        dl = dst.tolist()
        has_in = np.zeros(n, dtype=bool)
        for i in np.flatnonzero(np.diff(loff)).tolist():
            src = nodes[i]
            links = src.links
            for j in range(lo[i], lo[i + 1]):
                t = nodes[dl[j]]
                if t is src or (t._in and src.id in t._in):
                    raise SnapshotIntegrityError(f"node {src.id} has a bad link to {t.id}")
                links.append(t.id)
                if types[j]:
                    if src._types is None:
                        src._types = {}
                    src._types[t.id] = _TYPES[types[j]]
                if has[j]:
                    if src._hashes is None:
                        src._hashes = {}
                    src._hashes[t.id] = f"{hashes[j]:016x}"
                if t._in is None:
                    t._in = {}
                t._in[src.id] = None
                if src.flag == AUTHORED:
                    t._ain += 1
        if len(dst):
            has_in[dst] = True
        out_any = np.diff(loff) > 0
        lib._orph = int(np.count_nonzero(~out_any & ~has_in))
        lib._indexed = sum(1 for x in nodes if x._ain and x.origin is not None)
        lib._nodes, lib._carriers = LayeredMap(plain), LayeredMap(dict(carriers))
    ihead = header.get("index")
    if search is not None:
        lib.attach_search(search, refresh=lib.refresh_mode)
    elif ihead is not None:
        lib._search = _build_index(cols, ihead, ids, texts, nums)
    lib._content_hash = (lib.state_key(), header.get("content_hash"))
    return lib


def _build_index(cols: dict, head: dict, ids: list[str], texts: list[str], nums: list[int]):
    from kbgym.library.layers import LayeredMap
    from kbgym.library.search import BM25Index

    ix = BM25Index(head["k1"], head["b"])
    slot_node = cols["ix_slot_node"]
    if len(slot_node) and (int(slot_node.min()) < 0 or int(slot_node.max()) >= len(ids)):
        raise SnapshotIntegrityError("index slots name missing notes")
    sn = slot_node.tolist()
    terms = _unstrings(cols["ix_vocab_blob"], cols["ix_vocab_off"], "index terms")
    off = cols["ix_post_off"]
    V = len(terms)
    if len(off) != V + 1 or int(off[-1]) != len(cols["ix_post_slot"]):
        raise SnapshotIntegrityError("index postings are inconsistent")
    ps = np.array(cols["ix_post_slot"], dtype=np.int64)
    pc = np.array(cols["ix_post_code"], dtype=np.intp)
    if len(ps) and (int(ps.min()) < 0 or int(ps.max()) >= len(sn)):
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
    nc = head["n_codes"]
    ix._code_tf = np.array(cols["ix_code_tf"], dtype=np.float64)
    ix._code_dl = np.array(cols["ix_code_dl"], dtype=np.float64)
    ix._n_codes = nc
    ix._code_of = {(int(t), int(d)): c for c, (t, d) in
                   enumerate(zip(ix._code_tf.tolist(), ix._code_dl.tolist())) if c}
    ix._sid_h = [ids[i] for i in sn]
    ix._stx_h = [texts[i] for i in sn]
    ix._snum_h = np.array([nums[i] for i in sn], dtype=np.int64)
    ix._nh = ix._n_slots = len(sn)
    ix._dead = np.zeros(max(64, 2 * len(sn)), dtype=bool)
    ix._doc_slot = LayeredMap(dict(zip(ix._sid_h, range(len(sn)))))
    ix._total_len = head["total_len"]
    return ix
