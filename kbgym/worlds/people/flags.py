"""The generator config of a ``kbgym build`` from flags alone, without pydantic.

:class:`~kbgym.worlds.people.config.UniverseConfig` validates values from anywhere (a config
file, a sweep grid, Python); building it imports pydantic, which is most of a small build's
CPU. A build from flags needs none of that: every flag's argparse type already checked its
range (the same :data:`kbgym.ranges.RANGES` entry the model's field is declared with) and
``--children`` its ``LO <= HI``. :func:`takes_as_is` checks them again (cheaply, against
the same ranges) and gives a :class:`FlagConfig` with the model's defaults; anything else,
and the model validator's cross-field rule, is left to the model, so its errors stay the one
lines the model gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from kbgym.ranges import RANGES


class UniverseDerived:
    """What the generator reads beyond the fields, shared by both configs. (No annotations
    here: pydantic would take them for fields of UniverseConfig, in another order.)"""

    @property
    def n_distractors(self) -> int:
        return int(self.n_people * self.distractor_frac + 0.5)

    def options(self) -> dict:
        """The non-default universe options (recorded in the universe's meta)."""
        out: dict[str, Any] = {}
        if self.children_per_couple is not None:
            out["children_per_couple"] = list(self.children_per_couple)
        if self.common_jobs:
            out["common_jobs"] = self.common_jobs
            out["common_job_share"] = self.common_job_share
        return out


@dataclass(frozen=True)
class FlagConfig(UniverseDerived):
    """UniverseConfig's fields and defaults (a test holds them equal), unvalidated."""

    seed: int = 0
    n_people: int = 500
    distractor_frac: float = 0.10
    friend_degree: float = 4.0
    n_cities: int = 20
    sizes: tuple[int, int, int] = (150, 100, 50)
    eval_sizes: tuple[int, int] = (20, 10)
    hard_frac: float = 0.60
    children_per_couple: tuple[int, int] | None = None
    common_jobs: int = 0
    common_job_share: float = 0.9


FIELDS = tuple(f.name for f in fields(FlagConfig))
#: The range (kbgym.ranges) of each number field, or of each number of a tuple field: those
#: UniverseConfig declares (a test holds them equal).
RANGE_OF = {"seed": "Seed", "n_people": "People", "distractor_frac": "Fraction",
            "friend_degree": "FriendDegree", "n_cities": "Cities", "sizes": "SplitSize",
            "eval_sizes": "SplitSize", "hard_frac": "Fraction", "children_per_couple": "Children",
            "common_jobs": "CommonJobs", "common_job_share": "Fraction"}
_LENGTH = {"sizes": 3, "eval_sizes": 2, "children_per_couple": 2}


def _plain(key: str, value: Any) -> bool:
    """Whether UniverseConfig takes ``value`` for ``key`` as it is (no conversion, no error)."""
    if key not in RANGE_OF:
        return False
    kind, lo, hi = RANGES[RANGE_OF[key]]
    if key in _LENGTH:
        if value is None and key == "children_per_couple":
            return True
        if type(value) is not tuple or len(value) != _LENGTH[key]:
            return False
        if key == "children_per_couple" and value[0] > value[1]:
            return False
        items = value
    else:
        items = (value,)
    return all(type(x) is kind and lo <= x <= hi for x in items)


def takes_as_is(values: Mapping[str, Any]) -> bool:
    """Whether UniverseConfig would take every value of ``values`` as it is (a build's flags,
    whose types checked the same ranges): then :class:`FlagConfig` of them is that config.
    Else (a conversion, an error, the cross-field rule: all 50 jobs common needs a share
    above 0) the model must be built (``PeopleWorld.flags_config``)."""
    return values.get("common_jobs") != 50 and all(_plain(k, v) for k, v in values.items())
