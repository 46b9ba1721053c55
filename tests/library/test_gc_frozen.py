"""gc_frozen: long-lived objects leave the collector's generations for the block, nested
blocks keep them frozen, and the outermost block gives them back."""

from __future__ import annotations

import gc

from kbgym.library.graph import gc_frozen, gc_refreeze


def test_nested_blocks_unfreeze_once_at_the_outermost():
    gc.unfreeze()
    keep = [object() for _ in range(10)] + [[i] for i in range(1000)]
    with gc_frozen():
        outer = gc.get_freeze_count()
        assert outer >= 1000
        more = [[i] for i in range(500)]
        with gc_frozen():
            assert gc.get_freeze_count() >= outer + 500
        assert gc.get_freeze_count() >= outer  # the inner exit keeps the outer freeze
    assert gc.get_freeze_count() == 0
    assert keep and more


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

    class Cycle:
        pass

    gc.unfreeze()
    with gc_frozen():
        a = Cycle()
        a.me = a  # a reference cycle: only the collector frees it
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
