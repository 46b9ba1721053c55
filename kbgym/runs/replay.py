"""Replay, ``kbgym replay`` (SPEC §15.3): any iteration's library, rebuilt from the trace and
checked byte for byte against the recorded results. Needs no search backend and no judge."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from kbgym.errors import ConfigError
from kbgym.files import check_trace_row, load_universe_file, read_run_meta
from kbgym.runs.manifest import verify_run
from kbgym.library.apply import replay_row
from kbgym.library.graph import Library
from kbgym.library import binsnap
from kbgym.library.snapshot import load_snapshot, snapshot_hash
from kbgym.runs.logs import read_jsonl, verify_trace
from kbgym.types import Universe


def replay_rows(library: Library, rows: Iterable[dict], upto: int | None = None) -> Library:
    """Apply the replayable rows (train, phase 2, edits, not ERROR) of iterations ≤ ``upto``.
    A row that is not a trace row is a one-line ConfigError."""
    for i, row in enumerate(rows, start=1):
        check_trace_row(row, i, "trace.jsonl")
        if row.get("kind") != "train":
            continue
        if upto is not None and row["iteration"] > upto:
            break
        replay_row(library, row)
    return library


def load_run_universe(run_dir: Path, universe: Universe | str | Path | None = None) -> Universe:
    """The run's universe: given, or from meta.json's universe path, checked by hash."""
    meta = read_run_meta(run_dir)
    if isinstance(universe, Universe):
        u = universe
    else:
        path = universe or meta["universe"]["path"]
        if path is None:
            from kbgym.env.env import default_universe

            u = default_universe()
        elif universe:
            u = load_universe_file(path)
        else:  # a path meta.json names: read, but nothing of the file is ever printed
            try:
                u = load_universe_file(path)
            except ConfigError:
                raise ConfigError(f"{run_dir}/meta.json: its universe path {str(path)[:200]!r} "
                                  "is not a readable kbgym universe; pass --universe") from None
    if u.hash != meta["universe"]["hash"]:
        recorded = meta["universe"]["path"]
        hint = f"; it was trained on {recorded}" if recorded else ""
        raise ConfigError(f"{run_dir}: the run used universe {meta['universe']['hash']}, "
                          f"the one given is {u.hash}{hint}")
    return u


def start_library(run_dir: Path, u: Universe) -> Library:
    """The library a run began from: ``kb_start.json`` when it was given one
    (``--resume-from-library``), else B1 (with the run's typed-links setting)."""
    start = run_dir / "kb_start.json"
    if start.exists():
        lib, _ = load_snapshot(start)
        drift = u.meta.get("drift")
        if drift:
            lib.enable_staleness({old: new for new, old in drift["supersedes"].items()})
        return lib
    meta = read_run_meta(run_dir) if (run_dir / "meta.json").exists() else {}
    return Library.from_universe(u, typed_links=bool(meta.get("typed_links")))


def snapshot_library(path: Path, loaded: Library | None = None) -> Library:
    """The library of the snapshot at ``path``. ``loaded``: a library the caller has from that
    file already (the demo's trained library, handed to its report and view), returned itself
    instead of being built again when its content hash is the one the file records - a
    library changed since, or another file, is loaded from the file as without it. (Run
    folders check the file's bytes against meta.json before this is asked.)"""
    if loaded is not None and path.is_file() and not binsnap.is_binary(path):
        try:
            recorded = json.loads(path.read_bytes()).get("content_hash")
        except (ValueError, AttributeError):  # (not JSON, or not an object: load says so)
            recorded = None
        if recorded is not None and recorded == snapshot_hash(loaded):
            return loaded
    return load_snapshot(path)[0]


def replay_run(run_dir: str | Path, at: int | None = None,
               universe: Universe | str | Path | None = None) -> Library:
    """The library of ``run_dir`` after iteration ``at`` (the last one when None)."""
    run_dir = Path(run_dir)
    u = load_run_universe(run_dir, universe)
    rows = verify_trace(run_dir)  # a trace cut short or altered is one line, naming the row
    verify_run(run_dir)  # every file as meta.json records it
    if at is not None:
        done = len(read_jsonl(run_dir / "train_log.jsonl"))
        if at > done:
            raise ConfigError(f"--at {at}: {run_dir} has {done} finished iterations")
    return replay_rows(start_library(run_dir, u), rows, at)


def first_difference(a: Library, b: Library) -> str | None:
    """A one-line description of the first node (id order) where two libraries differ."""
    sa = {n["id"]: n for n in a.snapshot()["nodes"]}
    sb = {n["id"]: n for n in b.snapshot()["nodes"]}
    for nid in sorted(set(sa) | set(sb), key=lambda i: int(i[1:])):
        if sa.get(nid) != sb.get(nid):
            return f"{nid}: replayed {sa.get(nid)} vs snapshot {sb.get(nid)}"
    if a.snapshot() != b.snapshot():
        return "library fields (origins, next_id or merges) differ"
    return None


def verify(run_dir: str | Path, snapshot: str | Path, at: int | None = None,
           universe: Universe | str | Path | None = None) -> str | None:
    """Replay to ``at`` and compare with ``snapshot``; None when equal, else the difference."""
    replayed = replay_run(run_dir, at, universe)
    lib, _ = load_snapshot(snapshot)
    return first_difference(replayed, lib)


def iterations_per_epoch(run_dir: Path) -> dict[int, int]:
    """The last iteration of each finished epoch, from kb_stats.jsonl."""
    return {r["epoch"]: r["train_iterations"] for r in read_jsonl(run_dir / "kb_stats.jsonl")}


def verify_all_epochs(run_dir: str | Path,
                      universe: Universe | str | Path | None = None) -> dict[int, str | None]:
    """Replay every finished epoch and compare with its kb_epoch_{e}.json."""
    run_dir = Path(run_dir)
    return {e: verify(run_dir, run_dir / f"kb_epoch_{e}.json", it, universe)
            for e, it in iterations_per_epoch(run_dir).items()}


def rebuild_series(run_dir: str | Path, universe: Universe | str | Path | None = None) -> list[dict]:
    """series.jsonl recomputed by replaying iteration by iteration."""
    run_dir = Path(run_dir)
    u = load_run_universe(run_dir, universe)
    lib = start_library(run_dir, u)
    log = read_jsonl(run_dir / "train_log.jsonl")
    rows_by_it: dict[int, list[dict]] = {}
    for r in verify_trace(run_dir):
        if r.get("kind") == "train":
            rows_by_it.setdefault(r["iteration"], []).append(r)
    meta = read_run_meta(run_dir)
    verify_run(run_dir, meta)
    out = [{"schema_version": 1, "run_id": meta["run_id"], "iteration": 0, "epoch": 0,
            **lib.stats()}]
    for row in log:
        for r in rows_by_it.get(row["iteration"], []):
            replay_row(lib, r)
        out.append({"schema_version": 1, "run_id": meta["run_id"], "iteration": row["iteration"],
                    "epoch": row["epoch"], **lib.stats()})
    return out
