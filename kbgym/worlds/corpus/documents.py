"""Markdown and text files cut into notes, deterministically (``kbgym import corpus``).

- **Files:** every ``*.md``, ``*.markdown`` and ``*.txt`` under the folder, recursively, in
  the order of their relative POSIX paths; read as UTF-8, ``\\r\\n`` taken as ``\\n``.
- **Title:** the first level-1 Markdown header (``# Title``), else the file name's stem with
  ``-`` and ``_`` read as spaces.
- **Paragraphs:** runs of consecutive lines that are neither blank nor headers (``#...``),
  joined with single spaces.
- **Units:** ``sentence`` (default) cuts a paragraph wherever ``.``, ``!`` or ``?`` is
  followed by whitespace and a capital letter; ``paragraph`` keeps it whole.
- **Context:** ``title`` (default) puts ``{title}: `` in front of a note that lacks its
  document's title (in any letter case); ``person`` first resolves a leading pronoun to the
  title as the PhantomWiki adapter does (He/She/They -> the title, His/Her/Their ->
  ``{title}'s``), for documents that are each about one person; ``none`` keeps the text.
- **Notes:** ids ``s%04d`` from s0001 in file order, then unit order; each records its file,
  1-based line range and ``sha256:`` + sha256 of its text (:class:`Source`). Whitespace
  runs collapse to one space.
- **The library's note rules** (the ones ``add`` and ``edit`` enforce, reused from
  :mod:`kbgym.library.graph`): a note over the 1,000-character cap, or holding a control or
  invisible character (NUL, ESC, bidi overrides, zero-width marks), is refused with one line
  naming its file and lines - a reader never sees raw control characters.
- **Limits:** a file over :data:`MAX_FILE_BYTES`, or a folder over :data:`MAX_CORPUS_BYTES` in
  all, is refused before it is read; files are read line by line.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kbgym.worlds.phantomwiki.documents import self_contained, split_sentences
from kbgym.errors import ConfigError
from kbgym.library.graph import MAX_TEXT_CHARS, invisible_char, normalize_text
from kbgym.types import Source

SUFFIXES = (".md", ".markdown", ".txt")
UNITS = ("sentence", "paragraph")
CONTEXTS = ("title", "person", "none")
_H1 = re.compile(r"#\s+(.+?)\s*#*\s*$")
MiB = 1 << 20
#: The largest document file, and the largest folder of them in all.
MAX_FILE_BYTES = 16 * MiB
MAX_CORPUS_BYTES = 512 * MiB
#: The most document files in one corpus.
MAX_FILES = 100_000


@dataclass(frozen=True)
class Document:
    id: str  # d%04d in path order
    path: str  # relative POSIX path
    title: str
    hash: str  # sha256: of the file's text


@dataclass(frozen=True)
class Note:
    id: str
    text: str
    doc: str  # the Document id
    source: Source


def text_hash(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def list_files(root: str | Path) -> list[Path]:
    root = Path(root)
    if not root.is_dir():
        raise ConfigError(f"{root}: no such documents folder")
    files, total = [], 0
    for p in root.rglob("*"):
        if not (p.suffix.lower() in SUFFIXES and p.is_file()):
            continue
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ConfigError(f"{p}: {size / MiB:.1f} MB, over the {MAX_FILE_BYTES // MiB} MB "
                              "limit of one document file; split it into several files")
        total += size
        files.append(p)
        if total > MAX_CORPUS_BYTES or len(files) > MAX_FILES:
            raise ConfigError(f"{root}: more than {MAX_CORPUS_BYTES // MiB} MB or "
                              f"{MAX_FILES:,} document files; import a smaller folder")
    if not files:
        raise ConfigError(f"{root}: no .md, .markdown or .txt files in it")
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


def read_lines(path: Path, rel: str) -> tuple[list[str], str]:
    """The file's lines (``\\r\\n`` and ``\\r`` read as ``\\n``, a leading byte-order mark
    dropped) and the hash of its text, read line by line."""
    digest = hashlib.sha256()
    lines: list[str] = []
    ended = True  # the text ends in a line break: str.split("\\n") gives a last empty line
    try:
        with open(path, encoding="utf-8", newline=None) as fh:
            for line in fh:
                digest.update(line.encode("utf-8"))
                ended = line.endswith("\n")
                lines.append(line[:-1] if ended else line)
    except UnicodeDecodeError as err:
        raise ConfigError(f"{rel}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    except OSError as err:
        raise ConfigError(f"{rel}: cannot read it ({err.strerror})") from None
    if ended:
        lines.append("")
    lines[0] = lines[0].removeprefix("\ufeff")
    return lines, "sha256:" + digest.hexdigest()


def check_note(text: str, rel: str, first: int, last: int) -> str:
    """``text`` under the library's note rules (see the module doc), or a one-line error."""
    where = f"{rel}:{first}" + (f"-{last}" if last != first else "")
    if len(text) > MAX_TEXT_CHARS:
        raise ConfigError(f"{where}: a note of {len(text):,} characters, over the "
                          f"{MAX_TEXT_CHARS:,}-character cap of a note; shorten the text or "
                          "cut it into sentences (--unit sentence)")
    bad = invisible_char(text)
    if bad is not None:
        raise ConfigError(f"{where}: the control or invisible character U+{ord(bad):04X} - "
                          "notes are plain text; remove it")
    return text


def title_of(lines: list[str], stem: str) -> str:
    for line in lines:
        if line.startswith("# ") or line == "#":
            m = _H1.fullmatch(line)
            if m:
                return m.group(1)
    return stem.replace("-", " ").replace("_", " ")


def paragraphs(lines: list[str]) -> Iterable[tuple[list[str], int]]:
    """(lines of one paragraph, 1-based number of its first line)."""
    block: list[str] = []
    start = 0
    for no, line in enumerate(lines, start=1):
        s = line.strip()
        if not s or s.startswith("#"):
            if block:
                yield block, start
            block = []
            continue
        if not block:
            start = no
        block.append(s)
    if block:
        yield block, start


def _units(block: list[str], first: int, unit: str) -> list[tuple[str, int, int]]:
    """(raw unit text, first line, last line) of one paragraph."""
    joined = " ".join(block)
    if unit == "paragraph":
        return [(joined, first, first + len(block) - 1)]
    starts, pos = [], 0
    for line in block:  # offset of each line inside the joined paragraph
        starts.append(pos)
        pos += len(line) + 1
    out, cursor = [], 0
    for sent in split_sentences(joined):
        at = joined.index(sent, cursor)
        cursor = at + len(sent)
        a = first + bisect_right(starts, at) - 1
        b = first + bisect_right(starts, cursor - 1) - 1
        out.append((sent, a, b))
    return out


def contextualize(text: str, title: str, context: str = "title") -> str:
    """Make one note self-contained (``context``: see the module doc)."""
    if context == "person":
        return self_contained(text, title)  # the PhantomWiki adapter's rule, as it is
    if context == "none" or title.casefold() in text.casefold():
        return text
    return f"{title}: {text}"


def read_corpus(root: str | Path, *, unit: str = "sentence", context: str = "title"
                ) -> tuple[list[Document], list[Note]]:
    if unit not in UNITS:
        raise ConfigError(f"unknown unit {unit!r}; expected one of {', '.join(UNITS)}")
    if context not in CONTEXTS:
        raise ConfigError(f"unknown context {context!r}; expected one of {', '.join(CONTEXTS)}")
    root = Path(root)
    docs: list[Document] = []
    notes: list[Note] = []
    for path in list_files(root):
        rel = path.relative_to(root).as_posix()
        lines, digest = read_lines(path, str(path))
        doc = Document("d%04d" % (len(docs) + 1), rel, title_of(lines, path.stem), digest)
        docs.append(doc)
        for block, first in paragraphs(lines):
            for text, a, b in _units(block, first, unit):
                text = normalize_text(contextualize(text, doc.title, context))
                if text:
                    check_note(text, str(path), a, b)
                    nid = "s%04d" % (len(notes) + 1)
                    notes.append(Note(nid, text, doc.id, Source(rel, a, b, text_hash(text))))
    if not notes:
        raise ConfigError(f"{root}: the files hold no text")
    return docs, notes
