"""The evidence graph against the paper toolset: the same trained libraries examined by the
default reader (search/read) and by the evidence reader (locate/expand), with repeated exams
for citation consistency.

    python scripts/experiments/evidence_reader.py [--seeds 0,1,2] [--per-group 100] [--repeats 3]

Per seed: the default universe; the index curator trained untyped (paper) and typed
(``member_of`` links, an env with ``typed_links=True``); one probe. Arms, each against the B1
of its own toolset and reader:

- ``paper``: the untyped library, ``scripted-reader``, toolset ``paper``;
- ``evidence``: the same library, ``scripted-reader-evidence``, toolset ``evidence``;
- ``evidence-typed``: the typed library, evidence reader;
- ``*-sentence``: the untyped library with long sentence titles (``Everyone X is friends with
  is linked here.``), which the search page of a bare name does not rank but ``locate`` lists.

Printed per arm and group: rho (pooled over seeds, paired bootstrap CI, F1 gate), F1, and the
mean pairwise Jaccard of evidence sets over ``--repeats`` seeded repeats (the scripted reader's
tie-break shuffle) with the mean evidence-set size.
"""

from __future__ import annotations

import argparse
import statistics
import time

from kbgym_agents.zoo.titles import restyle
from kbgym.env.config import KBGymConfig
from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.metrics.consistency import consistency
from kbgym.plugins import make_agent
from kbgym.runs.exam import examine
from kbgym.runs.gradient import probe_questions
from kbgym.runs.probe import make_probe_from_run, mark, probe_table
from kbgym.runs.train import TrainConfig, train
from kbgym.worlds.people import UniverseConfig, generate

GROUPS = ("exact", "share2", "share1", "share0")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--per-group", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default="runs/evidence")
    args = ap.parse_args()
    t0 = time.perf_counter()
    paper = KBGymConfig()
    evidence = KBGymConfig(toolset="evidence")
    typed = KBGymConfig(toolset="evidence", typed_links=True)
    rows: dict[str, dict[str, list]] = {}  # base -> arm -> rows
    jac: dict[str, dict[str, list]] = {}
    size: dict[str, dict[str, list]] = {}
    probe_all = {"seed": 0, "splits": {g: [] for g in GROUPS}}
    for seed in [int(s) for s in args.seeds.split(",")]:
        u = generate(UniverseConfig(seed=seed))
        byid = {p.pid: p for p in u.people}
        byname = {p.name: p for p in u.people}

        def spouse(n):
            p = byname.get(n)
            return byid[p.spouse].name if p and p.spouse else None

        cfg = TrainConfig(epochs=2, train_size=100, snapshot_every=1000)
        run = f"{args.out}/seed{seed}"
        train(u, make_agent("scripted-index"), f"{run}/untyped", config=cfg)
        train(u, make_agent("scripted-index-typed"), f"{run}/typed", env_config=typed,
              config=cfg)
        untyped, _ = load_snapshot(f"{run}/untyped/kb_epoch_2.json")
        typed_lib, _ = load_snapshot(f"{run}/typed/kb_epoch_2.json")
        sentence, _ = load_snapshot(f"{run}/untyped/kb_epoch_2.json")
        restyle(sentence, "sentence", spouse)
        probe = make_probe_from_run(u, f"{run}/untyped", per_group=args.per_group, seed=seed)
        qs, splits = probe_questions(probe)
        splits = {g: splits[g] for g in GROUPS}
        for g in GROUPS:
            probe_all["splits"][g] += [f"{seed}:{q}" for q in splits[g]]
        b1 = Library.from_universe(u)
        b1_typed = Library.from_universe(u, typed_links=True)
        plan = {  # base name -> (reader, env config, {arm: library})
            "paper": ("scripted-reader", paper, {"B1": b1, "paper": untyped,
                                                 "paper-sentence": sentence}),
            "evidence": ("scripted-reader-evidence", evidence,
                         {"B1": b1, "evidence": untyped, "evidence-sentence": sentence}),
            "evidence-typed": ("scripted-reader-evidence", typed,
                               {"B1": b1_typed, "evidence-typed": typed_lib}),
        }
        for base, (reader_name, env_cfg, libs) in plan.items():
            for arm, lib in libs.items():
                got = examine(u, lib, make_agent(reader_name), env_cfg, split=list(GROUPS),
                              questions=qs, splits=splits, repeats=args.repeats, seed=seed)
                first = [dict(r, qid=f"{seed}:{r['qid']}") for r in got
                         if r.get("repeat") in (None, 0)]
                rows.setdefault(base, {}).setdefault(arm, []).extend(first)
                for g in GROUPS:
                    part = [r for r in got if r["split"] == g]
                    jac.setdefault(base, {}).setdefault(f"{arm}/{g}", []).append(
                        consistency(part))
                    size.setdefault(base, {}).setdefault(f"{arm}/{g}", []).extend(
                        len(r.get("evidence") or []) for r in part)
        print(f"seed {seed} done ({time.perf_counter() - t0:.0f}s)", flush=True)

    print(f"\nseeds {args.seeds}, n = {args.per_group} per group per seed, {args.repeats} "
          "repeats; rho vs the B1 of the same reader and toolset (pooled CI), F1, "
          "J = mean pairwise Jaccard of evidence sets (mean set size)")
    for base, arms in rows.items():
        table = probe_table(arms, probe_all, resamples=5000)
        for arm in arms:
            cells = []
            for g in GROUPS:
                c = table["groups"][g]["all"][arm]
                js = [j for j in jac[base][f"{arm}/{g}"] if j is not None]
                sz = size[base][f"{arm}/{g}"]
                cells.append(f"{c['rho']:.3f}{mark(c):3s}[{c['ci'][0]:.2f},{c['ci'][1]:.2f}] "
                             f"F1 {c['f1']:.2f} J {statistics.fmean(js) if js else float('nan'):.2f}"
                             f"({statistics.fmean(sz) if sz else 0:.1f})")
            label = f"{base}:{arm}" if arm == "B1" else arm
            print(f"{label:22s}" + " ".join(f"{x:>40s}" for x in cells))
    print(f"\n({' / '.join(GROUPS)}) total {time.perf_counter() - t0:.0f}s")


if __name__ == "__main__":
    main()
