"""``kbgym sweep GRID.yaml --out DIR`` and ``kbgym sweep report DIR``.

Wire it into the main parser with ``add_parser(subparsers)``; the subcommand's ``func``
returns the exit status and raises :class:`~kbgym.errors.ConfigError` (one line) for anything
the user can fix.
"""

from __future__ import annotations

import argparse
import sys
import time

from kbgym.cli import args as A
from kbgym.errors import ConfigError


def add_parser(subparsers) -> argparse.ArgumentParser:
    from kbgym.runs.probe import ProbeSettings

    p = subparsers.add_parser(
        "sweep", help="run a grid of runs (seeds x curators x configs), or report on one",
        description="kbgym sweep GRID.yaml --out DIR runs every unfinished run of the grid "
                    "(a re-run skips finished runs and redoes failed or cut ones); "
                    "kbgym sweep report DIR aggregates the finished runs over seeds.")
    p.add_argument("grid", metavar="GRID.yaml|report", help="the sweep file, or 'report'")
    p.add_argument("dir", nargs="?", metavar="DIR", help="with 'report': the sweep folder")
    p.add_argument("--out", help="sweep folder (runs/<id>/ inside)")
    p.add_argument("--executor", choices=["serial", "process", "ray"],
                   help="where runs execute (default: process, a local process pool)")
    p.add_argument("--jobs", type=A.int_range(1, 4096),
                   help="runs at once (default: the CPU count)")
    p.add_argument("--llm-slots", type=A.int_range(1, 100_000), dest="llm_slots",
                   help="at most this many runs with an LLM curator or reader at once")
    p.add_argument("--address",
                   help="ray: local (start one on 127.0.0.1), auto, or HOST:PORT of a running "
                        "cluster (default: $RAY_ADDRESS when set, else local)")
    p.add_argument("--timeout", type=A.float_range(0.001, 10**7), dest="timeout_s",
                   help="per-run limit in seconds")
    p.add_argument("--retries", type=A.int_range(0, 100),
                   help="extra tries after a transient endpoint error or a lost worker "
                        "(default 2)")
    p.add_argument("--dry-run", action="store_true", help="list the runs and their status")
    p.add_argument("--prices", help="report: a price table (JSON or YAML) {model: {in, out"
                   "[, cached_in]}} in USD per 1M tokens")
    p.add_argument("--resamples", type=A.of(ProbeSettings, "resamples"),
                   help="report: bootstrap resamples (default: the grid's)")
    p.add_argument("--no-plots", action="store_true", help="report: no PNG figures")
    p.add_argument("--quiet", action="store_true", help="print only errors")
    p.set_defaults(func=cmd_sweep)
    return p


#: Flags of running a sweep (not of ``sweep report``), with their defaults.
RUN_FLAGS = {"out": None, "executor": "process", "jobs": None, "llm_slots": None,
             "address": None, "timeout_s": None, "retries": 2, "dry_run": False}
#   (--address: None lets the ray executor take $RAY_ADDRESS, else start a local instance)
_FLAG = {"out": "--out", "executor": "--executor", "jobs": "--jobs", "llm_slots": "--llm-slots",
         "address": "--address", "timeout_s": "--timeout", "retries": "--retries",
         "dry_run": "--dry-run"}


def cmd_sweep(args) -> int:
    if args.grid == "report":
        given = [f for f, default in RUN_FLAGS.items() if getattr(args, f) not in (None, False)]
        if given:
            raise ConfigError(f"{_FLAG[given[0]]} belongs to running a sweep, not to "
                              "'kbgym sweep report DIR'")
        return cmd_report(args)
    for flag, default in RUN_FLAGS.items():
        if getattr(args, flag) is None:
            setattr(args, flag, default)
    if args.executor == "serial" and (args.jobs is not None or args.llm_slots is not None):
        raise ConfigError("--jobs and --llm-slots apply to the process and ray executors; the "
                          "serial executor runs one run at a time")
    if args.dir is not None:
        raise ConfigError(f"unexpected argument {args.dir!r}; the folder goes in --out DIR")
    if not args.out:
        raise ConfigError("give the sweep folder: --out DIR")
    from kbgym.sweep import Options, plan, sweep

    if args.dry_run:
        runs = plan(args.grid, args.out)
        for r in runs:
            s = r["spec"]
            print(f"{r['id']}  {r['status']:7s} seed={s['seed']} curator={s['curator']['name']} "
                  f"reader={s['reader']['name']} universe={s['universe'] or 'default'}"
                  f"{' env=' + str(s['env']) if s['env'] else ''}")
        todo = sum(r["status"] != "done" for r in runs)
        print(f"{len(runs)} runs, {len(runs) - todo} done, {todo} to run")
        return 0
    if args.resamples is not None or args.prices or args.no_plots:
        raise ConfigError("--prices, --resamples and --no-plots belong to 'kbgym sweep report'")
    t0 = time.perf_counter()

    def say(res: dict) -> None:
        if not args.quiet:
            extra = f"  {res['error']}" if res.get("error") else ""
            print(f"{res['id']}  {res['status']}{extra}  ({time.perf_counter() - t0:.1f}s)",
                  flush=True)

    results = sweep(args.grid, args.out, executor=args.executor, report=say,
                    options=Options(jobs=args.jobs, llm_slots=args.llm_slots,
                                    timeout_s=args.timeout_s, retries=args.retries,
                                    address=args.address))
    failed = [r for r in results if r["status"] in ("failed", "timeout")]
    if not args.quiet:
        counts = {s: sum(r["status"] == s for r in results) for s in ("done", "skipped",
                                                                       "failed", "timeout")}
        print(f"{len(results)} runs: {counts['done']} ran, {counts['skipped']} already done, "
              f"{counts['failed']} failed, {counts['timeout']} timed out  "
              f"({time.perf_counter() - t0:.1f}s)")
    if failed:
        from kbgym.sweep.run import ERROR, run_dir

        files = [run_dir(args.out, r["id"]) / ERROR for r in failed]
        have = [str(f) for f in files if f.exists()]
        where = (f"see {have[0]}" + (f" and {len(have) - 1} more error.json" if len(have) > 1
                                     else "")) if have else "no run wrote an error.json"
        lost = len(files) - len(have)
        if have and lost:
            where += f"; {lost} ended without one (a lost worker)"
        print(f"kbgym sweep: {len(failed)} runs failed or timed out ({where}); run the same "
              f"command again to redo them", file=sys.stderr)
        return 1
    return 0


def cmd_report(args) -> int:
    if not args.dir:
        raise ConfigError("give the sweep folder: kbgym sweep report DIR")
    from kbgym.sweep.aggregate import load_prices, write_sweep_report

    rep = write_sweep_report(args.dir, prices=load_prices(args.prices),
                             resamples=args.resamples, plots=not args.no_plots)
    if not args.quiet:
        from kbgym.sweep.aggregate import render_markdown

        print(render_markdown(rep), end="")
        print("wrote " + ", ".join(str(p) for p in rep["_written"]))
        if rep.get("_note"):
            print(rep["_note"])
    return 0
