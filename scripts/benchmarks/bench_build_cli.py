"""``kbgym build`` as a whole process: CPU and what it imported (issue 39, the
build path: no gymnasium, numpy or environment for a build; worlds loaded lazily).

    python scripts/benchmarks/bench_build_cli.py [--people 460,4600] [--rounds 5]
        [--baseline COMMIT]

Each run is a fresh ``python -m kbgym.cli build --people N`` (start-up, imports, generation
and writing the universe file), timed as the child's CPU seconds (user + system, from its
rusage); with ``--baseline`` the same command from a temporary checkout of COMMIT, interleaved
(A B A B). Every build runs from bytecode, as an installed package does: each checkout's is
written once by an untimed first build, under a temporary ``PYTHONPYCACHEPREFIX`` (whatever
``PYTHONDONTWRITEBYTECODE`` says). A separate child per checkout reports whether gymnasium, numpy and kbgym.env were
imported by the build. Medians over ``--rounds``; the load average is printed beside.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import ROOT, checkout, code_env, load_note  # noqa: E402

PROBE = ("import json, sys; from kbgym.cli import main; "
         "main(['build', '--people', '40', '--out', sys.argv[1], '--quiet', '--overwrite']); "
         "print(json.dumps(sorted(m for m in ('gymnasium', 'numpy', 'kbgym.env') "
         "if m in sys.modules)))")


def run_build(root: Path, people: int, out: Path) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = code_env(root)  # (bytecode written by the first build, read by every timed one)
    subprocess.run([sys.executable, "-m", "kbgym.cli", "build", "--people", str(people),
                    "--out", str(out), "--quiet", "--overwrite"], check=True, env=env,
                   cwd=str(root), capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)}


def imported(root: Path, out: Path) -> list[str]:
    env = code_env(root)
    got = subprocess.run([sys.executable, "-c", PROBE, str(out)], check=True, env=env,
                         cwd=str(root), capture_output=True, text=True)
    return json.loads(got.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--people", default="460,4600", help="real people per size (460 makes 506 "
                                                          "in all with the distractors)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline", help="a commit to run interleaved against this checkout")
    a = ap.parse_args(argv)
    sizes = [int(x) for x in a.people.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="kbgym-build-bench-"))
    with checkout(a.baseline) if a.baseline else contextlib.nullcontext() as base:
        roots = {"this checkout": ROOT, **({f"baseline {a.baseline}": base} if base else {})}
        res = {(name, n): [] for name in roots for n in sizes}
        for root in roots.values():  # untimed: writes the checkout's bytecode
            run_build(root, 40, tmp / "u.json")
        for _ in range(a.rounds):
            for n in sizes:
                for name, root in roots.items():
                    res[(name, n)].append(run_build(root, n, tmp / "u.json"))
        mods = {name: imported(root, tmp / "p.json") for name, root in roots.items()}
    print(f"kbgym build, whole process; medians of {a.rounds}; {load_note()}")
    print("| run | --people | CPU s | imports gymnasium / numpy / kbgym.env |")
    print("|---|---|---|---|")
    for (name, n), rs in res.items():
        print(f"| {name} | {n} | {statistics.median(r['cpu_s'] for r in rs):.2f} | "
              f"{', '.join(mods[name]) or 'none'} |")
    if a.baseline:
        for n in sizes:
            this = statistics.median(r["cpu_s"] for r in res[("this checkout", n)])
            then = statistics.median(r["cpu_s"] for r in res[(f"baseline {a.baseline}", n)])
            print(f"--people {n}: x{then / this:.2f} less CPU than the baseline")


if __name__ == "__main__":
    main()
