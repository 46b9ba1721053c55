"""Fixtures shared by every test folder."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def load_script():
    """``load_script("scripts/experiments/compare_arms.py")``: a script of the repository
    imported as a module (scripts are not a package), fresh on each call."""

    def load(relpath: str):
        path = ROOT / relpath
        spec = importlib.util.spec_from_file_location(f"_script_{path.stem}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    return load
