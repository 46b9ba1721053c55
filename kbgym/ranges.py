"""The ranges of every number a user gives KBGym, in one place, as plain data.

:mod:`kbgym.bounds` turns each range into the ``Annotated`` type the pydantic models declare
their fields with; the command line builds each numeric flag's argparse type and its ``--help``
range from the same entry (:func:`kbgym.cli.args.ranged`, or :func:`kbgym.cli.args.of` from a
model's field). A config file, a sweep grid and a flag therefore refuse exactly the same
values. This module imports nothing, so a command (``kbgym build``) can check its flags without
importing pydantic.
"""

from __future__ import annotations

#: The largest seed: numpy's SeedSequence takes any non-negative int; this keeps seeds readable.
MAX_SEED = 2**63 - 1
#: The most runs one sweep grid may expand to.
MAX_GRID_RUNS = 10_000
#: Children per couple: each end of the ``LO-HI`` range.
MAX_CHILDREN = 20

#: name -> (int or float, lowest, highest), both ends allowed; each is a type of
#: :mod:`kbgym.bounds` of the same name.
RANGES: dict[str, tuple[type, int | float, int | float]] = {
    "Seed": (int, 0, MAX_SEED),
    #: Steps per phase (n1, n2, m). Benchmarks run single episodes of 10^5 steps.
    "Budget": (int, 1, 1_000_000),
    #: Train sizes, limits, snapshot intervals.
    "Count": (int, 1, 1_000_000),
    #: Split sizes (0 allowed).
    "SplitSize": (int, 0, 1_000_000),
    "Fraction": (float, 0.0, 1.0),
    "Epochs": (int, 1, 1000),
    #: 10^6 people (11.7 M notes) build in about 3 minutes of CPU and 7.4 GB; more would not
    #: fit the machines this is built for.
    "People": (int, 6, 1_000_000),
    "Cities": (int, 1, 10_000),
    "FriendDegree": (float, 0.0, 100.0),
    "Children": (int, 0, MAX_CHILDREN),
    "CommonJobs": (int, 0, 50),
    #: Memory lines shown, page sizes and link batches of the environment.
    "MemoryLines": (int, 0, 10_000),
    "PageSize": (int, 1, 1000),
    "MaxPage": (int, 1, 10_000),
    "LinkBatch": (int, 1, 100_000),
    "TextChars": (int, 1, 1_000_000),
    "RewardPool": (int, 0, 10_000),
    "RewardWeight": (float, 0.0, 1000.0),
    #: The gradient probe: questions per group, bootstrap resamples, the F1 gate's delta.
    "PerGroup": (int, 1, 10_000),
    "Resamples": (int, 1, 100_000),
    #: Training-time curve interval of a sweep run (0: no curve).
    "CurveEvery": (int, 0, 1_000_000),
    #: Baseline parameters.
    "CommunitySize": (int, 1, 100_000),
    "SynapseCap": (int, 0, 100_000),
    "Branching": (int, 2, 100_000),
}
