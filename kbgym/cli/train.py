"""``kbgym train``: train a curator on the train split (SPEC §9.4)."""

from __future__ import annotations

import argparse

from kbgym.cli import args as A
from kbgym.cli.common import (
    AGENT_HELP,
    CLIError,
    add_endpoint_flags,
    add_evidence_flags,
    agent_options,
    dedup_judge,
    env_config,
    open_library,
    open_universe,
    progress_bar,
)


def add_parser(subparsers) -> None:
    from kbgym.env.config import KBGymConfig
    from kbgym.runs.train import TrainConfig

    p = subparsers.add_parser("train", help="train a curator on the train split")
    p.add_argument("--universe", help="universe.json (default: the default universe)")
    p.add_argument("--agent", default=None, help=AGENT_HELP + " (default: scripted-index; "
                   "scripted-policy-index on a policies universe)")
    p.add_argument("--reader", default=None,
                   help="reader for --eval-each-epoch (plugin name or module:factory; default: "
                        "scripted-reader; scripted-policy-reader on a policies universe)")
    p.add_argument("--epochs", type=A.of(TrainConfig, "epochs"), help="epochs (default 2)")
    p.add_argument("--train-size", type=A.of(TrainConfig, "train_size"), dest="train_size",
                   help="train on train[:N] (default: the whole train split)")
    p.add_argument("--seed", type=A.of(TrainConfig, "seed"),
                   help="order seed (default: the universe's seed)")
    for flag, what, default in (("n1", "forward", 15), ("n2", "backward", 30),
                                ("m", "exam", 15)):
        p.add_argument(f"--{flag}", type=A.of(KBGymConfig, flag),
                       help=f"{what} budget in steps (default {default})")
    p.add_argument("--eval-each-epoch", action="store_true", default=None,
                   help="examine the eval split with --reader after every epoch")
    p.add_argument("--snapshot-every", type=A.of(TrainConfig, "snapshot_every"),
                   dest="snapshot_every",
                   help="write kb_iter_NNNN.json every N iterations (default 20)")
    p.add_argument("--dedup", action=argparse.BooleanOptionalAction, default=False,
                   help="merge near-duplicate notes with an LLM judge (needs --judge-model)")
    p.add_argument("--dedup-threshold", type=A.of(KBGymConfig, "dedup_threshold"),
                   dest="dedup_threshold",
                   help="similarity above which the judge is asked, with --dedup (default 0.9)")
    p.add_argument("--judge-model", help="model of the dedup judge")
    p.add_argument("--refresh", choices=["immediate", "iteration"],
                   help="when search sees edits (default immediate)")
    add_evidence_flags(p)
    again = p.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true",
                       help="continue an interrupted run in --out (same curator and config)")
    again.add_argument("--overwrite", action="store_true",
                       help="replace the run in --out: first remove everything kbgym wrote "
                            "there (logs, snapshots, reports, exams)")
    p.add_argument("--resume-from-library", dest="resume_from_library", metavar="SNAPSHOT",
                   help="start from this trained library (e.g. one trained on the universe "
                        "--universe drifted from) instead of B1")
    p.add_argument("--out", required=True, help="run directory")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    add_endpoint_flags(p)
    p.set_defaults(func=cmd_train)


def cmd_train(args) -> int:
    from kbgym.plugins import make_agent
    from kbgym.runs.train import TrainConfig, check_train_out, train
    from kbgym.runs.verdict import verdict_line
    from kbgym.worlds import world_of

    check_train_out(args.out, args.resume, args.overwrite)  # at once, before any loading
    for flag, value, needs, given in (
            ("--reader", args.reader, "--eval-each-epoch", args.eval_each_epoch),
            ("--dedup-threshold", args.dedup_threshold, "--dedup", args.dedup),
            ("--judge-model", args.judge_model, "--dedup", args.dedup)):
        if value is not None and not given:  # a flag that would do nothing is an error
            raise CLIError(f"{flag} applies only with {needs}")
    u, upath = open_universe(args.universe)
    args.agent = args.agent or world_of(u).curator
    args.reader = args.reader or world_of(u).reader
    env_cfg = env_config(args)
    cfg = TrainConfig.make(**{k: v for k, v in {
        "epochs": args.epochs, "train_size": args.train_size, "seed": args.seed,
        "snapshot_every": args.snapshot_every, "eval_each_epoch": args.eval_each_epoch,
    }.items() if v is not None})
    agent = make_agent(args.agent, **agent_options(args))
    # the endpoint flags are the curator's; a scripted reader beside an LLM curator takes none
    reader = (make_agent(args.reader or "scripted-reader", offered=agent_options(args))
              if args.eval_each_epoch else None)
    # the run id names the curator and its options; where it is served is not part of it
    identity = {k: v for k, v in agent_options(args).items()
                if k not in ("base_url", "api_key_env")}
    judge, judge_meta = dedup_judge(args)
    start = None
    if getattr(args, "resume_from_library", None):
        start, _ = open_library(args.resume_from_library, u, typed_links=env_cfg.typed_links)
    meta = train(u, agent, args.out, env_config=env_cfg, config=cfg, universe_path=upath,
                 judge=judge, judge_meta=judge_meta, reader=reader, resume=args.resume,
                 overwrite=args.overwrite,
                 progress=progress_bar(args.quiet, "train"),
                 agent_spec={"name": args.agent, "options": identity}, start_library=start)
    if not args.quiet:
        print(f"run {meta['run_id']} -> {args.out}")
        line = verdict_line(meta["verdict"])
        if line:
            print(line)
    return 0
