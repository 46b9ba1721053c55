"""Notes that record a question with its answer and the statements it rests on: does the exam
treat such a truthful library fairly (issue 34: "notes linking a question and its answer")?

    python scripts/experiments/question_notes.py [--seeds 0,1,2] [--per-group 100] [--out DIR]
        [--variants b1+qa,b1+qa-links,...]

A curator that writes what it learnt after each training question, as a language model
would: ``Q: <question>`` / ``A: <gold>`` / ``Evidence: <the support's sentences>`` (the
library stores it on one line), linked to the support statements. Per seed: the default
universe, the canonical run (``scripted-index``, train[:100] x 2 epochs, reused from
``DIR/seedN/scripted-index``) for the probe (four groups, n per group) and B1's exam. The
variants add one such note per training question (train[:100]) to

- ``b1+qa``: the untouched library (a curator that writes nothing else);
- ``b1+qa-links``: the same, the note's text without the evidence sentences;
- ``index+qa``: the canonical library (a curator that also writes indexes);
- ``b1`` and ``index``: either library alone.

All are truthful: the gold is each question's own, the evidence its own support. Prints per
seed and variant ρ and ρ_nav against B1 per group, the questions answered below B1's F1, and
the misinformation metric's false statements; then per variant the medians over the seeds.
"""

from __future__ import annotations

from pathlib import Path

from kbgym.env.config import KBGymConfig
from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.metrics.misinformation import misinformation
from kbgym.plugins import make_agent
from kbgym.runs.gradient import examine_probe
from kbgym.worlds.people import UniverseConfig, generate
from unmarked_parts import (  # (scripts/experiments: the script's own folder)
    canonical_probe, cells_text, rho_cells, variant_args)

GROUPS = ("exact", "share2", "share1", "share0")
VARIANTS = ("b1", "b1+qa", "b1+qa-links", "index", "index+qa")


def add_question_notes(lib: Library, u, evidence: bool) -> int:
    """One note per training question (train[:100]) in ``lib``, linked to its support."""
    added = 0
    for q in u.split("train")[:100]:
        text = f"Q: {q.text}\nA: {q.golds[0]}"  # (golds: the accepted spellings)
        if evidence:
            text += "\nEvidence: " + " ".join(lib[s].text for s in q.support if s in lib)
        nid = lib.add(text).id
        support = [s for s in q.support if s in lib]
        if support:  # (an unanswerable question's support is empty)
            lib.link_many(nid, support)
        added += 1
    return added


def main() -> None:
    args, names = variant_args(__doc__, VARIANTS, "runs/question_notes")
    out = Path(args.out)
    cfg = KBGymConfig(m=15)
    got: dict[str, list[dict]] = {n: [] for n in names}
    print(f"{'seed':>4s} {'variant':12s}" + "".join(f"  {g + ' rho / nav':>17s}" for g in GROUPS)
          + "  lost  false")
    for seed in (int(s) for s in args.seeds.split(",")):
        u = generate(UniverseConfig(seed=seed))
        run, probe = canonical_probe(u, seed, out, args.per_group, GROUPS)
        b1 = {r["qid"]: r for r in examine_probe(u, Library.from_universe(u),
                                                 make_agent("scripted-reader"), probe, cfg)}
        for name in names:
            base, _, notes = name.partition("+")
            lib = (Library.from_universe(u) if base == "b1"
                   else load_snapshot(run / "kb_epoch_2.json")[0])
            if notes:
                add_question_notes(lib, u, evidence=notes == "qa")
            rows = examine_probe(u, lib, make_agent("scripted-reader"), probe, cfg)
            cells = {**rho_cells(rows, b1, GROUPS),
                     "false": misinformation(lib, u)["false_statements"]}
            got[name].append(cells)
            print(f"{seed:4d} {name:12s}" + cells_text([cells], GROUPS)
                  + f"  {cells['lost']:4d}  {cells['false']:5d}", flush=True)
    print("\nmedians over the seeds (lost and false: totals):")
    for name in names:
        rows = got[name]
        print(f"     {name:12s}" + cells_text(rows, GROUPS)
              + f"  {sum(c['lost'] for c in rows):4d}  {sum(c['false'] for c in rows):5d}")


if __name__ == "__main__":
    main()
