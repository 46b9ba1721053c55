"""``kbgym drift`` and ``kbgym drift-report``: register with ``add_parser(subparsers)``."""

from __future__ import annotations

import json
from pathlib import Path

from kbgym.cli.args import SEED, int_range
from kbgym.cli.common import CLIError, fmt, open_universe


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "drift", help="universe v2: seeded changes applied to a universe",
        description="Apply seeded changes to a generated universe - people: life events "
                    "(moves, job changes, marriages, new friendships, births); policies: new "
                    "form editions, bulletins and endorsements. Each changed fact becomes a new "
                    "original note, outdated notes stay, questions are re-answered.")
    p.add_argument("--universe", required=True, help="the v1 universe.json")
    p.add_argument("--changes", type=int_range(0, 100_000), required=True,
                   help="number of changes (life events, editions)")
    p.add_argument("--seed", type=SEED, default=0, help="drift seed (stream 'drift'; default 0)")
    p.add_argument("--out", required=True, help="the v2 universe.json")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(func=cmd_drift)

    r = subparsers.add_parser(
        "drift-report", help="F1 on drifted vs unchanged questions, outdated answers, repairs",
        description="Drift metrics from exams (test output directories) on a drifted universe "
                    "and, optionally, a training run continued on it.")
    r.add_argument("--universe", required=True, help="the drifted universe.json")
    r.add_argument("--test", action="append", default=[], metavar="NAME=DIR",
                   help="an exam's output directory (repeat)")
    r.add_argument("--run", help="a training run on the drifted universe")
    r.add_argument("--out", help="also write the report as JSON here")
    r.set_defaults(func=cmd_drift_report)


def cmd_drift(args) -> int:
    from kbgym.jsonio import atomic_write_text
    from kbgym.worlds import world_of

    from kbgym.cli.common import check_output_file

    check_output_file(args.out, universe=args.universe)
    u, _ = open_universe(args.universe)
    fam = world_of(u)
    u2 = fam.drift(u, args.changes, args.seed)
    atomic_write_text(args.out, u2.dumps())
    if not args.quiet:
        print(fam.drift_summary(u2))
        print(f"wrote {args.out}")
    return 0


def cmd_drift_report(args) -> int:
    from kbgym.jsonio import write_canonical
    from kbgym.runs.drift import drift_report, repair_summary
    from kbgym.runs.logs import read_jsonl

    from kbgym.cli.common import check_output_file

    check_output_file(args.out, universe=args.universe)
    u, _ = open_universe(args.universe)
    report: dict = {"exams": {}}
    for spec in args.test:
        name, _, path = spec.partition("=")
        if not path:
            raise CLIError(f"--test takes NAME=DIR, got {spec!r}")
        log = Path(path) / "test_log.jsonl"
        if not log.exists():
            raise CLIError(f"{path}: no test_log.jsonl")
        rows = [r for r in read_jsonl(log) if not r.get("repeat")]
        report["exams"][name] = rep = drift_report(u, rows)
        print(f"{name:12s} drifted n={rep['drifted']['n']:<4d} f1={fmt(rep['drifted']['f1'])}  "
              f"unchanged n={rep['unchanged']['n']:<4d} f1={fmt(rep['unchanged']['f1'])}  "
              f"outdated answers={rep['outdated_answers']}")
    if args.run:
        from kbgym.files import read_run_meta

        read_run_meta(args.run)  # a training run directory, not a typo
        report["run"] = rs = repair_summary(args.run)
        stale = [s for _, s in rs["stale_links"] if s is not None]
        print(f"run          repair actions={rs['repair_actions']} over {rs['iterations']} "
              f"iterations; stale links {stale[0] if stale else '-'} -> "
              f"{stale[-1] if stale else '-'}")
    if args.out:
        write_canonical(args.out, json.loads(json.dumps(report)))
    return 0
