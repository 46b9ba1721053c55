"""The bench's one door to the worlds: :func:`generate` (a universe from a release's recipe)
and :func:`slice_probe` (the world's gradient probe of a train slice). The release itself
names readers and curators per seed, so nothing else in :mod:`kbgym.bench` names or tests a
world; when the worlds' interface changes, these two functions are what changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kbgym.jsonio import canonical, sha256_hex


def generate(values: Mapping[str, Any], seed: int) -> Any:
    """The universe a release recipe ``{"world": NAME, **generator overrides}`` makes with
    ``seed``."""
    from kbgym.worlds import universe_from_spec

    return universe_from_spec(values, seed)


def slice_probe(universe: Any, train_qids: Sequence[str], per_group: int) -> dict:
    """The world's probe of a run that trained on ``train_qids``, every one completed (the
    train_log it is made from holds one ``{"qid": ...}`` row per question, and its hash is
    that text's), drawn with the universe's seed."""
    from kbgym.runs.probe import make_probe

    rows = [{"qid": q} for q in train_qids]
    digest = "sha256:" + sha256_hex("".join(canonical(r) for r in rows))
    return make_probe(universe, rows, per_group=per_group, train_log_hash=digest)
