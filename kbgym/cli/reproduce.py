"""``kbgym reproduce [--seeds 0-4] [--quick] --out DIR [--executor ...]``: every claim of the
paper beside KBGym's figure (:mod:`kbgym.reproduce`)."""

from __future__ import annotations

import argparse
import shlex
import sys

from kbgym.cli import args as A
from kbgym.errors import ConfigError


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "reproduce", help="every claim of the paper's abstract beside KBGym's figure",
        description="Runs (as one resumable sweep in --out; a re-run skips finished runs) the "
                    "gradient probe at the env's budget and at a tight one with B3, the "
                    "PhantomWiki arm and the coverage-growth experiment over the seeds, and "
                    "writes DIR/reproduction.md, reproduction.json, gradient.png and "
                    "coverage_growth.png: a row per claim with the paper's figure, KBGym's with "
                    "its 95%% CI over seeds, the ideal navigator's rho and a verdict.")
    p.add_argument("--out", required=True, help="the reproduction folder (a sweep folder)")
    p.add_argument("--seeds", type=A.seed_list,
                   help="seeds as 0-4 or 0,1,2 (default 0-4; with --quick 0-1)")
    p.add_argument("--quick", action="store_true",
                   help="the CI-sized run (under 2 minutes on 2 cores): 10 probe questions per "
                        "group, growth sizes 25-200 on 100 held-out questions")
    p.add_argument("--tight-m", type=A.int_range(1, 14), dest="tight_m",
                   help="the tight exam budget of the accuracy side, 1-14 (default 7: B1's "
                        "pooled probe F1 about 0.5)")
    p.add_argument("--phantomwiki", action="append", metavar="DIR",
                   help="a phantom-wiki 1.0.3 output folder for the PhantomWiki arm (repeat; "
                        "default: the generation shipped in tests/adapters/data)")
    p.add_argument("--executor", default="process", choices=["serial", "process", "ray"],
                   help="where runs execute (default: process, a local process pool)")
    p.add_argument("--jobs", type=A.int_range(1, 4096),
                   help="runs at once, 1-4096 (default: the CPU count)")
    p.add_argument("--address", default="local",
                   help="ray: local (start one), auto, or HOST:PORT of a running cluster")
    p.add_argument("--timeout", type=A.float_range(0.001, 10**7), dest="timeout_s",
                   help="per-run limit in seconds")
    p.add_argument("--retries", type=A.int_range(0, 100), default=2,
                   help="extra tries after a transient error or a lost worker (default 2)")
    p.add_argument("--no-plots", action="store_true", help="no PNG figures")
    p.add_argument("--quiet", action="store_true", help="print only the table and errors")
    p.set_defaults(func=cmd_reproduce)
    return p


def settings_of(args):
    """The Settings the flags name (one-line ConfigError for an impossible combination)."""
    from kbgym.reproduce import FULL, QUICK

    update = {}
    if args.seeds is not None:
        update["seeds"] = args.seeds
    if args.tight_m is not None:
        update["tight_m"] = args.tight_m
    if args.phantomwiki:
        update["phantomwiki"] = tuple(args.phantomwiki)
    return (QUICK if args.quick else FULL).replace(**update)


def cmd_reproduce(args) -> int:
    from kbgym.reproduce import reproduce, table_markdown
    from kbgym.sweep import Options

    from pathlib import Path

    for src in args.phantomwiki or ():  # refused before the sweep, not skipped after it
        d = Path(src)
        if not d.is_dir() or not (d / "articles.json").is_file() \
                or not (d / "questions.json").is_file():
            raise ConfigError(f"--phantomwiki {src}: not a phantom-wiki generation (needs "
                              "articles.json and questions.json in that folder)")
    st = settings_of(args)
    if args.executor != "ray" and args.address not in (None, "", "local"):
        raise ConfigError("--address applies to the ray executor only")
    command = "kbgym reproduce " + " ".join(shlex.quote(a) for a in sys.argv[2:]) \
        if sys.argv[1:2] == ["reproduce"] else "kbgym reproduce"
    rep = reproduce(args.out, st, executor=args.executor, command=command,
                    options=Options(jobs=args.jobs, timeout_s=args.timeout_s,
                                    retries=args.retries, address=args.address),
                    say=(lambda *a: None) if args.quiet else print, plots=not args.no_plots)
    print(table_markdown(rep), end="")
    if not args.quiet:
        c = rep["counts"]
        print(f"{c['within CI']} within CI, {c['same direction']} same direction, "
              f"{c['differs']} differ, {c['undecided']} undecided (too few seeds), "
              f"{c['not measured']} not measured; "
              f"{rep['seconds']['wall']:.0f} s; wrote {args.out}/reproduction.md, "
              f"reproduction.json" + "".join(f", {p}" for p in rep["plots"]))
    if rep["runs"]["failed"]:
        print(f"kbgym reproduce: {rep['runs']['failed']} runs failed (see runs/<id>/error.json); "
              "run the same command again to redo them", file=sys.stderr)
        return 1
    return 0
