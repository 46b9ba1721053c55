"""Run directories: JSONL logs appended and flushed row by row (SPEC §15.1)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kbgym.errors import ConfigError
from kbgym.jsonio import atomic_write_text, canonical, sha256_hex

SCHEMA_VERSION = 1


def run_id_of(run_config: dict) -> str:
    """``r-`` + the first 12 hex digits of sha256(canonical run config)."""
    return "r-" + sha256_hex(canonical(run_config))[:12]


class JsonlLog:
    """One JSONL file: rows are canonical JSON, appended and flushed as they are written."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = None

    def write(self, row: dict) -> None:
        if self._fh is None:
            drop_torn_tail(self.path)
            self._fh = open(self.path, "a", encoding="utf-8", newline="\n")
        self._fh.write(canonical({"schema_version": SCHEMA_VERSION, **row}))
        self._fh.flush()

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
            keep = 0
            pos = size
            while pos > 0 and not keep:  # find the last newline, 64 KiB at a time
                step = min(pos, 65536)
                pos -= step
                fh.seek(pos)
                i = fh.read(step).rfind(b"\n")
                if i >= 0:
                    keep = pos + i + 1
            fh.truncate(keep)
    except FileNotFoundError:
        return


def read_jsonl(path: str | Path) -> list[dict]:
    """All complete rows of a JSONL file ([] when absent). A torn last line (unterminated,
    what a kill mid-write leaves) is dropped; any other line that is not a JSON object is a
    one-line ConfigError, never a silent cut."""
    path = Path(path)
    if not path.exists():
        return []
    rows = []
    # split on "\n" only: str.splitlines() also breaks on U+2028, U+0085, \x1c... inside a row
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            row = None
        if isinstance(row, dict):
            rows.append(row)
            continue
        if n == len(lines):  # the last line, unterminated: a row cut by a crash
            break
        raise ConfigError(f"{path} line {n}: not a JSON object row - the file is corrupt "
                          "(only a crash's unterminated last line is dropped)")
    return rows


def rewrite_jsonl(path: str | Path, rows: list[dict]) -> None:
    """Atomically replace a JSONL file with ``rows`` (used by resume)."""
    atomic_write_text(path, "".join(canonical(r) for r in rows))


def write_json(path: str | Path, obj: Any) -> None:
    atomic_write_text(path, canonical(obj))
