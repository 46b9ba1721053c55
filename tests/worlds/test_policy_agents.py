"""The policies world's scripted agents: the reader is exact on every class when the budget
allows, the evidence graph and trained indexes save it steps, and the instrument's fairness
properties hold (truthful notes never cost F1; a note promises only what its links show; the
same links earn the same credit whatever else the text says)."""

from __future__ import annotations

import statistics

import pytest

from kbgym.baselines import build_baseline
from kbgym.env.config import KBGymConfig
from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.plugins import make_agent
from kbgym.runs.exam import examine
from kbgym.runs.gradient import examine_probe
from kbgym.runs.train import TrainConfig, train
from kbgym.runs.probe import make_probe_from_run
from kbgym.worlds.policies import ledger_of
from kbgym.worlds.policies import grammar as S
from kbgym.worlds.policies.documents import render_entry

WIDE = KBGymConfig.make(m=40)
EVIDENCE = KBGymConfig.make(m=40, toolset="evidence", typed_links=True)


def exam(u, lib, reader="scripted-policy-reader", cfg=WIDE, qs=None, **kw):
    qs = qs or {q.qid: q for q in u.questions}
    return examine(u, lib, make_agent(reader), cfg, split="all", questions=qs,
                   splits={"all": list(qs)}, **kw)


def by_q(rows):
    return {r["qid"]: (r["f1"], r["steps"], r["answer"]) for r in rows}


@pytest.fixture(scope="module")
def trained(small, tmp_path_factory):
    out = tmp_path_factory.mktemp("policy-train")
    agent = make_agent("scripted-policy-index")
    train(small, agent, out, config=TrainConfig(epochs=2, train_size=40, snapshot_every=1000))
    lib, _ = load_snapshot(out / "kb_epoch_2.json")
    return lib, out, agent.curator.stats


@pytest.mark.parametrize("reader,cfg", [("scripted-policy-reader", WIDE),
                                        ("scripted-policy-reader-evidence", EVIDENCE)])
def test_reader_is_exact_on_every_class(small, reader, cfg):
    rows = exam(small, Library.from_universe(small), reader, cfg)
    assert all(r["f1"] == 1.0 for r in rows), [r for r in rows if r["f1"] < 1][:3]
    assert {r["template"] for r in rows} >= {"pl_affected", "pl_effective", "pl_contradiction"}


def test_evidence_graph_is_deterministic_and_saves_steps(small):
    g1, meta = build_baseline("evidence", small)
    g2, _ = build_baseline("evidence", small)
    assert g1.snapshot() == g2.snapshot() and meta["nodes_added"] > 0
    types = {t for n in g1 for t in n.link_types.values()}
    assert {"cites", "related", "amends", "refers_to", "supersedes", "member_of"} <= types
    b1 = exam(small, Library.from_universe(small), "scripted-policy-reader-evidence", EVIDENCE)
    ev = exam(small, g1, "scripted-policy-reader-evidence", EVIDENCE)
    assert all(r["f1"] == 1.0 for r in ev)
    conn = [i for i, r in enumerate(b1) if r["category"] in ("PL_AFFECTED", "PL_EFFECTIVE")]
    assert sum(ev[i]["steps"] for i in conn) < sum(b1[i]["steps"] for i in conn)
    # the graph's edges are what the notes' references say: a referring note links the topic
    # of what it refers to, typed by its sentence
    for n in g1:
        st = S.parse_sentence(n.text)
        if st is None or not st.references:
            continue
        ltype, target = st.references[0]
        topic = [t for t in n.links if g1[t].text == S.subject_title(target)]
        assert topic and n.link_types[topic[0]] == ltype, n.text


def test_trained_indexes_save_steps_on_trained_keys(small, trained):
    lib, run, stats = trained
    assert stats["added"] > 5 and stats["unverified"] == 0
    probe = make_probe_from_run(small, run, per_group=20)
    cfg = KBGymConfig.make(m=3)
    b1 = examine_probe(small, Library.from_universe(small), make_agent("scripted-policy-reader"),
                       probe, cfg)
    tr = examine_probe(small, lib, make_agent("scripted-policy-reader"), probe, cfg)
    f1 = lambda rows, g: statistics.fmean(r["f1"] for r in rows if r["split"] == g)  # noqa
    assert f1(tr, "exact") > f1(b1, "exact")
    assert all(r["f1"] == 1.0 for r in exam(small, lib))  # and never costs F1 at a wide budget


def _restyle(lib, styles):
    other = lib.copy()
    for i, n in enumerate([n for n in other if n.is_authored]):
        (subject,) = S.subjects_in(n.text)
        name = S.subject_title(subject, "")[1:-1].strip()  # "form HO-3 §I.B" / "Endorsement …"
        other.edit(n.id, styles[i % len(styles)].format(s=name))
    return other


def test_same_links_other_words_same_credit(small, trained):
    """Any wording that names the subject: identical answers and steps under locate (authored
    notes are listed first); under search the same answers, and steps within 3 % (a title's
    words move it on the subject's search page, as in the people world)."""
    lib, _, _ = trained
    cfg = KBGymConfig.make(m=3, toolset="evidence")
    restyled = _restyle(lib, ("Dossier: {s}", "Everything about {s}, collected in one place",
                              "{s}"))
    assert by_q(exam(small, lib, "scripted-policy-reader-evidence", cfg)) == by_q(
        exam(small, restyled, "scripted-policy-reader-evidence", cfg))
    short = _restyle(lib, ("Dossier: {s}", "{s}"))
    canon, other = exam(small, lib), exam(small, short)
    assert [r["f1"] for r in canon] == [r["f1"] for r in other]
    steps = [sum(r["steps"] for r in rows) for rows in (canon, other)]
    assert abs(steps[1] - steps[0]) <= 0.03 * steps[0]


def test_truthful_notes_never_cost_f1(small):
    lib = Library.from_universe(small)
    ledger = ledger_of(small)
    import random

    rng = random.Random(7)
    for n in list(lib)[::3]:  # a third of the facts restated by a curator, in other voices
        lib.add(render_entry(ledger, ledger.entry[small.node(n.id).fact.object], rng),
                dedup=False)
    assert all(r["f1"] == 1.0 for r in exam(small, lib))


def _dossier(u, p):
    """The notes about provision ``p`` by the ledger (indirect references included) and the
    headers of its form (which resolve the indirect ones)."""
    ledger = ledger_of(u)
    form = p.split(" §")[0]
    return [n.id for n in u.nodes
            if ledger.entry[n.fact.object].provision == p
            or (ledger.entry[n.fact.object].kind == "issued" and n.fact.subject == form)]


def test_a_note_promises_only_what_its_links_show(small):
    ledger = ledger_of(small)
    affected = [q for q in small.questions if q.template == "pl_affected"]
    lib = Library.from_universe(small)
    for q in affected:
        p = q.keys[0].split(":", 1)[1]
        idx = lib.add(S.subject_title(p, "Index of"), dedup=False).id
        lib.link_many(idx, _dossier(small, p))  # the dossier only, no dependency chain
    rows = exam(small, lib, qs={q.qid: q for q in affected})
    assert all(r["f1"] == 1.0 for r in rows)  # not taken as covering the chain
    # ... but its links are taken at their word for the provision itself: a dossier index
    # that leaves out one dependent costs exactly the questions that need it
    depends = [q for q in small.questions if q.template == "pl_depends"
               and "," in q.golds[0]][:5]
    lib2 = Library.from_universe(small)
    for q in depends:
        p = q.keys[0].split(":", 1)[1]
        own = _dossier(small, p)
        drop = next(n for n in own if ledger.entry[small.node(n).fact.object].kind in
                    ("refers", "amends", "replaces", "states"))
        drop_doc = small.node(drop).fact.subject
        keep = [n for n in own if small.node(n).fact.subject != drop_doc]
        idx = lib2.add(S.subject_title(p, "Index of"), dedup=False).id
        lib2.link_many(idx, keep)
    rows = exam(small, lib2, qs={q.qid: q for q in depends})
    assert all(r["f1"] < 1.0 for r in rows)


def test_seeded_tie_break_is_reproducible(small):
    lib, _ = build_baseline("evidence", small)
    qs = {q.qid: q for q in small.questions if q.template == "pl_affected"}
    a = exam(small, lib, "scripted-policy-reader-evidence", KBGymConfig.make(
        m=6, toolset="evidence", typed_links=True), qs=qs, repeats=3, seed=5)
    b = exam(small, lib, "scripted-policy-reader-evidence", KBGymConfig.make(
        m=6, toolset="evidence", typed_links=True), qs=qs, repeats=3, seed=5)
    assert [r["evidence"] for r in a] == [r["evidence"] for r in b]


def test_typed_curator_links_references_by_type(small, tmp_path):
    agent = make_agent("scripted-policy-index-typed")
    train(small, agent, tmp_path, config=TrainConfig(epochs=1, train_size=30,
                                                     snapshot_every=1000),
          env_config=KBGymConfig.make(typed_links=True))
    lib, _ = load_snapshot(tmp_path / "kb_epoch_1.json")
    types = [t for n in lib for t in n.link_types.values()]
    assert "cites" in types and set(types) - {"cites"}
    assert agent.curator.stats["typed"] > 0
