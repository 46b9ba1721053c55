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
