"""Canonical JSON (SPEC §15.1), content hashes and atomic writes."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO


# Characters that ``ensure_ascii=False`` would emit raw but that must not appear raw in a log
# line: line/paragraph separators and NEL (``str.splitlines`` and many JSONL readers break on
# them) and lone surrogates (not encodable as UTF-8). They are written as JSON ``\\uXXXX``
# escapes, which ``json.loads`` turns back into the same characters: lossless, one row per line.
_UNSAFE = re.compile("[\u0085\u2028\u2029\ud800-\udfff]")


def _escape(match: re.Match) -> str:
    return "\\u%04x" % ord(match.group())


def canonical(obj: Any) -> str:
    """The canonical JSON text of ``obj``, with the trailing newline.

    ``json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))``, except
    that U+0085, U+2028, U+2029 and lone surrogates are written as ``\\uXXXX`` escapes, so the
    text always encodes as UTF-8 and holds no line break but its last ``\\n``. NaN and
    infinities are refused (``ValueError``): they are not JSON.
    """
    text = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False)
    return _UNSAFE.sub(_escape, text) + "\n"


def sha256_hex(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def content_hash(obj: Any) -> str:
    """``"sha256:" + sha256(canonical JSON of obj)``."""
    return "sha256:" + sha256_hex(canonical(obj))


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` via a temp file in the same folder, fsync, then rename."""
    atomic_write_chunks(path, (text,))


def atomic_write_chunks(path: str | os.PathLike, chunks: Iterable[str]) -> str:
    """:func:`atomic_write_text` of the text ``chunks`` join to, one chunk in memory at a time
    (a 10^6-person universe file is 2 GB); returns the sha256 hex digest of what was written."""
    digest = hashlib.sha256()
    with atomic_file(path) as fh:
        for chunk in chunks:
            data = chunk.encode("utf-8")
            digest.update(data)
            fh.write(data)
    return digest.hexdigest()


@contextmanager
def atomic_file(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A binary file that becomes ``path`` only when the block ends without an exception:
    written to a temp file in the same folder, fsynced, then renamed over ``path``. On an
    exception (a full disk, Ctrl-C) the temp file is removed and ``path`` is left as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes 0600; results are meant to be shared
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_canonical(path: str | os.PathLike, obj: Any) -> str:
    """Atomically write canonical JSON; returns the text written."""
    text = canonical(obj)
    atomic_write_text(path, text)
    return text
