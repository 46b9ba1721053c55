"""The shared benchmark harness (scripts/benchmarks/harness.py) and a smoke run of the issue
table's script at tiny sizes (slow: it starts several child processes)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "scripts" / "benchmarks"


def _load(name: str):
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_percentiles_are_nearest_rank():
    h = _load("harness")
    xs = [5, 1, 4, 2, 3]
    assert (h.pct(xs, 0), h.pct(xs, 0.5), h.pct(xs, 1)) == (1, 3, 5)
    assert h.summary(list(range(101)))["p95"] == 95
    with pytest.raises(ValueError):
        h.pct([], 0.5)


def test_child_returns_the_last_json_line_and_reports_failures():
    h = _load("harness")
    assert h.child("print('noise'); import json, kbgym; print(json.dumps({'ok': 1}))") == {"ok": 1}
    with pytest.raises(RuntimeError, match="boom"):
        h.child("raise SystemExit('boom')")


def test_a_child_runs_the_given_checkouts_kbgym_and_agents(tmp_path):
    """An A/B baseline runs its own agents: the editable install maps ``kbgym_agents`` to
    this checkout's agents/ whatever PYTHONPATH says, so code_env links the root's agents
    first on the path; bytecode may be written (to the harness's own cache)."""
    h = _load("harness")
    for pkg in ("kbgym", "agents"):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text(f"WHERE = {pkg!r}\n")
    got = h.child("import json, sys, kbgym, kbgym_agents; print(json.dumps([kbgym.WHERE, "
                  "kbgym_agents.WHERE, sys.dont_write_bytecode, sys.pycache_prefix]))",
                  root=tmp_path)
    assert got == ["kbgym", "agents", False, h.PYCACHE]


def test_table_is_markdown():
    h = _load("harness")
    assert h.table([("a", "1", "2", "yes")]).splitlines() == [
        "| measure | now | goal | met? |", "|---|---|---|---|", "| a | 1 | 2 | yes |"]


@pytest.mark.slow
def test_issue_table_quick_smoke():
    rows = _load("bench_scale").main(["--quick", "--skip", "steps"])
    measures = [r[0] for r in rows]
    assert any(m.startswith("library fork") for m in measures)
    assert any("snapshot" in m and "binary" in m for m in measures)
    assert all(r[3] in ("yes", "no", "—") for r in rows)
