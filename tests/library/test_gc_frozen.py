"""gc_frozen: long-lived objects leave the collector's generations for the block, nested
blocks keep them frozen, and the outermost block gives them back."""

from __future__ import annotations

import gc

from kbgym.library.graph import gc_frozen, gc_refreeze


class Cycle:
    def __init__(self):
        self.me = self  # a reference cycle: only the collector frees it


def test_nested_blocks_unfreeze_once_at_the_outermost():
    import weakref

    gc.unfreeze()
    with gc_frozen():
        with gc_frozen():
            c = Cycle()
            gone = weakref.ref(c)
        with gc_frozen():  # c is frozen now
            pass
        del c
        gc.collect()
        assert gone() is not None  # the inner exits kept the freeze
    gc.collect()
    assert gone() is None and gc.get_freeze_count() == 0  # the outermost gave it back


def test_unfreezes_after_an_error():
    gc.unfreeze()
    try:
        with gc_frozen():
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert gc.get_freeze_count() == 0


def test_refreeze_collects_frozen_cycles_and_keeps_the_live_frozen():
    import weakref

    gc.unfreeze()
    with gc_frozen():
        a = Cycle()
        gone = weakref.ref(a)
        with gc_frozen():  # frozen while alive ...
            del a
        gc.collect()
        assert gone() is not None  # ... so a collection cannot see it
        gc_refreeze()
        assert gone() is None
        assert gc.get_freeze_count() > 0  # what is alive is frozen again
    gc_refreeze()  # outside a block: no-op
    assert gc.get_freeze_count() == 0
