"""``kbgym report``: report.md and report.json for a run."""

from __future__ import annotations

from pathlib import Path

from kbgym.cli.common import UNIVERSE_HELP, CLIError


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("report", help="report.md and report.json for a run")
    p.add_argument("--run", required=True, help="the training run directory")
    p.add_argument("--universe", help=UNIVERSE_HELP)
    p.add_argument("--probe-table",
                   help="a probe_table.json to include (default: the run's own, if any)")
    p.add_argument("--prices", help="price table (JSON): adds USD with and without the cache "
                   "discount")
    p.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    from kbgym.runs.report import write_report

    try:
        write_report(args.run, args.universe, args.probe_table, args.prices)
    except (KeyError, TypeError, IndexError, AttributeError) as err:
        raise CLIError(f"{args.run}: malformed run logs ({type(err).__name__}: {err})") from None
    print((Path(args.run) / "report.md").read_text(encoding="utf-8"))
    return 0
