"""``PolicyConfig``: everything a policies universe is a pure function of."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kbgym.errors import ConfigError, first_error

#: Documents of each kind per 100 documents (the default library: 100 documents).
KIND_SHARES: dict[str, int] = {
    "form": 10, "endorsement": 24, "state_form": 8, "bulletin": 10, "guideline": 16,
    "manual": 12, "memo": 12, "distractor": 8,
}


class PolicyConfig(BaseModel):
    """The generator's inputs (defaults: 100 documents, about 1,000 facts).

    ``documents`` is split among the kinds by :data:`KIND_SHARES`; ``sections`` is the number
    of provisions per form (each sets a different concept, so at most the 18 concepts);
    ``second_edition`` the share of forms with a second edition and ``edition_change`` the share
    of its provisions whose value it changes; ``reserved`` the share of provisions that set no
    value; ``misstate`` the share of memo statements that contradict the controlling text."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = 0
    documents: int = Field(100, ge=20, le=100_000)
    sections: int = Field(16, ge=2, le=18)
    second_edition: float = Field(0.6, ge=0.0, le=1.0)
    edition_change: float = Field(0.5, ge=0.0, le=1.0)
    reserved: float = Field(0.06, ge=0.0, le=0.5)
    describe: float = Field(0.5, ge=0.0, le=1.0)
    misstate: float = Field(0.4, ge=0.0, le=1.0)
    sizes: tuple[int, int, int] = (150, 100, 50)
    eval_sizes: tuple[int, int] = (20, 10)

    def __init__(self, **data):
        try:
            super().__init__(**data)
        except ValidationError as err:
            raise ConfigError(first_error(err, "policies")) from None

    @field_validator("sizes", "eval_sizes")
    @classmethod
    def _non_negative(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        if any(x < 0 for x in v):
            raise ValueError("split sizes must be non-negative")
        return v

    def counts(self) -> dict[str, int]:
        """Documents per kind: the shares of ``documents``, rounded, the rounding put on
        forms; at least 2 forms and 2 bulletins."""
        out = {k: max(1, int(self.documents * s / 100 + 0.5)) for k, s in KIND_SHARES.items()}
        out["bulletin"] = max(2, out["bulletin"])
        out["form"] = max(2, self.documents - sum(v for k, v in out.items() if k != "form"))
        return out
