"""The examiner audits itself: generated libraries, the reader's rho next to the ideal
navigator's, truthful libraries that lose F1, harmful ones nobody flags (issue 18).

    python scripts/experiments/examiner_audit.py [--seeds 0,1,2] [--libraries 20]
                                  [--per-group 100] [--m 15] [--resamples 2000] [--out DIR]
                                  [--reuse]

Seeds may run in separate processes (``--seeds 3 --out DIR`` each, writing DIR/seed3/arms.json),
then one report over all of them: ``--seeds 0,1,2,3,4 --out DIR --reuse``.

Per seed: the default universe (500 people); the canonical library (``scripted-index``
trained on train[:100] x 2 epochs, which also makes the probe: n per group of exact, share2,
share1, share0); B1; and ``--libraries`` libraries of :func:`kbgym_agents.zoo.generated.
generate_libraries` over the keys of the same 100 training questions (random mixes of index
shapes, text forms, harms and noise). Every arm is examined by ``scripted-reader`` on the
probe; every exam row carries the ideal navigator's steps and F1 (docs/protocol.md §12.6).

It prints one line per library (rho per group with its mark, rho_nav, false statements by the
misinformation metric, whether it is flagged), then:

- per group, Spearman(rho_reader, rho_nav) over every arm of every seed (B1 and the canonical
  library included); the same with the reader's wrong answers priced at M; and priced over
  the arms without chains on originals (the reader's documented blind spot), and over those
  of them that do not harm (harm is judged by F1↓);
- truthful libraries with an F1 loss (F1↓ on some group): must be 0;
- harmful libraries flagged neither by F1↓ nor by the misinformation metric (a false
  statement or an incomplete set): must be 0; truthful libraries with an incomplete set: 0;
- noisy libraries (stray links) with an F1 loss;
- the canonical library pooled over the seeds: rho with its CI, rho_nav, the share of the
  navigator's saving the reader captured;
- per shape and text form, the mean share captured on the libraries that have it (where the
  reader still leaves steps on the table), and every blind-spot line the probe table raised;
- wall times of each stage.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from operator import itemgetter
from pathlib import Path

from kbgym.env.config import KBGymConfig
from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.metrics.misinformation import misinformation
from kbgym.plugins import make_agent
from kbgym.runs.gradient import examine_probe
from kbgym.runs.probe import make_probe_from_run, mark, probe_table
from kbgym.runs.train import TrainConfig, train
from kbgym.seeding import stream
from kbgym.worlds.people import UniverseConfig, generate
from kbgym_agents.zoo.generated import generate_libraries

GROUPS = ("exact", "share2", "share1", "share0")


def ranks(xs: list[float]) -> list[float]:
    """Average ranks (1-based), ties sharing the mean of their positions."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(xs: list[float], ys: list[float]) -> float | None:
    """Spearman's rank correlation (Pearson's on average ranks); None when undefined."""
    if len(xs) < 3:
        return None
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else None


def ratio(steps: dict, base: dict, qids, cost) -> float:
    """An arm's ratio to B1 over ``qids``: Σ cost(arm row) / Σ cost(B1 row), rows being a
    question's (split, steps, nav_steps, f1)."""
    return sum(cost(steps[q]) for q in qids) / sum(cost(base[q]) for q in qids)


def reliability(arms: list[dict], group: str, key: int, splits: int = 50) -> float | None:
    """Split-half reliability of one measure's ranking of the arms: over ``splits`` random
    halvings of each seed's questions (streams ``metrics/audit-halves/{i}`` of seed 0), the
    median Spearman between the arms' ratios on the two halves, stepped up to the full probe by
    Spearman-Brown (2r / (1 + r); a median r of 0 or less is returned as it is). ``key`` 1
    is the reader's steps, 2 the navigator's.

    Two measures that rank the arms with reliabilities r1 and r2 cannot agree beyond
    sqrt(r1 r2) (the attenuation bound), whatever either gets right."""
    by_seed: dict[int, list[dict]] = defaultdict(list)
    for a in arms:
        by_seed[a["seed"]].append(a)
    rs = []
    for i in range(splits):
        rng = stream(0, f"metrics/audit-halves/{i}")
        xs, ys = [], []
        for seed, group_arms in sorted(by_seed.items()):
            b1 = next(a for a in group_arms if a["name"] == "B1")
            qids = sorted(q for q, v in b1["steps"].items() if v[0] == group)
            if len(qids) < 2 or any(b1["steps"][q][key] is None for q in qids):
                return None
            rng.shuffle(qids)
            halves = (qids[: len(qids) // 2], qids[len(qids) // 2:])
            for a in group_arms:
                xs.append(ratio(a["steps"], b1["steps"], halves[0], itemgetter(key)))
                ys.append(ratio(a["steps"], b1["steps"], halves[1], itemgetter(key)))
        r = spearman(xs, ys)
        if r is not None:
            rs.append(r)
    if not rs:
        return None
    r = statistics.median(rs)
    return 2 * r / (1 + r) if r > 0 else r  # stepped up only when there is something to step


def priced_spearman(arms: list[dict], group: str, m: int) -> float | None:
    """Spearman(rho_reader, rho_nav) with every reader answer below F1 1 counted as ``m``
    steps, in the arm and in B1 alike: the navigator's own price of a failure."""
    def priced(row: tuple) -> float:
        return row[1] if row[3] >= 1.0 else m

    xs, ys = [], []
    b1 = {a["seed"]: a["steps"] for a in arms if a["name"] == "B1"}
    for a in arms:
        qids = [q for q, v in a["steps"].items() if v[0] == group and v[2] is not None]
        if qids:
            xs.append(ratio(a["steps"], b1[a["seed"]], qids, priced))
            ys.append(ratio(a["steps"], b1[a["seed"]], qids, itemgetter(2)))
    return spearman(xs, ys)


def run_seed(seed: int, args, out: Path, times: dict) -> list[dict]:
    """Every arm of one seed: its per-group cells, kind and misinformation count."""
    t0 = time.perf_counter()
    u = generate(UniverseConfig(seed=seed))
    run = out / f"seed{seed}" / "scripted-index"
    if not (run / "kb_epoch_2.json").exists():
        train(u, make_agent("scripted-index", offered={"seed": seed}), run,
              config=TrainConfig(epochs=2, train_size=100, snapshot_every=1000),
              overwrite=True)  # an interrupted run of this script is redone
    canonical, _ = load_snapshot(run / "kb_epoch_2.json")
    probe = make_probe_from_run(u, run, per_group=args.per_group, seed=seed)
    probe["splits"] = {g: probe["splits"][g] for g in GROUPS}
    times["train+probe"] += time.perf_counter() - t0

    t0 = time.perf_counter()
    trained = u.split("train")[:100]
    generated = generate_libraries(u, seed, args.libraries, questions=trained, twins=True)
    times["generate"] += time.perf_counter() - t0

    t0 = time.perf_counter()
    reader = make_agent(args.reader)
    cfg = KBGymConfig(m=args.m)
    arms = {"B1": (Library.from_universe(u), {"kind": "B1"}),
            "scripted-index": (canonical, {"kind": "canonical"})}
    for g in generated:
        kind = "harmful" if g.harms else ("noisy" if g.noise else "truthful")
        meta = {"kind": kind, "shapes": g.shapes, "forms": g.text_forms, "harms": g.harms,
                "noise": g.noise, "rendering": g.rendering}
        arms[g.name] = (g.library, meta)
        if g.twin is not None:  # the same links under the canonical short titles
            arms[g.name + "~short"] = (g.twin, {**meta, "rendering": "short", "forms": (),
                                                "of": g.name})
    rows = {name: examine_probe(u, lib, reader, probe, cfg) for name, (lib, _) in arms.items()}
    times["examine"] += time.perf_counter() - t0

    t0 = time.perf_counter()
    table = probe_table(rows, probe, seed=seed, resamples=args.resamples)
    b1 = {r["qid"]: r for r in rows["B1"]}
    out_rows = []
    for name, (lib, meta) in arms.items():
        cells = {g: table["groups"][g]["all"][name] for g in GROUPS}
        lost = sum(1 for r in rows[name] if r["f1"] < b1[r["qid"]]["f1"])
        mis = misinformation(lib, u) if name != "B1" else {}
        out_rows.append({"seed": seed, "name": name, **meta, "cells": cells, "lost": lost,
                         "false": mis.get("false_statements", 0),
                         "wrong": mis.get("wrong_members", 0),
                         "partial": mis.get("incomplete_sets", 0),
                         "rows": rows[name] if name in ("B1", "scripted-index") else None,
                         "steps": {r["qid"]: (r["split"], r["steps"], r.get("nav_steps"),
                                              r["f1"]) for r in rows[name]}})
    times["table"] += time.perf_counter() - t0
    return out_rows


def within_target(d: float, d_nav: float, tol: float = 0.03) -> bool:
    """Issue 34: a rendering moves the reader's rho by ``d`` against the same links under short
    titles, and the navigator's by ``d_nav``. Within target when ``d`` is within ``tol`` of 0,
    or the navigator moves the same way: ``d`` is within ``tol`` of the span from 0 to
    ``d_nav`` (the rendering really changes what the library offers, and the reader moves no
    further than the navigator). A reader that moves further than the navigator, or the other
    way, is not."""
    lo, hi = min(0.0, d_nav), max(0.0, d_nav)
    return max(lo - d, d - hi, 0.0) <= tol + 1e-12


def rendering_block(arms: list[dict]) -> dict:
    """Per rendering, over the truthful libraries written in it: exact and share2 rho and
    rho_nav against the same links under the canonical short titles (each library's twin),
    mean differences, and whether each group is :func:`within_target`."""
    by_name = {(a["seed"], a["name"]): a for a in arms}
    pairs: dict[str, list[tuple[dict, dict]]] = defaultdict(list)
    for a in arms:
        if a.get("of"):
            pairs[by_name[(a["seed"], a["of"])]["rendering"]].append((by_name[(a["seed"],
                                                                               a["of"])], a))
    print("\nper rendering, truthful libraries against the same links under the canonical "
          "short titles (mean over pairs; d = rendering - short):")
    print(f"  {'rendering':12s} {'n':>3s}" + "".join(
        f"  {g + ' rho':>12s} {'d':>6s} {'d_nav':>6s}" for g in ("exact", "share2"))
          + "  within")
    out = {}
    for r in sorted(pairs):
        row = {"n": len(pairs[r])}
        cols = ""
        ok = True
        for g in ("exact", "share2"):
            ds, dn, rs = [], [], []
            for a, tw in pairs[r]:
                ca, ct = a["cells"][g], tw["cells"][g]
                rs.append(ca["rho"])
                ds.append(ca["rho"] - ct["rho"])
                if ca.get("rho_nav") is not None and ct.get("rho_nav") is not None:
                    dn.append(ca["rho_nav"] - ct["rho_nav"])
            d = statistics.fmean(ds)
            d_nav = statistics.fmean(dn) if dn else 0.0
            ok &= within_target(d, d_nav)
            row[g] = {"rho": statistics.fmean(rs), "d": d, "d_nav": d_nav}
            cols += f"  {statistics.fmean(rs):12.3f} {d:+6.3f} {d_nav:+6.3f}"
        row["within"] = ok
        out[r] = row
        print(f"  {r:12s} {len(pairs[r]):3d}{cols}  {'yes' if ok else 'NO'}")
    return out


def slim(cell: dict) -> dict:
    keys = ("n", "rho", "ci", "f1", "f1_diff", "star", "f1_loss", "rho_nav", "rho_nav_ci",
            "nav_f1", "nav_f1_loss", "blind_spot")
    return {k: cell.get(k) for k in keys}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--libraries", type=int, default=20, help="generated libraries per seed")
    ap.add_argument("--per-group", type=int, default=100)
    ap.add_argument("--m", type=int, default=15, help="the exam budget M")
    ap.add_argument("--reader", default="scripted-reader")
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--out", default="runs/audit")
    ap.add_argument("--reuse", action="store_true",
                    help="read a seed's arms from OUT/seedN/arms.json where an earlier run "
                         "(e.g. one process per seed) wrote them, instead of examining again")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    out = Path(args.out)
    times: dict[str, float] = defaultdict(float)
    t_all = time.perf_counter()
    arms: list[dict] = []
    for seed in seeds:
        saved = out / f"seed{seed}" / "arms.json"
        if args.reuse and saved.exists():  # one seed per process, then one report over all
            for a in json.loads(saved.read_text()):  # JSON lists back to the tuples they were
                arms.append({k: tuple(v) if k in ("shapes", "forms", "harms", "noise") else v
                             for k, v in a.items()})
            print(f"seed {seed} read from {saved}", flush=True)
            continue
        got = run_seed(seed, args, out, times)
        saved.parent.mkdir(parents=True, exist_ok=True)
        saved.write_text(json.dumps(got))
        arms += got
        print(f"seed {seed} done ({time.perf_counter() - t_all:.0f}s)", flush=True)

    def f1_loss(a: dict) -> bool:
        return any(c["f1_loss"] for c in a["cells"].values())

    def flagged(a: dict) -> bool:  # by F1↓ or by the misinformation metric
        return f1_loss(a) or a["false"] > 0 or a["partial"] > 0 or a["wrong"] > 0

    print(f"\nreader {args.reader}, M = {args.m}, seeds {args.seeds}, n = {args.per_group} per "
          "group; per group: rho(mark) / rho_nav; lost = questions below B1's F1; false = "
          "false statements, part = incomplete sets (misinformation metric)")
    print(f"{'arm':18s}{'kind':10s}" + "".join(f"{g:>17s}" for g in GROUPS)
          + f"{'lost':>6s}{'false':>6s}{'part':>5s}{'wrong':>6s}  flag  "
          "rendering | shapes | forms | harms")
    for a in arms:
        cells = "".join(
            f"{c['rho']:7.3f}{mark(c):3s}/{c['rho_nav']:6.3f}" if c.get("rho_nav") is not None
            else f"{c['rho']:7.3f}{mark(c):3s}/{'-':>6s}" for c in a["cells"].values())
        desc = a.get("rendering", "") + " | " + " ".join(a.get("shapes", ())) + " | " \
            + " ".join(a.get("forms", ())) + " | " \
            + " ".join(a.get("harms", ()) + a.get("noise", ()))
        print(f"{a['name']:18s}{a['kind']:10s}{cells}{a['lost']:6d}{a['false']:6d}"
              f"{a['partial']:5d}{a['wrong']:6d}  "
              f"{'yes' if flagged(a) else '-':4s}  {desc if a['kind'] not in ('B1', 'canonical') else ''}")

    def fmt(x: float | None) -> str:
        return f"{x:.3f}" if x is not None else "n/a"

    print("\nSpearman(rho_reader, rho_nav) over all arms of all seeds:")
    spear = {}
    for g in GROUPS:
        pts = [(a["cells"][g]["rho"], a["cells"][g]["rho_nav"]) for a in arms
               if a["cells"][g].get("rho_nav") is not None]
        spear[g] = spearman([p[0] for p in pts], [p[1] for p in pts])
        print(f"  {g:8s} {fmt(spear[g])}  ({len(pts)} arms)")

    def priced_block(subset: list[dict], title: str) -> dict:
        print("\n" + title)
        got = {g: priced_spearman(subset, g, args.m) for g in GROUPS}
        for g in GROUPS:
            print(f"  {g:8s} {fmt(got[g])}")
        return got

    priced = priced_block(arms, (
        f"the same with the reader's wrong answers priced as the navigator prices its failures "
        f"(M = {args.m} steps; F1 < 1 is wrong), so that both measures count a fast wrong "
        "answer alike:"))
    plain = [a for a in arms if "chains" not in (a.get("shapes") or ())]
    no_chains = priced_block(plain, (
        f"priced alike, over the {len(plain)} arms without chains on originals (links the "
        "reader finds only by reading an original: its documented blind spot, §9.6 rule 5):"))
    kept = [a for a in plain if a["kind"] != "harmful"]
    unharmed = priced_block(kept, (
        f"priced alike, over the {len(kept)} of those that do not harm (a harmful library is "
        "judged by F1↓; the navigator, knowing the truth, is not misled by a wrong member or a "
        "false statement, so its steps and the reader's measure different things there):"))
    print("\nhow well each measure ranks the arms on its own (split-half reliability, "
          "Spearman-Brown), and the most two such measures can agree (sqrt of the product):")
    rel = {}
    for g in GROUPS:
        r_reader, r_nav = reliability(arms, g, 1), reliability(arms, g, 2)
        ceiling = (r_reader * r_nav) ** 0.5 if r_reader and r_nav and r_reader > 0 \
            and r_nav > 0 else None
        rel[g] = {"reader": r_reader, "nav": r_nav, "ceiling": ceiling}
        print(f"  {g:8s} reader {fmt(r_reader)}  navigator {fmt(r_nav)}  "
              f"ceiling {fmt(ceiling)}  measured {fmt(spear[g])}")
    truthful = [a for a in arms if a["kind"] == "truthful"]
    harmful = [a for a in arms if a["kind"] == "harmful"]
    noisy = [a for a in arms if a["kind"] == "noisy"]
    bad_truth = [a["name"] for a in truthful if f1_loss(a)]
    unflagged = [a["name"] for a in harmful if not flagged(a)]
    print(f"\ntruthful libraries: {len(truthful)}, with F1↓: {len(bad_truth)} {bad_truth}; "
          f"with any question below B1: {sum(1 for a in truthful if a['lost'])}")
    print(f"truthful libraries with incomplete sets (must be 0): "
          f"{sum(1 for a in truthful if a['partial'])} "
          f"{[a['name'] for a in truthful if a['partial']]}")
    print(f"harmful libraries: {len(harmful)}, flagged by F1↓: "
          f"{sum(1 for a in harmful if f1_loss(a))}, by false statements: "
          f"{sum(1 for a in harmful if a['false'])}, by incomplete sets: "
          f"{sum(1 for a in harmful if a['partial'])}, by wrong members: "
          f"{sum(1 for a in harmful if a['wrong'])}, flagged by none: {len(unflagged)} "
          f"{unflagged}")
    print(f"noisy libraries (stray links): {len(noisy)}, with F1↓: "
          f"{sum(1 for a in noisy if f1_loss(a))}")

    # the canonical library, pooled over the seeds
    pooled = {"B1": [], "scripted-index": []}
    pprobe = {"seed": 0, "splits": {g: [] for g in GROUPS}}
    for a in arms:
        if a["rows"] is not None:
            pooled[a["name"]] += [{**r, "qid": f"{a['seed']}:{r['qid']}"} for r in a["rows"]]
            if a["name"] == "B1":
                for r in a["rows"]:
                    pprobe["splits"][r["split"]].append(f"{a['seed']}:{r['qid']}")
    ptable = probe_table(pooled, pprobe, resamples=args.resamples)
    print("\ncanonical scripted-index library, pooled over the seeds:")
    for g in GROUPS:
        c = ptable["groups"][g]["all"]["scripted-index"]
        bs = c.get("blind_spot") or {}
        share = bs.get("share")
        nav = (f"rho_nav {c['rho_nav']:.3f} [{c['rho_nav_ci'][0]:.3f}, {c['rho_nav_ci'][1]:.3f}]"
               if c.get("rho_nav") is not None else "rho_nav n/a")
        print(f"  {g:8s} rho {c['rho']:.3f}{mark(c)} [{c['ci'][0]:.3f}, {c['ci'][1]:.3f}]  {nav}"
              f"  share captured {share:.2f}" if share is not None else
              f"  {g:8s} rho {c['rho']:.3f}{mark(c)} [{c['ci'][0]:.3f}, {c['ci'][1]:.3f}]  {nav}")

    print("\nshare of the navigator's saving the reader captured, mean over the truthful and "
          "noisy libraries with each shape / text form (exact, share2):")
    by_trait: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for a in truthful + noisy:
        shares = []
        for g in ("exact", "share2"):
            bs = a["cells"][g].get("blind_spot") or {}
            shares.append(bs.get("share"))
        for t in a["shapes"] + a["forms"] + (a.get("rendering", "short"),):
            by_trait[t].append(tuple(shares))
    for t in sorted(by_trait):
        vals = by_trait[t]
        cols = []
        for i in range(2):
            xs = [v[i] for v in vals if v[i] is not None]
            cols.append(f"{statistics.fmean(xs):.2f}" if xs else "  - ")
        print(f"  {t:18s} {cols[0]:>6s} {cols[1]:>6s}   ({len(vals)} libraries)")
    renders = rendering_block(arms)
    spots = [(a, g) for a in arms for g in GROUPS
             if (a["cells"][g].get("blind_spot") or {}).get("flagged")]
    chained = [a for a in arms if "chains" in (a.get("shapes") or ()) and a["kind"] != "harmful"]
    unflagged_chains = [a["name"] for a in chained
                        if not any((a["cells"][g].get("blind_spot") or {}).get("flagged")
                                   for g in GROUPS)]
    print(f"\nlibraries with chains on originals that do not harm: {len(chained)}, not flagged "
          f"blind spot on any group: {len(unflagged_chains)} {unflagged_chains}")

    def chain_cells(a):  # the groups whose navigator relies on the chains (CI above 0)
        return {g: bs for g in GROUPS if ((bs := a["cells"][g].get("blind_spot") or {}).get(
            "chain_saving_ci") or [0])[0] > 0}

    relying = {a["name"]: (a, chain_cells(a)) for a in chained if chain_cells(a)}
    chain_blind = [n for n, (_, cells) in relying.items()
                   if any(bs["chain_blind"] for bs in cells.values())]
    relying_unflagged = [
        f"{name} s{a['seed']} (" + ", ".join(
            f"{g}: chains {bs['chain_saving']:+.2f}, navigator {bs['nav_saving']:+.2f}, "
            f"reader {bs['reader_saving']:+.2f}" for g, bs in cells.items()) + ")"
        for name, (a, cells) in relying.items() if name in unflagged_chains]
    print(f"  of those, the navigator relies on its chains (steps saved by them, CI above 0, "
          f"on some group): {len(relying)}; flagged: {len(relying) - len(relying_unflagged)} "
          f"(chain_blind: {len(chain_blind)}); relying and not flagged (the reader's saving "
          f"within half the chains' of the navigator's): {len(relying_unflagged)}")
    for line in relying_unflagged:
        print(f"    {line}")
    print(f"\nblind spots flagged by the probe table: {len(spots)}")
    for a, g in spots:
        bs = a["cells"][g]["blind_spot"]
        share = "-" if bs["share"] is None else f"{bs['share']:.2f}"
        chains = (f", chains {bs['chain_saving']:.2f}" + (" (chain-blind)" if bs["chain_blind"]
                                                          else "")
                  if "chain_saving" in bs else "")
        print(f"  {a['name']:14s} s{a['seed']} {g:8s} navigator saves {bs['nav_saving']:.2f}, reader "
              f"{bs['reader_saving']:.2f} (share {share}){chains}  "
              f"{' '.join(a.get('shapes', ()))} | {' '.join(a.get('forms', ()))}")
    total = time.perf_counter() - t_all
    print("\nwall times: " + ", ".join(f"{k} {v:.0f}s" for k, v in times.items())
          + f", total {total:.0f}s")
    out.mkdir(parents=True, exist_ok=True)
    (out / "audit.json").write_text(json.dumps({
        "args": vars(args), "spearman": spear, "spearman_failures_priced": priced,
        "spearman_priced_without_chains": no_chains,
        "spearman_priced_without_chains_or_harm": unharmed,
        "reliability": rel, "truthful_f1_loss": bad_truth,
        "harmful_unflagged": unflagged, "renderings": renders,
        "chains_not_flagged": unflagged_chains,
        "chains_relied_on": list(relying),
        "chains_relied_on_not_flagged": relying_unflagged,
        "arms": [{k: v for k, v in a.items() if k not in ("rows", "steps")} | {
            "cells": {g: slim(c) for g, c in a["cells"].items()}} for a in arms],
        "canonical_pooled": {g: slim(ptable["groups"][g]["all"]["scripted-index"])
                             for g in GROUPS},
        "times": dict(times, total=total)}, indent=1, default=list))
    (out / "steps.json").write_text(json.dumps(
        [{"seed": a["seed"], "name": a["name"], "kind": a["kind"], "steps": a["steps"]}
         for a in arms]))
    print(f"details in {out / 'audit.json'}, every question's steps in {out / 'steps.json'}")


if __name__ == "__main__":
    main()
