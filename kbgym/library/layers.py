"""``LayeredMap``: a dict whose forks share their parent's entries (copy-on-write).

A map is three dicts: a frozen *base*, a frozen *mid* (changes over the base) and an owned
*top* (changes over both). A key maps to ``None`` in mid or top when it was deleted there, so
values are never None. :meth:`fork` freezes the top into a new mid, shared by both maps, and
gives each an empty top: a fork costs the size of the changes since the base, never the size
of the base. When the mid outgrows :data:`FOLD_MIN` entries (and a quarter of the base) it is
folded into a new base, so lookups stay at most three probes and forks stay cheap.

The frozen dicts are never written to again; a map may hand them to any number of forks.
Values are shared as they are: a caller that mutates values (the library's nodes) must copy
a value before changing it unless :meth:`owns` it (the top holds it).

Iteration follows insertion order: the base's keys, then keys first set in the mid, then keys
first set in the top (the library inserts ids in increasing order, so this is id order).

A base may also be a :class:`LazyMap`: a read-only mapping over columns whose values are made
on first access (a library built from a universe or loaded from a binary snapshot makes its
note objects only as they are touched).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

#: A mid of at most this many entries is never folded into the base.
FOLD_MIN = 65_536
_MISS: Any = object()


class LayeredMap:
    __slots__ = ("_base", "_mid", "_top", "_n", "_private")

    def __init__(self, data: dict | None = None):
        """A map holding ``data``, which it takes over (no copy: do not use it afterwards)."""
        self._base: dict = {}
        self._mid: dict = {}
        self._top: dict = data if data is not None else {}
        self._n = len(self._top)
        self._private = False

    @classmethod
    def over(cls, base: Any, private: bool = False) -> "LayeredMap":
        """A map whose frozen base is ``base`` (a dict or a LazyMap, never written again).
        ``private``: no other map holds the base's values yet (until the first fork), so
        :meth:`writable` may hand them out without a copy."""
        m = cls()
        m._base, m._n, m._private = base, len(base), private
        return m

    # -- reading ------------------------------------------------------------------------
    def get(self, key: Any, default: Any = None) -> Any:
        if not self._mid:  # the common shapes: a fresh map, or a fork not yet written to
            top = self._top
            if not top:
                return self._base.get(key, default)
            v = top.get(key, self)
            if v is self:
                return self._base.get(key, default)
            return default if v is None else v
        v = self._top.get(key, self)
        if v is self:
            v = self._mid.get(key, self)
            if v is self:
                v = self._base.get(key)
        return default if v is None else v

    def __getitem__(self, key: Any) -> Any:
        v = self.get(key)
        if v is None:
            raise KeyError(key)
        return v

    def text(self, key: Any) -> str | None:
        """``get(key).text`` (None when absent), read from a :class:`LazyMap` base's columns
        when the value was never made: nothing is made for it."""
        v = self._top.get(key, self)
        if v is self and self._mid:
            v = self._mid.get(key, self)
        if v is self:
            base = self._base
            if type(base) is LazyMap:
                return base.text(key)
            v = base.get(key)
        return None if v is None else v.text

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None

    def __len__(self) -> int:
        return self._n

    def owns(self, key: Any, value: Any) -> bool:
        """True when ``value`` is this map's own (top) entry for ``key``: safe to mutate."""
        return self._top.get(key) is value

    def _over(self) -> dict:
        """Mid and top together (what differs from the base)."""
        if not self._top:
            return self._mid
        if not self._mid:
            return self._top
        return {**self._mid, **self._top}

    def items(self) -> Iterator[tuple[Any, Any]]:
        base, over = self._base, self._over()
        if not over:
            yield from base.items()
            return
        get = over.get
        for k, v in base.items():
            w = get(k, v)
            if w is not None:
                yield k, w
        for k, w in over.items():
            if w is not None and k not in base:
                yield k, w

    def values(self) -> Iterator[Any]:
        if not self._mid and not self._top:
            return iter(self._base.values())
        return (v for _, v in self.items())

    def keys(self) -> Iterator[Any]:
        if not self._mid and not self._top:
            return iter(self._base.keys())
        return self._keys_over()

    def _keys_over(self) -> Iterator[Any]:
        """:meth:`keys` over changes, without reading the base's values (a LazyMap base
        would make every note to be iterated)."""
        base, over = self._base, self._over()
        get, miss = over.get, _MISS
        for k in base.keys():
            w = get(k, miss)
            if w is miss or w is not None:
                yield k
        for k, w in over.items():
            if w is not None and k not in base:
                yield k

    __iter__ = keys

    # -- writing ------------------------------------------------------------------------
    def __setitem__(self, key: Any, value: Any) -> None:
        if value is None:
            raise ValueError("LayeredMap values must not be None")
        top = self._top
        if not self._base and not self._mid:  # a fresh map: a plain dict
            if key not in top:
                self._n += 1
        elif self.get(key) is None:
            self._n += 1
        top[key] = value

    def add_new(self, key: Any, value: Any) -> None:
        """``self[key] = value`` for a key the caller knows is absent (no lookup first)."""
        self._top[key] = value
        self._n += 1

    def __delitem__(self, key: Any) -> None:
        if self.get(key) is None:
            raise KeyError(key)
        self._n -= 1
        if key in self._base or key in self._mid:
            self._top[key] = None
        else:
            del self._top[key]

    def writable(self, key: Any, value: Any, copy: Any) -> Any:
        """The top's own entry for ``key`` (a live key whose value is ``value``), made with
        ``copy(value)`` if the top has none yet: the version of the value safe to mutate."""
        cur = self._top.get(key)
        if cur is None:  # (a value nobody else holds yet is taken over as it is)
            cur = self._top[key] = value if self._private else copy(value)
        return cur

    def pop(self, key: Any, default: Any = None) -> Any:
        v = self.get(key)
        if v is None:
            return default
        del self[key]
        return v

    # -- forking ------------------------------------------------------------------------
    def _freeze(self) -> None:
        """Turn the top into frozen layers (no copy of the base, ever)."""
        if not self._top:
            return
        if not self._base and not self._mid:  # a fresh map: its top becomes the base as it is
            self._base, self._top = self._top, {}
            return
        mid = self._over()  # a new dict, or the old top (handed over: a new top follows)
        base = self._base
        for k in [k for k, v in mid.items() if v is None and k not in base]:
            del mid[k]  # deleted again before ever reaching the base: nothing to hide
        if len(mid) > max(FOLD_MIN, len(base) // 4):
            merged = base.to_dict().copy() if hasattr(base, "to_dict") else dict(base)
            for k, v in mid.items():
                if v is None:
                    merged.pop(k, None)
                else:
                    merged[k] = v
            self._base, self._mid = merged, {}
        else:
            self._mid = mid
        self._top = {}

    def fork(self) -> "LayeredMap":
        """A map with the same entries that shares every frozen layer with this one."""
        self._freeze()
        other = LayeredMap.__new__(LayeredMap)
        other._base, other._mid, other._top, other._n = self._base, self._mid, {}, self._n
        self._private = other._private = False
        return other

    def __getstate__(self):
        return (self._base, self._mid, self._top, self._n)

    def __setstate__(self, state) -> None:
        self._base, self._mid, self._top, self._n = state
        self._private = False


class LazyMap:
    """A read-only mapping over ``keys`` (in order) whose value for the i-th key is made by
    ``make(i)`` on first access and kept, so that equal lookups give the same object. The
    first full iteration makes every value and keeps them in key order; afterwards it reads
    like a dict. Frozen as a base of LayeredMaps: its values must never be mutated (they
    are shared), which is what the library's copy-on-write already guarantees.
    """

    __slots__ = ("_keys", "_pos", "_make", "_made", "_all", "source")

    def __init__(self, keys: Sequence, pos: Any, make: Callable[[int], Any],
                 made: dict | None = None, source: Any = None):
        self._keys = keys
        self._pos = pos  # key -> index
        self._make = make
        self._made: dict = made if made is not None else {}
        self._all: dict | None = None
        self.source = source  # the columns the values are made from (for writers), or None

    def get(self, key: Any, default: Any = None) -> Any:
        if self._all is not None:
            return self._all.get(key, default)
        v = self._made.get(key)
        if v is None:
            i = self._pos.get(key)
            if i is None:
                return default
            v = self._made[key] = self._make(i)
        return v

    def __getitem__(self, key: Any) -> Any:
        v = self.get(key)
        if v is None:
            raise KeyError(key)
        return v

    def text(self, key: Any) -> str | None:
        """The value's ``text`` (None when absent) without making the value: from the value
        when made, else from the source columns' ``texts``."""
        if self._all is not None:
            v = self._all.get(key)
            return None if v is None else v.text
        v = self._made.get(key)
        if v is not None:
            return v.text
        i = self._pos.get(key)
        if i is None:
            return None
        src = self.source
        return self._make(i).text if src is None else src.texts[i]

    def __contains__(self, key: object) -> bool:
        return self._pos.get(key) is not None

    def __len__(self) -> int:
        return len(self._keys)

    def keys(self) -> Iterator[Any]:
        return iter(self._keys)

    __iter__ = keys

    def _every(self) -> dict:
        if self._all is None:
            made, make = self._made, self._make
            self._all = {k: made.get(k) or make(i) for i, k in enumerate(self._keys)}
            self._made = {}
        return self._all

    def values(self) -> Iterator[Any]:
        return iter(self._every().values())

    def items(self) -> Iterator[tuple[Any, Any]]:
        return iter(self._every().items())

    def __reduce__(self):  # pickles as the plain dict it stands for
        return (dict, (self._every(),))
