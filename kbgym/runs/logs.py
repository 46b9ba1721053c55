"""Run directories: JSONL logs appended and flushed row by row (SPEC §15.1), each row chained
to the one before it.

**The chain.** Every row a log writer writes carries ``"chain"``: the first 16 hex digits of
the sha256 of the previous line's bytes (its ``\n`` included; of no bytes for the first row).
Readers check it row by row and drop it from the rows they return, so an altered, removed,
inserted or reordered row is refused with one line naming it, while a kill mid-row (a torn,
unterminated last line) is not tampering: it is dropped, and the next writer continues the
chain from the last complete row. The rows kept by a resume are rewritten with the same
chain, so a resumed run stays byte-identical to an uninterrupted one. A file holding no chain
at all (written before the chain, or by hand) is read as it is; :func:`verify_trace` refuses
such a trace beside a chained train_log, and a trace cut short of what the train_log records
(each train_log row carries ``trace_head``, the chain after its episode's last trace row).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kbgym.errors import ConfigError
from kbgym.jsonio import atomic_write_text, canonical, sha256_hex

SCHEMA_VERSION = 1
#: The field holding a row's link to the previous line.
CHAIN = "chain"
#: The chain value of the first row (the hash of no bytes).
GENESIS = hashlib.sha256(b"").hexdigest()[:16]


def line_hash(line: bytes) -> str:
    """The chain value a row following ``line`` (its ``\n`` included) carries."""
    return hashlib.sha256(line).hexdigest()[:16]


def run_id_of(run_config: dict) -> str:
    """``r-`` + the first 12 hex digits of sha256(canonical run config)."""
    return "r-" + sha256_hex(canonical(run_config))[:12]


def chained(rows: list[dict], prev: str = GENESIS) -> tuple[str, str]:
    """The canonical lines of ``rows`` chained from ``prev``, and the chain after them."""
    out = []
    for row in rows:
        line = canonical({**{k: v for k, v in row.items() if k != CHAIN}, CHAIN: prev})
        prev = line_hash(line.encode("utf-8"))
        out.append(line)
    return "".join(out), prev


class JsonlLog:
    """One JSONL file: rows are canonical JSON, chained, appended and flushed as written."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = None
        self._head: str | None = None

    @property
    def head(self) -> str:
        """The chain value the next row will carry (the hash of the last complete line)."""
        if self._head is None:
            self._head = line_hash(last_line(self.path)) if self.path.exists() else GENESIS
        return self._head

    def write(self, row: dict) -> None:
        if self._fh is None:
            from kbgym.runs.lock import refuse_link

            refuse_link(self.path, "run's log")
            drop_torn_tail(self.path)
            self._head = None
            prev = self.head
            try:  # O_NOFOLLOW: never appended through a link put there since the check
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT
                             | getattr(os, "O_NOFOLLOW", 0), 0o644)
            except OSError as err:
                raise ConfigError(f"{self.path}: cannot append to it ({err.strerror})") from None
            self._fh = open(fd, "ab")
        else:
            prev = self.head
        line = canonical({"schema_version": SCHEMA_VERSION, **row, CHAIN: prev}).encode("utf-8")
        self._fh.write(line)
        self._fh.flush()
        self._head = line_hash(line)

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


@dataclass
class RunDir:
    """The JSONL logs of one run (or exam) directory, opened on first write and closed
    together: ``run.log("trace").write(row)`` appends to ``trace.jsonl``."""

    root: Path
    logs: dict[str, JsonlLog] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.root = Path(self.root)

    def log(self, name: str) -> JsonlLog:
        if name not in self.logs:
            self.logs[name] = JsonlLog(self.root / f"{name}.jsonl")
        return self.logs[name]

    def close(self) -> None:
        for log in self.logs.values():
            log.close()


def drop_torn_tail(path: Path) -> None:
    """Cut an unterminated last line (a row a kill interrupted) before appending, so the next
    row starts on a line of its own."""
    try:
        with open(path, "rb+") as fh:
            size = fh.seek(0, 2)
            if size == 0:
                return
            fh.seek(size - 1)
            if fh.read(1) == b"\n":
                return
            fh.truncate(_line_start(fh, size))
    except FileNotFoundError:
        return


def _line_start(fh, end: int) -> int:
    """The offset where the line ending at ``end`` (exclusive, its \\n excluded) starts."""
    pos = end
    while pos > 0:  # find the last newline before `end`, 64 KiB at a time
        step = min(pos, 65536)
        pos -= step
        fh.seek(pos)
        i = fh.read(step).rfind(b"\n")
        if i >= 0:
            return pos + i + 1
    return 0


def last_line(path: Path) -> bytes:
    """The bytes of the last complete line of ``path`` (its ``\\n`` included; b"" if none)."""
    with open(path, "rb") as fh:
        size = fh.seek(0, 2)
        if size == 0:
            return b""
        fh.seek(size - 1)
        end = size if fh.read(1) == b"\n" else _line_start(fh, size)  # a torn tail is no row
        if end == 0:
            return b""
        start = _line_start(fh, end - 1)
        fh.seek(start)
        return fh.read(end - start)


def read_lines(path: str | Path) -> list[tuple[int, bytes, dict]]:
    """(line number, bytes with \\n, row) of every complete row of a JSONL file, the chain
    checked and left in the row. A torn last line is dropped; any other line that is not a
    JSON object, or that does not follow the line before it, is a one-line ConfigError."""
    path = Path(path)
    if path.is_symlink():  # a log is read from its run folder, never from where a link points
        raise ConfigError(f"{path}: is a symbolic link, expected the run's own JSONL log")
    if not path.exists():
        return []
    if not path.is_file():  # a device or a pipe would be read forever
        raise ConfigError(f"{path}: not a regular file, expected a JSONL log")
    data = path.read_bytes()
    lines = data.split(b"\n")
    out: list[tuple[int, bytes, dict]] = []
    prev, chained_file = GENESIS, None
    for n, raw in enumerate(lines, start=1):
        last = n == len(lines)  # no \n after it: the tail of the file
        if not raw.strip():
            continue
        try:
            row = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as err:
            if last:
                break
            raise ConfigError(f"{path} line {n}: not UTF-8 text ({err.reason})") from None
        except ValueError:
            row = None
        if not isinstance(row, dict):
            if last:  # the last line, unterminated: a row cut by a crash
                break
            raise ConfigError(f"{path} line {n}: not a JSON object row - the file is corrupt "
                              "(only a crash's unterminated last line is dropped)")
        has = CHAIN in row
        if last and has:  # a chained row always ends in \n: without it, a kill cut it
            break
        if chained_file is None:
            chained_file = has
        if has != chained_file:
            raise ConfigError(f"{path} row {len(out) + 1} (line {n}): "
                              + ("has no chain hash, the rows before it have one"
                                 if chained_file else "has a chain hash, the rows before it "
                                 "have none") + " - the file was edited")
        if has and row[CHAIN] != prev:
            what = ("does not start the chain (rows before it were removed)" if not out
                    else f"does not follow row {len(out)}")
            raise ConfigError(f"{path} row {len(out) + 1} (line {n}): {what} - a row was "
                              "altered, removed, inserted or reordered")
        line = raw + (b"" if last else b"\n")
        prev = line_hash(line)
        out.append((n, line, row))
    return out


def read_jsonl(path: str | Path) -> list[dict]:
    """All complete rows of a JSONL file ([] when absent), the chain checked and removed
    (:func:`read_lines`)."""
    return [{k: v for k, v in row.items() if k != CHAIN} for _, _, row in read_lines(path)]


def rewrite_jsonl(path: str | Path, rows: list[dict]) -> None:
    """Atomically replace a JSONL file with ``rows``, chained afresh (used by resume)."""
    atomic_write_text(path, chained(rows)[0])


def verify_trace(run_dir: str | Path) -> list[dict]:
    """The trace of a training run, checked against its train_log: each train_log row's
    ``trace_head`` must be the chain after a trace row of its own iteration, in order, so a
    trace cut short, altered or rewritten without its chain is refused (one line naming the
    row). Returns the trace rows (chain removed)."""
    d = Path(run_dir)
    # train_log first: a run still training writes an iteration's trace rows before its
    # train_log row, so every train_log row read here has its trace rows on disk already
    log = read_jsonl(d / "train_log.jsonl")
    lines = read_lines(d / "trace.jsonl")
    anchored = [r for r in log if "trace_head" in r]
    if not anchored:
        return [{k: v for k, v in row.items() if k != CHAIN} for _, _, row in lines]
    if lines and CHAIN not in lines[0][2]:
        raise ConfigError(f"{d / 'trace.jsonl'} row 1: has no chain hash while train_log.jsonl "
                          "records one - the trace was rewritten")
    at = {GENESIS: 0}
    for i, (_, line, _) in enumerate(lines, start=1):
        at[line_hash(line)] = i
    pos = 0
    for r in anchored:
        i = at.get(r["trace_head"])
        if i is None or i < pos:
            shown = f"row {len(lines)}" if lines else "no rows"
            raise ConfigError(f"{d / 'trace.jsonl'}: ends at {shown}, short of what "
                              f"train_log.jsonl records of iteration {r.get('iteration')} - "
                              "the trace was cut or its last rows altered")
        pos = i
    return [{k: v for k, v in row.items() if k != CHAIN} for _, _, row in lines]


def write_json(path: str | Path, obj: Any) -> None:
    atomic_write_text(path, canonical(obj))
