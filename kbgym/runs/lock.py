"""One writer per run directory: an OS-level lock on ``{run_dir}/.kbgym.lock``.

``kbgym train`` and ``kbgym test --out`` hold it while they write. A second writer gets a
one-line :class:`RunLockedError` instead of interleaving rows with the first. The lock is an
``flock`` on an open file, so the OS drops it when the holder exits or is killed; the file
itself stays behind harmlessly. Temp files of atomic writes cut short by a kill are removed
once the lock is held (nobody else can be writing them then).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from kbgym.errors import ConfigError

try:  # POSIX; elsewhere the lock is a no-op
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = ".kbgym.lock"


class RunLockedError(ConfigError):
    """Another process is writing the run directory."""


def refuse_link(path: str | Path, what: str = "run folder") -> None:
    """A one-line error when ``path`` is a symbolic link or a special file (a FIFO, a socket,
    a device): kbgym neither writes through one nor reads one as a run's file, so a link
    cannot redirect a write into another run or a read to a file outside the folder."""
    import stat

    p = Path(path)
    try:
        st = p.lstat()
    except FileNotFoundError:
        return
    except OSError as err:
        raise ConfigError(f"{p}: cannot read it ({err.strerror})") from None
    if stat.S_ISLNK(st.st_mode):
        raise ConfigError(f"{p}: is a symbolic link; kbgym does not use a link as a {what} "
                          "or as a file in one")
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        raise ConfigError(f"{p}: is a special file, not a {what} or a file of one")


def remove_stale_temps(root: Path) -> list[Path]:
    """Delete leftovers of interrupted atomic writes (``.{name}.*.tmp``); returns them."""
    gone = []
    for tmp in Path(root).glob(".*.tmp"):
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
            gone.append(tmp)
    return gone


def check_unlocked(root: str | os.PathLike) -> None:
    """Raise :class:`RunLockedError` when another process holds ``root``'s lock; creates
    nothing (a folder without a lock file is not locked)."""
    path = Path(root) / LOCK_NAME
    if fcntl is None or not path.is_file():
        return
    try:
        fh = open(path, encoding="utf-8")
    except OSError:
        return
    with fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            holder = fh.read().strip() or "?"
            raise RunLockedError(
                f"{root} is being written by another kbgym process (pid {holder}); wait for it "
                "to finish or choose another --out") from None
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


@contextlib.contextmanager
def run_lock(root: str | os.PathLike) -> Iterator[None]:
    """Hold the run directory's writer lock (creating the directory) for the ``with`` body."""
    root = Path(root)
    refuse_link(root)
    root.mkdir(parents=True, exist_ok=True)
    refuse_link(root)  # made a link between the check and mkdir: still refused
    if fcntl is None:  # pragma: no cover
        yield
        return
    refuse_link(root / LOCK_NAME)
    try:  # never through a link put there since
        fd = os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_APPEND
                     | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as err:
        raise ConfigError(f"{root / LOCK_NAME}: cannot open the lock ({err.strerror})") from None
    fh = open(fd, "a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.seek(0)
            holder = fh.read().strip() or "?"
            raise RunLockedError(
                f"{root} is being written by another kbgym process (pid {holder}); wait for it "
                "to finish or choose another --out") from None
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        remove_stale_temps(root)
        try:
            yield
        finally:
            fh.seek(0)
            fh.truncate()  # a finished run leaves an empty lock file (same bytes every run)
    finally:
        fh.close()  # closing the descriptor releases the flock
