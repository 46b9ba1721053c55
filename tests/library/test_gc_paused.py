"""gc_paused: the collector is off inside, nested and overlapping pauses (threads) end with
the state from before the first one, also after an error."""

from __future__ import annotations

import gc
import threading

import pytest

from kbgym.collector import gc_paused


@pytest.fixture(autouse=True)
def _collector_on():
    gc.enable()
    yield
    gc.enable()


def test_nested_pauses_restore_the_collector_once_the_outermost_ends():
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner end keeps the outer pause
    assert gc.isenabled()


def test_a_pause_begun_with_the_collector_off_leaves_it_off():
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_an_error_inside_still_restores_it():
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_overlapping_pauses_in_threads_end_with_the_collector_on():
    """Thread A pauses, B pauses, A ends while B is inside (the collector stays off for B),
    then B ends: on again. A pause that saves and restores on its own would turn the
    collector on under B when A ends."""
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def a():
        with gc_paused():
            a_in.set()
            b_in.wait(5)
        a_out.set()

    def b():
        a_in.wait(5)
        with gc_paused():
            b_in.set()
            a_out.wait(5)
            seen.append(gc.isenabled())

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == [False] and gc.isenabled()
