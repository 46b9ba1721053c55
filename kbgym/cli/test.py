"""``kbgym test``: examine a frozen library with the fixed reader (SPEC §9.3)."""

from __future__ import annotations

import contextlib
from pathlib import Path

from kbgym.cli import args as A
from kbgym.cli.common import (
    UNIVERSE_HELP,
    CLIError,
    add_endpoint_flags,
    add_evidence_flags,
    agent_options,
    env_config,
    fmt,
    open_library,
    open_universe,
)


def add_parser(subparsers) -> None:
    from kbgym.env.config import KBGymConfig

    p = subparsers.add_parser("test", help="examine a frozen library with the fixed reader")
    p.add_argument("--universe", help=UNIVERSE_HELP)
    p.add_argument("--library", help="snapshot file, or B1 (default)")
    p.add_argument("--questions", help="a probe.json (default: the universe's splits)")
    p.add_argument("--split", default="test_in", help="comma-separated split names")
    p.add_argument("--reader", default=None,
                   help="the exam reader (plugin name or module:factory; default: "
                        "scripted-reader; scripted-policy-reader on a policies universe), or "
                        "'prior': each template's most frequent training answer in one step, "
                        "reading nothing")
    p.add_argument("--m", type=A.of(KBGymConfig, "m"), help="exam budget in steps (default 15)")
    add_evidence_flags(p)
    p.add_argument("--limit", type=A.COUNT, help="only the first N questions of each split")
    p.add_argument("--epoch", default=None, help="label written into test_log rows")
    p.add_argument("--max-concurrent", type=A.int_range(1, 1024), default=32,
                   dest="max_concurrent",
                   help="questions in flight at once for async (LLM) readers (default 32)")
    p.add_argument("--repeats", type=A.int_range(1, 100), default=1,
                   help="examine each question R times (citation consistency) (default 1)")
    p.add_argument("--seed", type=A.SEED,
                   help="master seed of the per-repeat reader seeds, with --repeats (default 0)")
    p.add_argument("--out", help="write test_log.jsonl, trace.jsonl and test_meta.json here "
                                 "(an empty directory, or a training run's)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace the examination in --out: first remove what kbgym wrote there")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    add_endpoint_flags(p)
    p.set_defaults(func=cmd_test)


def cmd_test(args) -> int:
    from kbgym.runs.verdict import exam_verdict, verdict_line
    from kbgym.plugins import make_agent
    from kbgym.runs.concurrent import examine_concurrent
    from kbgym.runs.exam import load_questions, write_test_meta
    from kbgym.scoring import score_block
    from kbgym.worlds import world_of

    if args.seed is not None and args.repeats < 2:
        raise CLIError("--seed applies only with --repeats R (R of 2 or more)")
    args.seed = args.seed or 0
    names = [s.strip() for s in args.split.split(",") if s.strip()]
    if not names:
        raise CLIError(f"--split {args.split!r}: give one or more split names, comma-separated")
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice:
        raise CLIError(f"--split: {twice} is given twice")
    if args.out:
        from kbgym.runs.compat import check_exam_out

        check_exam_out(args.out, {}, overwrite=args.overwrite)  # at once, before any loading
    elif args.overwrite:
        raise CLIError("--overwrite applies with --out DIR")
    u, _ = open_universe(args.universe)
    args.reader = args.reader or world_of(u).reader
    if args.out and (Path(args.out) / "meta.json").exists():  # appending into a training run
        from kbgym.files import read_run_meta

        run_hash = read_run_meta(args.out)["universe"]["hash"]
        if run_hash != u.hash:
            raise CLIError(f"--out {args.out} is a run on universe {run_hash}, not {u.hash}; "
                           "pass its --universe")
    lib, lib_name = open_library(args.library, u)
    questions, splits = load_questions(u, args.questions)
    probe_data = None
    if args.questions:
        from kbgym.safeload import read_json

        probe_data = read_json(args.questions, "probe")
    for name in names:
        if name not in splits:
            where = f"the probe {args.questions}" if args.questions else "the universe"
            raise CLIError(f"--split {name}: unknown split; {where} has: {', '.join(splits)}")
    if args.reader == "prior":  # the prior arm: top training answer per template, one step
        from kbgym.runs.prior import PriorReader

        reader = PriorReader.for_questions(u, questions)
    else:
        reader = make_agent(args.reader, **agent_options(args))
    env_cfg = env_config(args)
    model = (getattr(reader, "meta", None) or {}).get("model", args.reader)
    exam_id = {"library": lib_name, "questions": args.questions, "m": env_cfg.m, "model": model,
               "epoch": args.epoch}
    with exam_lock(args.out, exam_id, args.overwrite):
        run_id = _test_run_id(args, u, lib)
        rows = examine_concurrent(u, lib, reader, env_cfg, split=names, questions=questions,
                                  splits=splits, label=args.epoch, limit=args.limit,
                                  out=args.out, run_id=run_id,
                                  max_concurrent=args.max_concurrent,
                                  repeats=args.repeats, seed=args.seed)
        if args.out:
            from kbgym.runs.gradient import probe_hash

            qhash = probe_hash(probe_data) if probe_data is not None else None
            write_test_meta(args.out, library=lib_name, questions=args.questions, splits=names,
                            label=args.epoch, model=model, m=env_cfg.m, limit=args.limit,
                            rows=rows, repeats=args.repeats, seed=args.seed,
                            questions_hash=qhash, reader=args.reader, universe_hash=u.hash)
    if not args.quiet:
        for name in names:
            b = score_block([r for r in rows if r["split"] == name])
            print(f"{name:14s} n={b['n']:<4d} f1={fmt(b['f1'])}  em={fmt(b['em'])}  "
                  f"steps={fmt(b['mean_steps'], '.2f')}  unanswered={fmt(b['unanswered_rate'])}"
                  + _consistency_cell(args, rows, name))
        line = verdict_line(exam_verdict(rows), who="reader")
        if line:
            print(line)
    return 0


@contextlib.contextmanager
def exam_lock(out, exam_id, overwrite: bool = False):
    """The writer lock of ``test --out``: refuse a directory holding another exam (unless
    ``overwrite``: then what kbgym wrote there goes first), then hold its lock."""
    from kbgym.runs.compat import check_exam_out
    from kbgym.runs.lock import run_lock
    from kbgym.runs.outdir import clear

    if not out:
        yield
        return
    check_exam_out(out, exam_id, overwrite=overwrite)
    with run_lock(out):
        check_exam_out(out, exam_id, overwrite=overwrite, locked=True)
        if overwrite:
            clear(out)
        yield


def _consistency_cell(args, rows, split) -> str:
    if args.repeats < 2:
        return ""
    from kbgym.metrics.consistency import consistency, stated_consistency

    mine = [r for r in rows if r["split"] == split]
    cell = f"  jaccard={fmt(consistency(mine))}"
    if any(r.get("cited") for r in mine):  # the reader states citations (answer cites)
        j, defined, undefined = stated_consistency(mine)
        cell += f"  cited_jaccard={fmt(j)} (undefined {undefined}/{defined + undefined})"
    return cell


def _test_run_id(args, universe, library) -> str:
    """The run_id of an exam's rows: the training run's when --out is its directory, else
    one derived from what was examined, by whom and how."""
    from kbgym.library.snapshot import snapshot_hash
    from kbgym.runs.logs import run_id_of

    meta = Path(args.out or "") / "meta.json"
    if args.out and meta.exists():
        from kbgym.runs.train import read_meta

        return read_meta(meta)["run_id"]
    return run_id_of({"universe": universe.hash, "library": snapshot_hash(library),
                      "questions": args.questions, "split": args.split, "reader": args.reader,
                      "m": args.m, "limit": args.limit,
                      **({"repeats": args.repeats, "seed": args.seed} if args.repeats > 1 else {})})
