"""``kbgym plot``: PNG curves from a run directory."""

from __future__ import annotations



def add_parser(subparsers) -> None:
    p = subparsers.add_parser("plot", help="PNG curves from a run directory")
    p.add_argument("--run", required=True, help="the training run directory")
    p.add_argument("--out", help="folder for the PNG files (default: the run directory)")
    p.add_argument("--probe-table", help="a probe_table.json to plot (default: the run's own)")
    p.set_defaults(func=cmd_plot)


def cmd_plot(args) -> int:
    from kbgym.files import read_run_meta
    from kbgym.runs.plots import plot_run

    read_run_meta(args.run)  # a run directory, not a typo that would be created
    for path in plot_run(args.run, args.out, args.probe_table):
        print(path)
    return 0
