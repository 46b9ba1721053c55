"""Makes ``libtest_helpers`` importable by the library tests (pytest runs with
``--import-mode=importlib``, so test folders are not on sys.path)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if "libtest_helpers" not in sys.modules:
    _spec = importlib.util.spec_from_file_location(
        "libtest_helpers", Path(__file__).with_name("libtest_helpers.py"))
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules["libtest_helpers"] = _mod
    _spec.loader.exec_module(_mod)
