"""The ranges of every number a user gives KBGym, in one place.

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

#: The largest seed: numpy's SeedSequence takes any non-negative int; this keeps seeds readable.
MAX_SEED = 2**63 - 1
#: The most runs one sweep grid may expand to.
MAX_GRID_RUNS = 10_000


def _number(value: Any) -> Any:
    if isinstance(value, (bool, str, bytes)):
        raise ValueError(f"expected a number, got {type(value).__name__} {value!r:.40}")
    return value


def _int_range(lo: int, hi: int):
    return Annotated[int, BeforeValidator(_number), Field(ge=lo, le=hi)]


def _float_range(lo: float, hi: float):
    return Annotated[float, BeforeValidator(_number), Field(ge=lo, le=hi, allow_inf_nan=False)]


Flag = StrictBool
Seed = _int_range(0, MAX_SEED)
#: Steps per phase (n1, n2, m). Benchmarks run single episodes of 10^5 steps.
Budget = _int_range(1, 1_000_000)
#: Train sizes, limits, snapshot intervals.
Count = _int_range(1, 1_000_000)
#: Split sizes (0 allowed).
SplitSize = _int_range(0, 1_000_000)
Fraction = _float_range(0.0, 1.0)
Epochs = _int_range(1, 1000)
#: 10^6 people (11.7 M notes) generate in about 4 minutes and 8 GB; more would not fit the
#: machines this is built for.
People = _int_range(6, 1_000_000)
Cities = _int_range(1, 10_000)
FriendDegree = _float_range(0.0, 100.0)
#: Children per couple: each end of the ``LO-HI`` range.
MAX_CHILDREN = 20
Children = _int_range(0, MAX_CHILDREN)
CommonJobs = _int_range(0, 50)
#: Memory lines shown, page sizes and link batches of the environment.
MemoryLines = _int_range(0, 10_000)
PageSize = _int_range(1, 1000)
MaxPage = _int_range(1, 10_000)
LinkBatch = _int_range(1, 100_000)
TextChars = _int_range(1, 1_000_000)
RewardPool = _int_range(0, 10_000)
RewardWeight = _float_range(0.0, 1000.0)
#: The gradient probe: questions per group, bootstrap resamples, the F1 gate's delta.
PerGroup = _int_range(1, 10_000)
Resamples = _int_range(1, 100_000)
Delta = Fraction
#: Training-time curve interval of a sweep run (0: no curve).
CurveEvery = _int_range(0, 1_000_000)
#: Baseline parameters.
CommunitySize = _int_range(1, 100_000)
SynapseCap = _int_range(0, 100_000)
Branching = _int_range(2, 100_000)
