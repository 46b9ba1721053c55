"""Unsupervised baselines (SPEC §14): B2 communities, B3 entity index, B4 two-level tree, the
oracle exhaustive index, and ``evidence``, the policies world's evidence graph (typed links
derived from its notes' references, :mod:`kbgym.worlds.policies.graph`).

Every builder is a function of a library that reads node text only (the oracle alone reads
the universe's facts), works on a copy and returns a :class:`BuildMeta` holding the built
library and the ``build_meta.json`` fields. Builds are deterministic: the same universe and
parameters give the same snapshot hash.

    >>> from kbgym.baselines import build_baseline
    >>> lib, meta = build_baseline("b3", universe, {})
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from kbgym import bounds as B
from kbgym.errors import ConfigError
from kbgym.jsonio import write_canonical
from kbgym.library.graph import Library
from kbgym.library.snapshot import write_snapshot
from kbgym.types import Universe
from kbgym.worlds.registry import worlds

from kbgym.baselines.b2 import build_b2
from kbgym.baselines.b3 import build_b3
from kbgym.baselines.b4 import build_b4
from kbgym.baselines.common import BuildMeta, Summarize, communities, gc_paused
from kbgym.baselines.extract import (Entity, Mentions, Statement, extract, mentions_of, parse,
                                     parser_of)
from kbgym.baselines.oracle import build_oracle


class B2Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    max_size: B.CommunitySize = 10


class B3Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    synapse_cap: B.SynapseCap = 40
    no_entity_index: B.Flag = False


class B4Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    branching: B.Branching = 10


class OracleParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


#: Baseline name -> its parameters (names, ranges, defaults): the ranges of ``kbgym baseline``'s
#: flags and of a sweep grid's ``baselines`` entries.
#: Baselines a world brings (name -> ``module:function(library)``, :attr:`World.baselines`),
#: such as the policies world's evidence graph; they take no parameters.
WORLD_BASELINES: dict[str, str] = {name: spec for w in worlds().values()
                                   for name, spec in w.baselines.items()}
PARAM_MODELS: dict[str, type[BaseModel]] = {"b2": B2Params, "b3": B3Params, "b4": B4Params,
                                             "oracle": OracleParams,
                                             **dict.fromkeys(WORLD_BASELINES, OracleParams)}
#: Baseline name -> the parameters it accepts, with their defaults.
PARAMS: dict[str, dict[str, Any]] = {k: m().model_dump() for k, m in PARAM_MODELS.items()}
NAMES = tuple(PARAMS)
#: Baselines that can write their summaries with an LLM.
LLM_BASELINES = ("b2", "b4")


def snapshot_name(name: str) -> str:
    """The snapshot file written into a baseline's output folder."""
    return f"kb_{name}.json"


def _check(name: str, params: dict | None, summarize: Summarize | None) -> tuple[str, dict]:
    key = str(name).lower()
    if key not in PARAMS:
        raise ConfigError(f"unknown baseline {name!r}; expected one of {', '.join(NAMES)}")
    params = dict(params or {})
    unknown = sorted(set(params) - set(PARAMS[key]))
    if unknown:
        allowed = ", ".join(PARAMS[key]) or "none"
        raise ConfigError(f"baseline {key} takes no parameter {unknown[0]!r} (allowed: {allowed})")
    if summarize is not None and key not in LLM_BASELINES:
        raise ConfigError(f"baseline {key} writes no summaries; LLM text applies to "
                          f"{' and '.join(LLM_BASELINES)} only")
    from kbgym.config import validated

    return key, validated(PARAM_MODELS[key], params, where=f"baseline {key}").model_dump()


def build(name: str, library: Library, universe: Universe | None = None,
          params: dict | None = None, *, summarize: Summarize | None = None) -> BuildMeta:
    """Build baseline ``name`` over ``library`` (unchanged); the oracle needs ``universe``.
    B2-B4 read the sentences of ``universe``'s world (none: the default world's)."""
    key, p = _check(name, params, summarize)
    if key == "b2":
        return build_b2(library, summarize=summarize, parser=parser_of(universe), **p)
    if key == "b3":
        return build_b3(library, parser=parser_of(universe), **p)
    if key == "b4":
        return build_b4(library, summarize=summarize, parser=parser_of(universe), **p)
    if key in WORLD_BASELINES:
        import importlib

        module, _, function = WORLD_BASELINES[key].partition(":")
        return getattr(importlib.import_module(module), function)(library)
    if universe is None:
        raise ConfigError("the oracle is built from the universe's facts; pass the universe")
    return build_oracle(library, universe)


def build_baseline(name: str, universe: Universe, params: dict | None = None, *,
                   summarize: Summarize | None = None, library: Library | None = None
                   ) -> tuple[Library, dict]:
    """(library, build_meta dict) of baseline ``name`` built over the universe's B1 (or over
    ``library``, e.g. a trained snapshot, which is left unchanged)."""
    with gc_paused():
        meta = build(name, Library.from_universe(universe) if library is None else library,
                     universe, params, summarize=summarize)
    return meta.library, meta.to_json()


def write_baseline(out_dir: str | os.PathLike, name: str, universe: Universe,
                   universe_path: str | None = None, params: dict | None = None, *,
                   summarize: Summarize | None = None, library: Library | None = None) -> dict:
    """Build baseline ``name`` (over B1, or over ``library``) and write ``kb_{name}.json`` (a
    §15.2 snapshot labelled ``baseline {name}``) and ``build_meta.json`` into ``out_dir``.

    Returns ``{"snapshot": path, "build_meta": path, "content_hash": ..., "meta": {...},
    "stats": library.stats()}``.
    """
    lib, meta = build_baseline(name, universe, params, summarize=summarize, library=library)
    key = meta["baseline"]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    snap = out / snapshot_name(key)
    digest = write_snapshot(snap, lib, f"baseline {key}",
                            {"path": universe_path, "hash": universe.hash})
    write_canonical(out / "build_meta.json", meta)
    return {"snapshot": str(snap), "build_meta": str(out / "build_meta.json"),
            "content_hash": digest, "meta": meta, "stats": lib.stats()}


__all__ = [
    "B2Params", "B3Params", "B4Params", "BuildMeta", "Entity", "LLM_BASELINES", "Mentions", "NAMES", "PARAMS", "Statement",
    "Summarize", "build", "build_b2", "build_b3", "build_b4", "build_baseline", "build_oracle",
    "communities", "extract", "mentions_of", "parse", "parser_of", "snapshot_name", "write_baseline",
]
