"""The cyclic garbage collector paused around bulk work (imports nothing from kbgym, so the
build path can use it without the library)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager


_paused_depth = 0
_paused_was = False  # whether the collector was on when the outermost pause began
_paused_lock = threading.Lock()


@contextmanager
def gc_paused() -> Iterator[None]:
    """Bulk loads and builds allocate millions of small, long-lived, acyclic objects (notes,
    facts, people, pool items); every 700 of them would start a cyclic collection that walks
    the ones already made (a third of a 20,000-person build's CPU, most of a 10^6-note load).
    Reference counting still frees everything. Pauses nest and may overlap across threads
    (an exam server may navigate in several): the state from before the first pause is
    restored when the last one ends."""
    global _paused_depth, _paused_was
    with _paused_lock:
        if _paused_depth == 0:
            _paused_was = gc.isenabled()
            gc.disable()
        _paused_depth += 1
    try:
        yield
    finally:
        with _paused_lock:
            _paused_depth -= 1
            if _paused_depth == 0 and _paused_was:
                gc.enable()
