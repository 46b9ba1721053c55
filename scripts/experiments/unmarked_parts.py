"""Sets written as two notes that do not say they are parts: does the exam reader lose F1 on a
truthful library (issue 34: "parts are one index ... they say they are parts, or link each
other, or share the key in their text")?

    python scripts/experiments/unmarked_parts.py [--seeds 0,1,2,3,4] [--libraries 20]
        [--per-group 100] [--out DIR]

Per seed: the default universe, the canonical run (``scripted-index``, train[:100] x 2
epochs, reused from ``DIR/seedN/scripted-index`` when ``examiner_audit.py --out DIR`` wrote
it) for the probe (exact and share2, n per group), B1's exam, and the truthful libraries among
``--libraries`` of the zoo's ``parts`` rendering (``kbgym_agents.zoo.generated``: every set
note of two members or more written as two notes, each linking half) with their ``(1/2)`` /
``(2/2)`` markers taken out: the halves share the title and nothing says they are halves,
as when a curator appends a second note for a set instead of editing the first.

Each library is examined twice by ``scripted-reader`` in the same run: as it reads today
(notes written for the same set are judged together once read,
``LinkJudgedKnowledge.same_set_notes``) and with that switched off (each judged alone, as
before 2026-12-07). Prints per library the questions answered below B1's F1 and ρ against B1
for both, then the totals.
"""

from __future__ import annotations

import argparse
import re
import statistics
from pathlib import Path

from kbgym.env.config import KBGymConfig
from kbgym.library.graph import Library
from kbgym.plugins import make_agent
from kbgym.runs.gradient import examine_probe
from kbgym.runs.probe import make_probe_from_run
from kbgym.runs.train import TrainConfig, train
from kbgym.worlds.people import UniverseConfig, generate
from kbgym_agents.scripted.knowledge import LinkJudgedKnowledge
from kbgym_agents.zoo.generated import generate_libraries

#: The zoo's part markers (``Friends of X (1/2).``).
MARKER = re.compile(r"\s*\(\d+/\d+\)")


def unmarked(lib: Library) -> int:
    """Take the part markers out of ``lib``'s authored notes (in place); how many notes."""
    n = 0
    for node in list(lib):
        if node.is_authored and MARKER.search(node.text):
            lib.edit(node.id, MARKER.sub("", node.text), dedup=False)
            n += 1
    return n


def canonical_probe(u, seed: int, out: Path, per_group: int,
                    groups: tuple[str, ...] = ("exact", "share2")) -> tuple[Path, dict]:
    """The canonical run of ``seed`` (``scripted-index``, train[:100] x 2 epochs; reused from
    ``out/seedN/scripted-index`` when there) and its probe restricted to ``groups``."""
    run = out / f"seed{seed}" / "scripted-index"
    if not (run / "kb_epoch_2.json").exists():
        train(u, make_agent("scripted-index", offered={"seed": seed}), run,
              config=TrainConfig(epochs=2, train_size=100, snapshot_every=1000),
              overwrite=True)
    probe = make_probe_from_run(u, run, per_group=per_group, seed=seed)
    probe["splits"] = {g: probe["splits"][g] for g in groups}
    return run, probe


def variant_args(doc: str, variants: tuple[str, ...], out: str):
    """The command line of an experiment over named library variants (``--seeds``,
    ``--per-group``, ``--out``, ``--variants``): the arguments and the variants asked for."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--per-group", type=int, default=100)
    ap.add_argument("--out", default=out)
    ap.add_argument("--variants", default=",".join(variants))
    args = ap.parse_args()
    names = args.variants.split(",")
    unknown = sorted(set(names) - set(variants))
    if unknown:
        ap.error(f"unknown variants {unknown}; choose from {', '.join(variants)}")
    return args, names


def rho_cells(rows: list[dict], b1: dict, groups: tuple[str, ...]) -> dict:
    """Of one exam with the navigator: ``lost`` (questions below B1's F1) and, per group,
    (ρ, ρ_nav) against B1's exam ``b1`` (qid -> row)."""
    cells: dict = {"lost": sum(1 for r in rows if r["f1"] < b1[r["qid"]]["f1"])}
    for g in groups:
        rs = [r for r in rows if r["split"] == g and r.get("nav_steps") is not None]
        cells[g] = (sum(r["steps"] for r in rs) / sum(b1[r["qid"]]["steps"] for r in rs),
                    sum(r["nav_steps"] for r in rs) / sum(b1[r["qid"]]["nav_steps"] for r in rs))
    return cells


def cells_text(cells: list[dict], groups: tuple[str, ...]) -> str:
    """``  ρ / ρ_nav`` per group of one exam's :func:`rho_cells` (of several: their medians)."""
    return "".join(f"  {statistics.median(c[g][0] for c in cells):8.3f} / "
                   f"{statistics.median(c[g][1] for c in cells):5.3f}" for g in groups)


def exam(u, lib, probe, b1) -> tuple[int, float]:
    """(questions below B1's F1, ρ = steps / B1's steps) of one exam without the navigator."""
    rows = examine_probe(u, lib, make_agent("scripted-reader"), probe, KBGymConfig(m=15),
                         navigate=False)
    lost = sum(1 for r in rows if r["f1"] < b1[r["qid"]]["f1"])
    return lost, sum(r["steps"] for r in rows) / sum(b1[r["qid"]]["steps"] for r in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--libraries", type=int, default=20)
    ap.add_argument("--per-group", type=int, default=100)
    ap.add_argument("--out", default="runs/unmarked_parts")
    args = ap.parse_args()
    out = Path(args.out)
    totals = {True: [], False: []}
    print("library      halves  lost (together / alone)   rho (together / alone)")
    for seed in (int(s) for s in args.seeds.split(",")):
        u = generate(UniverseConfig(seed=seed))
        _, probe = canonical_probe(u, seed, out, args.per_group)
        b1 = {r["qid"]: r for r in examine_probe(u, Library.from_universe(u),
                                                 make_agent("scripted-reader"), probe,
                                                 KBGymConfig(m=15), navigate=False)}
        for g in generate_libraries(u, seed, args.libraries, questions=u.split("train")[:100],
                                    renderings=("parts",)):
            if g.harms or g.noise:
                continue
            halves = unmarked(g.library)
            if not halves:
                continue
            got = {}
            for together in (True, False):
                LinkJudgedKnowledge.twins = together
                try:
                    got[together] = exam(u, g.library, probe, b1)
                finally:
                    LinkJudgedKnowledge.twins = True
                totals[together].append(got[together])
            print(f"{g.name:12s} {halves:6d}  {got[True][0]:4d} / {got[False][0]:4d}"
                  f"              {got[True][1]:.3f} / {got[False][1]:.3f}", flush=True)
    for together, label in ((True, "judged together (today)"), (False, "each judged alone")):
        rows = totals[together]
        if not rows:
            continue
        print(f"{label}: {len(rows)} libraries, {sum(1 for lost, _ in rows if lost)} with a "
              f"question below B1, {sum(lost for lost, _ in rows)} questions in all; "
              f"median rho {statistics.median(r for _, r in rows):.3f}")


if __name__ == "__main__":
    main()
