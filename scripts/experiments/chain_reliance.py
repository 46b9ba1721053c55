"""Which audit libraries rely on chains on originals, and does the probe table flag them
(issue 34: "chains between original notes stay a documented blind spot only if the probe
table flags every library that relies on them").

    python scripts/experiments/chain_reliance.py --audit DIR [--seeds 0,1,2,3,4]
        [--libraries 20] [--per-group 100] [--m 15] [--resamples 2000]

A library *relies* on its chains when the ideal navigator needs them: navigated again with
every link between two original notes removed (a fork, ``unlink``), it takes more steps on
some group, with the paired 95 % bootstrap CI of the steps lost per question above 0. Reads
``DIR/audit.json`` and each ``DIR/seedN/scripted-index`` run that ``examiner_audit.py --out
DIR`` wrote, and makes the same probe and generated libraries again (both are pure functions
of the seed). Prints, for every library with chains that does not harm: ρ_nav with and
without its chains per group, the steps per question the navigator loses without them (CI),
whether it relies on them and whether the probe table flagged a blind spot; then the count
of libraries that rely on chains and are not flagged.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from kbgym.library.graph import Library
from kbgym.library.search import BM25Index
from kbgym.metrics.navigator import cut_chains, navigate_all
from kbgym.runs.gradient import probe_questions
from kbgym.runs.probe import make_probe_from_run
from kbgym.seeding import stream
from kbgym.worlds.people import UniverseConfig, generate
from kbgym_agents.zoo.generated import generate_libraries

GROUPS = ("exact", "share2", "share1")


def searchable(lib: Library) -> Library:
    """``lib`` with the exam's search backend (BM25, as the environment attaches it)."""
    if lib.search_backend is None:
        lib.attach_search(BM25Index())
    return lib


def lost_ci(a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> tuple[float, float, float]:
    """Mean of ``b - a`` (steps lost per question) and its paired percentile 95 % CI."""
    d = b - a
    rng = np.random.default_rng(stream(seed, "metrics/chain-reliance").getrandbits(64))
    idx = rng.integers(0, len(d), size=(resamples, len(d)))
    means = d[idx].mean(axis=1)
    return float(d.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--audit", required=True, help="the --out folder of examiner_audit.py")
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--libraries", type=int, default=20)
    ap.add_argument("--per-group", type=int, default=100)
    ap.add_argument("--m", type=int, default=15)
    ap.add_argument("--resamples", type=int, default=2000)
    args = ap.parse_args()
    audit = Path(args.audit)
    flagged = {(a["seed"], a["name"]): any((a["cells"][g].get("blind_spot") or {}).get("flagged")
                                           for g in a["cells"])
               for a in json.loads((audit / "audit.json").read_text())["arms"]}
    print(f"{'library':16s}{'links':>6s}  " + "".join(
        f"{g + ' rho_nav':>16s} {'lost/q [CI]':>21s}  " for g in GROUPS) + "relies  flagged")
    relies_unflagged, n_chained, n_relies = [], 0, 0
    for seed in (int(s) for s in args.seeds.split(",")):
        u = generate(UniverseConfig(seed=seed))
        probe = make_probe_from_run(u, audit / f"seed{seed}" / "scripted-index",
                                    per_group=args.per_group, seed=seed)
        probe["splits"] = {g: probe["splits"][g] for g in ("exact", "share2", "share1",
                                                            "share0")}
        qs, splits = probe_questions(probe)
        b1 = navigate_all(searchable(Library.from_universe(u)), u, qs.values(), m=args.m)
        generated = generate_libraries(u, seed, args.libraries,
                                       questions=u.split("train")[:100], twins=True)
        arms = []
        for g in generated:
            if "chains" in g.shapes and not g.harms:
                arms.append((g.name, g.library))
                if g.twin is not None:
                    arms.append((g.name + "~short", g.twin))
        for name, lib in arms:
            n_chained += 1
            plain, gone = cut_chains(lib)
            nav, nav_plain = (navigate_all(searchable(x), u, qs.values(), m=args.m) for x in (lib, plain))
            cols, relies = "", False
            for group in GROUPS:
                qids = [q for q in splits[group] if None not in (
                    b1[q].steps, nav[q].steps, nav_plain[q].steps)]
                base = sum(b1[q].steps for q in qids)
                with_c = np.array([nav[q].steps for q in qids], dtype=float)
                wo = np.array([nav_plain[q].steps for q in qids], dtype=float)
                mean, lo, hi = lost_ci(with_c, wo, args.resamples, seed)
                relies |= lo > 0
                cols += (f"{with_c.sum() / base:7.3f} -> {wo.sum() / base:6.3f} "
                         f"{mean:+6.2f} [{lo:+.2f}, {hi:+.2f}]  ")
            flag = flagged.get((seed, name))
            n_relies += relies
            if relies and not flag:
                relies_unflagged.append(f"{name} (seed {seed})")
            print(f"{name + ' s' + str(seed):16s}{gone:6d}  {cols}{'yes' if relies else 'no ':7s}"
                  f"{'yes' if flag else ('no' if flag is not None else '?')}")
    print(f"\nlibraries with chains on originals that do not harm: {n_chained}; rely on them "
          f"(the navigator loses steps without them, CI above 0 on some group): {n_relies}; "
          f"of those not flagged as a blind spot by the probe table: {len(relies_unflagged)} "
          f"{relies_unflagged}")


if __name__ == "__main__":
    main()
