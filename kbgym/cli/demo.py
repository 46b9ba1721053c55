"""``kbgym demo``: the main job (train, probe, tables and plots, no LLM)."""

from __future__ import annotations

import time
from pathlib import Path

from kbgym.cli import args as A


def add_parser(subparsers) -> None:
    from kbgym.runs.probe import ProbeSettings
    from kbgym.runs.train import TrainConfig

    p = subparsers.add_parser("demo", help="the main job: train, probe, tables and plots, no LLM")
    from kbgym.worlds import default_world, generated, world

    first = default_world().name
    p.add_argument("--world", choices=generated(), default=first,
                   help="; ".join(f"{n} ({world(n).description})" for n in generated())
                        + f" (default {first})")
    p.add_argument("--out", default=None, help="output folder (default runs/demo, or "
                                               "runs/demo-WORLD for another --world)")
    p.add_argument("--seed", type=A.SEED, default=0, help="universe seed (default 0)")
    p.add_argument("--train-size", type=A.of(TrainConfig, "train_size"), default=100,
                   help="train questions (default 100)")
    p.add_argument("--epochs", type=A.of(TrainConfig, "epochs"), default=2,
                   help="epochs (default 2)")
    p.add_argument("--per-group", type=A.of(ProbeSettings, "per_group"), default=30,
                   help="probe questions per group (default 30)")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    p.add_argument("--no-view", action="store_true", help="skip view.html (kbgym view)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace what kbgym wrote in --out (an earlier demo's folder is "
                        "replaced without it)")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.set_defaults(func=cmd_demo)


def cmd_demo(args) -> int:
    from kbgym.runs.demo import run_demo

    say = (lambda *a: None) if args.quiet else print
    from kbgym.worlds import default_world

    out = args.out or ("runs/demo" if args.world == default_world().name
                       else f"runs/demo-{args.world}")
    res = run_demo(out, world=args.world, seed=args.seed, train_size=args.train_size,
                   epochs=args.epochs, per_group=args.per_group, plots=not args.no_plots,
                   say=say, overwrite=args.overwrite)
    if not args.no_view:  # last: the page to look at what was built (kbgym view)
        say(demo_view(out, res["universe"], res["library"]))
    return 0


def demo_view(out: str | Path, universe=None, library=None) -> str:
    """Write ``out/view.html`` for the demo in ``out``; the line that says so. ``universe``
    and ``library`` (the trained one): what the demo has loaded already."""
    from kbgym.view import write_run_page

    out = Path(out)
    t = time.perf_counter()
    size = write_run_page(out / "train", out / "view.html", universe=universe,
                          probe_table=out / "probe_table.json", library=library)
    return (f"view: {out / 'view.html'} ({size / 1e6:.1f} MB, {time.perf_counter() - t:.1f}s)"
            " - open it in a browser to see the library, its growth, the episodes and the probe")
