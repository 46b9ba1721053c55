"""Errors raised in the user's own code (a curator, a reader, a factory): found by the frame
that raised them, so the one-line message can name the user's file and line instead of
``unexpected ZeroDivisionError``.

A frame is the user's when its file lies outside kbgym, its scripted agents, the standard
library and the installed packages (``site-packages``): a module in the current folder or
on ``PYTHONPATH``, as ``--agent my_module:make`` loads it.
"""

from __future__ import annotations

import importlib.util
import os
import sysconfig
import traceback
from pathlib import Path

import kbgym

#: exit status of a command stopped by an exception in the user's code (2 is bad input)
USER_CODE_EXIT = 1


def _not_user_dirs() -> tuple[str, ...]:
    dirs = {Path(kbgym.__file__).resolve().parent}
    # the scripted agents' folder, located without importing them (kbgym never imports agents)
    spec = importlib.util.find_spec("kbgym_agents")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        dirs.add(Path(loc).resolve())
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        if paths.get(key):
            dirs.add(Path(paths[key]).resolve())
    return tuple(str(d) + os.sep for d in dirs)


def user_frame(err: BaseException) -> traceback.FrameSummary | None:
    """The innermost frame of ``err``'s traceback that is in the user's code, or None."""
    skip = _not_user_dirs()
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        name = frame.filename
        if name.startswith("<") or "site-packages" in name or "dist-packages" in name:
            continue
        if not str(Path(name).resolve()).startswith(skip):
            return frame
    return None


def where(frame: traceback.FrameSummary) -> str:
    """``my_curator.py:14 in act``: the file relative to the current folder when inside it."""
    path = Path(frame.filename).resolve()
    try:
        shown = str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        shown = str(path)
    return f"{shown}:{frame.lineno} in {frame.name}"


def report(command: str, err: BaseException, frame: traceback.FrameSummary, args) -> int:
    """One line naming the user's file and line, a second saying how to go on; exit 1."""
    import sys

    text = str(err).splitlines()[0] if str(err) else ""
    print(f"kbgym {command}: error: your code raised {type(err).__name__}"
          f"{': ' + text if text else ''} at {where(frame)} (KBGYM_DEBUG=1 shows the traceback)",
          file=sys.stderr)
    out = getattr(args, "out", None)
    if command == "train" and out and Path(out, "meta.json").exists():
        print(f"kbgym train: the run folder {out} keeps every finished iteration: fix the code "
              f"and rerun the same command with --resume", file=sys.stderr)
    return USER_CODE_EXIT
