"""The cyclic garbage collector paused around bulk work (imports nothing from kbgym, so the
build path can use it without the library)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Bulk loads and builds allocate millions of small, long-lived, acyclic objects (notes,
    facts, people, pool items); every 700 of them would start a cyclic collection that walks
    the ones already made (a third of a 20,000-person build's CPU, most of a 10^6-note load).
    Reference counting still frees everything; the previous state is restored afterwards."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
