"""The ranges of every number a user gives KBGym (:data:`kbgym.ranges.RANGES`) as types.

Each range is an ``Annotated`` type: the pydantic models (``KBGymConfig``, ``TrainConfig``,
``UniverseConfig``, the sweep grid, the baselines' parameters, the probe settings) declare their
fields with these types, and the command line builds each numeric flag's argparse type and its
``--help`` range from the same field (:func:`kbgym.cli.args.of`). A config file, a sweep grid and
a flag therefore refuse exactly the same values.

Numbers from files are numbers: ``true`` and ``"5"`` are refused where a count is expected
(pydantic would otherwise read them as 1 and 5), and booleans are strictly ``true``/``false``.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, StrictBool

from kbgym.ranges import MAX_CHILDREN, MAX_GRID_RUNS, MAX_SEED, RANGES


def _number(value: Any) -> Any:
    if isinstance(value, (bool, str, bytes)):
        raise ValueError(f"expected a number, got {type(value).__name__} {value!r:.40}")
    return value


def _int_range(lo: int, hi: int):
    return Annotated[int, BeforeValidator(_number), Field(ge=lo, le=hi)]


def _float_range(lo: float, hi: float):
    return Annotated[float, BeforeValidator(_number), Field(ge=lo, le=hi, allow_inf_nan=False)]


def _typed(name: str):
    kind, lo, hi = RANGES[name]
    return _int_range(int(lo), int(hi)) if kind is int else _float_range(lo, hi)


Flag = StrictBool
Seed = _typed("Seed")
Budget = _typed("Budget")
Count = _typed("Count")
SplitSize = _typed("SplitSize")
Fraction = _typed("Fraction")
Epochs = _typed("Epochs")
People = _typed("People")
Cities = _typed("Cities")
FriendDegree = _typed("FriendDegree")
Children = _typed("Children")
CommonJobs = _typed("CommonJobs")
MemoryLines = _typed("MemoryLines")
PageSize = _typed("PageSize")
MaxPage = _typed("MaxPage")
LinkBatch = _typed("LinkBatch")
TextChars = _typed("TextChars")
RewardPool = _typed("RewardPool")
RewardWeight = _typed("RewardWeight")
PerGroup = _typed("PerGroup")
Resamples = _typed("Resamples")
CurveEvery = _typed("CurveEvery")
CommunitySize = _typed("CommunitySize")
SynapseCap = _typed("SynapseCap")
Branching = _typed("Branching")
Delta = Fraction  # the F1 gate's delta of the gradient probe

__all__ = ["MAX_CHILDREN", "MAX_GRID_RUNS", "MAX_SEED", "Delta", "Flag", "Seed", "Budget", "Count", "SplitSize", "Fraction", "Epochs", "People", "Cities", "FriendDegree", "Children", "CommonJobs", "MemoryLines", "PageSize", "MaxPage", "LinkBatch", "TextChars", "RewardPool", "RewardWeight", "PerGroup", "Resamples", "CurveEvery", "CommunitySize", "SynapseCap", "Branching"]
