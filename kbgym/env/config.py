"""``KBGymConfig``: the environment's budgets and switches (SPEC §16.1)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kbgym import bounds as B
from kbgym.errors import ConfigError, first_error


class KBGymConfig(BaseModel):
    """Budgets, memory, paging and library switches. Defaults are the paper's (SPEC §1)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n1: B.Budget = Field(15, description="forward budget")
    n2: B.Budget = Field(30, description="backward budget")
    m: B.Budget = Field(15, description="probe (exam) budget")
    memory_k: B.MemoryLines = 30
    page_size: B.PageSize = 5
    max_page: B.MaxPage = 12
    link_batch_max: B.LinkBatch = 40
    max_text_chars: B.TextChars = 1000
    search_backend: str = "bm25"
    refresh: Literal["immediate", "iteration"] = "immediate"
    dedup_threshold: B.Fraction = 0.90
    typed_links: B.Flag = False
    toolset: Literal["paper", "evidence"] = "paper"
    collapse_repeats: B.Flag = False
    train_size: B.Count | None = Field(None, description="train[:train_size]; None = all")
    # the curation reward (kbgym.runs.curation); "answer" is the paper's protocol
    reward: Literal["answer", "curation", "both"] = "answer"
    reward_k: B.RewardPool = Field(16, description="fixed other training questions in the pool")
    reward_transfer: B.RewardPool = Field(8, description="training questions sharing a key "
                                          "with the episode's question, added to its pool")
    reward_own: B.Flag = Field(False, description="examine the episode's own question too (its "
                               "gold was shown, so writing the answer in would pay)")
    reward_norm: Literal["mean", "sum"] = Field(
        "mean", description="the pool score: the mean over its questions, or the sum")
    reward_scale: B.RewardWeight = Field(1.0, description="multiplies the curation reward")
    reward_shaping: Literal["end", "edits"] = Field(
        "end", description="pay the curation reward when backward ends, or after every edit "
                           "(the change of the pool score; the sum is the same)")
    reward_mu: B.RewardWeight = Field(0.5, description="weight of mean steps / m in the score")
    reward_reader: str = Field("scripted-reader", min_length=1,
                               description="the frozen reader plugin that examines the pool")
    reward_seed: B.Seed = Field(0, description="seed of the reward pool's order")

    def __init__(self, **data):
        try:
            super().__init__(**data)
        except ValidationError as err:
            raise ConfigError(first_error(err, "env")) from None

    @classmethod
    def make(cls, **kwargs) -> "KBGymConfig":
        return cls(**kwargs)
