"""``UniverseConfig``: everything a universe is a pure function of (SPEC §2.1)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from kbgym import bounds as B
from kbgym.errors import ConfigError, first_error
from kbgym.worlds.people.flags import UniverseDerived


class UniverseConfig(UniverseDerived, BaseModel):
    """The generator's inputs. Defaults are the paper's configuration."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: B.Seed = 0
    n_people: B.People = 500
    distractor_frac: B.Fraction = 0.10
    friend_degree: B.FriendDegree = 4.0
    n_cities: B.Cities = 20
    sizes: tuple[B.SplitSize, B.SplitSize, B.SplitSize] = (150, 100, 50)
    eval_sizes: tuple[B.SplitSize, B.SplitSize] = (20, 10)
    hard_frac: B.Fraction = 0.60
    # Universe options beyond the paper's distribution. At their defaults the generator draws
    # nothing new, so default universes keep their bytes (and hashes).
    #: Children per couple as an inclusive range [lo, hi], drawn per couple from the
    #: ``universe`` stream; ``None`` keeps the fixed triples of the paper.
    children_per_couple: tuple[int, int] | None = None
    #: The first ``common_jobs`` jobs of the vocabulary are common: together they are drawn
    #: with probability ``common_job_share`` (evenly), the other jobs share the rest (evenly),
    #: so friends often share a job while rare jobs stay rare. 0 draws every job uniformly.
    common_jobs: B.CommonJobs = 0
    common_job_share: B.Fraction = 0.9

    def __init__(self, **data):
        try:
            super().__init__(**data)
        except ValidationError as err:
            raise ConfigError(first_error(err, "universe")) from None

    @field_validator("children_per_couple")
    @classmethod
    def _children_range(cls, v: tuple[int, int] | None) -> tuple[int, int] | None:
        if v is not None and not 0 <= v[0] <= v[1] <= B.MAX_CHILDREN:
            raise ValueError(f"must be [lo, hi] with 0 <= lo <= hi <= {B.MAX_CHILDREN}")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> "UniverseConfig":
        if self.common_jobs == 50 and self.common_job_share == 0:
            raise ValueError("common_job_share must be above 0 when all 50 jobs are common")
        return self

    @classmethod
    def make(cls, **kwargs) -> "UniverseConfig":
        """Build a config, turning validation failures into one-line ``ConfigError``s."""
        return cls(**kwargs)
