"""Verify time per package against produce time (docs/bench.md), on a KBGym-Bench release.

    python scripts/benchmarks/bench_verify.py --out /tmp/bench-pkgs                # B1..oracle, scripted
    python scripts/benchmarks/bench_verify.py --out DIR --curators b3 scripted --entries leaderboard
    python scripts/benchmarks/bench_verify.py --package DIR [--package DIR ...]   # packages made elsewhere

For each curator: ``kbgym bench run`` into OUT/<curator> (wall seconds: produce), then
``kbgym bench verify`` (wall seconds: verify), printed with their ratio. With ``--entries``,
each verified package's leaderboard entry is written there. A ``--package`` made elsewhere (an
LLM curator's), or a package an earlier run of this script finished, is verified only; its
produce time is the curation + exam seconds its ``seeds/*/timing.json`` recorded. One run each; the issue's target is verify < produce / 10 for
an LLM curator, whose production is dominated by model calls that verify never makes: the
last columns estimate it for a curator taking as many steps as each package's, one model call
per step at ``--seconds-per-call`` (an estimate, labelled so; a real LLM package is measured
with ``--package``: a package whose curator reported tokens gets no estimate, its produce
seconds are the model's). ``--size`` and ``--seeds`` (a reduced run) apply to the curators run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from shutil import rmtree

DEFAULT = ["B1", "b2", "b3", "b4", "oracle", "scripted"]


def recorded_seconds(package: Path) -> float:
    total = 0.0
    for t in sorted(package.glob("seeds/*/timing.json")):
        data = json.loads(t.read_text(encoding="utf-8"))
        total += float(data.get("curate_s", 0)) + float(data.get("exams_s", 0))
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="folder for the packages (each curator's a new sub-folder)")
    ap.add_argument("--curators", nargs="*", default=None, help=f"default: {' '.join(DEFAULT)}")
    ap.add_argument("--release", help="release id or folder (default: the newest shipped)")
    ap.add_argument("--size", default="full")
    ap.add_argument("--seeds", help="a reduced run: only these seeds (comma-separated)")
    ap.add_argument("--package", action="append", default=[], help="verify this package only")
    ap.add_argument("--entries", help="write each verified package's leaderboard entry here")
    ap.add_argument("--date", help="the entries' date (default today)")
    ap.add_argument("--seconds-per-call", type=float, default=9.0,
                    help="seconds per model call of an LLM curator, for the estimate line "
                         "(default 9: make llm-demo's 1.5B model, one thread, idle 2 cores)")
    args = ap.parse_args()

    from kbgym.bench.board import make_entry, write_entry
    from kbgym.bench.release import load_release
    from kbgym.bench.run import curator_spec, run_bench
    from kbgym.bench.verify import verify_package

    release = load_release(args.release)
    jobs: list[tuple[str, Path, float | None]] = []
    curators = DEFAULT if args.curators is None and not args.package else (args.curators or [])
    if curators and not args.out:
        ap.error("--out is needed to run curators")
    for spec in curators:
        out = Path(args.out) / spec.replace(":", "_")
        if (out / "manifest.json").exists():  # made by an earlier run of this script
            jobs.append((spec, out, None))
            continue
        rmtree(out, ignore_errors=True)  # a cut run of this script starts afresh
        t = time.perf_counter()
        run_bench(release, curator_spec(spec), out, size=args.size, seeds=args.seeds)
        jobs.append((spec, out, time.perf_counter() - t))
    jobs += [(Path(p).name, Path(p), None) for p in args.package]

    print(f"release {release.id} ({release.hash[:19]}...), size {args.size}"
          + (f", seeds {args.seeds}" if args.seeds else ""))
    print(f"{'curator':16s}{'produce s':>11s}{'verify s':>10s}{'verify/produce':>16s}"
          f"{'steps':>8s}{'LLM est. s':>12s}{'verify/LLM est.':>17s}")
    ratios = []
    for name, pkg, produced in jobs:
        t = time.perf_counter()
        res = verify_package(pkg, release)
        verified = time.perf_counter() - t
        produced = produced if produced is not None else recorded_seconds(pkg)
        ratio = verified / produced if produced else float("nan")
        ratios.append(ratio)
        # an LLM curator taking as many steps makes one model call per step: its production
        # takes at least steps x seconds-per-call, while verify calls no model (an estimate)
        # (a package whose curator reported tokens called a model: its produce time is
        # measured, no estimate)
        steps = res["headline"]["curation_steps"]
        called = res["headline"]["curation_tokens"][0] > 0
        llm = steps * args.seconds_per_call + produced
        cells = (f"{steps:8d}{llm:12.0f}{verified / llm:17.3f}" if steps and not called else
                 f"{steps:8d}{'-':>12s}{'-':>17s}")
        print(f"{name:16s}{produced:11.1f}{verified:10.1f}{ratio:16.4f}{cells}")
        if args.entries:
            Path(args.entries).mkdir(parents=True, exist_ok=True)
            entry = make_entry(res, pkg, date=args.date)
            reduced = "-reduced" if entry.get("seeds") else ""
            write_entry(Path(args.entries) / f"{entry['curator'].replace(':', '_')}-"
                                             f"{entry['size']}{reduced}.json", entry)
    if ratios:
        ratios.sort()
        print(f"median verify/produce: {ratios[len(ratios) // 2]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
