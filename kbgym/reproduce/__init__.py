"""``kbgym reproduce``: every claim of the paper's abstract and §I beside KBGym's figure.

    >>> from kbgym.reproduce import FULL, QUICK, reproduce
    >>> rep = reproduce("runs/repro", QUICK, executor="process")
    >>> rep["table"][0]["verdict"]

It runs the experiments of :mod:`kbgym.reproduce.experiments` as one resumable sweep in
``out`` (any executor; a re-run skips finished runs), then writes ``reproduction.json`` (every
figure), ``reproduction.md`` (the table of :mod:`kbgym.reproduce.table`) and the plots.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from kbgym.jsonio import atomic_write_text, write_canonical
from kbgym.reproduce.experiments import gradient_specs, growth_specs, phantomwiki_specs
from kbgym.reproduce.render import render_markdown, table_markdown
from kbgym.reproduce.settings import FULL, QUICK, Settings
from kbgym.reproduce.table import aggregate, counts, rows
from kbgym.sweep import Options, sweep_specs
from kbgym.sweep.grid import run_id
from kbgym.sweep.run import read_result, run_dir

SCHEMA_VERSION = 1


def plan(st: Settings, out: str | Path) -> tuple[list[dict], list[str]]:
    """The sweep specs of a reproduction (longest first) and lines about inputs left out."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    pw, skipped = phantomwiki_specs(st, out)
    return growth_specs(st) + gradient_specs(st) + pw, skipped


def reproduce(out: str | Path, settings: Settings = FULL, *, executor: str = "process",
              options: Options | None = None, command: str | None = None, say=print,
              plots: bool = True) -> dict:
    """Run (or resume) every experiment and write the reproduction into ``out``."""
    t0 = time.perf_counter()
    out = Path(out)
    specs, skipped = plan(settings, out)
    statuses: dict[str, int] = {"done": 0, "skipped": 0, "failed": 0, "timeout": 0}
    n = len(specs)

    def report(res: dict) -> None:
        statuses[res["status"]] = statuses.get(res["status"], 0) + 1
        k = sum(statuses.values())
        err = f"  {res['error']}" if res.get("error") else ""
        say(f"  [{k}/{n}] {res['id']} {res['status']}{err}  ({time.perf_counter() - t0:.0f}s)")

    say(f"reproduce: {n} sweep runs in {out}")
    sweep_specs(specs, out, executor=executor, options=options, report=report)
    results, seconds, cpu = {}, 0.0, 0.0
    for spec in specs:
        path = run_dir(out, run_id(spec))
        if (path / "result.json").exists():
            r = results[run_id(spec)] = read_result(path)
            t = path / "timing.json"
            r["_timing"] = json.loads(t.read_text(encoding="utf-8")) if t.exists() else {}
            seconds += r["_timing"].get("total", 0.0)
            cpu += sum(v for k, v in r["_timing"].items() if k.startswith("cpu_"))
    agg = aggregate(settings, specs, results)
    table = rows(agg, settings)
    m, tight = str(settings.m), str(settings.tight_m)
    rep = {
        "schema_version": SCHEMA_VERSION, "kind": "kbgym.reproduction",
        "command": command or "kbgym reproduce",
        "settings": settings.model_dump(mode="json"),
        "table": table, "counts": counts(table),
        "budgets": {"m": settings.m, "tight_m": settings.tight_m,
                    "b1_f1_m": agg.get("b1_f1", {}).get(m),
                    "b1_f1_tight": agg.get("b1_f1", {}).get(tight)},
        "gradient": agg["gradient"], "per_point": agg["per_point"],
        "phantomwiki": agg["phantomwiki"], "growth": agg["growth"],
        "notes": skipped, "plots": [],
        "runs": {"total": n, "done": len(results), "ran": statuses["done"],
                 "skipped": statuses["skipped"],
                 "failed": statuses["failed"] + statuses.get("timeout", 0)},
    }
    from kbgym.runs.plots import want_plots

    if want_plots(plots, say):
        from kbgym.reproduce.plots import plot_reproduction

        rep["plots"] = [p.name for p in plot_reproduction(rep, out)]
    rep["seconds"] = {"wall": round(time.perf_counter() - t0, 3), "runs_total": round(seconds, 3),
                      "runs_cpu": round(cpu, 3)}
    write_canonical(out / "reproduction.json", rep)
    atomic_write_text(out / "reproduction.md", render_markdown(rep))
    return rep


__all__ = ["FULL", "QUICK", "Settings", "plan", "render_markdown", "reproduce", "table_markdown"]
