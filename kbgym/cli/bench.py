"""``kbgym bench``: the frozen benchmark release - run a curator through it, verify a result
package, render the leaderboard, export the release as a dataset (docs/bench.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kbgym.cli.common import CLIError, add_endpoint_flags, agent_options


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("bench", help="KBGym-Bench: run, verify, leaderboard, export")
    sub = p.add_subparsers(dest="bench_command", required=True)

    info = sub.add_parser("release", help="show a release: seeds, budgets, readers, hash")
    info.add_argument("--release", help="release id or folder (default: the newest shipped)")
    info.set_defaults(func=cmd_release)

    run = sub.add_parser("run", help="train a curator on every seed of the release, examine "
                                     "B1 and its libraries, write a result package")
    run.add_argument("--curator", required=True,
                     help="B1, b2, b3, b4, oracle, scripted (each seed's scripted curator), "
                          "or an agent: a plugin name or module:factory")
    run.add_argument("--out", required=True, help="the package folder (new or empty)")
    run.add_argument("--release", help="release id or folder (default: the newest shipped)")
    run.add_argument("--size", default="full",
                     help="release size: full (default) or small, the reduced one for "
                          "CPU-only LLM curators (stated in the package and on the board)")
    run.add_argument("--seeds", help="a reduced run: only these seeds of the release "
                                     "(comma-separated; recorded in the package, verified, and "
                                     "shown on the board apart from whole-release runs)")
    run.add_argument("--prices", help="price table (JSON): curation USD in the scores")
    run.add_argument("--resume", action="store_true",
                     help="continue an interrupted bench run in --out")
    run.add_argument("--quiet", action="store_true", help="print nothing")
    add_endpoint_flags(run)
    run.set_defaults(func=cmd_run)

    ver = sub.add_parser("verify", help="replay, re-examine and re-score a result package "
                                        "(no model is called)")
    ver.add_argument("package", help="the package folder")
    ver.add_argument("--release", help="release folder, for a release that is not shipped")
    ver.add_argument("--entry", help="also check this leaderboard entry against the package")
    ver.add_argument("--write-entry", dest="write_entry", metavar="FILE",
                     help="write the leaderboard entry of the verified package here")
    ver.add_argument("--model", help="with --write-entry: the model name to show")
    ver.add_argument("--date", help="with --write-entry: the date to show (YYYY-MM-DD; "
                                    "default today)")
    ver.add_argument("--quiet", action="store_true", help="print nothing")
    ver.set_defaults(func=cmd_verify)

    res = sub.add_parser("rescore", help="rescore a package of an older release into a newer "
                                         "one (replays the traces, re-runs the exams; no model)")
    res.add_argument("package", help="the older release's package folder")
    res.add_argument("--release", help="the release to rescore into (default: the newest "
                                       "shipped)")
    res.add_argument("--out", required=True, help="the new package folder (new or empty)")
    res.add_argument("--quiet", action="store_true", help="print nothing")
    res.set_defaults(func=cmd_rescore)

    board = sub.add_parser("board", help="render the leaderboard (HTML page, markdown table)")
    board.add_argument("--entries", default="leaderboard",
                       help="the folder of entry JSON files (default leaderboard)")
    board.add_argument("--html", help="write the static HTML page here")
    board.add_argument("--markdown", help="write the markdown table here (default: print it)")
    board.add_argument("--into", help="replace the table between the leaderboard markers of "
                                      "this markdown file (e.g. docs/bench.md)")
    board.set_defaults(func=cmd_board)

    ex = sub.add_parser("export", help="write the release as a dataset (hf or jsonl), or "
                                       "check one with --check")
    ex.add_argument("--format", choices=("hf", "jsonl"), default="jsonl",
                    help="hf: data/<config>/<split>.jsonl and a README.md dataset card; "
                         "jsonl: flat <config>.<split>.jsonl files and CARD.md (default jsonl)")
    ex.add_argument("--out", help="the dataset folder (new or empty)")
    ex.add_argument("--release", help="release id or folder (default: the newest shipped)")
    ex.add_argument("--size", default="full", help="release size (default full)")
    ex.add_argument("--check", metavar="DIR",
                    help="validate an exported dataset against the release hash instead")
    ex.set_defaults(func=cmd_export)



def _release(spec):
    from kbgym.bench.release import load_release

    return load_release(spec)


def cmd_release(args) -> int:
    print(_release(args.release).summary())
    return 0


def _progress(quiet: bool):
    if quiet:
        return None
    return lambda text: print(text, file=sys.stderr, flush=True)


def cmd_run(args) -> int:
    from kbgym.bench.run import curator_spec, run_bench

    release = _release(args.release)
    release.check_size(args.size)
    curator = curator_spec(args.curator, agent_options(args))
    prices = None
    if args.prices:
        from kbgym.metrics.costs import PriceTable

        PriceTable.load(args.prices)  # a bad table stops before anything runs
        prices = json.loads(Path(args.prices).read_text(encoding="utf-8"))
    res = run_bench(release, curator, args.out, size=args.size, options=agent_options(args),
                    prices=prices, resume=args.resume, progress=_progress(args.quiet),
                    seeds=args.seeds)
    if not args.quiet:
        _print_headline(res["headline"], release)
        print(f"package {res['package_hash']} -> {args.out}")
    return 0


def _print_headline(h: dict, release) -> None:
    from kbgym.cli.common import fmt

    b = release.budgets
    print(f"F1 at tight m={b['tight_m']}: {fmt(h['f1_tight'])} (B1 {fmt(h['f1_tight_b1'])}); "
          f"F1 at m={b['m']}: {fmt(h['f1'])} (B1 {fmt(h['f1_b1'])}); rho {fmt(h['rho'])}; "
          f"rho_nav {fmt(h['rho_nav'])}; curation steps {h['curation_steps']}, tokens "
          f"{h['curation_tokens'][0] + h['curation_tokens'][1]}")


def cmd_verify(args) -> int:
    from kbgym.bench.verify import verify_package

    if (args.model or args.date) and not args.write_entry:
        raise CLIError("--model and --date apply only with --write-entry")
    res = verify_package(args.package, args.release, progress=_progress(args.quiet))
    if args.entry:
        from kbgym.bench.board import check_entry

        check_entry(args.entry, res)
    if args.write_entry:
        from kbgym.bench.board import make_entry, write_entry

        write_entry(args.write_entry, make_entry(res, args.package, model=args.model,
                                                 date=args.date))
    if not args.quiet:
        size = res["size"] + (f", seeds {','.join(res['seeds'])}" if res.get("seeds") else "")
        print(f"verified {args.package}: release {res['release']} ({size}), curator "
              f"{res['curator']['name']}, package {res['package_hash']}, {res['seconds']:.1f} s")
    return 0


def cmd_rescore(args) -> int:
    from kbgym.bench.rescore import rescore_package

    release = _release(args.release)
    res = rescore_package(args.package, release, args.out, progress=_progress(args.quiet))
    if not args.quiet:
        _print_headline(res["headline"], release)
        print(f"rescored {args.package} ({res['rescored_from']['release']['id']}, package "
              f"{res['rescored_from']['package_hash']}) into release {release.id}: package "
              f"{res['package_hash']} -> {args.out}, {res['seconds']:.1f} s")
    return 0


def cmd_board(args) -> int:
    from kbgym.bench.board import load_entries, render_html, render_markdown, replace_table

    entries = load_entries(args.entries)
    md = render_markdown(entries)
    if args.html:
        Path(args.html).write_text(render_html(entries), encoding="utf-8")
    if args.markdown:
        Path(args.markdown).write_text(md, encoding="utf-8")
    if args.into:
        replace_table(args.into, md)
    if not (args.html or args.markdown or args.into):
        print(md, end="")
    return 0


def cmd_export(args) -> int:
    from kbgym.bench.export import check_dataset, export_release

    if args.check:
        if args.out:
            raise CLIError("--check DIR validates a dataset; --out applies to an export")
        res = check_dataset(args.check, _release(args.release))
        print(f"valid: {args.check} is release {res['release']} ({res['hash']}), "
              f"{res['tasks']} tasks")
        return 0
    if not args.out:
        raise CLIError("give --out DIR (or --check DIR)")
    res = export_release(_release(args.release), args.out, fmt=args.format, size=args.size)
    print(f"{res['tasks']} tasks, {res['documents']} documents -> {args.out}")
    return 0
