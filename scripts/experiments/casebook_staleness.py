"""Staleness by hash on the casebook world (docs/casebook.md §6): a wiki compiled from version
1 of the documents, a drift that edits values in place and issues new endorsements, and the
claims found stale by comparing the hashes they carry with the paragraphs' current text — no
model call.

    python scripts/experiments/casebook_staleness.py [--seeds 0,1,2] [--changes 20]

Per seed it prints: claims; claims flagged stale (a cited paragraph's hash changed); of those,
repaired (recompiled from the current paragraphs, their pages rewritten, equal to a full
recompile's page); claims wrongly kept (not flagged, yet absent from a full recompile of
version 2); pages changed by the drift none of whose claims was flagged (a new endorsement
amends their provision: no hash a claim carries can show a document that did not exist); and the wiki reader's connected accuracy on version 2's questions with the stale wiki,
the hash-repaired wiki, and a full recompile; and, on the stale wiki with its evidence graph,
the graph reader against the verifying graph reader, which expands the cites edges of the
claims its answer rests on and drops a claim whose paragraphs' hashes changed (staleness found
at read time).
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict

from kbgym.env import KBGymConfig
from kbgym.library import Library
from kbgym.runs.exam import Examiner
from kbgym.worlds.casebook import CasebookConfig, generate
from kbgym.worlds.casebook.drift import drift
from kbgym.worlds.casebook.questions import CONNECTED
from kbgym_agents.scripted.casebook import (
    GraphReader,
    VerifyingGraphReader,
    WikiReader,
    build_wiki,
    compile_pages,
    stale_claims,
)

_SOURCES = re.compile(r" \(sources: [^)]*\)$")


def bare(text: str) -> str:
    """A claim without its sources (what it says)."""
    return _SOURCES.sub("", text)


def accuracy(u, lib, questions, reader=WikiReader, cfg=None) -> tuple[float, float]:
    """(mean F1, mean steps) of ``reader`` on ``questions``."""
    ex = Examiner(u, questions, cfg, library=lib, navigate=False)
    try:
        runs = [ex.run(reader(), q.qid)[0] for q in questions]
    finally:
        ex.close()
    return (sum(r["f1"] for r in runs) / len(runs), sum(r["steps"] for r in runs) / len(runs))


def run(seed: int, changes: int, n_questions: int) -> dict:
    u1 = generate(CasebookConfig(seed=seed))
    u2 = drift(u1, changes, seed)
    pages1 = compile_pages([(n.id, n.text) for n in u1.nodes])
    pages2 = compile_pages([(n.id, n.text) for n in u2.nodes])
    says2 = {p.key: {bare(c.text) for c in p.claims} for p in pages2}
    # the stale wiki on version 2's documents
    lib = Library.from_universe(u2)
    built = build_wiki(lib, pages1, typed=False)
    page_of = {}
    ids = iter(built["sources"])
    for p in pages1:
        for _ in p.claims:
            page_of[next(ids)] = p.key
    flagged = set(stale_claims(lib, built["sources"]))
    text = {cid: lib.get(cid).text for cid in built["sources"]}
    wrongly_kept = [cid for cid in built["sources"] if cid not in flagged
                    and bare(text[cid]) not in says2.get(page_of[cid], set())]
    # repair: recompile the pages holding a flagged claim, from the current paragraphs
    redo = {page_of[c] for c in flagged}
    fixed = {p.key: p for p in compile_pages([(n.id, n.text) for n in u2.nodes], keys=redo)}
    repaired = sum(1 for c in flagged if page_of[c] in fixed and {bare(x.text) for x in
                   fixed[page_of[c]].claims} == says2.get(page_of[c]))
    pages_fixed = [fixed.get(p.key, p) for p in pages1]
    qs = [q for q in u2.questions if q.template in CONNECTED][:n_questions]
    libs = {}
    for name, pages in (("stale", pages1), ("hash-repaired", pages_fixed), ("recompiled", pages2)):
        lib_x = Library.from_universe(u2)
        build_wiki(lib_x, pages, typed=False)
        libs[name] = accuracy(u2, lib_x, qs)[0]
    # the stale wiki with its evidence graph: the graph reader, and the one that checks the
    # hashes of the paragraphs its claims' cites edges reach before answering
    lib_g = Library.from_universe(u2, typed_links=True)
    build_wiki(lib_g, pages1, typed=True)
    ev = KBGymConfig(toolset="evidence", typed_links=True)
    graph = {name: accuracy(u2, lib_g, qs, reader, ev)
             for name, reader in (("graph", GraphReader), ("graph verify", VerifyingGraphReader))}
    changed = {p.key for p in pages1 if {bare(c.text) for c in p.claims}
               != says2.get(p.key, set())}
    pages_changed = len(changed)
    pages_missed = len(changed - redo)
    return {"claims": len(built["sources"]), "stale": len(flagged), "repaired": repaired,
            "wrongly_kept": len(wrongly_kept), "pages_changed": pages_changed,
            "pages_missed": pages_missed,
            "edited_paragraphs": len(u2.meta["casebook_drift"]["edited_paragraphs"]),
            "new_documents": len(u2.meta["casebook_drift"]["new_documents"]),
            "questions": len(qs), **{f"acc {k}": v for k, v in libs.items()},
            **{f"acc stale {k}": v[0] for k, v in graph.items()},
            **{f"steps stale {k}": v[1] for k, v in graph.items()}}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--changes", type=int, default=20)
    ap.add_argument("--questions", type=int, default=120)
    args = ap.parse_args(argv)
    out = defaultdict(list)
    for seed in (int(s) for s in args.seeds.split(",")):
        r = run(seed, args.changes, args.questions)
        for k, v in r.items():
            out[k].append(v)
        print(f"seed {seed}: {r['edited_paragraphs']} paragraphs edited, {r['new_documents']} "
              f"new endorsements; claims {r['claims']}: stale {r['stale']}, repaired "
              f"{r['repaired']}, wrongly kept {r['wrongly_kept']}; pages changed "
              f"{r['pages_changed']}, of which no claim flagged {r['pages_missed']}; wiki reader on {r['questions']} connected questions: stale "
              f"{r['acc stale']:.3f}, hash-repaired {r['acc hash-repaired']:.3f}, recompiled "
              f"{r['acc recompiled']:.3f}; on the stale wiki with its graph: graph reader "
              f"{r['acc stale graph']:.3f} ({r['steps stale graph']:.1f} steps), verifying "
              f"graph reader {r['acc stale graph verify']:.3f} "
              f"({r['steps stale graph verify']:.1f} steps)")
    return dict(out)


if __name__ == "__main__":
    main()
