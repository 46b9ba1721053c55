"""``kbgym probe make`` and ``kbgym probe table``: the key-coverage gradient probe (SPEC §13)."""

from __future__ import annotations

from pathlib import Path

from kbgym.cli import args as A
from kbgym.cli.common import CLIError


def add_parser(subparsers) -> None:
    from kbgym.runs.probe import ProbeSettings

    p = subparsers.add_parser("probe", help="the key-coverage gradient probe")
    psub = p.add_subparsers(dest="probe_command", required=True)
    pm = psub.add_parser("make", help="make probe.json from a training run")
    pm.add_argument("--run", required=True, help="the training run directory")
    pm.add_argument("--universe", help="the run's universe.json (required when the run was "
                                       "trained on a file)")
    pm.add_argument("--per-group", type=A.of(ProbeSettings, "per_group"),
                    help="questions per group (default 30)")
    pm.add_argument("--seed", type=A.SEED, help="sampling seed (default: the universe's)")
    pm.add_argument("--out", default="probe.json", help="output file (default probe.json)")
    pm.add_argument("--quiet", action="store_true", help="print nothing")
    pt = psub.add_parser("table", help="rho per group with paired bootstrap CIs")
    pt.add_argument("--probe", required=True, help="the probe.json every arm was examined on")
    pt.add_argument("--arm", action="append", required=True, help="NAME=TEST_DIR (repeat)")
    pt.add_argument("--base", default="B1", help="the arm the others are compared with")
    pt.add_argument("--resamples", type=A.of(ProbeSettings, "resamples"),
                    default=ProbeSettings().resamples,
                    help=f"bootstrap resamples (default {ProbeSettings().resamples})")
    pt.add_argument("--delta", type=A.of(ProbeSettings, "delta"), default=0.0,
                    help="formula (1): an arm loses its star when the CI of F1(arm) - F1(base) "
                         "lies entirely below -delta (default 0)")
    pt.add_argument("--out", help="also write the table as JSON here")
    pt.add_argument("--prices", help="price table (JSON): adds USD per correct answer per arm")
    p.set_defaults(func=cmd_probe)


def cmd_probe(args) -> int:
    import json

    from kbgym.jsonio import write_canonical
    from kbgym.runs.logs import read_jsonl
    from kbgym.runs.compat import check_probe_arms
    from kbgym.runs.probe import (
        ProbeSettings,
        format_table,
        legend,
        make_probe_from_run,
        probe_table,
    )
    from kbgym.worlds import world_of

    if args.probe_command == "make":
        from kbgym.cli.common import check_output_file
        from kbgym.runs.replay import load_run_universe

        check_output_file(args.out, universe=args.universe)

        # the run's own universe file by default; a given one must have the run's hash
        u = load_run_universe(Path(args.run), args.universe)
        per_group = args.per_group or ProbeSettings().per_group
        fam = world_of(u)
        if fam.probe_options_error and (args.per_group is not None or args.seed is not None):
            raise CLIError(fam.probe_options_error)
        probe = make_probe_from_run(u, args.run, per_group=per_group, seed=args.seed)
        write_canonical(args.out, probe)
        if not args.quiet:
            print(", ".join(f"{g} {len(v)}" for g, v in probe["splits"].items()) +
                  f" -> {args.out}")
        return 0
    from kbgym.cli.common import check_output_file

    check_output_file(args.out, probe=args.probe, prices=args.prices)
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
    table = probe_table(arms, probe, base=args.base, resamples=args.resamples, delta=args.delta,
                        m=_arm_budget(args.arm))
    if args.out:
        write_canonical(args.out, table)
    print(format_table(table))
    for line in legend(table):
        print(line)
    for subset in ("exhausted", "rest"):
        print(f"\n-- questions where {args.base} {'exhausted its budget' if subset == 'exhausted' else 'answered in budget'}")
        print(format_table(table, subset))
    if args.prices:
        _print_arm_costs(args, arms)
    return 0


def _arm_budget(specs) -> int | None:
    """The exam budget the (checked, comparable) reading arms were examined at."""
    import json

    for spec in specs:
        meta = Path(spec.partition("=")[2]) / "test_meta.json"
        data = json.loads(meta.read_text(encoding="utf-8"))
        if "prior" not in (data.get("reader"), data.get("model")):
            return data.get("m")
    return None


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
