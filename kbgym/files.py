"""Loading the files users hand to ``kbgym``: every failure is one ConfigError line naming
the file and what is wrong (never a traceback, a KeyError or a silent default). Files are read
by the one safe loader, :mod:`kbgym.safeload`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kbgym.errors import ConfigError
from kbgym.safeload import read_data, read_json

__all__ = ["check_library_universe", "check_trace_row", "load_universe_file", "read_data",
           "read_json", "read_run_meta", "universe_from_json"]

def universe_from_json(data: Any, source: str):
    """A Universe from parsed JSON, or a one-line ConfigError."""
    from kbgym.types import Universe

    if not isinstance(data, dict) or not isinstance(data.get("questions"), list) \
            or not isinstance(data.get("nodes"), list):
        kind = data.get("kind") if isinstance(data, dict) else type(data).__name__
        raise ConfigError(f"{source}: not a kbgym universe file (got {kind!r})")
    try:
        u = Universe.from_json(data)
    except Exception as err:
        raise ConfigError(f"{source}: not a kbgym universe file ({type(err).__name__}: "
                          f"{str(err)[:120]})") from None
    check_printable(u, source)
    return u


#: Control characters a universe's text may not hold (tab and newline are text): ESC and BEL
#: in a note would reach terminals and HTML views verbatim.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def check_printable(u, source: str) -> None:
    """A one-line ConfigError naming the first note or question whose text holds a control
    character (ESC, BEL, NUL, ...)."""
    def bad(where: str, text: object) -> None:
        if isinstance(text, str):
            m = _CONTROL.search(text)
            if m:
                raise ConfigError(f"{source}: {where} holds a control character "
                                  f"(U+{ord(m.group()):04X}); universe text must be printable")

    for node in u.nodes:
        bad(f"note {node.id}", node.text)
    for q in u.questions:
        bad(f"question {q.qid}", q.text)
        for g in q.golds:
            bad(f"question {q.qid}'s answer", g)


def load_universe_file(path: str | Path):
    return universe_from_json(read_data(path, "universe", yaml=False, object_only=True),
                              str(path))


def read_run_meta(run_dir: str | Path) -> dict:
    """A training run directory's meta.json, checked for run_id and universe {path, hash}."""
    d = Path(run_dir)
    path = d / "meta.json"
    if not d.is_dir():
        raise ConfigError(f"{run_dir}: not a run directory (no such directory)")
    if path.is_symlink():  # a run's meta.json is its own, never one a link points at
        raise ConfigError(f"{path}: is a symbolic link, not the run's own meta.json")
    if not path.exists():
        raise ConfigError(f"{run_dir}: not a run directory (no meta.json)")
    meta = read_json(path, "meta.json")
    uni = meta.get("universe") if isinstance(meta, dict) else None
    if not isinstance(meta, dict) or not isinstance(meta.get("run_id"), str) \
            or not isinstance(uni, dict) or not isinstance(uni.get("hash"), str) \
            or not isinstance(uni.get("path"), (str, type(None))):
        raise ConfigError(f"{path}: not a kbgym meta.json (needs run_id and universe "
                          "{path, hash})")
    return meta


def check_trace_row(row: Any, i: int, source: str) -> None:
    """A trace.jsonl row must be an object with the fields replay and reports read."""
    need = (("kind", str), ("phase", int), ("action", (str, type(None))),
            ("result", str), ("qid", str))
    if not isinstance(row, dict) or not all(isinstance(row.get(k), t) for k, t in need):
        raise ConfigError(f"{source} row {i}: not a trace row (needs kind, qid, phase, action, "
                          "result)")
    if row["kind"] == "train" and not isinstance(row.get("iteration"), int):
        raise ConfigError(f"{source} row {i}: a train row needs an integer iteration")


def check_library_universe(lib, header: dict, universe, source: str) -> None:
    """A snapshot examined against ``universe`` must have been built on it: by the recorded
    hash, or - when the header has none - by its untouched original notes."""
    uhash = (header.get("universe") or {}).get("hash") if isinstance(header, dict) else None
    if uhash is not None:
        if uhash != universe.hash:
            raise ConfigError(f"{source} was built on universe {uhash}, not {universe.hash}")
        return
    texts = {n.id: n.text for n in universe.nodes}
    if set(lib.origins) != set(texts):
        raise ConfigError(f"{source} records no universe and its original notes are not this "
                          f"universe's ({universe.hash}); pass the right --universe")
    for node in lib.nodes():
        if node.origin is not None and node.flag is None and texts.get(node.origin) != node.text:
            raise ConfigError(f"{source} records no universe and note {node.id} differs from "
                              f"universe {universe.hash}; pass the right --universe")
