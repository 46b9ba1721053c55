"""``kbgym build``: generate a universe and write universe.json."""

from __future__ import annotations

from collections import Counter

from kbgym import bounds as B
from kbgym.cli import args as A


def add_parser(subparsers) -> None:
    from kbgym.universe.config import UniverseConfig as U

    p = subparsers.add_parser("build", help="generate a universe and write universe.json")
    p.add_argument("--config", help="YAML config file with a `universe` section")
    p.add_argument("--seed", type=A.of(U, "seed"), help="master seed (default 0)")
    p.add_argument("--people", type=A.of(U, "n_people"), dest="n_people",
                   help="people (default 500)")
    p.add_argument("--distractors", type=A.of(U, "distractor_frac"), dest="distractor_frac",
                   help="fraction of distractors (default 0.1)")
    p.add_argument("--friend-degree", type=A.of(U, "friend_degree"), dest="friend_degree",
                   help="mean friends per person (default 4)")
    p.add_argument("--cities", type=A.of(U, "n_cities"), dest="n_cities",
                   help="cities (default 20)")
    p.add_argument("--hard-frac", type=A.of(U, "hard_frac"), dest="hard_frac",
                   help="fraction of hard questions (default 0.6)")
    p.add_argument("--children", type=A.int_pair(0, B.MAX_CHILDREN), dest="children_per_couple",
                   metavar="LO-HI",
                   help="children per couple, drawn per couple (default: the fixed triples)")
    p.add_argument("--common-jobs", type=A.of(U, "common_jobs"), dest="common_jobs",
                   help="the first N of the 50 jobs are held by --common-job-share of people "
                        "(default 0)")
    p.add_argument("--common-job-share", type=A.of(U, "common_job_share"),
                   dest="common_job_share",
                   help="share of people holding the common jobs, with --common-jobs "
                        "(default 0.9)")
    for flag, default in (("train", 150), ("test-in", 100), ("test-out", 50), ("eval-in", 20),
                          ("eval-out", 10)):
        p.add_argument(f"--{flag}", type=A.SIZE, dest=flag.replace("-", "_"),
                       help=f"{flag} split size (default {default})")
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
    if getattr(args, "common_job_share", None) is not None and not base.common_jobs:
        from kbgym.cli.common import CLIError

        raise CLIError("--common-job-share applies only with --common-jobs N (N above 0)")
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

    from kbgym.cli.common import check_output_file

    check_output_file(args.out, config=args.config)
    u = generate(universe_config_from_args(args))
    atomic_write_text(args.out, u.dumps())
    if not args.quiet:
        print(summarize(u))
        print(f"wrote {args.out}")
    return 0
