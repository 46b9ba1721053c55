"""``kbgym replay``: rebuild a library from a run's trace (SPEC §15.3)."""

from __future__ import annotations

from pathlib import Path

from kbgym.cli import args as A
from kbgym.cli.common import UNIVERSE_HELP, CLIError


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("replay", help="rebuild a library from a run's trace")
    p.add_argument("--run", help="the training run directory")
    p.add_argument("--universe", help=UNIVERSE_HELP)
    p.add_argument("--at", type=A.int_range(0, 10**9),
                   help="state after iteration N (default: the end)")
    p.add_argument("--verify", help="compare with this snapshot (prints both hashes)")
    p.add_argument("--all-epochs", nargs="?", const=True, default=None, metavar="RUN_DIR",
                   help="verify every epoch snapshot")
    p.add_argument("--series", nargs="?", const="stats", default=None, metavar="stats",
                   help="rebuild series.jsonl")
    p.add_argument("--out", help="write the replayed library as a snapshot")
    p.set_defaults(func=cmd_replay)


def cmd_replay(args) -> int:
    from kbgym.library.snapshot import load_snapshot, snapshot_hash, write_snapshot
    from kbgym.runs.logs import rewrite_jsonl
    from kbgym.runs.replay import (first_difference, rebuild_series, replay_run,
                                   verify_all_epochs)

    from kbgym.cli.common import check_output_file

    run = args.run or (args.all_epochs if isinstance(args.all_epochs, str) else None)
    if run is None:
        raise CLIError("give the run directory: --run DIR (or --all-epochs DIR)")
    if isinstance(args.all_epochs, str) and args.run and args.all_epochs != args.run:
        raise CLIError(f"--run {args.run} and --all-epochs {args.all_epochs}: give one run")
    modes = [f for f, v in (("--all-epochs", args.all_epochs), ("--series", args.series),
                            ("--verify", args.verify), ("--out", args.out)) if v]
    if len(modes) > 1:
        raise CLIError(f"{modes[0]} and {modes[1]} are different uses of replay; give one")
    if args.at is not None and (args.all_epochs or args.series):
        raise CLIError(f"--at applies to one state (--verify, --out or the stats), not to "
                       f"{'--all-epochs' if args.all_epochs else '--series'}")
    check_output_file(args.out)
    if args.all_epochs:
        results = verify_all_epochs(run, args.universe)
        for e, d in results.items():
            print(f"epoch {e}: {'ok' if d is None else 'DIFFERS ' + d}")
        return 1 if any(results.values()) else 0
    if args.series:
        if args.series != "stats":
            raise CLIError(f"--series takes 'stats', got {args.series!r}")
        rows = rebuild_series(run, args.universe)
        rewrite_jsonl(Path(run) / "series.jsonl", rows)
        print(f"rebuilt series.jsonl: {len(rows)} rows")
        return 0
    lib = replay_run(run, args.at, args.universe)
    if args.verify:
        snap, _ = load_snapshot(args.verify)
        diff = first_difference(lib, snap)
        print(f"replayed {snapshot_hash(lib)}\nsnapshot {snapshot_hash(snap)}")
        print("ok: replay matches the snapshot" if diff is None else f"DIFFERS: {diff}")
        return 0 if diff is None else 1
    if args.out:
        digest = write_snapshot(args.out, lib, f"replay at {args.at}", {"path": None, "hash": None})
        print(f"{args.out} {digest}")
    else:
        print(lib.stats())
    return 0
