"""What ``kbgym reproduce`` runs: the full benchmark (:data:`FULL`, the paper's setup over 5
seeds) or the CI-sized ``--quick`` one (:data:`QUICK`). Every figure of the reproduction is a
pure function of these settings."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kbgym.errors import ConfigError, first_error
from kbgym.shipped import path as _shipped

#: The tight exam budget: the M at which B1's pooled F1 on the probe is about 0.5 (measured by
#: ``scripts/experiments/tight_budget.py``, 5 seeds: 0.521 at M = 7, 0.414 at 6, 0.713 at 8),
#: so that an F1 gain can show; at the env's M = 15 the scripted reader answers every probe
#: question (F1 1.000) on every arm.
TIGHT_M = 7
#: The env's exam budget (the paper's M = 15).
PAPER_M = 15

#: The phantom-wiki 1.0.3 generation shipped with the repository's tests and the wheel (seed 1,
#: one family tree of 25 people, depth 6 like the paper's); used when no --phantomwiki is given.
PW_FIXTURE = _shipped("phantomwiki_seed1") or (
    Path(__file__).resolve().parents[2] / "tests/adapters/data/phantomwiki_seed1")
#: The world that imports the paper's PhantomWiki generations (its ``import_source``): the
#: paper's data, as the fixture above is; nothing in the reproduction branches on it.
PW_WORLD = "phantomwiki"


class Settings(BaseModel):
    """The experiments' sizes. Defaults are the full run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    # the gradient chain (the paper's E2 and coverage table): universe, training, probe
    universe: dict = {"n_people": 500}
    curator: str = "scripted-index"
    reader: str = "scripted-reader"
    epochs: int = Field(2, ge=1)
    train_size: int = Field(100, ge=1)
    per_group: int = Field(30, ge=1)
    resamples: int = Field(20_000, ge=100)
    m: int = Field(PAPER_M, ge=1)
    tight_m: int = Field(TIGHT_M, ge=1)
    # the coverage-growth experiment (configs/coverage.yaml)
    growth_universe: dict = {"n_people": 500, "sizes": [600, 150, 50]}
    growth_sizes: tuple[int, ...] = (50, 100, 200, 400, 600)
    growth_base: int = Field(100, ge=1)  # the paper's 100 questions; 4x it must be a size
    repeat_distinct: int = Field(100, ge=1)
    repeat_epochs: int = Field(6, ge=2)
    held_out: tuple[str, ...] = ("test_in", "test_out")
    held_out_limit: int | None = Field(None, ge=1)
    # the PhantomWiki arm
    phantomwiki: tuple[str, ...] = (str(PW_FIXTURE),)
    pw_train_size: int = Field(16, ge=1)
    pw_curator: str = "scripted-pw-index"
    pw_reader: str = "scripted-pw-reader"

    def __init__(self, **data):
        try:
            super().__init__(**data)
        except ValidationError as err:
            raise ConfigError(first_error(err, "reproduce")) from None

    def replace(self, **update) -> "Settings":
        """These settings with ``update`` applied, validated again."""
        return Settings(**{**self.model_dump(), **update})

    @model_validator(mode="after")
    def _sizes(self) -> "Settings":
        if not self.seeds or len(set(self.seeds)) != len(self.seeds):
            raise ValueError("seeds must be distinct and at least one")
        if self.growth_base not in self.growth_sizes or \
                4 * self.growth_base not in self.growth_sizes:
            raise ValueError(f"growth sizes {list(self.growth_sizes)} must hold the base "
                             f"{self.growth_base} and 4x it")
        train = self.growth_universe.get("sizes", [150])[0]
        if max(self.growth_sizes) > train or self.repeat_distinct > train:
            raise ValueError(f"growth sizes and repeat_distinct must fit the train split "
                             f"({train} questions)")
        if self.tight_m >= self.m:
            raise ValueError(f"the tight budget ({self.tight_m}) must be below M ({self.m})")
        return self


FULL = Settings()
#: Under 2 minutes on 2 cores: two seeds (so there is a between-seed CI), 10 probe questions
#: per group, the growth sizes halved (base 50, 4x = 200) on 100 held-out questions.
QUICK = Settings(seeds=(0, 1), per_group=10, resamples=2000, growth_sizes=(25, 50, 100, 200),
                 growth_base=50, repeat_distinct=50, repeat_epochs=4, held_out_limit=50)
