"""Notes that link back from a set's members, and pairwise notes: does the exam reader pay for
them where the navigator does not (issue 34: "notes linking back from members; pairwise
notes: share2 ρ 1.14-1.23, navigator 1.02-1.04")?

    python scripts/experiments/back_notes.py [--seeds 0,1,2] [--per-group 100] [--out DIR]
        [--variants base,pairwise,...]

Per seed: the default universe, the canonical run (``scripted-index``, train[:100] x 2
epochs, reused from ``DIR/seedN/scripted-index`` when ``examiner_audit.py --out DIR`` wrote
it) for the probe (exact and share2, n per group) and B1's exam. Each variant is the
canonical library plus, for every friends and children index it holds (the sets the claim
reader reads in its notes' text) and every member of that set:

- ``pairwise``: ``X and A are friends.`` linking the pair's statements;
- ``back-*``: a note for the member linking the index and the member's statements, worded
  as a user's curator might: ``A: listed in Friends of X.`` (``back-listed``), ``A - see
  also: Friends of X.`` (``back-see``), a markdown card (``back-markdown``), a JSON record
  ``{"name": A, "member_of": "friends of X"}`` (``back-json``), ``A is one of the people in
  X's friends list.`` (``back-prose``);
- ``back-links``: each member statement linking the index (links on originals).

All are truthful: every note states only true facts and links only true members. Prints per
seed and variant the notes (or links) added, ρ and ρ_nav against B1 on exact and share2, and
the questions answered below B1's F1; then per variant the medians over the seeds.
"""

from __future__ import annotations

from pathlib import Path

from kbgym.claims import people_vocabulary, read_claims
from kbgym.env.config import KBGymConfig
from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.plugins import make_agent
from kbgym.runs.gradient import examine_probe
from kbgym.worlds.people import UniverseConfig, generate
from kbgym_agents.zoo.generated import Truth
from unmarked_parts import (  # (scripts/experiments: the script's own folder)
    canonical_probe, cells_text, rho_cells, variant_args)

GROUPS = ("exact", "share2")
#: A member's note linking back to its set, per wording: (member, Relation, relation, key).
BACK = {
    "back-listed": lambda a, R, r, x: f"{a}: listed in {R} of {x}.",
    "back-see": lambda a, R, r, x: f"{a} - see also: {R} of {x}.",
    "back-markdown": lambda a, R, r, x: f"## {a}\n- Listed in: [[{R} of {x}]]",
    "back-json": lambda a, R, r, x: '{"name": "%s", "member_of": "%s of %s"}' % (a, r, x),
    "back-prose": lambda a, R, r, x: f"{a} is one of the people in {x}'s {r} list.",
}
VARIANTS = ("base", "pairwise", *BACK, "back-links")


def indexes(lib: Library, vocab) -> list[tuple[str, str, str]]:
    """(note id, relation, key) of every authored note naming a friends or children set."""
    out = []
    for node in lib:
        if node.is_authored:
            for k in read_claims(node.text, vocab).keys:
                if k.relation in ("friends", "children"):
                    out.append((node.id, k.relation, k.entity))
    return out


def variant(lib: Library, name: str, truth: Truth, vocab) -> int:
    """Add ``name``'s notes (or links) to ``lib`` in place; how many."""
    if name == "base":
        return 0
    added = 0
    for nid, rel, key in indexes(lib, vocab):
        for member, nids in sorted(truth.members(rel, key).items()):
            if name == "pairwise":
                word = "are friends" if rel == "friends" else "are parent and child"
                new = lib.add(f"{key} and {member} {word}.").id
                lib.link_many(new, nids)
            elif name in BACK:
                new = lib.add(BACK[name](member, rel.capitalize(), rel, key)).id
                lib.link_many(new, [nid, *nids])
            elif name == "back-links":
                for statement in nids:
                    lib.link(statement, nid)
                    added += 1
                continue
            added += 1
    return added


def main() -> None:
    args, names = variant_args(__doc__, VARIANTS, "runs/back_notes")
    out = Path(args.out)
    cfg = KBGymConfig(m=15)
    got: dict[str, list[dict]] = {n: [] for n in names}
    print(f"{'seed':>4s} {'variant':14s} {'added':>5s}" + "".join(
        f"  {g + ' rho / nav':>18s}" for g in GROUPS) + "  lost")
    for seed in (int(s) for s in args.seeds.split(",")):
        u = generate(UniverseConfig(seed=seed))
        vocab = people_vocabulary(u)
        truth = Truth(u)
        run, probe = canonical_probe(u, seed, out, args.per_group, GROUPS)
        b1 = {r["qid"]: r for r in examine_probe(u, Library.from_universe(u),
                                                 make_agent("scripted-reader"), probe, cfg)}
        for name in names:
            lib = load_snapshot(run / "kb_epoch_2.json")[0]
            added = variant(lib, name, truth, vocab)
            rows = examine_probe(u, lib, make_agent("scripted-reader"), probe, cfg)
            cells = rho_cells(rows, b1, GROUPS)
            got[name].append(cells)
            print(f"{seed:4d} {name:14s} {added:5d}" + cells_text([cells], GROUPS)
                  + f"  {cells['lost']:4d}", flush=True)
    print("\nmedians over the seeds:")
    for name in names:
        rows = got[name]
        print(f"     {name:14s}      " + cells_text(rows, GROUPS)
              + f"  {sum(c['lost'] for c in rows):4d}")


if __name__ == "__main__":
    main()
