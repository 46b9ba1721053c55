"""One master seed, split into named streams (SPEC §2.1).

Every random draw in KBGym comes from a stream made here. The global ``random`` and
``np.random`` states are never touched.
"""

from __future__ import annotations

import hashlib
import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (numpy is imported by np_stream only: generating a universe needs none)
    import numpy as np

STREAM_NAMES = ("universe", "questions", "splits", "probe", "order", "metrics", "drift")


def derive(seed: int, name: str) -> int:
    """The 64-bit integer seed of stream ``name`` under master ``seed``."""
    digest = hashlib.sha256(f"kbgym:{seed}:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def stream(seed: int, name: str) -> random.Random:
    """A fresh ``random.Random`` for the named stream (sub-paths such as ``order/3`` allowed)."""
    root = name.split("/", 1)[0]
    if root not in STREAM_NAMES:
        raise ValueError(f"unknown stream {name!r}; expected one of {', '.join(STREAM_NAMES)}")
    return random.Random(derive(seed, name))


def np_stream(seed: int, name: str) -> np.random.Generator:
    """A numpy Generator for analysis-side sampling (the bootstrap)."""
    import numpy as np

    return np.random.default_rng(derive(seed, name))
