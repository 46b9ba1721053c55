"""Argument types with ranges for the ``kbgym`` command line, and a parser whose errors are
one line (``kbgym train: error: argument --epochs: must be between 1 and 1000, got 0``)."""

from __future__ import annotations

import argparse
import math
import sys

#: The largest seed: numpy's SeedSequence takes any non-negative int; this keeps seeds readable.
MAX_SEED = 2**63 - 1


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2 (no usage dump)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message.splitlines()[0] if message else ''}\n")


def int_range(lo: int, hi: int):
    """An argparse type: an integer in [lo, hi]."""
    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text[:40]!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be between {lo} and {hi}, got {value}")
        return value

    parse.__name__ = "integer"
    return parse


def float_range(lo: float, hi: float):
    """An argparse type: a finite number in [lo, hi]."""
    def parse(text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None
        if not math.isfinite(value) or not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be between {lo:g} and {hi:g}, got {text[:40]}")
        return value

    parse.__name__ = "number"
    return parse


def int_pair(lo: int, hi: int):
    """An argparse type: ``LO-HI`` (or one integer N, meaning N-N) with lo <= LO <= HI <= hi."""
    def parse(text: str) -> tuple[int, int]:
        a, sep, b = text.strip().partition("-")
        try:
            first = int(a)
            second = int(b) if sep else first
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected LO-HI (e.g. 1-6), got {text[:40]!r}") \
                from None
        if not lo <= first <= second <= hi:
            raise argparse.ArgumentTypeError(f"must be LO-HI with {lo} <= LO <= HI <= {hi}, "
                                             f"got {text[:40]}")
        return first, second

    parse.__name__ = "range"
    return parse


def seed_list(text: str) -> tuple[int, ...]:
    """An argparse type: seeds as ``LO-HI`` (``0-4``), a comma list (``0,2,7``) or both
    (``0-2,9``); distinct, in the order given."""
    seeds: list[int] = []
    for part in text.strip().split(","):
        a, sep, b = part.strip().partition("-")
        try:
            lo = int(a)
            hi = int(b) if sep else lo
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected seeds like 0-4 or 0,1,2, got "
                                             f"{text[:40]!r}") from None
        if not 0 <= lo <= hi <= MAX_SEED or hi - lo >= 10_000:
            raise argparse.ArgumentTypeError(f"expected seeds like 0-4 (LO <= HI, at most "
                                             f"10000), got {part.strip()[:40]!r}")
        seeds += range(lo, hi + 1)
    if len(set(seeds)) != len(seeds):
        raise argparse.ArgumentTypeError(f"seeds must be distinct, got {text[:40]!r}")
    return tuple(seeds)


seed_list.__name__ = "seeds"

SEED = int_range(0, MAX_SEED)
BUDGET = int_range(1, 10_000)        # n1, n2, m: steps per phase
COUNT = int_range(1, 1_000_000)      # train sizes, limits, snapshot intervals
SIZE = int_range(0, 1_000_000)       # split sizes (0 allowed)
FRACTION = float_range(0.0, 1.0)


def debug() -> bool:
    import os

    return bool(os.environ.get("KBGYM_DEBUG"))


def internal_error(command: str, err: BaseException) -> int:
    """An unexpected exception as one line (the traceback only with KBGYM_DEBUG=1)."""
    if debug():
        raise err
    print(f"kbgym {command}: error: unexpected {type(err).__name__}: "
          f"{str(err).splitlines()[0] if str(err) else ''} (KBGYM_DEBUG=1 shows the traceback)",
          file=sys.stderr)
    return 2
