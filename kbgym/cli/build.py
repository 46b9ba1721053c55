"""``kbgym build``: generate a universe and write universe.json."""

from __future__ import annotations

from kbgym import bounds as B
from kbgym.cli import args as A


#: Flags that belong to one world only (argparse dest -> world).
PEOPLE_FLAGS = {"n_people": "--people", "distractor_frac": "--distractors",
                "friend_degree": "--friend-degree", "n_cities": "--cities",
                "hard_frac": "--hard-frac", "children_per_couple": "--children",
                "common_jobs": "--common-jobs", "common_job_share": "--common-job-share"}
POLICY_FLAGS = {"documents": "--documents", "sections": "--sections"}


def add_parser(subparsers) -> None:
    from kbgym.worlds.people.config import UniverseConfig as U
    from kbgym.worlds import WORLDS

    p = subparsers.add_parser("build", help="generate a universe and write universe.json")
    p.add_argument("--world", choices=WORLDS, default="people",
                   help="which universe family: people (default; docs/protocol.md §2) or "
                        "policies (insurance documents that amend and supersede each other, "
                        "docs/protocol.md §21)")
    p.add_argument("--config", help="YAML config file with a `universe` section (`policies` "
                                    "for --world policies)")
    p.add_argument("--seed", type=A.of(U, "seed"), help="master seed (default 0)")
    p.add_argument("--documents", type=A.int_range(20, 100_000),
                   help="policies: documents (default 100)")
    p.add_argument("--sections", type=A.int_range(2, 18),
                   help="policies: provisions per form (default 16)")
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
    """The generator config of ``args.world`` (default people): the config file's section,
    then the flags, then the split sizes."""
    from kbgym.cli.common import CLIError
    from kbgym.config import load_config
    from kbgym.worlds import family

    world = getattr(args, "world", "people")
    own, other = ((PEOPLE_FLAGS, POLICY_FLAGS) if world == "people"
                  else (POLICY_FLAGS, PEOPLE_FLAGS))
    for key, flag in other.items():
        if getattr(args, key, None) is not None:
            raise CLIError(f"{flag} applies to --world "
                           f"{'policies' if world == 'people' else 'people'} only")
    values = {}
    if args.config:
        cfg = load_config(args.config)
        section = cfg.universe if world == "people" else cfg.policies
        values = section.model_dump(exclude_unset=True) if world == "people" else dict(section)
    for key in ("seed", *own):
        if getattr(args, key, None) is not None:
            values[key] = getattr(args, key)
    fam = family(world)
    base = fam.config(values)
    if (world == "people" and getattr(args, "common_job_share", None) is not None
            and not base.common_jobs):
        raise CLIError("--common-job-share applies only with --common-jobs N (N above 0)")
    sizes, eval_sizes = list(base.sizes), list(base.eval_sizes)
    for i, key in enumerate(("train", "test_in", "test_out")):
        if getattr(args, key, None) is not None:
            sizes[i] = getattr(args, key)
    for i, key in enumerate(("eval_in", "eval_out")):
        if getattr(args, key, None) is not None:
            eval_sizes[i] = getattr(args, key)
    return fam.config({**values, "sizes": sizes, "eval_sizes": eval_sizes})


def cmd_build(args) -> int:
    from kbgym.cli.common import check_output_file
    from kbgym.worlds import family

    check_output_file(args.out, config=args.config)
    fam = family(getattr(args, "world", "people"))
    u = fam.generate(universe_config_from_args(args))
    u.write(args.out)  # a chunk at a time: a 10^6-person file is 2 GB of text
    if not args.quiet:
        print(fam.summarize(u))
        print(f"wrote {args.out}")
    return 0
