"""Is the examiner fair to my curator? Differently written curators through train -> probe ->
one table of rho, F1 and the F1 gate, and the structure metrics.

    python scripts/experiments/curator_zoo.py [--seeds 0,1,2,3,4] [--per-group 100] [--m 15]
                                  [--reader scripted-reader] [--curators a,b,...] [--out DIR]

Per seed: the default universe (500 people), the ``prior`` arm (each template's most frequent
training answer, one step: what guessing alone earns), each curator of ``kbgym_agents.zoo.curators.ZOO``
trained on train[:100] x 2 epochs, one probe (made from the canonical run: every curator
trains on the same questions) and one B1 exam shared by all arms. The canonical library is also
examined with its index titles rewritten in each style of ``kbgym_agents.zoo.titles.STYLES``
(``restyled:<style>``: the very same links, other words). Rows of all seeds are pooled into one
paired-bootstrap table (``--m`` examines every arm at another budget, e.g. 6).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from kbgym_agents.zoo.curators import ZOO
from kbgym_agents.zoo.titles import STYLES, restyle
from kbgym.env.config import KBGymConfig
from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.metrics.misinformation import misinformation
from kbgym.metrics.structure import index_structure
from kbgym.plugins import make_agent
from kbgym.runs.gradient import examine_probe
from kbgym.runs.prior import examine_prior
from kbgym.runs.probe import format_blind_spots, has_nav, make_probe_from_run, mark, probe_table
from kbgym.runs.train import TrainConfig, train
from kbgym.worlds.people import UniverseConfig, generate

GROUPS = ("exact", "share2", "share1", "share0")


def library_metrics(lib: Library, universe) -> dict:
    s = index_structure(lib, universe)
    out = {"precision": s["precision"], "recall": s["recall"],
           "index_coverage": lib.stats()["index_coverage"],
           "authored": lib.stats()["authored_statements"]}
    out["false_statements"] = misinformation(lib, universe)["false_statements"]
    return out


def run_seed(seed: int, args, curators: list[str], out: Path) -> tuple[dict, dict, dict]:
    u = generate(UniverseConfig(seed=seed))
    byid = {p.pid: p for p in u.people}
    byname = {p.name: p for p in u.people}

    def spouse(name: str):
        p = byname.get(name)
        return byid[p.spouse].name if p and p.spouse else None

    cfg = TrainConfig(epochs=2, train_size=100, snapshot_every=1000)
    libs: dict[str, Library] = {}
    for name in curators:
        run = out / f"seed{seed}" / name
        train(u, make_agent(ZOO[name], offered={"seed": seed}), run, config=cfg)
        libs[name], _ = load_snapshot(run / "kb_epoch_2.json")
    probe = make_probe_from_run(u, out / f"seed{seed}" / curators[0], per_group=args.per_group,
                                seed=seed)
    probe["splits"] = {g: probe["splits"][g] for g in GROUPS}
    for style in STYLES:
        if style != "canonical" and "scripted-index" in libs:
            lib = libs["scripted-index"].copy()
            restyle(lib, style, spouse)
            libs[f"restyled:{style}"] = lib
    reader = make_agent(args.reader)
    env_config = KBGymConfig(m=args.m)
    rows = {"B1": examine_probe(u, Library.from_universe(u), reader, probe, env_config),
            "prior": examine_prior(u, probe)}
    metrics = {}
    for name, lib in libs.items():
        rows[name] = examine_probe(u, lib, reader, probe, env_config)
        metrics[name] = library_metrics(lib, u)
    return rows, probe, metrics


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--per-group", type=int, default=100)
    ap.add_argument("--m", type=int, default=15, help="the exam budget M")
    ap.add_argument("--reader", default="scripted-reader")
    ap.add_argument("--curators", default=",".join(ZOO))
    ap.add_argument("--resamples", type=int, default=5000)
    ap.add_argument("--out", default="runs/zoo")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    curators = args.curators.split(",")
    if curators[0] != "scripted-index" and "scripted-index" in curators:
        curators.remove("scripted-index")
        curators.insert(0, "scripted-index")
    out = Path(args.out)
    t0 = time.perf_counter()

    pooled_rows: dict[str, list] = {}
    pooled_probe = {"seed": 0, "splits": {g: [] for g in GROUPS}}
    per_seed: dict[str, list] = {}
    all_metrics: dict[str, list] = {}
    for seed in seeds:
        rows, probe, metrics = run_seed(seed, args, curators, out)
        for g in GROUPS:
            pooled_probe["splits"][g] += [f"{seed}:{gid}" for gid in probe["splits"][g]]
        for arm, rs in rows.items():
            pooled_rows.setdefault(arm, []).extend(
                {**r, "qid": f"{seed}:{r['qid']}"} for r in rs if r["split"] in GROUPS)
        table = probe_table(rows, probe, seed=seed, resamples=1000)
        for arm in rows:
            per_seed.setdefault(arm, []).append(table["groups"])
        for arm, m in metrics.items():
            all_metrics.setdefault(arm, []).append(m)
        print(f"seed {seed} done ({time.perf_counter() - t0:.0f}s)", flush=True)

    table = probe_table(pooled_rows, pooled_probe, resamples=args.resamples)
    (out / "zoo_table.json").write_text(json.dumps({"table": table, "metrics": all_metrics},
                                                   indent=1))
    print(f"\nreader {args.reader}, M = {args.m}, seeds {args.seeds}, n = {args.per_group} per "
          f"group per seed (pooled: {len(seeds) * args.per_group}); rho (pooled 95% CI) "
          "mark, F1 and its change vs B1; stars = seeds starred; nav = rho_nav, the ideal "
          "navigator's (docs/protocol.md §12.6), and the share of its saving the reader took")
    head = f"{'arm':26s}" + "".join(f"{g:>50s}" for g in GROUPS)
    print(head + "   prec   rec   cov  false")
    for arm in pooled_rows:
        cells = []
        for g in GROUPS:
            c = table["groups"][g]["all"][arm]
            stars = sum(s[g]["all"][arm]["star"] for s in per_seed[arm])
            nav = "nav -" if c.get("rho_nav") is None else f"nav {c['rho_nav']:.3f}"
            share = (c.get("blind_spot") or {}).get("share")
            nav += f" {share:5.2f}" if share is not None else "     -"
            nav += "!" if (c.get("blind_spot") or {}).get("flagged") else " "
            cells.append(f"{c['rho']:.3f}{mark(c):3s}[{c['ci'][0]:.2f},{c['ci'][1]:.2f}] "
                         f"F1 {c['f1']:.2f}{c['f1_diff']:+.2f} {stars}/{len(seeds)} {nav}")
        m = all_metrics.get(arm)
        tail = ""
        if m:
            def avg(k):
                xs = [x[k] for x in m if x[k] is not None]
                return statistics.fmean(xs) if xs else float("nan")
            tail = (f"  {avg('precision'):.3f} {avg('recall'):.3f} {avg('index_coverage'):.3f} "
                    f"{avg('false_statements'):6.1f}")
        print(f"{arm:26s}" + "".join(f"{x:>33s}" for x in cells) + tail)
    if has_nav(table):  # "!" above: flagged
        print("\n" + format_blind_spots(table))
    print(f"\ntotal {time.perf_counter() - t0:.0f}s; table and metrics in {out / 'zoo_table.json'}")


if __name__ == "__main__":
    main()
