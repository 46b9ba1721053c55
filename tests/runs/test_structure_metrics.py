"""Index structure metrics on hand-built index notes."""

from __future__ import annotations

import pytest

from kbgym.library.graph import Library
from kbgym.metrics.outcomes import per_point
from kbgym.metrics.structure import LinkResolver, edge_classes, family, index_structure
from kbgym.worlds.people import UniverseConfig, generate


@pytest.fixture(scope="module")
def u():
    return generate(UniverseConfig(n_people=60, n_cities=8, sizes=(10, 5, 5), eval_sizes=(2, 2)))


def _node_of(u, kind, pid):
    return next(n.id for n in u.nodes if n.fact.kind == kind and n.fact.subject == pid)


def test_precision_recall_and_character(u):
    """Keys come from links: a friends index with one stray link, an index of indexes (a value
    index linking its holders' hubs), an empty note and a note linking only an empty note."""
    lib = Library.from_universe(u)
    x = next(p for p in u.people if len(p.friends) >= 2)
    friends = [n.id for n in u.nodes if n.fact.kind == "friend_of" and n.fact.subject == x.pid]
    stray = next(p for p in u.people if p.pid != x.pid and p.pid not in x.friends
                 and x.pid not in p.friends)
    idx = lib.add(f"Friends of {x.name}.").id
    lib.link_many(idx, friends + [_node_of(u, "job", stray.pid)])  # names neither X nor a friend
    job = next(j for j in u.vocab["jobs"] if sum(p.job == j for p in u.people) >= 2)
    holders = [p for p in u.people if p.job == job]
    hubs = []
    for h in holders:
        hub = lib.add(f"Index of notes about {h.name}.").id
        lib.link_many(hub, [n.id for n in u.nodes if h.pid in (n.fact.subject, n.fact.object)])
        hubs.append(hub)
    jidx = lib.add(f"People whose job is {job}.").id
    lib.link_many(jidx, hubs)  # an index of indexes: every linked hub is a holder's hub
    empty = lib.add("Residents of Nowhere.").id
    dangling = lib.add(f"People whose hobby is {x.hobby}.").id
    lib.link(dangling, empty)  # links only to a note without a key: unscorable
    keys = LinkResolver(lib, u).keys
    assert keys[idx].key == f"friends:{x.pid}" and keys[idx].correct == len(friends)
    assert keys[jidx].key == f"job:{job}" and keys[jidx].correct == len(holders)
    assert keys[empty].key is None and keys[dangling].key is None
    st = index_structure(lib, u)
    assert st["scorable"] == 2 + len(holders)
    n_hub_links = sum(len(lib[h].links) for h in hubs)
    assert st["links_scored"] == len(friends) + 1 + n_hub_links + len(holders)
    assert st["links_correct"] == st["links_scored"] - 1
    assert st["recall"] == 1.0
    assert st["families"] == {"attribute": 1, "empty": 1, "hub": len(holders),
                              "relation-1": 1, "unscorable": 1}
    assert st["families_by_title"]["relation-1"] == 1
    assert st["character"] == {"genuine": 2 + len(holders), "empty": 1, "materialized": 0,
                               "unscorable": 1}
    assert st["out_degree"]["empty"] == 1
    assert edge_classes(lib)["index->index"] == len(holders) + 1


def test_materialized_index(u):
    """An index that writes its members into its own sentence is materialized; a note whose
    single link names one person is that person's hub (hubs are never materialized)."""
    lib = Library.from_universe(u)
    job = next(j for j in u.vocab["jobs"] if sum(p.job == j for p in u.people) >= 2)
    a, b = [p for p in u.people if p.job == job][:2]
    idx = lib.add(f"People whose job is {job}: {a.name} and {b.name}.").id
    lib.link_many(idx, [_node_of(u, "job", a.pid), _node_of(u, "job", b.pid)])
    two = lib.add(f"{a.name} and {b.name}.").id
    lib.link(two, _node_of(u, "job", b.pid))
    st = index_structure(lib, u)
    assert st["character"] == {"genuine": 1, "empty": 0, "materialized": 1, "unscorable": 0}
    assert st["scorable"] == 2 and st["precision"] == 1.0
    assert LinkResolver(lib, u).keys[two].key == f"hub:{b.pid}"


@pytest.mark.parametrize("text, fam", [
    ("Residents of Fenmarch.", "city"), ("People who live in the city of Fenmarch.", "city"),
    ("People whose job is cooper.", "attribute"), ("People whose hobby is chess.", "attribute"),
    ("Friends of Felix Abernathy.", "relation-1"), ("Spouses of Felix Abernathy.", "relation-1"),
    ("Grandchildren of Felix Abernathy.", "relation-2"), ("Entity index for the job baker.", "other"),
])
def test_families(text, fam):
    assert family(text) == fam


def test_per_point():
    assert per_point(10.0, 8.0, 0.5, 0.7, 0.25) == {"actions_saved_per_point": 0.08,
                                                    "f1_per_point": pytest.approx(0.008)}
    assert per_point(10.0, 8.0, 0.5, 0.7, 0.0)["f1_per_point"] is None
