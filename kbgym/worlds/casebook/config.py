"""``CasebookConfig``: everything a casebook universe is a pure function of."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kbgym.errors import ConfigError, first_error


class CasebookConfig(BaseModel):
    """The generator's inputs. At ``scale=1`` (the default): 12 form codes with 1–3 editions
    each, 80 endorsements, 24 state amendatory endorsements, 18 bulletins, 12 memos, 8 FAQs
    and one manual — about 170 documents, 1,500 ledger facts and 1,800 paragraphs. ``scale``
    multiplies every count.

    ``provisions`` is the number of concepts each form code sets; ``chains`` the reference
    chains per form code (memo → FAQ/memo … → the provision that sets the value, 2–4 hops);
    ``misstate`` the share of memo and FAQ statements that contradict the controlling text;
    ``by_title`` the share of form references written by the form's title, not its code;
    ``filed`` the share of endorsements and state amendatory endorsements whose header gives
    no date: the date they take effect is in the filing schedule of the manual (§ 3);
    ``scheduled`` the share of them whose header names no form: the form they attach to is
    in their own Schedule (§ 1); ``by_date`` the share of those Schedules that name the form
    alone, not its edition: the edition in force on the date the document takes effect;
    ``pool`` the most questions kept per template; ``sizes``/``eval_sizes`` the splits."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = 0
    scale: int = Field(1, ge=1, le=1000)
    forms: int = Field(12, ge=2, le=100_000)
    provisions: int = Field(12, ge=3, le=20)
    endorsements: int = Field(80, ge=1)
    state_forms: int = Field(24, ge=1)
    bulletins: int = Field(18, ge=1)
    memos: int = Field(12, ge=1)
    faqs: int = Field(8, ge=1)
    chains: float = Field(3.0, ge=0.0, le=10.0)
    misstate: float = Field(0.4, ge=0.0, le=1.0)
    by_title: float = Field(0.6, ge=0.0, le=1.0)
    filed: float = Field(1.0, ge=0.0, le=1.0)
    scheduled: float = Field(1.0, ge=0.0, le=1.0)
    by_date: float = Field(0.7, ge=0.0, le=1.0)
    pool: int = Field(400, ge=10)
    sizes: tuple[int, int, int] = (150, 100, 50)
    eval_sizes: tuple[int, int] = (20, 10)

    def __init__(self, **data):
        try:
            super().__init__(**data)
        except ValidationError as err:
            raise ConfigError(first_error(err, "casebook")) from None

    def count(self, name: str) -> int:
        """A document count times ``scale``."""
        return int(getattr(self, name)) * self.scale
