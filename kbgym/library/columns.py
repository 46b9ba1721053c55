"""Column helpers that let a large library load without a pass over its notes.

- :class:`StrColumn`: strings kept as one string and offsets (how a binary snapshot stores
  note texts); the i-th string is cut out when asked for, so loading makes no million string
  objects and writing the column again needs no join.
- :class:`LazyDict` and :class:`LazySet`: a read-only dict or set made on first use (the
  id -> position map, the origin carriers and the origin set of a loaded library: a library
  that is only written again, or searched, never builds them).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator
from typing import Any


class StrColumn:
    """A read-only sequence of strings held as ``text`` (the strings joined, with a NUL
    after each but the last when ``sep``) and ``off`` (len + 1 character offsets; with
    ``sep`` they count a NUL after every string, the last one past the end)."""

    __slots__ = ("text", "off", "sep", "_n")

    def __init__(self, text: str, off: Any, sep: bool):
        self.text = text
        self.off = off if isinstance(off, array) else array("q", bytes(memoryview(off)))
        self.sep = int(sep)
        self._n = len(self.off) - 1

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            lo, hi, step = i.indices(self._n)
            if step != 1:
                return list(self)[i]
            return self._range(lo, hi)
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("StrColumn index out of range")
        o = self.off
        return self.text[o[i]: o[i + 1] - self.sep]

    def _range(self, lo: int, hi: int) -> list[str]:
        if hi <= lo:
            return []
        o, t = self.off, self.text
        if self.sep:
            return t[o[lo]: o[hi] - 1].split("\x00")
        return [t[a:b] for a, b in zip(o[lo:hi], o[lo + 1: hi + 1])]

    def __iter__(self) -> Iterator[str]:
        return iter(self._range(0, self._n))

    def __add__(self, other: Any) -> list[str]:
        return list(self) + list(other)

    def __radd__(self, other: Any) -> list[str]:
        return list(other) + list(self)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StrColumn):
            return (self.text, self.off, self.sep) == (other.text, other.off, other.sep) \
                or list(self) == list(other)
        if isinstance(other, (list, tuple)):
            return len(other) == self._n and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self):  # pickles as the list it stands for
        return (list, (list(self),))


class LazyDict:
    """A read-only mapping made by ``make()`` the first time it is read (``n``: its size,
    known without making it). Once made, ``get`` is the dict's own."""

    def __init__(self, make: Callable[[], dict], n: int):
        self._make: Callable[[], dict] | None = make
        self._d: dict | None = None
        self._n = n

    def to_dict(self) -> dict:
        d = self._d
        if d is None:
            d = self._d = self._make()  # type: ignore[misc]
            self._make = None
            self.get = d.get  # type: ignore[method-assign, assignment]
        return d

    def get(self, key: Any, default: Any = None) -> Any:
        return self.to_dict().get(key, default)

    def __getitem__(self, key: Any) -> Any:
        return self.to_dict()[key]

    def __contains__(self, key: object) -> bool:
        return key in self.to_dict()

    def __len__(self) -> int:
        return self._n if self._d is None else len(self._d)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.to_dict())

    def keys(self) -> Any:
        return self.to_dict().keys()

    def values(self) -> Any:
        return self.to_dict().values()

    def items(self) -> Any:
        return self.to_dict().items()

    def __reduce__(self):  # pickles as the dict it stands for
        return (dict, (self.to_dict(),))


class LazySet:
    """A frozenset of ``items`` made the first time membership is asked."""

    __slots__ = ("_items", "_s")

    def __init__(self, items: Iterable[Any]):
        self._items = items
        self._s: frozenset | None = None

    def _set(self) -> frozenset:
        s = self._s
        if s is None:
            s = self._s = frozenset(self._items)
            self._items = ()
        return s

    def __contains__(self, key: object) -> bool:
        return key in self._set()

    def __len__(self) -> int:
        return len(self._set())

    def __iter__(self) -> Iterator[Any]:
        return iter(self._set())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazySet):
            return self._set() == other._set()
        if isinstance(other, (set, frozenset)):
            return self._set() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self):
        return (frozenset, (self._set(),))


__all__ = ["LazyDict", "LazySet", "StrColumn"]
