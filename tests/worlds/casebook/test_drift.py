"""Casebook drift edits documents in place (only the paragraphs stating an edited value change)
and issues new endorsements after the old paragraphs; golds of version 2 pass the checker;
staleness by hash flags the claims on edited paragraphs and nothing else."""

from __future__ import annotations

from kbgym.library import Library
from kbgym.worlds.casebook.drift import drift
from kbgym_agents.scripted.casebook import build_wiki, compile_pages, stale_claims


def test_drift_rewrites_only_the_edited_paragraphs(casebook, load_script):
    u = casebook(0)
    v = drift(u, 6, seed=1)
    info = v.meta["casebook_drift"]
    old = {n.id: n.text for n in u.nodes}
    new = {n.id: n.text for n in v.nodes}
    changed = {k for k in old if new[k] != old[k]}
    assert changed == set(info["edited_paragraphs"]) and changed
    assert len(new) > len(old) and info["new_documents"]
    assert v.dumps() == drift(u, 6, seed=1).dumps()
    _, _, bad = load_script("scripts/experiments/casebook_gold_check.py").check(v)
    assert bad == []


def test_hash_staleness_on_a_drifted_library(casebook):
    u = casebook(0)
    v = drift(u, 6, seed=1)
    pages = compile_pages([(n.id, n.text) for n in u.nodes])
    lib = Library.from_universe(v)
    claims = build_wiki(lib, pages, typed=False)["sources"]
    edited = set(v.meta["casebook_drift"]["edited_paragraphs"])
    assert set(stale_claims(lib, claims)) == {c for c, srcs in claims.items() if edited & set(srcs)}


def test_the_verifying_graph_reader_drops_stale_claims(casebook):
    from kbgym.env import KBGymConfig
    from kbgym.runs.exam import Examiner
    from kbgym.worlds.casebook.questions import CONNECTED
    from kbgym_agents.scripted.casebook import GraphReader, VerifyingGraphReader

    u = casebook(0)
    v = drift(u, 12, seed=2)
    lib = Library.from_universe(v, typed_links=True)
    build_wiki(lib, compile_pages([(n.id, n.text) for n in u.nodes]), typed=True)
    qs = [q for q in v.questions if q.template in CONNECTED]
    ex = Examiner(v, qs, KBGymConfig(toolset="evidence", typed_links=True), library=lib,
                  navigate=False)
    plain = {q.qid: ex.run(GraphReader(), q.qid)[0]["f1"] for q in qs}
    reader = VerifyingGraphReader()
    checked, dropped = {}, 0
    for q in qs:
        checked[q.qid] = ex.run(reader, q.qid)[0]["f1"]
        dropped += len(reader.stale)
    ex.close()
    assert dropped > 0
    assert sum(checked.values()) > sum(plain.values())
