"""The ``kbgym`` command line (SPEC §16.4).

Each subcommand is a small function over the library modules; errors the user can fix are
printed as one line and exit with status 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from kbgym.errors import ConfigError, KBGymError


class CLIError(KBGymError):
    """A bad flag value or input file; printed as one line."""


def _add_build(sub) -> None:
    p = sub.add_parser("build", help="generate a universe and write universe.json")
    p.add_argument("--config", help="YAML config file with a `universe` section")
    p.add_argument("--seed", type=int)
    p.add_argument("--people", type=int, dest="n_people")
    p.add_argument("--distractors", type=float, dest="distractor_frac",
                   help="fraction of distractors (0-1)")
    p.add_argument("--friend-degree", type=float, dest="friend_degree")
    p.add_argument("--cities", type=int, dest="n_cities")
    p.add_argument("--hard-frac", type=float, dest="hard_frac")
    for flag in ("train", "test-in", "test-out", "eval-in", "eval-out"):
        p.add_argument(f"--{flag}", type=int, dest=flag.replace("-", "_"))
    p.add_argument("--out", default="universe.json", help="output file (default universe.json)")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_build)


def universe_config_from_args(args) -> "UniverseConfig":
    from kbgym.config import load_config
    from kbgym.universe import UniverseConfig

    values = dict(load_config(args.config).universe) if args.config else {}
    for key in ("seed", "n_people", "distractor_frac", "friend_degree", "n_cities", "hard_frac"):
        if getattr(args, key, None) is not None:
            values[key] = getattr(args, key)
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
    return "\n".join(lines)


def cmd_build(args) -> int:
    from kbgym.jsonio import atomic_write_text
    from kbgym.universe import generate

    u = generate(universe_config_from_args(args))
    atomic_write_text(args.out, u.dumps())
    if not args.quiet:
        print(summarize(u))
        print(f"wrote {args.out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kbgym", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    _add_build(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ConfigError, CLIError, KBGymError) as err:
        print(f"kbgym {args.command}: error: {err}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as err:
        print(f"kbgym {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
