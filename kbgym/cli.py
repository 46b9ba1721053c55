"""The ``kbgym`` command line (SPEC §16.4).

Each subcommand is a small function over the library modules; errors the user can fix are
printed as one line and exit with status 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from kbgym import cliargs as A
from kbgym.errors import ConfigError, KBGymError

UNIVERSE_HELP = "universe.json (default: the default universe)"
AGENT_HELP = ("training agent: a plugin name (see README) or module:factory, imported from "
              "the current directory")


class CLIError(KBGymError):
    """A bad flag value or input file; printed as one line."""


def _add_build(sub) -> None:
    p = sub.add_parser("build", help="generate a universe and write universe.json")
    p.add_argument("--config", help="YAML config file with a `universe` section")
    p.add_argument("--seed", type=A.SEED, help="master seed (default 0)")
    p.add_argument("--people", type=A.int_range(6, 100_000), dest="n_people",
                   help="people, 6-100000 (default 500)")
    p.add_argument("--distractors", type=A.FRACTION, dest="distractor_frac",
                   help="fraction of distractors, 0-1 (default 0.1)")
    p.add_argument("--friend-degree", type=A.float_range(0, 100), dest="friend_degree",
                   help="mean friends per person, 0-100 (default 4)")
    p.add_argument("--cities", type=A.int_range(1, 10_000), dest="n_cities",
                   help="cities, 1-10000 (default 20)")
    p.add_argument("--hard-frac", type=A.FRACTION, dest="hard_frac",
                   help="fraction of hard questions, 0-1 (default 0.6)")
    p.add_argument("--children", type=A.int_pair(0, 20), dest="children_per_couple",
                   metavar="LO-HI",
                   help="children per couple, drawn per couple, each 0-20 "
                        "(default: the fixed triples)")
    p.add_argument("--common-jobs", type=A.int_range(0, 50), dest="common_jobs",
                   help="the first N of the 50 jobs are held by --common-job-share of people, "
                        "0-50 (default 0)")
    p.add_argument("--common-job-share", type=A.FRACTION, dest="common_job_share",
                   help="share of people holding the common jobs, 0-1 (default 0.9)")
    for flag, default in (("train", 150), ("test-in", 100), ("test-out", 50), ("eval-in", 20),
                          ("eval-out", 10)):
        p.add_argument(f"--{flag}", type=A.SIZE, dest=flag.replace("-", "_"),
                       help=f"{flag} split size, 0-1000000 (default {default})")
    p.add_argument("--out", default="universe.json", help="output file (default universe.json)")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(func=cmd_build)


def universe_config_from_args(args):
    from kbgym.config import load_config
    from kbgym.universe import UniverseConfig

    values = dict(load_config(args.config).universe) if args.config else {}
    for key in ("seed", "n_people", "distractor_frac", "friend_degree", "n_cities", "hard_frac",
                "common_jobs", "common_job_share"):
        if getattr(args, key, None) is not None:
            values[key] = getattr(args, key)
    if getattr(args, "children_per_couple", None) is not None:
        values["children_per_couple"] = args.children_per_couple  # (LO, HI), checked by argparse
    base = UniverseConfig.make(**values)
    sizes = list(base.sizes)
    eval_sizes = list(base.eval_sizes)
    for i, key in enumerate(("train", "test_in", "test_out")):
        if getattr(args, key, None) is not None:
            sizes[i] = getattr(args, key)
    for i, key in enumerate(("eval_in", "eval_out")):
        if getattr(args, key, None) is not None:
            eval_sizes[i] = getattr(args, key)
    return UniverseConfig.make(**{**values, "sizes": sizes, "eval_sizes": eval_sizes})


def summarize(u) -> str:
    from kbgym.universe.templates import TEMPLATES

    n_real = sum(not p.distractor for p in u.people)
    lines = [
        f"universe  seed={u.meta['seed']}  people={n_real} (+{len(u.people) - n_real} "
        f"distractors)  nodes={len(u.nodes)}  questions={len(u.questions)}  "
        f"birthdates={u.meta['birthdate_mode']}",
        f"hash      {u.hash}",
    ]
    split_names = list(u.splits)
    by = Counter((u.question(qid).template, s) for s in split_names for qid in u.splits[s])
    head = f"{'template':26s}" + "".join(f"{s:>9s}" for s in split_names)
    lines += ["", head]
    for t in TEMPLATES:
        mark = " R" if t.reserved else ""
        lines.append(f"{t.name + mark:26s}" + "".join(f"{by[(t.name, s)]:9d}" for s in split_names))
    lines.append(f"{'total':26s}" + "".join(f"{len(u.splits[s]):9d}" for s in split_names))
    short = {k: v for k, v in u.meta["split_shortfall"].items() if v}
    lines.append("shortfall " + (", ".join(f"{k}={v}" for k, v in short.items()) or "none"))
    lines += guess_lines(u)
    return "\n".join(lines)


def guess_lines(u) -> list[str]:
    """Templates a prior answers without reading (top canonical gold over 50 % of their
    questions; QC5's "unknown" always is) and templates with no questions."""
    from kbgym.universe.guess import GUESSABLE_SHARE, answer_shares, guessable

    shares = answer_shares(u)
    flagged = [f"{t} {share:.0%} ({shares[t]['answer']!r})"
               for t, share in guessable(u).items() if not t.startswith("qc5_")]
    empty = [t for t, r in shares.items() if not r["n"]]
    return [f"guessable (top answer > {GUESSABLE_SHARE:.0%} of a template's questions; QC5's "
            f"'unknown' aside): {', '.join(flagged) or 'none'}",
            f"no questions: {', '.join(empty) or 'none'}"]


def cmd_build(args) -> int:
    from kbgym.jsonio import atomic_write_text
    from kbgym.universe import generate

    u = generate(universe_config_from_args(args))
    atomic_write_text(args.out, u.dumps())
    if not args.quiet:
        print(summarize(u))
        print(f"wrote {args.out}")
    return 0


def _universe(path: str | None):
    from kbgym.env.env import load_universe

    return load_universe(path)  # one-line ConfigError for a missing or malformed file


def _library(spec: str | None, universe, typed_links: bool = False):
    """B1 (None, 'B1' or a universe file) or a snapshot file (one built on the universe
    ``universe`` drifted from is carried over onto it)."""
    from kbgym.library.graph import Library
    from kbgym.library.snapshot import load_snapshot

    if spec in (None, "B1", "b1"):
        return Library.from_universe(universe), "B1"
    if not Path(spec).exists():
        raise CLIError(f"no such library file: {spec}")
    from kbgym.files import check_library_universe

    lib, header = load_snapshot(spec)
    uhash = (header.get("universe") or {}).get("hash") if isinstance(header, dict) else None
    parent = (universe.meta.get("drift") or {}).get("parent_hash")
    if uhash is not None and uhash != universe.hash and uhash == parent:
        from kbgym.runs.drift import library_for  # built on the universe this one drifted from

        lib = library_for(lib, uhash, universe, typed_links)
    else:
        check_library_universe(lib, header, universe, spec)
    return lib, spec


def _progress(quiet: bool, label: str):
    if quiet or not sys.stderr.isatty():
        return None

    def show(i, n, row):
        sys.stderr.write(f"\r{label} {i}/{n}")
        if i == n:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def _env_config(args):
    from kbgym.env.config import KBGymConfig

    values = {}
    for key in ("n1", "n2", "m", "refresh", "dedup_threshold", "train_size"):
        if getattr(args, key, None) is not None:
            values[key] = getattr(args, key)
    return KBGymConfig.make(**values)


def _judge(args):
    if not getattr(args, "dedup", False):
        return None, None
    if not args.judge_model:
        raise CLIError("--dedup needs --judge-model (the LLM judge of SPEC §6.3)")
    from kbgym.plugins import make_agent

    judge = make_agent("openai-judge", model=args.judge_model, base_url=args.base_url,
                       api_key_env=args.api_key_env)
    return judge, getattr(judge, "meta_view", None) or {"judge_model": args.judge_model}


def _agent_options(args) -> dict:
    opts = {}
    for key in ("model", "base_url", "api_key_env"):
        if getattr(args, key, None):
            opts[key] = getattr(args, key)
    return opts


def _add_endpoint_flags(p) -> None:
    p.add_argument("--model", help="model name for LLM agents")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY",
                   help="name of the environment variable holding the API key")


def cmd_train(args) -> int:
    from kbgym.plugins import make_agent
    from kbgym.runs.train import TrainConfig, train

    u, upath = _universe(args.universe)
    env_cfg = _env_config(args)
    cfg = TrainConfig.make(**{k: v for k, v in {
        "epochs": args.epochs, "train_size": args.train_size, "seed": args.seed,
        "snapshot_every": args.snapshot_every, "eval_each_epoch": args.eval_each_epoch,
    }.items() if v is not None})
    agent = make_agent(args.agent, **_agent_options(args))
    reader = make_agent(args.reader, **_agent_options(args)) if args.eval_each_epoch else None
    # the run id names the curator and its options; where it is served is not part of it
    identity = {k: v for k, v in _agent_options(args).items()
                if k not in ("base_url", "api_key_env")}
    judge, judge_meta = _judge(args)
    start = None
    if getattr(args, "resume_from_library", None):
        start, _ = _library(args.resume_from_library, u, typed_links=env_cfg.typed_links)
    meta = train(u, agent, args.out, env_config=env_cfg, config=cfg, universe_path=upath,
                 judge=judge, judge_meta=judge_meta, reader=reader, resume=args.resume,
                 progress=_progress(args.quiet, "train"),
                 agent_spec={"name": args.agent, "options": identity}, start_library=start)
    if not args.quiet:
        print(f"run {meta['run_id']} -> {args.out}")
    return 0


def cmd_test(args) -> int:
    from kbgym.plugins import make_agent
    from kbgym.runs.concurrent import examine_concurrent
    from kbgym.runs.exam import load_questions, write_test_meta
    from kbgym.scoring import score_block

    u, _ = _universe(args.universe)
    if args.out and (Path(args.out) / "meta.json").exists():  # appending into a training run
        from kbgym.files import read_run_meta

        run_hash = read_run_meta(args.out)["universe"]["hash"]
        if run_hash != u.hash:
            raise CLIError(f"--out {args.out} is a run on universe {run_hash}, not {u.hash}; "
                           "pass its --universe")
    lib, lib_name = _library(args.library, u)
    questions, splits = load_questions(u, args.questions)
    names = [s.strip() for s in args.split.split(",") if s.strip()]
    for name in names:
        if name not in splits:
            raise CLIError(f"unknown split: {name}")
    if args.reader == "prior":  # the prior arm: top training answer per template, one step
        from kbgym.runs.prior import PriorReader

        reader = PriorReader.for_questions(u, questions)
    else:
        reader = make_agent(args.reader, **_agent_options(args))
    env_cfg = _env_config(args)
    model = (getattr(reader, "meta", None) or {}).get("model", args.reader)
    exam_id = {"library": lib_name, "questions": args.questions, "m": env_cfg.m, "model": model,
               "epoch": args.epoch}
    with _exam_lock(args.out, exam_id):
        run_id = _test_run_id(args, u, lib)
        rows = examine_concurrent(u, lib, reader, env_cfg, split=names, questions=questions,
                                  splits=splits, label=args.epoch, limit=args.limit,
                                  out=args.out, run_id=run_id,
                                  max_concurrent=args.max_concurrent,
                                  repeats=args.repeats, seed=args.seed)
        if args.out:
            from kbgym.jsonio import sha256_hex

            qhash = ("sha256:" + sha256_hex(Path(args.questions).read_bytes())
                     if args.questions else None)
            write_test_meta(args.out, library=lib_name, questions=args.questions, splits=names,
                            label=args.epoch, model=model, m=env_cfg.m, limit=args.limit,
                            rows=rows, repeats=args.repeats, seed=args.seed,
                            questions_hash=qhash, reader=args.reader, universe_hash=u.hash)
    if not args.quiet:
        for name in names:
            b = score_block([r for r in rows if r["split"] == name])
            print(f"{name:14s} n={b['n']:<4d} f1={_f(b['f1'])}  em={_f(b['em'])}  "
                  f"steps={_f(b['mean_steps'], '.2f')}  unanswered={_f(b['unanswered_rate'])}"
                  + _consistency_cell(args, rows, name))
    return 0


def _exam_lock(out, exam_id):
    """The writer lock of ``test --out`` (refusing a directory holding another exam)."""
    import contextlib

    from kbgym.runs.compat import check_exam_out
    from kbgym.runs.lock import run_lock

    if not out:
        return contextlib.nullcontext()
    check_exam_out(out, exam_id)
    return run_lock(out)


def _consistency_cell(args, rows, split) -> str:
    if args.repeats < 2:
        return ""
    from kbgym.metrics.consistency import consistency

    return f"  jaccard={_f(consistency(r for r in rows if r['split'] == split))}"


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


def _f(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


def cmd_probe(args) -> int:
    import json

    from kbgym.jsonio import write_canonical
    from kbgym.runs.logs import read_jsonl
    from kbgym.runs.compat import check_probe_arms
    from kbgym.runs.probe import format_table, make_probe_from_run, probe_table

    if args.probe_command == "make":
        from kbgym.runs.replay import load_run_universe

        # the run's own universe file by default; a given one must have the run's hash
        u = load_run_universe(Path(args.run), args.universe)
        if u.meta.get("source") == "phantomwiki":  # §17: the PW probe (exact/share1/share0)
            from kbgym.adapters.phantomwiki.probe import make_pw_probe_from_run

            probe = make_pw_probe_from_run(u, args.run)
        elif u.meta.get("source") == "corpus":  # an imported corpus: by shared entities
            from kbgym.adapters.corpus import make_corpus_probe_from_run

            probe = make_corpus_probe_from_run(u, args.run, per_group=args.per_group,
                                               seed=args.seed)
        else:
            probe = make_probe_from_run(u, args.run, per_group=args.per_group, seed=args.seed)
        write_canonical(args.out, probe)
        if not args.quiet:
            print(", ".join(f"{g} {len(v)}" for g, v in probe["splits"].items()) +
                  f" -> {args.out}")
        return 0
    check_probe_arms(args.probe, args.arm, args.base)  # same probe, reader and budget
    if args.prices:  # a bad price table stops before anything is printed
        from kbgym.metrics.costs import PriceTable

        args.prices = PriceTable.load(args.prices)
    probe = json.loads(Path(args.probe).read_text(encoding="utf-8"))
    arms = {}
    for spec in args.arm:
        name, _, path = spec.partition("=")
        if not path:
            raise CLIError(f"--arm takes NAME=DIR (a test output directory), got {spec!r}")
        arms[name] = read_jsonl(Path(path) / "test_log.jsonl")
    table = probe_table(arms, probe, base=args.base, resamples=args.resamples, delta=args.delta)
    if args.out:
        write_canonical(args.out, table)
    print(format_table(table))
    for subset in ("exhausted", "rest"):
        print(f"\n-- questions where {args.base} {'exhausted its budget' if subset == 'exhausted' else 'answered in budget'}")
        print(format_table(table, subset))
    if args.prices:
        _print_arm_costs(args, arms)
    return 0


def _print_arm_costs(args, arms: dict) -> None:
    """Tokens, cached share and USD per correct answer of each arm (``--prices``); an arm's
    model is the one its test_meta.json names."""
    import json

    from kbgym.metrics.costs import PriceTable, exam_costs, format_costs

    table = PriceTable.load(args.prices)
    costs = {}
    for spec in args.arm:
        name, _, path = spec.partition("=")
        meta = Path(path) / "test_meta.json"
        model = json.loads(meta.read_text(encoding="utf-8")).get("model") \
            if meta.exists() else None
        costs[name] = exam_costs(arms[name], model, table)
    print("\n-- tokens and USD per correct answer (EM), with and without the cache discount")
    print(format_costs(costs))


def cmd_replay(args) -> int:
    from kbgym.library.snapshot import load_snapshot, snapshot_hash, write_snapshot
    from kbgym.runs.logs import rewrite_jsonl
    from kbgym.runs.replay import (first_difference, rebuild_series, replay_run,
                                   verify_all_epochs)

    run = args.run or (args.all_epochs if isinstance(args.all_epochs, str) else None)
    if run is None:
        raise CLIError("give the run directory: --run DIR (or --all-epochs DIR)")
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


def cmd_report(args) -> int:
    from kbgym.runs.report import write_report

    try:
        write_report(args.run, args.universe, args.probe_table, args.prices)
    except (KeyError, TypeError, IndexError, AttributeError) as err:
        raise CLIError(f"{args.run}: malformed run logs ({type(err).__name__}: {err})") from None
    print((Path(args.run) / "report.md").read_text(encoding="utf-8"))
    return 0


def cmd_plot(args) -> int:
    from kbgym.files import read_run_meta
    from kbgym.runs.plots import plot_run

    read_run_meta(args.run)  # a run directory, not a typo that would be created
    for path in plot_run(args.run, args.out, args.probe_table):
        print(path)
    return 0


def cmd_check(args) -> int:
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    import kbgym

    for mode in ("train", "probe"):
        env = gym.make(kbgym.ENV_ID, mode=mode)
        check_env(env.unwrapped)
        env.close()
        print(f"check_env {mode}: ok")
    return 0


def cmd_demo(args) -> int:
    from kbgym.runs.demo import run_demo

    run_demo(args.out, seed=args.seed, train_size=args.train_size, epochs=args.epochs,
             per_group=args.per_group, plots=not args.no_plots,
             say=(lambda *a: None) if args.quiet else print)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = A.OneLineParser(prog="kbgym", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    _add_build(sub)

    p = sub.add_parser("train", help="train a curator on the train split")
    p.add_argument("--universe", help="universe.json (default: the default universe)")
    p.add_argument("--agent", default="scripted-index", help=AGENT_HELP)
    p.add_argument("--reader", default="scripted-reader",
                   help="reader for --eval-each-epoch (plugin name or module:factory)")
    p.add_argument("--epochs", type=A.int_range(1, 1000), help="epochs, 1-1000 (default 2)")
    p.add_argument("--train-size", type=A.COUNT, dest="train_size",
                   help="train on train[:N] (default: the whole train split)")
    p.add_argument("--seed", type=A.SEED, help="order seed (default: the universe's seed)")
    for flag, what, default in (("n1", "forward", 15), ("n2", "backward", 30),
                                ("m", "exam", 15)):
        p.add_argument(f"--{flag}", type=A.BUDGET,
                       help=f"{what} budget in steps, 1-10000 (default {default})")
    p.add_argument("--eval-each-epoch", action="store_true", default=None,
                   help="examine the eval split with --reader after every epoch")
    p.add_argument("--snapshot-every", type=A.COUNT, dest="snapshot_every",
                   help="write kb_iter_NNNN.json every N iterations (default 20)")
    p.add_argument("--dedup", action=argparse.BooleanOptionalAction, default=False,
                   help="merge near-duplicate notes with an LLM judge (needs --judge-model)")
    p.add_argument("--dedup-threshold", type=A.FRACTION, dest="dedup_threshold",
                   help="similarity above which the judge is asked, 0-1 (default 0.9)")
    p.add_argument("--judge-model", help="model of the dedup judge")
    p.add_argument("--refresh", choices=["immediate", "iteration"],
                   help="when search sees edits (default iteration)")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run in --out (same curator and config)")
    p.add_argument("--resume-from-library", dest="resume_from_library", metavar="SNAPSHOT",
                   help="start from this trained library (e.g. one trained on the universe "
                        "--universe drifted from) instead of B1")
    p.add_argument("--out", required=True, help="run directory")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    _add_endpoint_flags(p)
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("test", help="examine a frozen library with the fixed reader")
    p.add_argument("--universe", help=UNIVERSE_HELP)
    p.add_argument("--library", help="snapshot file, or B1 (default)")
    p.add_argument("--questions", help="a probe.json (default: the universe's splits)")
    p.add_argument("--split", default="test_in", help="comma-separated split names")
    p.add_argument("--reader", default="scripted-reader",
                   help="the exam reader (plugin name or module:factory), or 'prior': each "
                        "template's most frequent training answer in one step, reading nothing")
    p.add_argument("--m", type=A.BUDGET, help="exam budget in steps, 1-10000 (default 15)")
    p.add_argument("--limit", type=A.COUNT, help="only the first N questions of each split")
    p.add_argument("--epoch", default=None, help="label written into test_log rows")
    p.add_argument("--max-concurrent", type=A.int_range(1, 1024), default=32,
                   dest="max_concurrent",
                   help="questions in flight at once for async (LLM) readers, 1-1024")
    p.add_argument("--repeats", type=A.int_range(1, 100), default=1,
                   help="examine each question R times (citation consistency), 1-100 "
                        "(default 1)")
    p.add_argument("--seed", type=A.SEED, default=0,
                   help="master seed of the per-repeat reader seeds (with --repeats; default 0)")
    p.add_argument("--out", help="write test_log.jsonl, trace.jsonl and test_meta.json here "
                                 "(an empty directory, or a training run's)")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    _add_endpoint_flags(p)
    p.set_defaults(func=cmd_test)

    p = sub.add_parser("probe", help="the key-coverage gradient probe")
    psub = p.add_subparsers(dest="probe_command", required=True)
    pm = psub.add_parser("make", help="make probe.json from a training run")
    pm.add_argument("--run", required=True, help="the training run directory")
    pm.add_argument("--universe", help="the run's universe.json (required when the run was "
                                       "trained on a file)")
    pm.add_argument("--per-group", type=A.int_range(1, 10_000), default=30,
                    help="questions per group, 1-10000 (default 30)")
    pm.add_argument("--seed", type=A.SEED, help="sampling seed (default: the universe's)")
    pm.add_argument("--out", default="probe.json", help="output file (default probe.json)")
    pm.add_argument("--quiet", action="store_true", help="print nothing")
    pt = psub.add_parser("table", help="rho per group with paired bootstrap CIs")
    pt.add_argument("--probe", required=True, help="the probe.json every arm was examined on")
    pt.add_argument("--arm", action="append", required=True, help="NAME=TEST_DIR (repeat)")
    pt.add_argument("--base", default="B1", help="the arm the others are compared with")
    pt.add_argument("--resamples", type=A.int_range(1, 100_000), default=20000,
                    help="bootstrap resamples, 1-100000 (default 20000)")
    pt.add_argument("--delta", type=A.FRACTION, default=0.0,
                    help="formula (1): an arm loses its star when the CI of F1(arm) - F1(base) "
                         "lies entirely below -delta, 0-1 (default 0)")
    pt.add_argument("--out", help="also write the table as JSON here")
    pt.add_argument("--prices", help="price table (JSON): adds USD per correct answer per arm")
    p.set_defaults(func=cmd_probe)

    from kbgym.adapters.cli import add_parser as add_adapt
    from kbgym.baselines.cli import add_parser as add_baseline

    add_baseline(sub)
    add_adapt(sub)

    from kbgym.sweep.cli import add_parser as add_sweep

    add_sweep(sub)

    from kbgym.adapters.corpus.cli import add_parser as add_import

    add_import(sub)

    from kbgym.runs.drift_cli import add_parser as add_drift

    add_drift(sub)

    p = sub.add_parser("replay", help="rebuild a library from a run's trace")
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

    p = sub.add_parser("report", help="report.md and report.json for a run")
    p.add_argument("--run", required=True, help="the training run directory")
    p.add_argument("--universe", help=UNIVERSE_HELP)
    p.add_argument("--probe-table",
                   help="a probe_table.json to include (default: the run's own, if any)")
    p.add_argument("--prices", help="price table (JSON): adds USD with and without the cache "
                   "discount")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("plot", help="PNG curves from a run directory")
    p.add_argument("--run", required=True, help="the training run directory")
    p.add_argument("--out", help="folder for the PNG files (default: the run directory)")
    p.add_argument("--probe-table", help="a probe_table.json to plot (default: the run's own)")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("check", help="Gymnasium conformance checks of the environment")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("demo", help="the main job: train, probe, tables and plots, no LLM")
    p.add_argument("--out", default="runs/demo", help="output folder (default runs/demo)")
    p.add_argument("--seed", type=A.SEED, default=0, help="universe seed (default 0)")
    p.add_argument("--train-size", type=A.COUNT, default=100,
                   help="train questions (default 100)")
    p.add_argument("--epochs", type=A.int_range(1, 1000), default=2,
                   help="epochs, 1-1000 (default 2)")
    p.add_argument("--per-group", type=A.int_range(1, 10_000), default=30,
                   help="probe questions per group (default 30)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("serve", help="serve KBGym over OpenEnv (needs the openenv extra)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1, this machine only)")
    p.add_argument("--port", type=A.int_range(1, 65535), default=8000,
                   help="TCP port, 1-65535 (default 8000)")
    p.add_argument("--universe", help=UNIVERSE_HELP)
    p.add_argument("--reward", choices=("answer", "curation", "both"), default="answer",
                   help="the reward: the forward answer's F1, the curation reward of the "
                        "backward phase, or both (default answer)")
    p.add_argument("--reward-k", type=A.int_range(0, 10_000), default=16,
                   help="other training questions in the curation reward's pool, 0-10000 "
                        "(default 16)")
    p.add_argument("--max-sessions", type=A.int_range(1, 1024), default=8,
                   help="concurrent WebSocket sessions, 1-1024 (default 8)")
    p.set_defaults(func=cmd_serve)
    return parser


def cmd_serve(args) -> int:
    from kbgym.serve import serve  # a one-line ConfigError without the openenv extra

    serve(args.host, args.port, args.universe,
          {"reward": args.reward, "reward_k": args.reward_k}, args.max_sessions)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ConfigError, CLIError, KBGymError) as err:
        print(f"kbgym {args.command}: error: {err}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as err:
        print(f"kbgym {args.command}: error: {str(err).splitlines()[0] if str(err) else err!r}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"kbgym {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # no traceback for users; KBGYM_DEBUG=1 shows it
        return A.internal_error(args.command, err)


if __name__ == "__main__":
    sys.exit(main())
