"""The sweep runs of a reproduction, as specs for :func:`kbgym.sweep.sweep_specs`:

- ``gradient``: the sweep's own chain (universe → 100 questions × 2 epochs of the curator →
  the gradient probe → exams of B1, the trained library and B3 → the ρ table) per seed, at the
  env's budget M and at the tight one; the same specs a grid file with ``envs: [{}, {m: 7}]``
  and ``baselines: [b3]`` expands to;
- ``phantomwiki``: the same chain on each PhantomWiki generation, imported per seed by its
  world (the seed draws its splits), with the PW curator and reader and the PW probe;
- ``growth``: :func:`kbgym.reproduce.growth.run_growth` per seed.

All of them go into one sweep folder, so any executor runs them and a re-run skips the ones
already done.
"""

from __future__ import annotations

from pathlib import Path

from kbgym.errors import ConfigError
from kbgym.jsonio import atomic_write_text
from kbgym.reproduce.growth import RUNNER
from kbgym.reproduce.settings import PAPER_M, PW_WORLD, Settings
from kbgym.sweep.grid import GridConfig, expand
from kbgym.worlds.registry import world

GRADIENT, PHANTOMWIKI, GROWTH = "gradient", "phantomwiki", "growth"


def _env(m: int) -> dict:
    return {} if m == PAPER_M else {"m": m}


def _chain(st: Settings, *, universes: list, envs: list, curator: str, reader: str,
           train_size: int, baselines: list) -> list[dict]:
    grid = GridConfig.model_validate({
        "seeds": list(st.seeds), "universes": universes, "envs": envs,
        "curators": [curator], "readers": [reader],
        "train": {"epochs": st.epochs, "train_size": train_size, "snapshot_every": 20},
        "probe": {"per_group": st.per_group, "resamples": st.resamples},
        "baselines": baselines, "curve_every": 0})
    return expand(grid)


def gradient_specs(st: Settings) -> list[dict]:
    return _chain(st, universes=[dict(st.universe)], envs=[_env(st.m), _env(st.tight_m)],
                  curator=st.curator, reader=st.reader, train_size=st.train_size,
                  baselines=["b3"])


def phantomwiki_specs(st: Settings, out: Path) -> tuple[list[dict], list[str]]:
    """The PW chain per generation and seed, and a line per generation that could not be
    used (missing or unreadable). Each seed's universe is imported by the world
    :data:`~kbgym.reproduce.settings.PW_WORLD` (:meth:`kbgym.worlds.World.import_source`; the
    seed draws its splits), written under ``out/universes/`` (the same bytes every time) and
    named by its hash in the spec."""
    imported = world(PW_WORLD)
    specs, skipped = [], []
    for src in st.phantomwiki:
        path = Path(src)
        for seed in st.seeds:
            try:
                u = imported.import_source(path, seed)
            except ConfigError as err:
                skipped.append(f"{src}: {err}")
                break
            rel = Path("universes") / f"pw-{path.name}-{seed}.json"
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            if not (out / rel).exists() or (out / rel).read_text(encoding="utf-8") != u.dumps():
                atomic_write_text(out / rel, u.dumps())
            one = st.model_copy(update={"seeds": (seed,)})
            spec, = _chain(one, universes=[{}], envs=[{}], curator=st.pw_curator,
                           reader=st.pw_reader, train_size=st.pw_train_size, baselines=[])
            spec["universe"] = {"file": rel.as_posix(), "hash": u.hash}
            spec["phantomwiki"] = path.name  # the generation: its seeds pool into one cell
            specs.append(spec)
    return specs, skipped


def growth_specs(st: Settings) -> list[dict]:
    return [{"runner": RUNNER, "seed": seed, "universe": dict(st.growth_universe), "env": {},
             "curator": {"name": st.curator, "options": {}},
             "reader": {"name": st.reader, "options": {}},
             "sizes": list(st.growth_sizes),
             "repeat": {"distinct": st.repeat_distinct, "epochs": st.repeat_epochs},
             "budgets": [st.m, st.tight_m],
             "held_out": {"splits": list(st.held_out), "limit": st.held_out_limit},
             "baselines": ["b3"]} for seed in st.seeds]


def experiment_of(spec: dict) -> str:
    if spec.get("runner") == RUNNER:
        return GROWTH
    return PHANTOMWIKI if "file" in spec["universe"] else GRADIENT
