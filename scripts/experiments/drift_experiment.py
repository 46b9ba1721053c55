"""Source drift, measured: a trained library's F1 on drifted questions before the drift,
after it, and after a scripted repair pass, over several seeds, with a plot.

    python scripts/experiments/drift_experiment.py [--seeds 0,1,2] [--people 120] [--train-size 60]
                                       [--changes 40] [--out runs/drift]

Per seed s:

1. generate a universe (seed s) and train the scripted index curator (``scripted-index``) on
   ``train[:train_size]`` for one epoch;
2. drift it (``kbgym.worlds.people.drift.drift``, ``--changes`` life events, drift seed s) and
   carry the trained library onto v2 (new originals added, stale links noticed by hash);
3. examine with the scripted reader (``scripted-reader``) every question of v2 (all splits)
   whose golds the drift changed ("drifted") and as many unchanged ones ("unchanged"):
   ``before`` = the trained library on v1 (v1 golds), ``drifted`` = the carried library on
   v2, ``repaired`` = after :func:`kbgym.worlds.people.drift.repair_pass`, and ``B1`` = the untrained
   v2 library;
4. count stale links and stale index notes before and after the repair, the repair actions
   spent and the answers that used an outdated fact.

Prints one table row per seed and stage, the means over seeds, and writes ``drift.json`` and
``drift.png`` (mean F1 per stage, one dot per seed) under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from kbgym.library import BM25Index, Library
from kbgym.plugins import make_agent
from kbgym.runs.drift import drift_report
from kbgym.worlds.people.drift import repair_pass
from kbgym.runs.exam import examine
from kbgym.runs.train import TrainConfig, train
from kbgym.scoring import score_block
from kbgym.worlds.people import UniverseConfig, generate
from kbgym.library.drift import carry_library
from kbgym.worlds.people.drift import drift

STAGES = ("before", "drifted", "repaired", "B1")


def one_seed(seed: int, args, out: Path) -> dict:
    u1 = generate(UniverseConfig(seed=seed, n_people=args.people))
    run = out / f"train_s{seed}"
    train(u1, make_agent("scripted-index"), run,
          config=TrainConfig(epochs=1, train_size=args.train_size, seed=seed))
    from kbgym.library.snapshot import load_snapshot

    trained, _ = load_snapshot(run / "kb_epoch_1.json")
    u2 = drift(u1, args.changes, seed)
    status = u2.meta["drift"]["questions"]
    drifted = status["drifted"]
    unchanged = status["unchanged"][: max(len(drifted), 20)]
    qids = drifted + unchanged
    splits = {"probe": qids}

    def exam(universe, lib, label):
        qs = {q.qid: q for q in universe.questions}
        return examine(universe, lib, make_agent("scripted-reader"), split="probe",
                       questions=qs, splits=splits, label=label)

    carried = carry_library(trained, u2)
    stale_before = carried.staleness()
    rows = {"before": exam(u1, trained, "before"), "drifted": exam(u2, carried, "drifted")}
    repaired = carried.copy(search=None)
    repaired.attach_search(BM25Index())
    spent = repair_pass(repaired)
    stale_after = repaired.staleness()
    rows["repaired"] = exam(u2, repaired, "repaired")
    rows["B1"] = exam(u2, Library.from_universe(u2), "B1")
    res: dict = {"seed": seed, "n_drifted": len(drifted), "n_unchanged": len(unchanged),
                 "stale_before": stale_before, "stale_after": stale_after,
                 "repair_actions": spent, "stages": {}}
    for stage in STAGES:
        d = [r for r in rows[stage] if r["qid"] in set(drifted)]
        un = [r for r in rows[stage] if r["qid"] not in set(drifted)]
        res["stages"][stage] = {
            "drifted_f1": score_block(d)["f1"], "unchanged_f1": score_block(un)["f1"],
            "drifted_steps": score_block(d)["mean_steps"],
            "outdated_answers": (drift_report(u2, rows[stage])["outdated_answers"]
                                 if stage != "before" else None)}
    return res


def plot(results: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [2, 1]})
    for k, (key, label) in enumerate((("drifted_f1", "drifted questions"),
                                      ("unchanged_f1", "unchanged questions"))):
        xs = [i + (k - 0.5) * 0.35 for i in range(len(STAGES))]
        means = [statistics.mean(r["stages"][s][key] or 0.0 for r in results) for s in STAGES]
        ax.bar(xs, means, width=0.35, label=label, alpha=0.7)
        for r in results:
            ax.scatter(xs, [r["stages"][s][key] or 0.0 for s in STAGES], color="black", s=8)
    ax.set_xticks(range(len(STAGES)), ["trained, v1", "trained, after drift",
                                       "after repair pass", "B1 on v2"])
    ax.set_ylabel("F1 (scripted reader)")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"Source drift over {len(results)} seeds (dots: seeds)")
    ax.legend()
    seeds = [str(r["seed"]) for r in results]
    xs = range(len(results))
    ax2.bar([x - 0.2 for x in xs], [r["stale_before"]["stale_links"] for r in results], 0.4,
            label="after drift")
    ax2.bar([x + 0.2 for x in xs], [r["stale_after"]["stale_links"] for r in results], 0.4,
            label="after repair pass")
    ax2.set_xticks(list(xs), [f"seed {s}" for s in seeds])
    ax2.set_ylabel("stale links in the trained library")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--people", type=int, default=120)
    ap.add_argument("--train-size", type=int, default=60, dest="train_size")
    ap.add_argument("--changes", type=int, default=40)
    ap.add_argument("--out", default="runs/drift")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = [one_seed(int(s), args, out) for s in args.seeds.split(",")]
    print(f"{'seed':>4} {'stage':10s} {'F1 drifted':>10} {'F1 unchanged':>12} "
          f"{'steps(dr)':>9} {'outdated':>8}")
    for r in results:
        for s in STAGES:
            c = r["stages"][s]
            print(f"{r['seed']:>4} {s:10s} {c['drifted_f1']:10.3f} {c['unchanged_f1']:12.3f} "
                  f"{c['drifted_steps']:9.2f} {c['outdated_answers'] if c['outdated_answers'] is not None else '-':>8}")
        print(f"     n drifted={r['n_drifted']} unchanged={r['n_unchanged']}  stale links "
              f"{r['stale_before']['stale_links']} -> {r['stale_after']['stale_links']}, "
              f"stale index notes {r['stale_before']['stale_index_notes']} -> "
              f"{r['stale_after']['stale_index_notes']}, repair actions {r['repair_actions']}")
    print("mean over seeds:")
    for s in STAGES:
        d = statistics.mean(r["stages"][s]["drifted_f1"] for r in results)
        u = statistics.mean(r["stages"][s]["unchanged_f1"] for r in results)
        print(f"     {s:10s} F1 drifted {d:.3f}  unchanged {u:.3f}")
    (out / "drift.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    try:
        plot(results, out / "drift.png")
        print(f"wrote {out / 'drift.json'} and {out / 'drift.png'}")
    except ImportError:
        print(f"wrote {out / 'drift.json'} (no matplotlib: no plot)")


if __name__ == "__main__":
    main()
