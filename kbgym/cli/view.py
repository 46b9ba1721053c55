"""``kbgym view``: one self-contained HTML page of a run (or one snapshot) to open from disk."""

from __future__ import annotations

from pathlib import Path

from kbgym.cli import args as A
from kbgym.cli.common import CLIError


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "view", help="a self-contained web page of a run's library, growth, episodes and probe")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--run", help="a training run directory")
    what.add_argument("--library", help="one snapshot (kb_epoch_*.json, a baseline's output)")
    p.add_argument("--out", required=True, help="the HTML file to write")
    p.add_argument("--universe", help="universe.json (default: the one the run or snapshot "
                   "records, else the default universe)")
    p.add_argument("--probe-table",
                   help="a probe_table.json (default: the run's own, if any); its exam_* "
                   "folders beside it are shown as episodes")
    p.add_argument("--exam", action="append", metavar="LABEL=DIR",
                   help="an exam folder (kbgym test --out) to show as episodes; repeat. "
                   "Default: exam_* folders beside the probe table or the run")
    p.add_argument("--probe", help="the probe.json the exams were examined on (question texts; "
                   "default: the exam's test_meta.json, or probe.json beside the probe table)")
    p.add_argument("--max-episodes", type=A.int_range(1, 100_000), default=1500,
                   help="transcripts on the page, 1-100000 (default 1500; more are sampled "
                   "evenly)")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(func=cmd_view)


def _exams(specs: list[str] | None) -> list[tuple[str, str]] | None:
    if not specs:
        return None
    out = []
    for spec in specs:
        label, _, path = spec.partition("=")
        if not label or not path:
            raise CLIError(f"--exam takes LABEL=DIR (a kbgym test --out folder), got {spec!r}")
        if not (Path(path) / "test_log.jsonl").is_file():
            raise CLIError(f"--exam {spec}: no test_log.jsonl in {path}")
        out.append((label, path))
    return out


def cmd_view(args) -> int:
    from dataclasses import replace

    from kbgym.view import LIMITS, SIZE_BOUND, library_view, run_view, write_page

    from kbgym.cli.common import check_output_file

    out = Path(args.out)
    if out.is_dir():
        raise CLIError(f"--out {out}: is a directory, expected an .html file")
    check_output_file(args.out, universe=args.universe, library=args.library,
                      probe=args.probe, probe_table=args.probe_table)
    if args.probe and not Path(args.probe).is_file():
        raise CLIError(f"--probe: no such file: {args.probe}")
    limits = replace(LIMITS, max_episodes=args.max_episodes)
    try:
        if args.run:
            data = run_view(args.run, universe=args.universe, probe_table=args.probe_table,
                            exams=_exams(args.exam), probe=args.probe, limits=limits)
        else:
            if args.exam:
                raise CLIError("--exam needs --run (a snapshot has no episodes)")
            data = library_view(args.library, universe=args.universe,
                                probe_table=args.probe_table, limits=limits)
    except (KeyError, TypeError, IndexError, AttributeError) as err:
        raise CLIError(f"{args.run or args.library}: malformed run logs "
                       f"({type(err).__name__}: {err})") from None
    size = write_page(data, out)
    if not args.quiet:
        ep = data.get("episodes") or {}
        shown = sum(s["shown"] for s in ep.get("sources", []))
        total = sum(s["total"] for s in ep.get("sources", []))
        lib = data["library"]
        print(f"view: {out} ({size / 1e6:.1f} MB; {lib['n_embedded']} notes"
              + (f", {shown} of {total} episodes" if total else "")
              + (f"; over the {SIZE_BOUND // 2**20} MB bound" if size > SIZE_BOUND else "")
              + ") - open it in a browser; it needs no network")
    return 0
