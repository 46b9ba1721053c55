"""``kbgym build`` from flags builds the people world's config without pydantic
(kbgym/worlds/people/flags.py): the FlagConfig must be the UniverseConfig it stands for."""

from __future__ import annotations

import argparse

import pytest

from kbgym.cli import args as A
from kbgym.cli.args import bounds_of
from kbgym.errors import ConfigError
from kbgym.ranges import RANGES
from kbgym.worlds.people import UniverseConfig, generate
from kbgym.worlds.people.flags import FIELDS, RANGE_OF, FlagConfig
from kbgym.worlds.people.world import FLAGS, WORLD


def test_flag_config_has_the_models_fields_defaults_and_ranges():
    assert FIELDS == tuple(UniverseConfig.model_fields)
    assert FlagConfig().__dict__ == UniverseConfig().model_dump()
    for field, name in RANGE_OF.items():
        info = UniverseConfig.model_fields[field]
        kind, lo, hi = RANGES[name]
        if field in ("sizes", "eval_sizes", "children_per_couple"):
            continue  # tuples: their items' ranges, checked below through the flags
        assert bounds_of(info.metadata, info.annotation) == (kind, lo, hi), field


def test_the_build_flags_check_the_models_ranges():
    p = argparse.ArgumentParser()
    WORLD.add_arguments(p, A)
    types = {a.dest: a.type for a in p._actions if a.dest in FLAGS}
    for dest, parse in types.items():
        if dest == "children_per_couple":
            continue
        want = A.of(UniverseConfig, dest)
        assert (parse.lo, parse.hi, parse.__name__) == (want.lo, want.hi, want.__name__), dest


@pytest.mark.parametrize("values", [
    {}, {"seed": 3, "n_people": 40}, {"n_people": 60, "children_per_couple": (1, 4),
                                      "common_jobs": 5, "common_job_share": 0.5,
                                      "sizes": (10, 5, 3), "eval_sizes": (2, 1)},
])
def test_flags_config_is_the_model_and_makes_the_same_universe(values):
    quick, model = WORLD.flags_config(values), UniverseConfig(**values)
    assert isinstance(quick, FlagConfig)
    assert quick.__dict__ == model.model_dump()
    assert (quick.n_distractors, quick.options()) == (model.n_distractors, model.options())
    if values:
        assert generate(quick).hash == generate(model).hash


@pytest.mark.parametrize("values", [
    {"n_people": 5}, {"n_people": True}, {"distractor_frac": 1}, {"n_people": "40"},
    {"sizes": [1, 2, 3]}, {"children_per_couple": (3, 1)}, {"hard_frac": float("nan")},
    {"common_jobs": 50, "common_job_share": 0.0}, {"colour": "red"},
])
def test_flags_config_leaves_anything_else_to_the_model(values):
    try:
        want = UniverseConfig(**values)
    except ConfigError as err:
        with pytest.raises(ConfigError) as got:
            WORLD.flags_config(values)
        assert str(got.value) == str(err)
    else:  # a conversion (a list for a tuple): the model's own result
        assert WORLD.flags_config(values) == want
