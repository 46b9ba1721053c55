"""Output folders are never destroyed implicitly.

``kbgym train --out DIR`` on a folder that holds what an earlier kbgym command wrote refuses
(one line naming the folder and the two ways on: ``--resume`` continues the run,
``--overwrite`` replaces it); ``kbgym test --out DIR`` and ``kbgym demo --out DIR`` the same
with ``--overwrite``, and so does :class:`kbgym.runs.recorder.RunRecorder` with
``overwrite=True``. Overwriting removes everything kbgym wrote there — logs, meta files, every
``kb_epoch_*`` and ``kb_iter_*`` snapshot (so none is ever examined as the new run's), reports,
plots, exam sub-folders — and nothing else: your own files (a universe.json you keep there,
notes) stay, and alone they do not make a folder "taken".

Every check here only reads; nothing is created (not even the lock file) before a refusal.
"""

from __future__ import annotations

import fnmatch
import shutil
from collections.abc import Iterable
from pathlib import Path

from kbgym.errors import ConfigError
from kbgym.runs.lock import LOCK_NAME, check_unlocked, refuse_link

#: The names kbgym commands write into run, exam and baseline folders.
RUN_FILES = (
    "meta.json", "test_meta.json", "build_meta.json", "trace.jsonl", "train_log.jsonl",
    "test_log.jsonl", "series.jsonl", "kb_stats.jsonl", "timing.jsonl", "kb_epoch_*.json",
    "kb_iter_*.json", "kb_start.json", "kb_b2.json", "kb_b3.json", "kb_b4.json",
    "kb_oracle.json", "curve.json", "report.json", "report.md", "probe_table.json", "*.png",
    ".*.tmp",
    # a sweep's folder and its runs' (kbgym.sweep)
    "sweep.json", "spec.json", "result.json", "error.json", "timing.json",
)
#: What ``kbgym demo`` writes besides runs and exams.
DEMO_FILES = ("demo.json", "universe.json", "probe.json", "view.html")


def check_folder(d: str | Path, patterns: Iterable[str] = RUN_FILES, what: str = "run folder"
                 ) -> None:
    """Refuse (one line) a run folder that is a link or a special file, and one holding a
    link or special file under a name kbgym writes or reads (its logs, metas, snapshots, the
    lock; in its exam sub-folders too): a write through a link would land in another run, a
    read would take a file from outside the folder. Reads only."""
    d = Path(d)
    refuse_link(d, what)
    if not d.is_dir():
        return
    patterns = (*tuple(patterns), LOCK_NAME)
    for p in d.iterdir():
        if _matches(p, patterns) or (p.is_symlink() and p.is_dir()):  # kbgym's sub-folders
            refuse_link(p, what)  # (exam/, a demo's run/) are never written through a link
        elif p.is_dir() and not p.is_symlink():
            try:
                inner = list(p.iterdir())
            except OSError:
                continue
            for q in inner:
                if _matches(q, patterns):
                    refuse_link(q, what)


def _matches(p: Path, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(p.name, pat) for pat in patterns)


def written(d: Path, patterns: Iterable[str] = RUN_FILES) -> list[Path]:
    """The entries of ``d`` kbgym wrote: its files, and sub-folders holding only such files
    (an exam folder inside a run, a demo's run) - one level down, never a tree of other runs.
    The lock file is left out (a finished run leaves an empty one)."""
    if not d.is_dir() or d.is_symlink():
        return []
    patterns = tuple(patterns)

    def ours(p: Path) -> bool:
        return p.is_file() and not p.is_symlink() and _matches(p, patterns)

    out = []
    for p in sorted(d.iterdir()):
        if p.name == LOCK_NAME:
            continue
        if p.is_dir() and not p.is_symlink():
            inner = [q for q in p.iterdir() if q.name != LOCK_NAME]
            if inner and all(ours(q) for q in inner):
                out.append(p)
        elif ours(p):
            out.append(p)
    return out


def _shown(paths: list[Path]) -> str:
    names = [p.name + ("/" if p.is_dir() else "") for p in paths]
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def check_out(out: str | Path, *, what: str, flags: str, overwrite: bool = False,
              patterns: Iterable[str] = RUN_FILES, locked: bool = False,
              name: str = "--out") -> list[Path]:
    """Refuse (one line, nothing written) an ``out`` holding what kbgym wrote unless
    ``overwrite``; returns those entries. ``flags`` names the ways on in the message
    ("--resume to continue it or --overwrite to replace it"), ``name`` what the folder was
    given as (a flag, or the argument of a Python call). ``locked``: the caller holds the
    folder's lock (else a folder another process writes is refused first)."""
    d = Path(out)
    check_folder(d, patterns)
    if d.exists() and not d.is_dir():
        raise ConfigError(f"{name} {out}: exists and is not a directory")
    if not locked:
        check_unlocked(d)
    taken = written(d, patterns)
    if taken and not overwrite:
        raise ConfigError(f"{name} {out} already holds {what} ({_shown(taken)}); pass {flags}")
    return taken


def clear(out: str | Path, patterns: Iterable[str] = RUN_FILES) -> list[Path]:
    """Delete what kbgym wrote in ``out`` (its lock file stays: the caller holds it)."""
    gone = written(Path(out), patterns)
    for p in gone:
        if p.is_dir():
            shutil.rmtree(p)
        else:
            p.unlink(missing_ok=True)
    return gone
