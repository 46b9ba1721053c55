"""The splits' shuffle (kbgym/worlds/people/splits.py) is ``random.shuffle``: the same
permutation and the same draws, so every universe keeps its bytes."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kbgym.worlds.people.splits import shuffle


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**64), lengths=st.lists(st.integers(0, 3000), max_size=4))
def test_shuffle_is_random_shuffle(seed, lengths):
    ours, theirs = random.Random(seed), random.Random(seed)
    for n in lengths:  # one stream through several pools, as the splits draw them
        a, b = list(range(n)), list(range(n))
        shuffle(a, ours)
        theirs.shuffle(b)
        assert a == b
    assert ours.getstate() == theirs.getstate()


def test_the_edges_of_each_bit_length():
    for n in (0, 1, 2, 3, 4, 5, 7, 8, 9, 255, 256, 257, 4096, 4097, 65536, 65537):
        a, b = list(range(n)), list(range(n))
        shuffle(a, random.Random(n))
        random.Random(n).shuffle(b)
        assert a == b, n


def test_a_random_subclass_keeps_its_own_shuffle():
    class Fixed(random.Random):
        def shuffle(self, x, *args):  # type: ignore[override]
            x.reverse()

    x = [1, 2, 3]
    shuffle(x, Fixed(0))
    assert x == [3, 2, 1]
