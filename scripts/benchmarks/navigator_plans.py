"""The ideal navigator's plans, hashed: a change meant only to make the navigator faster must
leave every plan as it was (bench releases pin its figures).

    python scripts/benchmarks/navigator_plans.py [--seed 0] [--per-group 100] [--zoo 8]
        [--out runs/examiner_time] [--save FILE] [--compare FILE]

Navigates the probe ``examiner_time.py`` examines (made by its ``prepare`` into ``--out`` if
not there yet) on B1, the canonical library and ``--zoo`` generated libraries of the same
seed (``kbgym_agents.zoo.generated``) and their twins, each as the exam builds its navigator
(``Examiner.navigator``), and where a library has chains also with them cut. Prints, per
library, a hash of every question's (steps, F1, reason, plan) and the CPU seconds it took;
``--save`` writes them as JSON, ``--compare`` checks the hashes against such a file and exits
1 on any difference.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.runs.exam import Examiner
from kbgym.runs.gradient import probe_questions
from kbgym.worlds.people import UniverseConfig, generate
from kbgym_agents.zoo.generated import generate_libraries

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
from examiner_time import prepare  # noqa: E402


def plan_hash(examiner: Examiner, questions) -> str:
    """sha256 (16 hex digits) of every question's navigation, chains cut too where any."""
    nav = examiner.navigator
    h = hashlib.sha256()
    for q in questions:
        r = nav.run(q)
        h.update(repr((q.qid, r.steps, r.f1, r.reason, r.plan)).encode())
        if nav.unchained is not None:
            c = nav.unchained.run(q)
            h.update(repr(("unchained", c.steps, c.f1, c.reason, c.plan)).encode())
    return h.hexdigest()[:16]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-group", type=int, default=100)
    ap.add_argument("--zoo", type=int, default=8, help="generated libraries (with twins)")
    ap.add_argument("--out", default="runs/examiner_time")
    ap.add_argument("--save", help="write the hashes and times here (JSON)")
    ap.add_argument("--compare", help="a file --save wrote: exit 1 unless every hash is equal")
    args = ap.parse_args()
    out = Path(args.out).resolve()
    prepare(out, args.seed, args.per_group)
    u = generate(UniverseConfig(seed=args.seed))
    canonical, _ = load_snapshot(out / "scripted-index" / "kb_epoch_2.json")
    qs, _ = probe_questions(json.loads((out / "probe.json").read_text()))
    libraries = [("B1", Library.from_universe(u)), ("canonical", canonical)]
    for g in generate_libraries(u, args.seed, args.zoo, questions=u.split("train")[:100],
                                twins=True):
        libraries.append((g.name, g.library))
        if g.twin is not None:
            libraries.append((g.name + "~short", g.twin))
    got: dict[str, dict] = {}
    for name, lib in libraries:
        examiner = Examiner(u, qs, library=lib)
        t = time.process_time()
        digest = plan_hash(examiner, list(qs.values()))
        got[name] = {"plans": digest, "cpu_s": round(time.process_time() - t, 3)}
        print(f"{name:16s} {digest}  {got[name]['cpu_s']:6.2f} s", flush=True)
    print(f"{len(qs)} questions, {len(libraries)} libraries, "
          f"{sum(v['cpu_s'] for v in got.values()):.2f} s CPU in all")
    if args.save:
        Path(args.save).write_text(json.dumps(got, indent=1) + "\n", encoding="utf-8")
    if args.compare:
        want = json.loads(Path(args.compare).read_text(encoding="utf-8"))
        differ = sorted(n for n in want.keys() | got.keys()
                        if want.get(n, {}).get("plans") != got.get(n, {}).get("plans"))
        print("plans: the same on every library" if not differ
              else f"plans differ on {len(differ)}: {', '.join(differ)}")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
