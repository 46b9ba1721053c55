"""Note ids (docs/protocol.md §3, §6): ``s%04d``, minted in order, never reused. "Id order"
compares the numeric part, so ``s9999`` comes before ``s10000``."""

from __future__ import annotations

import re

#: A note id in a result line. The environment mints ``s`` + digits; a reader also accepts any
#: run of letters or ``_`` before the digits, so other id schemes still parse.
NOTE_ID = r"[A-Za-z_]*[0-9]+"
_MINTED = re.compile(r"s([0-9]+)")
_MENTIONED = re.compile(r"\bs(\d{4,})\b")


def format_id(num: int) -> str:
    """The id of note number ``num``: ``s0001`` (the width is a minimum)."""
    return "s%04d" % num


def minted_num(text: object) -> int | None:
    """The numeric part of an id the environment mints (``s0042`` -> 42); None for anything
    else, a non-string included."""
    m = _MINTED.fullmatch(text) if isinstance(text, str) else None
    return None if m is None else int(m.group(1))


def id_num(node_id: str) -> int:
    """The numeric part of an ``s%04d`` id; id order compares this (s9999 < s10000)."""
    num = minted_num(node_id)
    if num is None:
        raise ValueError(f"bad note id {node_id!r}: expected 's' followed by digits, e.g. s0001")
    return num


def is_note_id(text: str) -> bool:
    """Whether ``text`` is an id the environment mints (``s`` followed by digits)."""
    return minted_num(text) is not None


def id_key(node_id: str) -> tuple[int, str]:
    """A sort key in id order for any id-like string (a non-numeric one sorts first)."""
    digits = "".join(ch for ch in node_id if ch.isdigit())
    return (int(digits) if digits else -1, node_id)


def ids_in(text: str) -> list[int]:
    """The numbers of every minted id (``s`` and at least four digits) anywhere in ``text``,
    in order — inside results, calls or note texts alike."""
    return [int(m) for m in _MENTIONED.findall(text)]
