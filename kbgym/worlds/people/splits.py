"""Drawing the splits from the pools (SPEC §5)."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from kbgym.worlds.people.questions import Instance
from kbgym.worlds.people.templates import TEMPLATES, TRAINED_EASY, TRAINED_HARD

Pools = dict[str, deque[Instance]]


def shuffle(x: list, rng: random.Random) -> None:
    """``rng.shuffle(x)``: the same permutation and the same draws (a test holds them equal),
    ~25 % faster. A large universe shuffles half a million pool items; ``random.shuffle``
    calls ``_randbelow`` once per item, and this is that loop inlined: for each position
    ``i`` from the end, ``getrandbits(k)`` with ``k`` the bit length of ``i + 1``, redrawn
    while it is out of range, then the swap. A subclass of Random (its own draws) gets its own
    ``shuffle``."""
    if type(rng) is not random.Random:
        rng.shuffle(x)
        return
    getrandbits = rng.getrandbits
    n = len(x)
    while n > 1:  # a run of positions whose i + 1 has the same bit length k
        k = n.bit_length()
        low = max(1 << (k - 1), 2)
        for m in range(n, low - 1, -1):  # m = i + 1
            r = getrandbits(k)
            while r >= m:
                r = getrandbits(k)
            i = m - 1
            x[i], x[r] = x[r], x[i]
        n = low - 1


def shuffled_pools(pools: dict[str, list], rng: random.Random) -> Pools:
    """One shuffle per template, in table order (of Instances or of lean pool items: a
    shuffle's draws depend only on the pool's length)."""
    out = {}
    for t in TEMPLATES:
        items = list(pools[t.name])
        shuffle(items, rng)
        out[t.name] = deque(items)
    return out


def _same(template: str, item: Any) -> Any:
    return item


def take(pools: Pools, templates: Sequence[str], n: int, make: Callable = _same) -> list:
    """Round-robin over ``templates`` in order, popping each non-empty pool's front;
    ``make(template, item)`` turns a drawn item into what is returned (a generated universe's
    pools hold lean items: :func:`~kbgym.worlds.people.questions.instance`)."""
    out: list[Instance] = []
    while len(out) < n:
        live = [t for t in templates if pools[t]]
        if not live:
            break
        for t in live:
            if len(out) == n:
                break
            out.append(make(t, pools[t].popleft()))
    return out


def mixed(pools: Pools, n: int, hard_frac: float, make: Callable = _same) -> list:
    h = int(n * hard_frac + 0.5)
    return take(pools, TRAINED_HARD, h, make) + take(pools, TRAINED_EASY, n - h, make)


def draw_splits(pools: Pools, sizes: Sequence[int], eval_sizes: Sequence[int],
                trained: Callable[[int], list], reserved: Sequence[str],
                make: Callable = _same) -> tuple[list[tuple[str, Any, str | None]], dict[str, int]]:
    """``(split, instance, eval_flavor)`` in the §5 draw order, and the shortfall per draw.

    ``trained(n)`` draws n trained instances (``mixed`` for a generated universe, a plain
    round-robin for PhantomWiki); ``reserved`` are the held-out templates.
    """
    n_train, n_test_in, n_test_out = sizes
    n_eval_in, n_eval_out = eval_sizes
    draws = [
        ("train", "train", trained(n_train), None, n_train),
        ("test_in", "test_in", trained(n_test_in), None, n_test_in),
        ("test_out", "test_out", take(pools, reserved, n_test_out, make), None, n_test_out),
        ("eval_in", "eval", trained(n_eval_in), "in", n_eval_in),
        ("eval_out", "eval", take(pools, reserved, n_eval_out, make), "out", n_eval_out),
    ]
    rows, shortfall = [], {}
    for label, split, items, flavor, wanted in draws:
        shortfall[label] = wanted - len(items)
        rows += [(split, inst, flavor) for inst in items]
    return rows, shortfall
