"""Universe generation against PhantomWiki 1.0.3, side by side, at matched people counts.

    python scripts/benchmarks/bench_generate_pw.py [--trees 20,200,800] [--repeats 3] [--install]

For each size, PhantomWiki (``pw-generate`` from ``.venv-pw``: Python 3.12 and SWI-Prolog,
which KBGym itself does not need) generates ``--trees`` family trees of up to 25 people
(articles and questions as JSON, no solution traces) and the people it made are counted
(its articles); then ``kbgym build`` runs as a whole process (start-up and imports
included) for a universe of exactly that many people in all, real and distractors
(``--people`` is the real ones: :func:`matched_n_people`), writing its universe file.
Both run in fresh child processes, alternately
(``--repeats`` rounds), each from bytecode as an installed package runs (pip compiled
PhantomWiki's; KBGym's is written once, by an untimed first build, under a temporary
``PYTHONPYCACHEPREFIX``, whatever ``PYTHONDONTWRITEBYTECODE`` says), and are timed in CPU seconds (user + system of the child and
everything it waited for: robust to other jobs on a shared machine). Printed: people, the
median CPU seconds of each, and PhantomWiki / KBGym.

``--install`` makes ``.venv-pw`` first when it is missing (``python3.12 -m venv`` and
``pip install phantom-wiki==1.0.3``; SWI-Prolog from the Debian package ``swi-prolog-nox``).
Without PhantomWiki the script says so and times KBGym alone at the people counts
PhantomWiki 1.0.3 makes from those trees at seed 1 (506, 5,057, 20,237).
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import ROOT  # noqa: E402

PW_BIN = ROOT / ".venv-pw" / "bin" / "pw-generate"
KNOWN_PEOPLE = {20: 506, 200: 5057, 800: 20237}  # PhantomWiki 1.0.3, seed 1

def matched_n_people(total: int, distractor_frac: float = 0.10) -> int:
    """The ``--people`` whose universe holds exactly ``total`` people: ``n_people`` real ones
    plus round(n_people * distractor_frac) distractors (kbgym.worlds.people.config)."""
    n = max(1, round(total / (1 + distractor_frac)))
    for cand in sorted(range(max(1, n - 3), n + 4), key=lambda c: abs(c - n)):
        if cand + int(cand * distractor_frac + 0.5) == total:
            return cand
    return n  # (no exact match: the nearest)


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_pw(trees: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        before = children_cpu()
        subprocess.run([str(PW_BIN), "--seed", "1", "--num-family-trees", str(trees),
                        "--article-format", "json", "--question-format", "json",
                        "--skip-solution-traces", "--quiet", "-od", tmp],
                       check=True, capture_output=True)
        cpu = children_cpu() - before
        articles = json.loads((Path(tmp) / "articles.json").read_text())
    return {"cpu_s": cpu, "people": len(articles)}


#: Where KBGym's bytecode is written (the first build) and read (every timed one).
PYCACHE = tempfile.mkdtemp(prefix="kbgym-bench-pyc-")
atexit.register(shutil.rmtree, PYCACHE, True)


def run_kbgym(people: int) -> dict:
    """``kbgym build`` as a whole process (interpreter start-up and imports included) at
    ``people`` people in all (real + distractors), writing its universe file."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONPYCACHEPREFIX=PYCACHE)
    with tempfile.TemporaryDirectory() as tmp:
        before = children_cpu()
        path = os.path.join(tmp, "universe.json")
        subprocess.run([sys.executable, "-m", "kbgym.cli", "build", "--people",
                        str(matched_n_people(people)), "--out", path, "--quiet"],
                       check=True, capture_output=True, env=env)
        cpu = children_cpu() - before
        made = json.loads(Path(path).read_text(encoding="utf-8"))
    return {"cpu_s": cpu, "people": len(made["people"])}


def install() -> None:
    py = shutil.which("python3.12")
    if py is None:
        raise SystemExit("--install needs python3.12 on PATH (phantom-wiki 1.0.3 requires it)")
    subprocess.run([py, "-m", "venv", str(ROOT / ".venv-pw")], check=True)
    subprocess.run([str(ROOT / ".venv-pw" / "bin" / "pip"), "install", "-q",
                    "phantom-wiki==1.0.3"], check=True)


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trees", default="20,200,800", help="PhantomWiki family trees per size")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--install", action="store_true", help="make .venv-pw when it is missing")
    args = ap.parse_args(argv)
    if args.install and not PW_BIN.exists():
        install()
    have_pw = PW_BIN.exists() and shutil.which("swipl") is not None
    if not have_pw:
        print(f"PhantomWiki is not available ({PW_BIN} or swipl missing; --install, and apt "
              f"install swi-prolog-nox): timing KBGym alone at PhantomWiki's people counts")
    run_kbgym(40)  # untimed: writes KBGym's bytecode
    rows = []
    for trees in map(int, args.trees.split(",")):
        pw, kb = [], []
        people = KNOWN_PEOPLE.get(trees)
        for _ in range(args.repeats):
            if have_pw:
                r = run_pw(trees)
                people = r["people"]
                pw.append(r["cpu_s"])
            if people is None:
                raise SystemExit(f"no known people count for {trees} trees without PhantomWiki")
            r = run_kbgym(people)
            if r["people"] != people:
                print(f"(KBGym made {r['people']} people for {people})")
            kb.append(r["cpu_s"])
        row = {"trees": trees, "people": people, "kbgym_cpu_s": statistics.median(kb),
               "pw_cpu_s": statistics.median(pw) if pw else None}
        row["ratio"] = row["pw_cpu_s"] / row["kbgym_cpu_s"] if pw else None
        rows.append(row)
        ratio = f"x{row['ratio']:.1f}" if pw else "(PhantomWiki not run)"
        pw_s = f"{row['pw_cpu_s']:.2f}" if pw else "—"
        print(f"{people:7d} people (load {os.getloadavg()[0]:.2f}): KBGym "
              f"{row['kbgym_cpu_s']:.2f} s CPU, PhantomWiki "
              f"{pw_s} s CPU, PhantomWiki / KBGym {ratio}", flush=True)
    return rows


if __name__ == "__main__":
    main()
