"""``kbgym build``: generate a universe and write universe.json."""

from __future__ import annotations

from kbgym.cli import args as A


def add_parser(subparsers) -> None:
    from kbgym.worlds import default_world, generated, world

    p = subparsers.add_parser("build", help="generate a universe and write universe.json")
    names = generated()
    p.add_argument("--world", choices=names, default=default_world().name,
                   help="which world: " + "; ".join(f"{n} ({world(n).description})"
                                                    for n in names)
                        + f" (default {default_world().name})")
    p.add_argument("--config", help="YAML config file with the world's section ("
                                    + ", ".join(f"`{world(n).config_section}` for --world {n}"
                                                for n in names if world(n).config_section)
                                    + ")")
    p.add_argument("--seed", type=A.SEED, help="master seed (default 0)")
    for n in names:  # each world's own flags (World.add_arguments)
        world(n).add_arguments(p, A)
    for flag, default in (("train", 150), ("test-in", 100), ("test-out", 50), ("eval-in", 20),
                          ("eval-out", 10)):
        p.add_argument(f"--{flag}", type=A.SIZE, dest=flag.replace("-", "_"),
                       help=f"{flag} split size (default {default})")
    p.add_argument("--out", default="universe.json", help="output file (default universe.json)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace --out when it already exists (refused without it)")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(func=cmd_build)


def universe_config_from_args(args):
    """The generator config of ``args.world`` (default: the default world): the config file's
    section, then the flags, then the split sizes."""
    from kbgym.cli.common import CLIError
    from kbgym.worlds import default_world, world, worlds

    w = world(args.world) if getattr(args, "world", None) else default_world()
    for other in worlds().values():
        if other.name == w.name:
            continue
        for key, flag in other.build_flags.items():
            if getattr(args, key, None) is not None and key not in w.build_flags:
                raise CLIError(f"{flag} applies to --world {other.name} only")
    values = {}
    if args.config and w.config_section:
        from kbgym.config import load_config

        values = w.config_values(getattr(load_config(args.config), w.config_section))
    for key in ("seed", *w.build_flags):
        if getattr(args, key, None) is not None:
            values[key] = getattr(args, key)
    # BaseWorld.flags_config (not part of the World protocol: a world of its own may lack it)
    make = getattr(w, "flags_config", w.config)
    base = make(values)
    complaint = w.check_args(args, base)
    if complaint:
        raise CLIError(complaint)
    sizes, eval_sizes = list(base.sizes), list(base.eval_sizes)
    for i, key in enumerate(("train", "test_in", "test_out")):
        if getattr(args, key, None) is not None:
            sizes[i] = getattr(args, key)
    for i, key in enumerate(("eval_in", "eval_out")):
        if getattr(args, key, None) is not None:
            eval_sizes[i] = getattr(args, key)
    return make({**values, "sizes": tuple(sizes), "eval_sizes": tuple(eval_sizes)})


def cmd_build(args) -> int:
    from pathlib import Path

    from kbgym.cli.common import CLIError, check_output_file
    from kbgym.runs.outdir import refuse_link
    from kbgym.worlds import default_world, world

    check_output_file(args.out, config=args.config)
    refuse_link(args.out, "universe file")
    if Path(args.out).exists() and not args.overwrite:
        raise CLIError(f"--out {args.out}: already exists; pass --overwrite to replace it, "
                       "or choose another file")
    fam = world(args.world) if getattr(args, "world", None) else default_world()
    u = fam.generate(universe_config_from_args(args))
    u.write(args.out)  # a chunk at a time: a 10^6-person file is 2 GB of text
    if not args.quiet:
        print(fam.summarize(u))
        print(f"wrote {args.out}")
    return 0
