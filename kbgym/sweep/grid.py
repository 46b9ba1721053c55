"""The sweep grid: a YAML file expanded into run specs, each with a stable id.

    seeds: [0, 1, 2, 3, 4]
    universes: [{n_people: 500}]          # UniverseConfig fields, or a config file's path;
                                          # {world: policies, documents: 100} for policies
    envs: [{}]                            # KBGymConfig fields
    curators: [scripted-index, {name: scripted-random, options: {}}]
    readers: [scripted-reader]
    train: {epochs: 2, train_size: 100}
    probe: {per_group: 30, resamples: 20000, delta: 0.0}
    baselines: [b3]                       # extra arms: b2, b3, b4, oracle
    curve_every: 20                       # 0 = no training-time curve

The run seed is the universe seed, the curator's ``seed`` option and the probe's seed. A run
spec is the cell with its seed, written with the values the file gave (defaults are not
spelled out), so the same grid always expands to the same ids.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from kbgym import bounds as B
from kbgym.config import load_config, validated
from kbgym.errors import ConfigError
from kbgym.jsonio import canonical, sha256_hex
from kbgym.runs.probe import ProbeSettings

#: Agent names that call a model endpoint: their runs hold an ``llm`` slot.
LLM_PREFIXES = ("openai-",)


class AgentSpec(BaseModel):
    """A plugin name (or ``module:factory``) and the keyword options of its factory."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    options: dict[str, Any] = {}


class TrainSpec(BaseModel):
    """The training settings of every run: ``kbgym train``'s flags, with the same ranges."""

    model_config = ConfigDict(extra="forbid")

    epochs: B.Epochs = 2
    train_size: B.Count | None = 100
    snapshot_every: B.Count = 20


#: The probe settings of every run: ``probe make --per-group``, ``probe table --resamples
#: --delta``, with the same ranges.
ProbeSpec = ProbeSettings


class BaselineSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    params: dict[str, Any] = {}

    @field_validator("name")
    @classmethod
    def _known(cls, v: str) -> str:
        from kbgym.baselines import NAMES

        if v.lower() not in NAMES:
            raise ValueError(f"unknown baseline {v!r}; expected one of {', '.join(NAMES)}")
        return v.lower()

    @model_validator(mode="after")
    def _params(self) -> "BaselineSpec":
        from kbgym.baselines import PARAM_MODELS

        validated(PARAM_MODELS[self.name], self.params, where=f"baseline {self.name}")
        return self


def _agent(v: Any) -> Any:
    return {"name": v} if isinstance(v, str) else v


def _baseline(v: Any) -> Any:
    return {"name": v} if isinstance(v, str) else v


class GridConfig(BaseModel):
    """A sweep file. Unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")

    seeds: list[B.Seed] = Field(min_length=1)
    universes: list[dict[str, Any] | str] = [{}]
    envs: list[dict[str, Any]] = [{}]
    curators: list[AgentSpec] = Field(min_length=1)
    readers: list[AgentSpec] = [AgentSpec(name="scripted-reader")]
    train: TrainSpec = TrainSpec()
    probe: ProbeSpec = ProbeSpec()
    baselines: list[BaselineSpec] = []
    curve_every: B.CurveEvery = 20

    @field_validator("curators", "readers", mode="before")
    @classmethod
    def _agents(cls, v: Any) -> Any:
        return [_agent(x) for x in v] if isinstance(v, list) else v

    @field_validator("baselines", mode="before")
    @classmethod
    def _baselines(cls, v: Any) -> Any:
        return [_baseline(x) for x in v] if isinstance(v, list) else v

    @field_validator("seeds")
    @classmethod
    def _distinct(cls, v: list[int]) -> list[int]:
        if len(set(v)) != len(v):
            raise ValueError("seeds must be distinct")
        return v


def load_grid(path: str | Path) -> GridConfig:
    """Read and validate a sweep file; every failure is one ``ConfigError`` line."""
    from kbgym.safeload import read_data
    from kbgym.shipped import resolve

    path = resolve(path)  # a file, or a shipped grid: `sweep_demo`, `configs/sweep_demo.yaml`
    data = read_data(path, "sweep", yaml=True)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    grid = validated(GridConfig, data, where=str(path))
    check_size(grid, str(path))
    return grid.model_copy(update={"universes": [_universe_values(u, path.parent)
                                                 for u in grid.universes]})


def grid_size(grid: GridConfig) -> int:
    """How many runs the grid expands to (before identical specs are merged)."""
    return (len(grid.seeds) * len(grid.universes) * len(grid.envs) * len(grid.curators)
            * len(grid.readers))


def check_size(grid: GridConfig, where: str = "grid") -> None:
    """A one-line error for a grid of more than :data:`kbgym.bounds.MAX_GRID_RUNS` runs."""
    n = grid_size(grid)
    if n > B.MAX_GRID_RUNS:
        parts = " x ".join(f"{len(getattr(grid, k))} {k}" for k in
                           ("seeds", "universes", "envs", "curators", "readers"))
        raise ConfigError(f"{where}: the grid has {n:,} runs ({parts}), over the limit of "
                          f"{B.MAX_GRID_RUNS:,}; split it into several sweeps")


def _universe_values(u: dict | str, base: Path) -> dict:
    """A universe entry as UniverseConfig overrides (a config file's ``universe`` section)."""
    if isinstance(u, dict):
        return dict(u)
    p = Path(u)
    if not p.is_absolute() and not p.exists():
        p = base / p if (base / p).exists() else p  # beside the grid, else a shipped config
    cfg = load_config(p).universe
    return cfg.model_dump(mode="json", exclude_unset=True)


def run_id(spec: dict) -> str:
    """``s-`` + the first 12 hex digits of sha256(canonical spec)."""
    return "s-" + sha256_hex(canonical(spec))[:12]


def is_llm(spec: dict) -> bool:
    """Whether a run calls a model endpoint (then it holds an ``llm`` slot)."""
    return any(spec[k]["name"].startswith(LLM_PREFIXES) for k in ("curator", "reader"))


def expand(grid: GridConfig) -> list[dict]:
    """Every run spec of the grid, in seed-major order, each validated now (one-line errors
    before anything runs)."""
    from kbgym.env.config import KBGymConfig
    from kbgym.plugins import check_spec
    from kbgym.worlds import default_world, world

    check_size(grid)
    for i, env in enumerate(grid.envs):
        try:
            KBGymConfig.make(**env)
        except ConfigError as err:
            raise ConfigError(f"envs[{i}]: {err}") from None
    for agent in [*grid.curators, *grid.readers]:
        # an unknown plugin, an undeclared module:factory or an option it does not name is
        # one line now, read from source: validating a grid imports and calls nothing
        check_spec(agent.name, agent.options)
    specs = []
    for seed, uni, env, cur, rdr in itertools.product(grid.seeds, grid.universes, grid.envs,
                                                      grid.curators, grid.readers):
        uni = {k: v for k, v in uni.items() if k != "seed"}
        (world(uni["world"]) if "world" in uni else default_world()).config(
            {k: v for k, v in uni.items() if k != "world"}, seed)  # raises one line
        specs.append({
            "seed": seed, "universe": uni, "env": env,
            "curator": cur.model_dump(), "reader": rdr.model_dump(),
            "train": grid.train.model_dump(), "probe": grid.probe.model_dump(),
            "baselines": [b.model_dump() for b in grid.baselines],
            "curve_every": grid.curve_every,
        })
    seen = {}
    for spec in specs:
        seen.setdefault(run_id(spec), spec)
    return list(seen.values())


def cell_key(spec: dict) -> str:
    """The spec without its seed: runs that differ only in seed are one cell."""
    return canonical({k: v for k, v in spec.items() if k != "seed"})
