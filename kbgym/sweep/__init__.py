"""Sweeps: many runs (seeds × curators × readers × universe and env configs) from one YAML
grid, each in its own directory with an atomic ``result.json``, executed serially, on a
local process pool or on Ray, then aggregated over seeds (``kbgym sweep report``).

    >>> from kbgym.sweep import plan, sweep
    >>> sweep("grid.yaml", "runs/sweep", executor="process")
"""

from __future__ import annotations

from pathlib import Path

from kbgym.jsonio import write_canonical
from kbgym.sweep.executors import EXECUTORS, Options, check_options, run_all
from kbgym.sweep.grid import expand, load_grid, run_id
from kbgym.sweep.run import run_dir, status


def plan(grid_path: str | Path, out: str | Path) -> list[dict]:
    """The grid's runs with their ids and current status (nothing is written)."""
    specs = expand(load_grid(grid_path))
    return [{"id": run_id(s), "status": status(run_dir(out, run_id(s))), "spec": s}
            for s in specs]


def sweep(grid_path: str | Path, out: str | Path, *, executor: str = "process",
          options: Options | None = None, report=None) -> list[dict]:
    """Run every unfinished run of the grid; ``sweep.json`` in ``out`` lists them all.

    The sweep folder is locked for the whole sweep (``.kbgym.lock``, as a run directory is):
    a second sweep on it stops at once with one line instead of redoing the first's runs.
    """
    from kbgym.runs.lock import run_lock

    check_options(executor, options or Options())
    runs = plan(grid_path, out)  # a bad grid is refused before the folder is made
    with run_lock(out):
        write_canonical(Path(out) / "sweep.json", {
            "schema_version": 1, "kind": "kbgym.sweep", "grid": str(grid_path),
            "runs": [{"id": r["id"], "spec": r["spec"]} for r in runs]})
        return run_all([r["spec"] for r in runs], out, executor, options, report)


__all__ = ["EXECUTORS", "Options", "plan", "run_all", "sweep"]
