"""``kbgym demo``: the main job (train, probe, tables and plots, no LLM)."""

from __future__ import annotations

from kbgym.cli import args as A


def add_parser(subparsers) -> None:
    from kbgym.runs.probe import ProbeSettings
    from kbgym.runs.train import TrainConfig

    p = subparsers.add_parser("demo", help="the main job: train, probe, tables and plots, no LLM")
    p.add_argument("--out", default="runs/demo", help="output folder (default runs/demo)")
    p.add_argument("--seed", type=A.SEED, default=0, help="universe seed (default 0)")
    p.add_argument("--train-size", type=A.of(TrainConfig, "train_size"), default=100,
                   help="train questions (default 100)")
    p.add_argument("--epochs", type=A.of(TrainConfig, "epochs"), default=2,
                   help="epochs (default 2)")
    p.add_argument("--per-group", type=A.of(ProbeSettings, "per_group"), default=30,
                   help="probe questions per group (default 30)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--overwrite", action="store_true",
                   help="replace what kbgym wrote in --out (an earlier demo's folder is "
                        "replaced without it)")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(func=cmd_demo)


def cmd_demo(args) -> int:
    from kbgym.runs.demo import run_demo

    run_demo(args.out, seed=args.seed, train_size=args.train_size, epochs=args.epochs,
             per_group=args.per_group, plots=not args.no_plots, overwrite=args.overwrite,
             say=(lambda *a: None) if args.quiet else print)
    return 0
