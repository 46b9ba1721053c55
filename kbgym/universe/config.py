"""``UniverseConfig``: everything a universe is a pure function of (SPEC §2.1)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from kbgym.errors import ConfigError, first_error


class UniverseConfig(BaseModel):
    """The generator's inputs. Defaults are the paper's configuration."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = 0
    n_people: int = 500
    distractor_frac: float = Field(0.10, ge=0.0, le=1.0)
    friend_degree: float = Field(4.0, ge=0.0)
    n_cities: int = Field(20, ge=1)
    sizes: tuple[int, int, int] = (150, 100, 50)
    eval_sizes: tuple[int, int] = (20, 10)
    hard_frac: float = Field(0.60, ge=0.0, le=1.0)
    # Universe options beyond the paper's distribution. At their defaults the generator draws
    # nothing new, so default universes keep their bytes (and hashes).
    #: Children per couple as an inclusive range [lo, hi], drawn per couple from the
    #: ``universe`` stream; ``None`` keeps the fixed triples of the paper.
    children_per_couple: tuple[int, int] | None = None
    #: The first ``common_jobs`` jobs of the vocabulary are common: together they are drawn
    #: with probability ``common_job_share`` (evenly), the other jobs share the rest (evenly),
    #: so friends often share a job while rare jobs stay rare. 0 draws every job uniformly.
    common_jobs: int = Field(0, ge=0, le=50)
    common_job_share: float = Field(0.9, ge=0.0, le=1.0)

    def __init__(self, **data):
        try:
            super().__init__(**data)
        except ValidationError as err:
            raise ConfigError(first_error(err, "universe")) from None

    @field_validator("sizes", "eval_sizes")
    @classmethod
    def _non_negative(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        if any(x < 0 for x in v):
            raise ValueError("split sizes must be non-negative")
        return v

    @field_validator("children_per_couple")
    @classmethod
    def _children_range(cls, v: tuple[int, int] | None) -> tuple[int, int] | None:
        if v is not None and not 0 <= v[0] <= v[1] <= 20:
            raise ValueError("must be [lo, hi] with 0 <= lo <= hi <= 20")
        return v

    @model_validator(mode="after")
    def _enough_people(self) -> "UniverseConfig":
        if self.n_people < 6:
            raise ValueError(f"n_people must be at least 6, got {self.n_people}")
        if self.common_jobs == 50 and self.common_job_share == 0:
            raise ValueError("common_job_share must be above 0 when all 50 jobs are common")
        return self

    @property
    def n_distractors(self) -> int:
        return int(self.n_people * self.distractor_frac + 0.5)

    def options(self) -> dict:
        """The non-default universe options (recorded in the universe's meta)."""
        out = {}
        if self.children_per_couple is not None:
            out["children_per_couple"] = list(self.children_per_couple)
        if self.common_jobs:
            out["common_jobs"] = self.common_jobs
            out["common_job_share"] = self.common_job_share
        return out

    @classmethod
    def make(cls, **kwargs) -> "UniverseConfig":
        """Build a config, turning validation failures into one-line ``ConfigError``s."""
        return cls(**kwargs)
