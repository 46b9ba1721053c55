"""Sweeps: many runs (seeds × curators × readers × universe and env configs) from one YAML
grid, each in its own directory with an atomic ``result.json``, executed serially, on a
local process pool or on Ray, then aggregated over seeds (``kbgym sweep report``).

    >>> from kbgym.sweep import plan, sweep
    >>> sweep("grid.yaml", "runs/sweep", executor="process")
"""

from __future__ import annotations

from pathlib import Path

from kbgym.errors import ConfigError
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
    check_options(executor, options or Options())
    specs = [r["spec"] for r in plan(grid_path, out)]  # a bad grid is refused before the
    return sweep_specs(specs, out, executor=executor, options=options,  # folder is made
                       report=report, grid=str(grid_path))


def sweep_specs(specs: list[dict], out: str | Path, *, executor: str = "process",
                options: Options | None = None, report=None, grid: str | None = None
                ) -> list[dict]:
    """Run every unfinished run of ``specs`` (built by code rather than expanded from a grid
    file: ``kbgym reproduce``'s experiments); ``sweep.json`` lists them, ``grid`` null. The
    folder is locked for the whole sweep, as :func:`sweep` locks it."""
    from kbgym.runs.lock import run_lock

    from kbgym.runs.outdir import check_folder

    check_options(executor, options or Options())
    check_folder(out, what="sweep folder")
    check_folder(Path(out) / "runs", what="sweep folder")
    with run_lock(out):
        check_same_sweep(out, specs)
        write_canonical(Path(out) / "sweep.json", {
            "schema_version": 1, "kind": "kbgym.sweep", "grid": grid,
            "runs": [{"id": run_id(s), "spec": s} for s in specs]})
        return run_all(specs, out, executor, options, report)


def check_same_sweep(out: str | Path, specs: list[dict]) -> None:
    """A one-line error when ``out`` already holds a sweep of other runs (another grid): its
    runs would be pooled with this one's by ``sweep report``. The same grid resumes."""
    import json

    from kbgym.runs.outdir import refuse_link

    path = Path(out) / "sweep.json"
    refuse_link(path, "sweep")
    if not path.exists():
        return
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
        ids = sorted(r["id"] for r in old["runs"])
    except (OSError, ValueError, KeyError, TypeError):
        raise ConfigError(f"{path}: not a kbgym sweep file; give a new --out") from None
    if ids != sorted(run_id(s) for s in specs):
        raise ConfigError(f"{out} already holds another sweep ({len(ids)} runs of "
                          f"{old.get('grid') or 'code-built specs'}); give a new --out")


__all__ = ["EXECUTORS", "Options", "plan", "run_all", "sweep", "sweep_specs"]
