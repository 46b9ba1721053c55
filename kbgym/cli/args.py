"""Argument types with ranges for the ``kbgym`` command line, and a parser whose errors are
one line (``kbgym train: error: argument --epochs: must be between 1 and 1000, got 0``).

A flag that sets a model field takes its range from the field (:func:`of`) or from the range
the field is declared with (:func:`ranged`; the ranges live in :mod:`kbgym.ranges`), so a flag
and a config file or sweep grid refuse the same values. Every numeric flag's ``--help`` shows
its range, added from its type by the help formatter. Numbers are plain decimals: ``1_000``,
``+5`` written as ``5`` is fine, but ``0x10``, ``1e3`` for a count, ``٣`` and ``nan`` are
refused. Options are never abbreviated (``--epoch`` is not ``--epochs``) and a single-value
option given twice is an error, not "the last one wins".
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import typing
from typing import Any

from kbgym.ranges import MAX_SEED, RANGES

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _show(x: float) -> str:
    """A bound as it reads in help and errors (2^63-1 for the largest seed)."""
    if x == MAX_SEED:
        return "2^63-1"
    return f"{x:g}" if isinstance(x, float) else str(x)


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2 (no usage dump),
    options are never abbreviated, a single-value option may be given once, and numeric
    flags show their range in ``--help``."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", RangeHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message.splitlines()[0] if message else ''}\n")

    def _parse_known_args(self, arg_strings, namespace, *rest):  # type: ignore[override]
        once = {}
        for action in self._actions:
            # a value or a yes/no given twice conflicts; --quiet --quiet does not
            if isinstance(action, (argparse._StoreAction, argparse.BooleanOptionalAction)) \
                    and action.option_strings:
                for opt in action.option_strings:
                    once[opt] = action
        seen: dict[Any, str] = {}
        for arg in arg_strings:
            if arg == "--":
                break
            opt = arg.split("=", 1)[0] if arg.startswith("--") else arg
            action = once.get(opt)
            if action is None:
                continue
            if action in seen:
                self.error(f"argument {'/'.join(action.option_strings)}: given twice "
                           f"({seen[action]} and {opt})")
            seen[action] = opt
        return super()._parse_known_args(arg_strings, namespace, *rest)


class RangeHelpFormatter(argparse.HelpFormatter):
    """Adds ``, LO-HI`` to the help of a flag whose type has a range, unless it is shown."""

    def _get_help_string(self, action):
        text = action.help or ""
        shown = getattr(action.type, "range_text", None)
        if shown and shown not in text:
            head, sep, tail = text.partition(" (default")
            text = f"{head}, {shown}{sep}{tail}" if head else shown
        return text


def _typed(parse, kind: str, lo, hi, range_text: str):
    parse.__name__ = kind
    parse.lo, parse.hi, parse.range_text = lo, hi, range_text
    return parse


def int_range(lo: int, hi: int):
    """An argparse type: an integer in [lo, hi]."""
    def parse(text: str) -> int:
        t = text.strip()
        if not _INT.fullmatch(t):
            raise argparse.ArgumentTypeError(f"expected an integer, got {text[:40]!r}")
        value = int(t)
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be between {_show(lo)} and {_show(hi)}, "
                                             f"got {t[:40]}")
        return value

    return _typed(parse, "integer", lo, hi, f"{_show(lo)}-{_show(hi)}")


def float_range(lo: float, hi: float):
    """An argparse type: a finite number in [lo, hi]."""
    def parse(text: str) -> float:
        t = text.strip()
        if not _FLOAT.fullmatch(t):
            raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}")
        value = float(t)
        if not math.isfinite(value) or not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be between {lo:g} and {hi:g}, got {t[:40]}")
        return value

    return _typed(parse, "number", lo, hi, f"{lo:g}-{hi:g}")


def int_pair(lo: int, hi: int):
    """An argparse type: ``LO-HI`` (or one integer N, meaning N-N) with lo <= LO <= HI <= hi."""
    def parse(text: str) -> tuple[int, int]:
        a, sep, b = text.strip().partition("-")
        if not _INT.fullmatch(a) or (sep and not _INT.fullmatch(b)):
            raise argparse.ArgumentTypeError(f"expected LO-HI (e.g. 1-6), got {text[:40]!r}")
        first = int(a)
        second = int(b) if sep else first
        if not lo <= first <= second <= hi:
            raise argparse.ArgumentTypeError(f"must be LO-HI with {lo} <= LO <= HI <= {hi}, "
                                             f"got {text[:40]}")
        return first, second

    return _typed(parse, "range", lo, hi, f"each {lo}-{hi}")


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

def _constraints(annotation: Any) -> tuple[Any, list]:
    """(base type, constraints) of ``int``, ``Annotated[int, ...]`` or an Optional of one."""
    if typing.get_origin(annotation) is typing.Annotated:
        base, *meta = typing.get_args(annotation)
        inner, more = _constraints(base)
        return inner, more + [m for x in meta for m in getattr(x, "metadata", [x])]
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, getattr(__import__("types"), "UnionType",
                                                               None)) and len(args) == 1:
        return _constraints(args[0])
    return annotation, []


def bounds_of(metadata: list, annotation: Any) -> tuple[type, Any, Any]:
    """(int or float, lo, hi) from a pydantic field's annotation and constraints."""
    import annotated_types as at

    base, more = _constraints(annotation)
    lo = hi = None
    for c in [*more, *metadata]:
        if isinstance(c, at.Ge):
            lo = c.ge
        elif isinstance(c, at.Gt):
            lo = c.gt
        elif isinstance(c, at.Le):
            hi = c.le
        elif isinstance(c, at.Lt):
            hi = c.lt
    if base not in (int, float) or lo is None or hi is None:
        raise TypeError(f"not a number with a range: {annotation}")
    return base, lo, hi


def of(model_or_alias: Any, field: str | None = None):
    """The argparse type of a model field (``of(TrainConfig, "epochs")``) or of a range type
    from :mod:`kbgym.bounds` (``of(B.Seed)``): the same bounds the model validates."""
    if field is not None:
        info = model_or_alias.model_fields[field]
        kind, lo, hi = bounds_of(info.metadata, info.annotation)
    else:
        kind, lo, hi = bounds_of([], model_or_alias)
    return int_range(lo, hi) if kind is int else float_range(lo, hi)


def ranged(name: str):
    """The argparse type of the range ``name`` of :data:`kbgym.ranges.RANGES` (``"People"``:
    the range of the ``B.People`` fields): :func:`of` without importing the model, or
    pydantic, for the flags of commands that must start fast (``kbgym build``)."""
    kind, lo, hi = RANGES[name]
    return int_range(int(lo), int(hi)) if kind is int else float_range(lo, hi)


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


SEED = ranged("Seed")
BUDGET = ranged("Budget")          # n1, n2, m: steps per phase
COUNT = ranged("Count")            # train sizes, limits, snapshot intervals
SIZE = ranged("SplitSize")         # split sizes (0 allowed)
FRACTION = ranged("Fraction")
