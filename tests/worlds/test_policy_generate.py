"""The policies generator: a pure function of (config, seed), golden hashes, every note a
rendering of exactly its ledger fact, and the drift of a policies universe."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from kbgym.errors import ConfigError
from kbgym.library.graph import Library
from kbgym.types import Universe
from kbgym.worlds import world, world_of
from kbgym.worlds.policies import PolicyConfig, generate, ledger_of
from kbgym.worlds.policies import grammar as S
from kbgym.worlds.policies.drift import drift
from kbgym.worlds.policies.questions import TEMPLATES

#: Regenerate with ``kbgym build --world policies`` (default) and ``kbgym build --world
#: policies --documents 40 --sections 8 --train 40 --test-in 30 --test-out 10 --eval-in 6
#: --eval-out 4`` (the small one); they move only when the generator's output does.
GOLDEN_DEFAULT = "sha256:eb21994a6d2b58dd30160813223b8b082461b8235916a3eaa82ed0797d0e806d"
GOLDEN_SMALL = "sha256:c4f016546a99eb6ee2a913bf73b872129f056fade77a7b5c601e213d917d4a9a"


def test_golden_hashes(small, default_universe):
    assert small.hash == GOLDEN_SMALL
    assert default_universe.hash == GOLDEN_DEFAULT


def test_determinism(small):
    cfg = PolicyConfig(**json.loads(json.dumps(small.meta["config"])))
    again = generate(cfg)
    assert again.dumps() == small.dumps()
    assert generate(PolicyConfig(**{**small.meta["config"], "seed": 1})).hash != small.hash
    loaded = Universe.from_json(json.loads(small.dumps()))
    assert loaded == small and loaded.hash == small.hash


def test_the_default_library(default_universe):
    ledger = ledger_of(default_universe)
    kinds = Counter(d.kind for d in ledger.documents)
    assert len(ledger.documents) == 100 and 800 <= len(ledger.entries) <= 1100
    assert set(kinds) == {"form", "endorsement", "state_form", "bulletin", "guideline",
                          "manual", "memo", "glossary", "training"}
    assert {q.template for q in default_universe.questions} == {t.name for t in TEMPLATES}
    assert world_of(default_universe).name == "policies"


def test_every_note_states_exactly_its_fact(small):
    ledger = ledger_of(small)
    voices = Counter()
    titles = {d.title: d.code for d in ledger.documents if d.title}
    sections = {(p.form, p.concept): p.section for p in ledger.provisions.values()}
    for node in small.nodes:
        e = ledger.entry[node.fact.object]
        st = S.resolve(S.parse_sentence(node.text), titles, sections)
        assert st is not None, node.text
        assert (st.kind, st.doc, st.concept, st.value, st.section, st.edition, st.state,
                st.target, st.date) == (e.kind, e.doc, e.concept, e.value, e.section,
                                        e.edition, e.state, e.target, e.date), node.text
        assert (node.fact.kind, node.fact.subject) == (e.kind, e.doc)
        voices[st.form_name] += 1
    # several voices of the same facts, and values in words as well as digits
    assert len(voices) >= 24 and voices.keys() >= S.TITLE_FORMS
    assert any("thousand dollars" in n.text for n in small.nodes)
    assert any(S.CONCEPT_BY_ID["water_backup"].synonyms[0] in n.text
               or any(c.synonyms[0] in n.text for c in S.CONCEPTS) for n in small.nodes)


def test_support_and_keys_are_exact(small):
    ids = {n.id for n in small.nodes}
    for q in small.questions:
        assert set(q.support) <= ids and list(q.support) == sorted(q.support,
                                                                   key=lambda x: int(x[1:]))
        assert q.keys == tuple(sorted(q.keys)) and q.keys
        named = S.subjects_in(q.text)
        for k in q.keys:  # a key is a subject the question names (or its state)
            kind, _, value = k.partition(":")
            assert kind in ("provision", "document", "series", "state")
            assert value in named if kind != "state" else value in q.text


def test_bad_config_is_one_line():
    with pytest.raises(ConfigError, match="policies: documents"):
        PolicyConfig(documents=3)
    with pytest.raises(ConfigError, match="unknown world"):
        world("planets")


# -- drift --------------------------------------------------------------------------------

def test_drift_supersedes_and_reanswers(small):
    u2 = drift(small, 8, seed=3)
    assert drift(small, 8, seed=3).dumps() == u2.dumps()
    d = u2.meta["drift"]
    assert d["parent_hash"] == small.hash and len(d["events"]) == 8
    ids = {n.id for n in u2.nodes}
    old_ids = {n.id for n in small.nodes}
    assert old_ids < ids  # outdated notes stay
    for new, old in d["supersedes"].items():
        assert new in ids - old_ids and old in ids
    # questions are re-answered from the new ledger: the checker's truth moved with it
    drifted = set(d["questions"]["drifted"])
    assert drifted and all(u2.question(q).golds != tuple(d["old_golds"][q]) for q in drifted)
    for q in d["questions"]["unchanged"]:
        assert u2.question(q).golds == small.question(q).golds
    # every new note is a sentence of the world, stating its new ledger fact
    ledger = ledger_of(u2)
    for n in u2.nodes:
        if n.id not in old_ids:
            st = S.parse_sentence(n.text)
            assert st is not None and st.kind == ledger.entry[n.fact.object].kind
    lib = Library.from_universe(u2, typed_links=True)
    assert lib.superseded and all(t in lib for t in lib.superseded)
    with pytest.raises(ConfigError):
        world("policies").drift(small, -1)
