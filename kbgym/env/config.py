"""``KBGymConfig``: the environment's budgets and switches (SPEC §16.1)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kbgym.errors import ConfigError, first_error


class KBGymConfig(BaseModel):
    """Budgets, memory, paging and library switches. Defaults are the paper's (SPEC §1)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n1: int = Field(15, ge=1, description="forward budget")
    n2: int = Field(30, ge=1, description="backward budget")
    m: int = Field(15, ge=1, description="probe (exam) budget")
    memory_k: int = Field(30, ge=0)
    page_size: int = Field(5, ge=1)
    max_page: int = Field(12, ge=1)
    link_batch_max: int = Field(40, ge=1)
    max_text_chars: int = Field(1000, ge=1)
    search_backend: str = "bm25"
    refresh: Literal["immediate", "iteration"] = "immediate"
    dedup_threshold: float = Field(0.90, ge=0.0, le=1.0)
    typed_links: bool = False
    toolset: Literal["paper", "evidence"] = "paper"
    collapse_repeats: bool = False
    train_size: int | None = Field(None, ge=1, description="train[:train_size]; None = all")
    # the curation reward (kbgym.runs.curation); "answer" is the paper's protocol
    reward: Literal["answer", "curation", "both"] = "answer"
    reward_k: int = Field(16, ge=0, description="fixed other training questions in the pool")
    reward_transfer: int = Field(8, ge=0, description="training questions sharing a key with "
                                 "the episode's question, added to its pool")
    reward_own: bool = Field(False, description="examine the episode's own question too (its "
                             "gold was shown, so writing the answer in would pay)")
    reward_norm: Literal["mean", "sum"] = Field(
        "mean", description="the pool score: the mean over its questions, or the sum")
    reward_scale: float = Field(1.0, ge=0.0, description="multiplies the curation reward")
    reward_shaping: Literal["end", "edits"] = Field(
        "end", description="pay the curation reward when backward ends, or after every edit "
                           "(the change of the pool score; the sum is the same)")
    reward_mu: float = Field(0.5, ge=0.0, description="weight of mean steps / m in the score")
    reward_reader: str = Field("scripted-reader", min_length=1,
                               description="the frozen reader plugin that examines the pool")
    reward_seed: int = Field(0, ge=0, description="seed of the reward pool's order")

    def __init__(self, **data):
        try:
            super().__init__(**data)
        except ValidationError as err:
            raise ConfigError(first_error(err, "env")) from None

    @classmethod
    def make(cls, **kwargs) -> "KBGymConfig":
        return cls(**kwargs)
