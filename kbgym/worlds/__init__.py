"""Universe families: one registry of the kinds of universe KBGym runs on, and what is
particular to each (how one is built, its probe, its drift, its scripted agents).

A universe's family is its ``meta["source"]`` (``people`` for generated people universes,
which predate the field and carry none). Commands that differ by family (``build``, ``probe
make``, ``drift``, ``demo``, the sweep) look the family up here instead of testing sources
one by one::

    fam = family_of(universe)
    probe = fam.make_probe(universe, "runs/r1", per_group=30, seed=None)

Everything is imported lazily: importing this module imports nothing but the errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbgym.errors import ConfigError


@dataclass(frozen=True)
class Family:
    """``name`` is the ``meta.source`` value; ``reader`` and ``curator`` the exam reader and
    curator plugins ``kbgym test``/``train``, the demo and sweeps use when none is named;
    ``generated`` whether ``kbgym build --world NAME`` makes one."""

    name: str
    reader: str
    curator: str
    generated: bool = False
    description: str = ""

    # -- building --------------------------------------------------------------------------
    def config(self, values: Mapping[str, Any], seed: int | None = None):
        """The family's generator config from overrides (one-line ConfigError)."""
        values = {k: v for k, v in values.items() if k != "world"}
        if seed is not None:
            values["seed"] = seed
        if self.name == "people":
            from kbgym.worlds.people import UniverseConfig

            return UniverseConfig.make(**values)
        if self.name == "policies":
            from kbgym.worlds.policies import PolicyConfig

            return PolicyConfig(**values)
        raise ConfigError(f"{self.name} universes are imported, not generated "
                          f"({self.description})")

    def generate(self, config):
        if self.name == "people":
            from kbgym.worlds.people import generate

            return generate(config)
        from kbgym.worlds.policies import generate

        return generate(config)

    def summarize(self, universe) -> str:
        if self.name == "policies":
            from kbgym.worlds.policies import summarize

            return summarize(universe)
        from kbgym.worlds.people.summary import summarize

        return summarize(universe)

    # -- after training --------------------------------------------------------------------
    def make_probe(self, universe, run_dir: str | Path, *, per_group: int = 30,
                   seed: int | None = None) -> dict:
        """The gradient probe of a training run on a universe of this family."""
        if self.name == "phantomwiki":  # §17: one-key questions, exact/share1/share0
            from kbgym.worlds.phantomwiki.probe import make_pw_probe_from_run

            return make_pw_probe_from_run(universe, run_dir)
        if self.name == "corpus":  # grouped by shared entities
            from kbgym.worlds.corpus import make_corpus_probe_from_run

            return make_corpus_probe_from_run(universe, run_dir, per_group=per_group, seed=seed)
        if self.name == "policies":
            from kbgym.worlds.policies.probe import make_policy_probe_from_run

            return make_policy_probe_from_run(universe, run_dir, per_group=per_group, seed=seed)
        from kbgym.runs.probe import make_probe_from_run

        return make_probe_from_run(universe, run_dir, per_group=per_group, seed=seed)

    def drift(self, universe, changes: int, seed: int = 0):
        """Universe v2 of a drift (``kbgym drift``)."""
        if self.name == "people":
            from kbgym.worlds.people.drift import drift

            return drift(universe, changes, seed)
        if self.name == "policies":
            from kbgym.worlds.policies.drift import drift

            return drift(universe, changes, seed)
        raise ConfigError(f"drift needs a generated universe (people or policies), not an "
                          f"imported {self.name} one")

    def drift_summary(self, universe) -> str:
        if self.name == "policies":
            from kbgym.worlds.policies.drift import summarize
        else:
            from kbgym.worlds.people.drift import summarize
        return summarize(universe)


FAMILIES: dict[str, Family] = {
    "people": Family("people", "scripted-reader", "scripted-index", generated=True,
                     description="people, families and friendships (SPEC §2)"),
    "policies": Family("policies", "scripted-policy-reader", "scripted-policy-index",
                       generated=True,
                       description="insurance documents that amend, replace, supersede and "
                                   "refer to each other (docs/protocol.md §21)"),
    # imported families keep the command line's defaults of before the registry (name
    # scripted-pw-reader / scripted-pw-index, or the openai-* agents, to use others)
    "phantomwiki": Family("phantomwiki", "scripted-reader", "scripted-index",
                          description="kbgym adapt phantomwiki"),
    "corpus": Family("corpus", "scripted-reader", "scripted-index",
                     description="kbgym import corpus"),
}
#: Families ``kbgym build --world`` and ``kbgym demo --world`` make.
WORLDS = tuple(name for name, f in FAMILIES.items() if f.generated)


def family(name: str) -> Family:
    """The family called ``name`` (one-line ConfigError for another name)."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise ConfigError(f"unknown universe family {name!r}; expected one of "
                          f"{', '.join(FAMILIES)}") from None


def family_of(universe) -> Family:
    """The family of a universe, from ``meta.source`` (absent: ``people``)."""
    return family((getattr(universe, "meta", None) or {}).get("source") or "people")


def universe_from_spec(values: Mapping[str, Any], seed: int):
    """A generated universe from a sweep's universe entry: generator overrides, with an
    optional ``world`` (default ``people``)."""
    fam = family(values.get("world", "people"))
    return fam.generate(fam.config(values, seed))


__all__ = ["FAMILIES", "Family", "WORLDS", "family", "family_of", "universe_from_spec"]
