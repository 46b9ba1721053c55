"""Gymnasium spaces for KBGym (SPEC §16.2): ``Unicode`` text and the ``KBActionSpace``.

Both draw only from their own ``np_random`` (seed them with ``space.seed(n)``).
"""

from __future__ import annotations

import os
import shutil
import string
import tempfile
import weakref
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np
from gymnasium.spaces import Space
from gymnasium.vector.utils import (
    create_shared_memory,
    read_from_shared_memory,
    write_to_shared_memory,
)

from kbgym.env.actions import ACTION_MODELS, LINK_TYPES, InvalidAction, parse_action

#: Characters ``Unicode.sample`` draws from: printable ASCII without control whitespace.
PRINTABLE = string.ascii_letters + string.digits + string.punctuation + " "
_LOWER = string.ascii_lowercase


class Unicode(Space[str]):
    """Any ``str`` of at most ``max_length`` characters.

    Not gymnasium's ``Text``: that one restricts the charset, and observations here hold any
    Unicode. ``sample()`` returns printable ASCII of length 0..min(max_length,
    sample_max_length) (a 16M-character sample is no use to anyone).

    ``AsyncVectorEnv`` shares it (its default ``shared_memory=True``): each env gets a slot of
    ``shared_bytes`` bytes of UTF-8 in shared memory; a longer text (rare: observations are
    usually a few kB) goes through a file in a private temporary folder instead.
    """

    def __init__(
        self,
        max_length: int,
        *,
        sample_max_length: int = 64,
        shared_bytes: int = 1 << 20,
        seed: int | np.random.Generator | None = None,
    ):
        if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 0:
            raise ValueError(f"max_length must be a non-negative int, got {max_length!r}")
        if sample_max_length < 0:
            raise ValueError(f"sample_max_length must be >= 0, got {sample_max_length!r}")
        if isinstance(shared_bytes, bool) or not isinstance(shared_bytes, int) or \
                shared_bytes < 1:
            raise ValueError(f"shared_bytes must be a positive int, got {shared_bytes!r}")
        self.max_length = max_length
        self.sample_max_length = sample_max_length
        self.shared_bytes = shared_bytes
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask: Any | None = None, probability: Any | None = None) -> str:
        if mask is not None or probability is not None:
            raise ValueError("Unicode.sample takes no mask or probability")
        rng = self.np_random
        n = int(rng.integers(0, min(self.max_length, self.sample_max_length) + 1))
        return "".join(PRINTABLE[int(i)] for i in rng.integers(0, len(PRINTABLE), size=n))

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def to_jsonable(self, sample_n: Sequence[str]) -> list[str]:  # type: ignore[override]
        return list(sample_n)

    def from_jsonable(self, sample_n: Sequence[str]) -> list[str]:
        return list(sample_n)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unicode) and other.max_length == self.max_length

    def __hash__(self) -> int:
        return hash(("Unicode", self.max_length))

    def __repr__(self) -> str:
        return f"Unicode(max_length={self.max_length})"


class SharedUnicode:
    """The shared memory of a batch of ``Unicode`` values: n slots of ``capacity`` UTF-8 bytes
    and their lengths (-1: the text is in ``{spill_dir}/{index}.txt``). The creating process
    removes the spill folder when the object is collected; workers get a pickled copy."""

    def __init__(self, n: int, capacity: int, ctx: Any):
        self.n, self.capacity = n, capacity
        self.data = ctx.RawArray("B", n * capacity)
        self.lengths = ctx.RawArray("q", n)
        self.spill_dir = tempfile.mkdtemp(prefix="kbgym-obs-")
        weakref.finalize(self, shutil.rmtree, self.spill_dir, True)

    def write(self, index: int, text: str) -> None:
        raw = text.encode("utf-8", "surrogatepass")
        if len(raw) <= self.capacity:
            start = index * self.capacity
            memoryview(self.data).cast("B")[start:start + len(raw)] = raw
            self.lengths[index] = len(raw)
            return
        path = os.path.join(self.spill_dir, f"{index}.txt")
        with open(path + ".tmp", "wb") as fh:
            fh.write(raw)
        os.replace(path + ".tmp", path)
        self.lengths[index] = -1

    def read(self, index: int) -> str:
        n = self.lengths[index]
        if n < 0:
            with open(os.path.join(self.spill_dir, f"{index}.txt"), "rb") as fh:
                raw = fh.read()
        else:
            start = index * self.capacity
            raw = bytes(memoryview(self.data).cast("B")[start:start + n])
        return raw.decode("utf-8", "surrogatepass")


class SharedTexts(Sequence):
    """A live, read-only view of the texts in a :class:`SharedUnicode` (what
    ``AsyncVectorEnv`` holds as ``observations["text"]``); copying it gives a tuple of str."""

    def __init__(self, shared: SharedUnicode):
        self._shared = shared

    def __len__(self) -> int:
        return self._shared.n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self)[i]
        n = self._shared.n
        if not -n <= i < n:
            raise IndexError(i)
        return self._shared.read(i % n)

    def __deepcopy__(self, memo: dict) -> tuple[str, ...]:
        return tuple(self)

    def __copy__(self) -> tuple[str, ...]:
        return tuple(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (tuple, list, SharedTexts)) and tuple(self) == tuple(other)

    def __repr__(self) -> str:
        return f"SharedTexts({tuple(self)!r})"


@create_shared_memory.register(Unicode)
def _create_unicode_shared_memory(space: Unicode, n: int = 1, ctx: Any = None) -> SharedUnicode:
    import multiprocessing

    return SharedUnicode(n, space.shared_bytes, ctx if ctx is not None else multiprocessing)


@read_from_shared_memory.register(Unicode)
def _read_unicode_from_shared_memory(space: Unicode, shared_memory: SharedUnicode,
                                     n: int = 1) -> SharedTexts:
    return SharedTexts(shared_memory)


@write_to_shared_memory.register(Unicode)
def _write_unicode_to_shared_memory(space: Unicode, index: int, value: str,
                                    shared_memory: SharedUnicode) -> None:
    shared_memory.write(index, value)


def _first_id() -> int:
    return 1


class KBActionSpace(Space[dict]):
    """The action space: ``contains(x)`` iff ``parse_action(x)`` succeeds.

    ``contains`` applies no phase (an out-of-phase action is still an action) but does apply
    ``typed_links``. ``sample()`` picks a tool uniformly from ``tools`` and returns an
    ``{"action": name, ...}`` dict with random lowercase words, ids ``s0001..s{next_id}``
    (``next_id_fn()`` is read at each draw; the last id does not exist yet), a page in 0-13
    and 0-3 link_many targets, so many samples parse but fail at execution. ``next_id_fn``
    should be picklable (a bound method, not a lambda) if the env is to be pickled.
    """

    def __init__(
        self,
        tools: Sequence[str],
        typed_links: bool = False,
        next_id_fn: Callable[[], int] | None = None,
        *,
        seed: int | np.random.Generator | None = None,
    ):
        tools = tuple(tools)
        unknown = [t for t in tools if t not in ACTION_MODELS]
        if not tools or unknown:
            raise ValueError(f"tools must be non-empty action names; unknown: {unknown}")
        self.tools = tools
        self.typed_links = bool(typed_links)
        self.next_id_fn = next_id_fn if next_id_fn is not None else _first_id
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        return not isinstance(parse_action(x, typed_links=self.typed_links), InvalidAction)

    # -- sampling ---------------------------------------------------------------------------

    def _word(self) -> str:
        rng = self.np_random
        n = int(rng.integers(1, 9))
        return "".join(_LOWER[int(i)] for i in rng.integers(0, 26, size=n))

    def _words(self) -> str:
        return " ".join(self._word() for _ in range(int(self.np_random.integers(1, 4))))

    def _id(self) -> str:
        top = max(1, int(self.next_id_fn()))
        return f"s{int(self.np_random.integers(1, top + 1)):04d}"

    def _maybe_type(self, out: dict[str, Any]) -> None:
        if self.typed_links:
            k = int(self.np_random.integers(0, len(LINK_TYPES) + 1))
            if k < len(LINK_TYPES):
                out["type"] = LINK_TYPES[k]

    def sample(self, mask: Collection[str] | None = None, probability: Any | None = None) -> dict:
        """One random action dict. ``mask``, if given, is a collection of tool names to draw
        from (e.g. the current phase's tools); ``probability`` is not supported."""
        if probability is not None:
            raise ValueError("KBActionSpace.sample takes no probability")
        tools = self.tools if mask is None else tuple(t for t in self.tools if t in set(mask))
        if not tools:
            raise ValueError("the mask leaves no tool to sample")
        rng = self.np_random
        name = tools[int(rng.integers(0, len(tools)))]
        out: dict[str, Any] = {"action": name}
        if name == "search":
            out["query"] = self._words()
            out["page"] = int(rng.integers(0, 14))
        elif name in ("read", "delete"):
            out["id"] = self._id()
        elif name in ("answer", "add"):
            out["text"] = self._words()
        elif name == "edit":
            out["id"] = self._id()
            out["text"] = self._words()
        elif name in ("link", "unlink"):
            out["source"] = self._id()
            out["target"] = self._id()
            if name == "link":
                self._maybe_type(out)
        elif name == "link_many":
            out["source"] = self._id()
            out["targets"] = [self._id() for _ in range(int(rng.integers(0, 4)))]
            self._maybe_type(out)
        elif name == "locate":
            n_terms = int(rng.integers(0, 4))  # 0: a single string
            out["terms"] = self._word() if n_terms == 0 else [self._word() for _ in range(n_terms)]
            if int(rng.integers(0, 2)):
                out["within"] = self._id()
        elif name == "expand":
            out["node"] = self._id()
            n_edges = int(rng.integers(0, 3))  # 0: no filter
            if n_edges:
                out["edges"] = [
                    LINK_TYPES[int(rng.integers(0, len(LINK_TYPES)))] for _ in range(n_edges)
                ]
            out["hops"] = int(rng.integers(1, 4))
        return out  # "done" takes no arguments

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, KBActionSpace)
            and other.tools == self.tools
            and other.typed_links == self.typed_links
        )

    def __hash__(self) -> int:
        return hash(("KBActionSpace", self.tools, self.typed_links))

    def __repr__(self) -> str:
        return f"KBActionSpace(tools={self.tools!r}, typed_links={self.typed_links})"
