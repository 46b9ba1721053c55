"""``kbgym adapt ...``: build universes from other corpora (SPEC §17).

Wire it into the main parser with ``add_parser(subparsers)``:

    kbgym adapt phantomwiki --src OUT_DIR --out pw_universe.json [--seed N] [--report r.json]
    kbgym adapt phantomwiki-probe --universe pw_universe.json --run RUN_DIR --out probe.json

Each subcommand's ``func`` returns the exit status and raises
:class:`~kbgym.errors.ConfigError` (one line) for anything the user can fix.
"""

from __future__ import annotations

import argparse

from kbgym.bounds import PerGroup
from kbgym.cli.args import SEED, SIZE, of

from kbgym.errors import ConfigError


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``adapt`` subcommand to an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "adapt", help="build a universe from another corpus (PhantomWiki)",
        description="Turn another corpus's output files into a KBGym universe.")
    sub = p.add_subparsers(dest="adapt_command", required=True)

    pw = sub.add_parser(
        "phantomwiki", help="a phantom-wiki 1.0.3 output folder -> universe.json",
        description="Read articles.json and questions.json written by phantom-wiki 1.0.3 "
                    "(--article-format json --question-format json) and write a universe.")
    pw.add_argument("--src", required=True, help="the phantom-wiki --output-dir")
    pw.add_argument("--out", default="pw_universe.json",
                    help="output file (default pw_universe.json)")
    pw.add_argument("--seed", type=SEED, default=0,
                    help="master seed of the split draws and later runs (default 0)")
    for flag, default in (("train", 150), ("test-in", 100), ("test-out", 50), ("eval-in", 20),
                          ("eval-out", 10)):
        pw.add_argument(f"--{flag}", type=SIZE, default=default, dest=flag.replace("-", "_"),
                        help=f"split size (default {default})")
    pw.add_argument("--report", help="also write the adapter report as JSON here")
    pw.add_argument("--quiet", action="store_true", help="print nothing")
    pw.set_defaults(func=cmd_adapt_phantomwiki)

    pr = sub.add_parser(
        "phantomwiki-probe", help="the PW probe of a training run -> probe.json",
        description="Groups exact, share1 and share0 over one-key questions, with an equal "
                    "quota per template (docs/protocol.md §17).")
    pr.add_argument("--universe", required=True, help="a PhantomWiki universe.json")
    pr.add_argument("--run", required=True, help="a training run directory")
    pr.add_argument("--seed", type=SEED, help="default: the universe's seed")
    pr.add_argument("--per-template", type=of(PerGroup), dest="per_template",
                    help="cap each template's (stratum's) quota")
    pr.add_argument("--stratify", choices=("template", "category"), default="template",
                    help="equal quota per template (default) or per category (for generations "
                         "with many types and few questions each)")
    pr.add_argument("--out", default="probe.json", help="output file (default probe.json)")
    pr.add_argument("--quiet", action="store_true", help="print nothing")
    pr.set_defaults(func=cmd_adapt_pw_probe)
    return p


def cmd_adapt_phantomwiki(args) -> int:
    from kbgym.worlds.phantomwiki import adapt_phantomwiki, summarize
    from kbgym.jsonio import atomic_write_text, write_canonical

    from kbgym.cli.common import check_output_file

    check_output_file(args.out)
    check_output_file(args.report, "--report")
    u = adapt_phantomwiki(args.src, seed=args.seed,
                          sizes=(args.train, args.test_in, args.test_out),
                          eval_sizes=(args.eval_in, args.eval_out))
    atomic_write_text(args.out, u.dumps())
    if args.report:
        write_canonical(args.report, u.meta["adapter_report"])
    if not args.quiet:
        print(summarize(u))
        print(f"wrote {args.out}")
    return 0


def _load_universe(path: str):
    from kbgym.files import load_universe_file

    u = load_universe_file(path)
    if u.meta.get("source") != "phantomwiki":
        raise ConfigError(f"{path}: not a PhantomWiki universe - use `kbgym probe make` for "
                          "generated universes")
    return u


def cmd_adapt_pw_probe(args) -> int:
    from kbgym.worlds.phantomwiki import make_pw_probe_from_run
    from kbgym.jsonio import write_canonical

    from kbgym.cli.common import check_output_file

    check_output_file(args.out, universe=args.universe)
    u = _load_universe(args.universe)
    probe = make_pw_probe_from_run(u, args.run, seed=args.seed, per_template=args.per_template,
                                   stratify=args.stratify)
    write_canonical(args.out, probe)
    if not args.quiet:
        print(", ".join(f"{g} {len(v)}" for g, v in probe["splits"].items())
              + f" -> {args.out}")
    return 0
