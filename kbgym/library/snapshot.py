"""Snapshots (SPEC §15.2): write atomically, load with a content-hash check.

Two formats, one content hash:

- ``json`` (the default; readable, what replay and small libraries use): canonical JSON
  holding schema_version 1, kind ``kbgym.snapshot``, a label, universe {path, hash}, the
  ``library`` object and ``content_hash`` = ``"sha256:"`` + sha256(canonical JSON of
  ``library``). Indexes are not stored; pass ``search=`` to rebuild one on load.
- ``binary`` (``kbgs-1``, :mod:`kbgym.library.binsnap`; for large libraries): typed columns
  and the BM25 index, so loading does not rebuild it, with the library's incremental
  ``digest`` (:mod:`kbgym.library.digest`; not the content hash) in its header, the
  ``content_hash`` too when it was already known, and a sha256 of the whole file checked
  before anything is read.

:func:`load_snapshot` tells them apart by their first bytes. A universe file (kind
``kbgym.universe``) loads as B1.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from kbgym.errors import SnapshotIntegrityError
from kbgym.jsonio import atomic_write_text, canonical, content_hash, sha256_hex
from kbgym.library import binsnap
from kbgym.library.graph import Library

FORMATS = ("json", "binary")

SCHEMA_VERSION = 1
SNAPSHOT_KIND = "kbgym.snapshot"
UNIVERSE_KIND = "kbgym.universe"


def snapshot_object(library: Library, label: str, universe: dict) -> dict:
    """The full snapshot object for ``library``."""
    lib = library.snapshot()
    return {**_header(label, universe), "library": lib, "content_hash": content_hash(lib)}


def _header(label: str, universe: dict) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": SNAPSHOT_KIND,
        "label": label,
        "universe": {"path": universe.get("path"), "hash": universe.get("hash")},
    }


def write_snapshot(path: str | os.PathLike, library: Library, label: str, universe: dict,
                   format: str = "json", memo: dict | None = None) -> str:
    """Write ``library`` to ``path`` (temp file, fsync, os.replace); returns the content hash
    (``json``) or the library's digest (``binary``: no pass over the notes to hash them).

    ``format`` is ``json`` (the text is fully built before anything touches the disk) or
    ``binary`` (streamed); either way a failure leaves no file behind. ``memo`` (``json``; a
    dict the caller keeps across writes of one library, as the trainer does at every snapshot
    interval) keeps the library's canonical text while its ``state_key`` is unchanged, so an
    unchanged library is not serialized again (texts over ``MEMO_MAX_CHARS`` are not kept).
    """
    if format not in FORMATS:
        raise ValueError(f"unknown snapshot format {format!r}; expected json or binary")
    if format == "binary":  # (the content hash goes in only if it is known already)
        known = getattr(library, "_content_hash", None)
        return binsnap.write_binary(path, library, label, universe,
                                    known[1] if known and known[0] == library.state_key()
                                    else None)
    text, digest = _json_text(library, label, universe, memo)
    atomic_write_text(path, text)
    _remember(library, digest)
    return digest


MEMO_MAX_CHARS = 64_000_000


def _json_text(library: Library, label: str, universe: dict, memo: dict | None = None
               ) -> tuple[str, str]:
    """``canonical(snapshot_object(library, label, universe))`` and the content hash, with the
    library serialized once (not once for the hash and again for the file): canonical JSON
    has sorted keys and no whitespace, so an object's text is its members' texts joined in key
    order, and the hash is over the library's own canonical text."""
    key = library.state_key()
    if memo is not None and memo.get("key") == key:
        lib_text, digest = memo["text"], memo["hash"]
    else:
        text = canonical(library.snapshot())
        digest = "sha256:" + sha256_hex(text)  # = content_hash(library.snapshot())
        lib_text = text[:-1]  # (without the trailing newline)
        del text
        if memo is not None:
            memo.clear()
            if len(lib_text) <= MEMO_MAX_CHARS:
                memo.update(key=key, text=lib_text, hash=digest)
    obj = {**_header(label, universe), "content_hash": digest}  # (all but the library)
    before = {k: v for k, v in obj.items() if k < "library"}
    after = {k: v for k, v in obj.items() if k > "library"}
    return ("{" + canonical(before)[1:-2] + ("," if before else "") + '"library":' + lib_text
            + ("," if after else "") + canonical(after)[1:-1] + "\n"), digest


def _remember(library: Library, digest: str) -> None:
    library._content_hash = (library.state_key(), digest)


def snapshot_hash(library: Library) -> str:
    """The content hash ``library`` would be written with (either format), computed by
    streaming its canonical JSON, and remembered until the library changes."""
    known = getattr(library, "_content_hash", None)
    if known is not None and known[0] == library.state_key():
        return known[1]
    digest = binsnap.library_hash(library)
    _remember(library, digest)
    return digest


def load_snapshot(path: str | os.PathLike, **library_kwargs: Any) -> tuple[Library, dict]:
    """Load a snapshot (or a universe file, as B1). Returns (library, header), where the
    header is every top-level field but ``library`` (for a universe file: kind, label ``B1``
    and universe {path, hash}).

    Raises :class:`SnapshotIntegrityError` (one line) on a hash mismatch, malformed JSON, a
    wrong kind or a bad shape, and for a binary snapshot on any truncation or corruption
    (checked before its columns are read). ``library_kwargs`` go to the Library (search, refresh, dedup,
    max_text_chars, link_batch_max).
    """
    path = Path(path)
    if binsnap.is_binary(path):
        return binsnap.read_binary(path, **library_kwargs)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SnapshotIntegrityError(
            f"{path}: not UTF-8 text; expected a canonical JSON snapshot") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise SnapshotIntegrityError(
            f"{path}: malformed JSON ({err.msg} at line {err.lineno} column {err.colno}); "
            f"the file is truncated or was edited by hand - rewrite it"
        ) from None
    return load_snapshot_object(obj, source=str(path), **library_kwargs)


def load_snapshot_object(
    obj: Any, *, source: str = "<object>", **library_kwargs: Any
) -> tuple[Library, dict]:
    """:func:`load_snapshot` for an already parsed object."""
    if not isinstance(obj, dict):
        raise SnapshotIntegrityError(f"{source}: expected a JSON object, got {type(obj).__name__}")
    kind = obj.get("kind")
    if kind == UNIVERSE_KIND:
        nodes = obj.get("nodes")
        if not isinstance(nodes, list) or not all(
                isinstance(n, dict) and isinstance(n.get("id"), str)
                and isinstance(n.get("text"), str) for n in nodes):  # fmt: skip
            raise SnapshotIntegrityError(f"{source}: universe file has no valid nodes list")
        try:
            lib = Library.from_texts(((n["id"], n["text"]) for n in nodes), **library_kwargs)
        except ValueError as err:
            raise SnapshotIntegrityError(f"{source}: {err}") from None
        header = {"schema_version": obj.get("schema_version"), "kind": UNIVERSE_KIND, "label": "B1",
                  "universe": {"path": source, "hash": content_hash(obj)}}  # fmt: skip
        return lib, header
    if kind != SNAPSHOT_KIND:
        raise SnapshotIntegrityError(
            f"{source}: kind is {kind!r}; expected {SNAPSHOT_KIND!r} or {UNIVERSE_KIND!r}"
        )
    if obj.get("schema_version") != SCHEMA_VERSION:
        raise SnapshotIntegrityError(
            f"{source}: schema_version is {obj.get('schema_version')!r}; expected {SCHEMA_VERSION}"
        )
    for key in ("library", "content_hash"):
        if key not in obj:
            raise SnapshotIntegrityError(f"{source}: missing field {key!r}")
    want = obj["content_hash"]
    got = content_hash(obj["library"])
    if want != got:
        raise SnapshotIntegrityError(
            f"{source}: content hash mismatch (recorded {want}, contents hash to {got}); "
            f"the library was modified after writing - restore or rewrite the snapshot"
        )
    try:
        lib = Library.from_snapshot(obj["library"], **library_kwargs)
    except SnapshotIntegrityError as err:
        raise SnapshotIntegrityError(f"{source}: {err}") from None
    _remember(lib, want)
    header = {k: v for k, v in obj.items() if k != "library"}
    return lib, header


__all__ = [
    "FORMATS", "SNAPSHOT_KIND", "UNIVERSE_KIND", "load_snapshot", "load_snapshot_object",
    "snapshot_hash", "snapshot_object", "write_snapshot",
]
