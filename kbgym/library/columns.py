"""Column helpers that let a large library load without a pass over its notes.

- :class:`StrColumn`: strings kept as one string and offsets (how a binary snapshot stores
  note texts); the i-th string is cut out when asked for, so loading makes no million string
  objects and writing the column again needs no join.
- :class:`CodeColumn`: values of a small set held as one byte each (the notes' flags), so a
  loaded or rewritten table makes no list of them and a writer stores the bytes as they are.
- :class:`OriginColumn`: the notes' origins as a kind per note (none, the note's own id, or
  another origin, listed in order), which is how the binary snapshot stores them.
- :class:`LazyDict` and :class:`LazySet`: a read-only dict or set made on first use (the
  origin carriers and the origin set of a loaded library: a library that is only written
  again, or searched, never builds them).
- :class:`IdPositions`: the id -> position map of notes in id order, answered by binary
  search over their numbers until a bulk reader asks for the dict.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kbgym.protocol.ids import minted_num


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


class CodeColumn:
    """A read-only sequence whose i-th item is ``values[codes[i]]`` (``codes``: uint8)."""

    __slots__ = ("codes", "values", "_table")

    def __init__(self, codes: Any, values: tuple):
        import numpy as np  # (here: the build path imports this module, never numpy)

        self.codes = np.asarray(codes, dtype=np.uint8)
        self.values = values
        self._table = np.empty(len(values), dtype=object)
        self._table[:] = list(values)

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return self._table[self.codes[i]].tolist()
        return self.values[self.codes[i]]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._table[self.codes].tolist())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (CodeColumn, list, tuple)):
            return len(other) == len(self) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self):  # pickles as the list it stands for
        return (list, (list(self),))


class OriginColumn:
    """A read-only sequence of the notes' origins: ``kind[i]`` is 0 (no origin), 1 (the note's
    own id, ``ids[i]``) or 2 (another origin: the next of ``others``, in order)."""

    __slots__ = ("kind", "ids", "others", "_rank")

    def __init__(self, kind: Any, ids: Any, others: list):
        import numpy as np

        self.kind = np.asarray(kind, dtype=np.uint8)
        self.ids, self.others = ids, others
        self._rank: Any = None
        if len(others) != int(np.count_nonzero(self.kind == 2)):
            raise ValueError("origins disagree with their kinds")

    def __len__(self) -> int:
        return len(self.kind)

    def _other(self, i: int) -> str:
        import numpy as np

        if self._rank is None:
            self._rank = np.cumsum(self.kind == 2) - 1
        return self.others[int(self._rank[i])]

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            import numpy as np

            lo, hi, step = i.indices(len(self.kind))
            if step != 1:
                return list(self)[i]
            out = np.empty(max(0, hi - lo), dtype=object)
            out[:] = self.ids[lo:hi]
            k = self.kind[lo:hi]
            out[k == 0] = None
            two = np.flatnonzero(k == 2)
            if len(two):
                r0 = int(np.count_nonzero(self.kind[:lo] == 2))
                vals = np.empty(len(two), dtype=object)
                vals[:] = self.others[r0: r0 + len(two)]
                out[two] = vals
            return out.tolist()
        k = self.kind[i]
        if k == 1:
            return self.ids[i]
        if k == 0:
            return None
        return self._other(i if i >= 0 else i + len(self.kind))

    def __iter__(self) -> Iterator[Any]:
        return iter(self[0: len(self.kind)])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (OriginColumn, list, tuple)):
            return len(other) == len(self) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self):  # pickles as the list it stands for
        return (list, (list(self),))


_MISSING: Any = object()


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
        v = self.get(key, _MISSING)
        if v is _MISSING:
            raise KeyError(key)
        return v

    def __contains__(self, key: object) -> bool:
        return self.get(key, _MISSING) is not _MISSING

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


class IdPositions(LazyDict):
    """id -> position of ``ids``, notes in id order (``nums``, their numbers, ascending, as
    the columns of a built or loaded library are). Lookups are binary searches over
    ``nums``: the first lookup in a library of 10^6 notes costs microseconds instead of the
    half second a dict of every id takes to make (a pause the first search after a build or
    a load used to take). A bulk reader that maps every id asks :meth:`to_dict` for the dict
    (made once; every lookup then goes through it)."""

    def __init__(self, ids: Any, nums: Any):
        super().__init__(lambda: dict(zip(ids, range(len(ids)))), len(ids))
        self._ids, self._nums = ids, nums

    def get(self, key: Any, default: Any = None) -> Any:
        if self._d is not None:
            return self._d.get(key, default)
        num = minted_num(key)
        if num is None:
            return default
        ids, nums = self._ids, self._nums
        i, n = bisect_left(nums, num), len(ids)
        while i < n and nums[i] == num:  # (``s01`` and ``s0001`` share a number)
            if ids[i] == key:
                return i
            i += 1
        return default


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


__all__ = ["CodeColumn", "LazyDict", "LazySet", "OriginColumn", "StrColumn"]
