"""The library's incremental digest: a content identity carried through every operation.

Why: the snapshot ``content_hash`` (SPEC §15.2) is the sha256 of the library's canonical JSON,
a pass over every note; at 10^6 notes that pass was a fifth of a binary snapshot's round
trip. The digest is the same content (every note's visible and hidden fields, the origins,
``next_id`` and ``merges``) combined in an order-free way, so the library keeps it up to date
in O(changed notes) per operation (:meth:`kbgym.library.graph.Library.digest`).

Definition (``kbd1``):

- a note's digest is the blake2b-256 of the UTF-8 bytes of its canonical encoding
  (:func:`note_text`: every field the JSON snapshot holds for it, each string as
  ``{length}:{string}``: id, text, origin or ``-``, the flag as ``n``/``e``/``a``, the
  absorbed origins, the links in order each with its type and its target's hash or ``-``),
  read as a little-endian integer;
- the note sum is the sum of the note digests modulo 2^256 (order-free: the sum moves by
  ``new - old`` when one note changes);
- the origins digest is the sha256 of the origin ids joined by NUL;
- the library digest is ``"kbd1:"`` + the blake2b-256 hex of ``"kbd1|{next_id}|{merges}|
  {origins digest}|{note sum as 64 hex}"``.

It is *not* the snapshot content hash and never replaces it: JSON snapshots, bench packages
and run records keep ``content_hash`` (their recorded hashes must not move); the binary
snapshot (``kbgs-1``) carries the digest so that writing it needs no pass over the notes.
"""

from __future__ import annotations

import hashlib
from itertools import repeat
from json.encoder import encode_basestring as _js
from typing import Any

MASK = (1 << 256) - 1
PREFIX = "kbd1:"

_b2 = hashlib.blake2b
_from = int.from_bytes
#: The same for a note without links or absorbed origins: flag, id, origin, text encoded.
_PLAIN = '{"absorbed":[],"flag":%s,"id":%s,"links":[],"origin":%s,"text":%s}'


def node_json(n: Any) -> str:
    """The canonical JSON of ``n.to_json()`` (sorted keys, no spaces), before the ASCII
    escaping ``canonical`` applies to the whole file."""
    flag = "null" if n.flag is None else f'"{n.flag}"'
    origin = "null" if n.origin is None else _js(n.origin)
    if not n.links and not n.absorbed and not n._hashes and not n._types:  # (most notes)
        return _PLAIN % (flag, _js(n.id), origin, _js(n.text))
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


_FLAG = {None: "n", "edited": "e", "authored": "a"}


def note_text(n: Any) -> str:
    """The canonical encoding of a note that its digest hashes: length-prefixed fields, so
    that two notes with different JSON objects never share an encoding (cheaper to make
    than the JSON)."""
    i, t, o = n.id, n.text, n.origin
    head = f"{len(i)}:{i}{len(t)}:{t}{'-' if o is None else f'{len(o)}:{o}'}{_FLAG[n.flag]}"
    ab, links = n.absorbed, n.links
    if not ab and not links:
        return head + "0.0."
    parts = [head, f"{len(ab)}."]
    parts += [f"{len(a)}:{a}" for a in ab]
    parts.append(f"{len(links)}.")
    types, hashes = n._types or {}, n._hashes or {}
    for x in links:
        ty, h = types.get(x), hashes.get(x)
        parts.append(f"{len(x)}:{x}{'-' if ty is None else f'{len(ty)}:{ty}'}"
                     f"{'-' if h is None else f'{len(h)}:{h}'}")
    return "".join(parts)


#: A blake2b-256 with nothing hashed yet: copying it is cheaper than making one (the
#: constructor's keyword parsing is most of the cost of hashing a short note).
_B2_EMPTY = _b2(digest_size=32)


def _d(text: str) -> int:
    h = _B2_EMPTY.copy()
    try:
        h.update(text.encode())
    except UnicodeEncodeError:  # (a lone surrogate: passed, as everywhere else)
        h.update(text.encode("utf-8", "surrogatepass"))
    return _from(h.digest(), "little")


def _digests(strs: list[str]) -> bytes:
    """The blake2b-256 digests of ``strs`` (UTF-8, lone surrogates passed), back to back."""
    out: list[bytes] = []
    put, new = out.append, _B2_EMPTY.copy
    try:  # (the plain encode is the faster call; a lone surrogate makes it raise)
        for e in map(_ENC, strs):
            h = new()
            h.update(e)
            put(h.digest())
    except UnicodeEncodeError:
        out.clear()
        for e in map(_ENC, strs, _UTF8, _SP):
            h = new()
            h.update(e)
            put(h.digest())
    return b"".join(out)


def note_digest(n: Any) -> int:
    """One note's digest (an integer below 2^256)."""
    return _d(note_text(n))


def column_sum(cols: Any, linked: dict | None = None) -> int:
    """The note sum of :class:`~kbgym.library.graph.NodeColumns` ``cols``; ``linked`` (id ->
    Node) overrides the notes that have links (the columns hold none)."""
    ids, texts, n = cols.ids, cols.texts, len(cols.ids)
    special = set(cols.absorbed or ())
    if linked:
        special.update(i for i, x in enumerate(ids) if x in linked)
    total = 0
    step = 1 << 16
    fl = _FLAG
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        cid, ctx = ids[lo:hi], texts[lo:hi]
        if cols.origins is None and cols.flags is None:  # untouched originals
            # (the lengths' decimal strings looked up, not formatted: a third of the cost)
            li, lx = _lens(cid), _lens(ctx)
            strs = [f"{a}:{i}{b}:{x}{a}:{i}n0.0." for a, i, b, x in zip(li, cid, lx, ctx)]
        else:
            og = cid if cols.origins is None else cols.origins[lo:hi]
            fs = [None] * (hi - lo) if cols.flags is None else cols.flags[lo:hi]
            strs = [f"{len(i)}:{i}{len(x)}:{x}{'-' if o is None else f'{len(o)}:{o}'}"
                    f"{fl[f]}0.0." for i, x, o, f in zip(cid, ctx, og, fs)]
        for i in special:
            if lo <= i < hi:
                strs[i - lo] = note_text((linked or {}).get(ids[i]) or cols.make(i))
        total += _sum_digests(_digests(strs))
    return total & MASK


_NUM = [str(k) for k in range(1024)]


def _lens(items: list[str]) -> list[str]:
    """The decimal strings of the items' lengths."""
    lens = list(map(len, items))
    if lens and max(lens) >= len(_NUM):
        _NUM.extend(map(str, range(len(_NUM), max(lens) + 1)))
    return list(map(_NUM.__getitem__, lens))


_ENC = str.encode
_UTF8, _SP = repeat("utf-8"), repeat("surrogatepass")


def _sum_digests(digests: bytes) -> int:
    """The sum of the 32-byte little-endian integers ``digests`` holds back to back (their
    32-bit limbs summed as columns by numpy, then carried: no int made per note)."""
    import numpy as np

    limbs = np.frombuffer(digests, dtype="<u4").reshape(-1, 8).sum(axis=0, dtype=np.uint64)
    return sum(int(x) << (32 * k) for k, x in enumerate(limbs.tolist()))


def origins_digest(origins: Any) -> str:
    return hashlib.sha256("\x00".join(origins).encode("utf-8", "surrogatepass")).hexdigest()


def library_digest(next_id: int, merges: int, odigest: str, note_sum: int) -> str:
    body = f"kbd1|{int(next_id)}|{int(merges)}|{odigest}|{note_sum & MASK:064x}"
    return PREFIX + _b2(body.encode("ascii"), digest_size=32).hexdigest()


class DigestBase:
    """The note sum of the columns a library started from (shared by its forks: the columns
    never change): given (a binary snapshot's header) or computed on first use."""

    __slots__ = ("cols", "value")

    def __init__(self, cols: Any = None, value: int | None = None):
        self.cols, self.value = cols, value

    def sum(self) -> int:
        if self.value is None:
            self.value = column_sum(self.cols)
            self.cols = None
        return self.value


__all__ = ["DigestBase", "MASK", "PREFIX", "column_sum", "library_digest", "node_json",
           "note_digest", "note_text", "origins_digest"]
