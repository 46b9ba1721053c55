"""Fixtures of the bench tests: a tiny release (one small people universe, the PhantomWiki
fixture, a small policies world) built once per session, and packages run on it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kbgym.bench.release import build_release

PW_SRC = Path(__file__).parents[1] / "adapters" / "data" / "phantomwiki_seed1"


def tiny_recipe(pw_file: str, rid: str = "tiny-bench-0.1") -> dict:
    return {
        "id": rid, "name": "tiny-bench", "version": "0.1",
        "budgets": {"n1": 6, "n2": 8, "m": 8, "tight_m": 4},
        "train": {"epochs": 1},
        "bootstrap": {"seed": 0, "resamples": 200},
        "examiner": {"size": "small", "chains": True, "reader_versions": True},
        "sizes": {"full": {"train_size": 3, "per_group": 3, "description": "tiny"},
                  "small": {"train_size": 2, "per_group": 2, "description": "tinier"}},
        "seeds": [
            {"name": "people-1", "world": "people", "reader": "scripted-reader",
             "curator": "scripted-index",
             "universe": {"generate": {"world": "people", "n_people": 40, "n_cities": 4,
                                       "sizes": [10, 6, 6], "eval_sizes": [2, 2]},
                          "seed": 1}},
            {"name": "phantomwiki-1", "world": "phantomwiki", "reader": "scripted-pw-reader",
             "curator": "scripted-pw-index",
             "universe": {"file": pw_file, "made_by": "the test fixture"}},
            {"name": "policies-1", "world": "policies", "reader": "scripted-policy-reader",
             "curator": "scripted-policy-index",
             "universe": {"generate": {"world": "policies", "documents": 20}, "seed": 1}},
        ],
    }


@pytest.fixture(scope="session")
def pw_file(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pw") / "pw_universe.json"
    subprocess.run([sys.executable, "-m", "kbgym.cli", "adapt", "phantomwiki", "--src",
                    str(PW_SRC), "--out", str(out), "--quiet", "--train", "24", "--test-in",
                    "12", "--test-out", "12", "--eval-in", "6", "--eval-out", "4"], check=True)
    return out


@pytest.fixture(scope="session")
def tiny_release(tmp_path_factory, pw_file):
    return build_release(tiny_recipe(str(pw_file)), tmp_path_factory.mktemp("rel") / "tiny")


@pytest.fixture(scope="session")
def packages(tmp_path_factory, tiny_release) -> dict[str, Path]:
    """Finished packages of the tiny release, by curator: B1, b3 and scripted."""
    from kbgym.bench.run import curator_spec, run_bench

    root = tmp_path_factory.mktemp("pkgs")
    out = {}
    for spec in ("B1", "b3", "scripted"):
        out[spec] = root / spec
        run_bench(tiny_release, curator_spec(spec), out[spec])
    return out


@pytest.fixture
def copy_of(tmp_path):
    """``copy_of(path)``: a fresh copy of a package folder to tamper with."""
    def copy(src: Path) -> Path:
        dst = tmp_path / src.name
        shutil.copytree(src, dst)
        return dst
    return copy
