"""Baselines on a generated universe, checked against the hidden facts and people table."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import pytest

from kbgym.baselines import build_baseline, write_baseline
from kbgym.baselines.b3 import entity_text
from kbgym.baselines.extract import Entity
from kbgym.library.graph import Library, id_num
from kbgym.library.snapshot import load_snapshot, snapshot_hash
from kbgym.worlds.people import UniverseConfig, generate

REL = ("married", "child_of", "parent_of", "friend_of")


def about(u):
    """pid -> ids of the statements mentioning that person, from the facts."""
    out = defaultdict(list)
    for n in u.nodes:
        out[n.fact.subject].append(n.id)
        if n.fact.kind in REL:
            out[n.fact.object].append(n.id)
    return out


def authored(lib):
    return [n for n in lib if n.is_authored]


def test_b3_against_facts(small_universe):
    u = small_universe
    lib, meta = build_baseline("b3", u)
    s = lib.stats()
    assert s["index_coverage"] == pytest.approx(1.0)
    assert s["n_links"] > 10 * s["n_nodes"]
    mentions = about(u)
    values = defaultdict(list)
    for n in u.nodes:
        if n.fact.kind in ("job", "hobby", "city"):
            values[(n.fact.kind, n.fact.object)].append(n.id)
    want = {entity_text(Entity("person", p.name)): mentions[p.pid] for p in u.people
            if len(mentions[p.pid]) >= 2}
    want |= {entity_text(Entity(k, v)): ids for (k, v), ids in values.items() if len(ids) >= 2}
    got = {n.text: n.links for n in authored(lib)}
    assert got == want
    assert meta["nodes_added"] == len(want)
    for n in authored(lib):  # every member links back
        assert all(n.id in lib[t].links for t in n.links)
    # synapses: every ordered pair of a person's statements when 2..40 of them
    pairs = {(a, b) for ids in mentions.values() if 2 <= len(ids) <= 40
             for a in ids for b in ids if a != b}
    facts = {(n.id, t) for n in lib if n.is_original for t in n.links if lib[t].is_original}
    assert facts == pairs
    assert meta["links_added"] == len(pairs) + 2 * sum(len(v) for v in want.values())


def test_b4_tree(small_universe):
    u = small_universe
    lib, meta = build_baseline("b4", u)
    assert lib.stats()["index_coverage"] == 1.0
    level1 = {n.id: n for n in authored(lib) if n.text.startswith("Level-1 summary: ")}
    level2 = [n for n in authored(lib) if n.text.startswith("Level-2 summary: ")]
    assert len(level1) + len(level2) == meta["nodes_added"]
    parents = Counter(t for n in level1.values() for t in n.links)
    assert all(parents[n.id] == 1 for n in u.nodes)  # each original under exactly one level-1
    name_of = {p.pid: p.name for p in u.people}
    subj = defaultdict(list)
    for n in u.nodes:
        subj[name_of[n.fact.subject]].append(n.id)
    assert {n.text: n.links for n in level1.values()} == {
        f"Level-1 summary: notes about {name}.": ids for name, ids in subj.items()}
    under = Counter(t for n in level2 for t in n.links)
    assert all(t in level1 for t in under) and max(under.values()) == 1
    assert all(2 <= len(n.links) <= 10 for n in level2)
    for n in level2:
        names = [level1[t].text[len("Level-1 summary: notes about "):-1] for t in n.links]
        assert n.text == f"Level-2 summary: a group of {len(names)} people: {', '.join(names)}."


@pytest.mark.parametrize("max_size", [1, 2, 5, 10, 40])
def test_b2_partition(small_universe, max_size):
    u = small_universe
    lib, meta = build_baseline("b2", u, {"max_size": max_size})
    mentions = about(u)
    pid_of = {p.name: p.pid for p in u.people}
    seen = []
    for n in authored(lib):
        assert n.text.startswith("Community summary: ") and n.text.endswith(".")
        names = n.text[len("Community summary: "):-1].split(", ")
        assert 1 <= len(names) <= max_size
        seen += names
        assert n.links == sorted({i for nm in names for i in mentions[pid_of[nm]]}, key=id_num)
    assert sorted(seen) == sorted(p.name for p in u.people)  # a partition of everyone
    assert lib.stats()["index_coverage"] == 1.0
    if max_size == 1:
        assert meta["nodes_added"] == len(u.people)


def test_oracle_indexes(small_universe):
    u = small_universe
    lib, meta = build_baseline("oracle", u)
    nodes = authored(lib)
    n_people = len(u.people)
    hubs = {}
    mentions = about(u)
    for p, n in zip(u.people, nodes[:n_people]):
        assert n.text == f"Index of notes about {p.name}."
        assert n.links == mentions[p.pid]
        hubs[p.pid] = n.id
    order = [p.pid for p in u.people]
    attrs = nodes[n_people:n_people + sum(len(u.vocab[k]) for k in ("jobs", "hobbies", "cities"))]
    want = [(f"People whose job is {v}.", [hubs[p.pid] for p in u.people if p.job == v])
            for v in u.vocab["jobs"]]
    want += [(f"People whose hobby is {v}.", [hubs[p.pid] for p in u.people if p.hobby == v])
             for v in u.vocab["hobbies"]]
    want += [(f"People who live in the city of {v}.",
              [hubs[p.pid] for p in u.people if p.city == v]) for v in u.vocab["cities"]]
    assert [(n.text, n.links) for n in attrs] == want
    by = {p.pid: p for p in u.people}
    rel = []
    for p in u.people:
        grand = {g for c in p.children for g in by[c].children}
        for label, members in (("Friends", set(p.friends)), ("Children", set(p.children)),
                               ("Grandchildren", grand)):
            if members:
                rel.append((f"{label} of {p.name}.",
                            [hubs[q] for q in order if q in members]))
    assert [(n.text, n.links) for n in nodes[n_people + len(attrs):]] == rel
    assert any(t.startswith("Grandchildren of") for t, _ in rel)
    assert meta["nodes_added"] == len(nodes) and lib.stats()["index_coverage"] == 1.0


@pytest.mark.parametrize("name", ["b2", "b3", "b4", "oracle"])
def test_deterministic_and_round_trip(small_universe, name, tmp_path):
    cfg = UniverseConfig(n_people=60, n_cities=8, sizes=(40, 30, 20), eval_sizes=(10, 6))
    again = generate(cfg)
    h1 = snapshot_hash(build_baseline(name, small_universe)[0])
    assert h1 == snapshot_hash(build_baseline(name, again)[0])
    other = generate(cfg.model_copy(update={"seed": 1}))
    assert h1 != snapshot_hash(build_baseline(name, other)[0])
    out = write_baseline(tmp_path / name, name, small_universe, "u.json")
    assert out["content_hash"] == h1
    lib, header = load_snapshot(out["snapshot"])
    assert header["label"] == f"baseline {name}"
    assert header["universe"] == {"path": "u.json", "hash": small_universe.hash}
    assert snapshot_hash(lib) == h1
    meta = json.loads((tmp_path / name / "build_meta.json").read_text())
    assert set(meta) == {"schema_version", "baseline", "params", "nodes_added", "links_added",
                         "llm"}
    assert meta["baseline"] == name and meta["llm"] is None
    assert meta["nodes_added"] == len(lib) - len(small_universe.nodes)
    assert meta["links_added"] == lib.stats()["n_links"]


@pytest.mark.parametrize("name", ["b2", "b3", "b4"])
def test_builders_read_text_only(small_universe, name):
    """The same texts under the same ids, with no universe at all, give the same library."""
    from kbgym.baselines import build

    u = small_universe
    texts_only = Library.from_texts((n.id, n.text) for n in u.nodes)
    assert (snapshot_hash(build(name, texts_only).library)
            == snapshot_hash(build_baseline(name, u)[0]))


def test_b3_default_size_builds_its_index():
    """(Its speed is measured by scripts/benchmarks/bench_baselines.py, not asserted here.)"""
    u = generate()
    lib, meta = build_baseline("b3", u)
    assert meta["nodes_added"] > 500 and meta["links_added"] > 100_000
    assert lib.stats()["index_coverage"] == 1.0
