"""Index structure metrics (SPEC §12.3) on hand-built index notes."""

from __future__ import annotations

import pytest

from kbgym.library.graph import Library
from kbgym.metrics.outcomes import per_point
from kbgym.metrics.structure import edge_classes, family, index_structure
from kbgym.universe import UniverseConfig, generate


@pytest.fixture(scope="module")
def u():
    return generate(UniverseConfig(n_people=60, n_cities=8, sizes=(10, 5, 5), eval_sizes=(2, 2)))


def _node_of(u, kind, pid):
    return next(n.id for n in u.nodes if n.fact.kind == kind and n.fact.subject == pid)


def test_precision_recall_and_character(u):
    lib = Library.from_universe(u)
    x = next(p for p in u.people if len(p.friends) >= 2)
    friends = [n.id for n in u.nodes if n.fact.kind == "friend_of" and n.fact.subject == x.pid]
    idx = lib.add(f"Friends of {x.name}.").id
    lib.link_many(idx, friends + [_node_of(u, "job", x.pid)])  # the job note names only X
    job = u.people[0].job
    holders = [p for p in u.people if p.job == job]
    jidx = lib.add(f"People whose job is {job}.").id
    hub = lib.add(f"Index of notes about {holders[0].name}.").id
    lib.link(jidx, hub)  # a link to an authored note: wrong for precision, fine for recall
    empty = lib.add("Residents of Nowhere.").id
    st = index_structure(lib, u)
    assert st["links_scored"] == len(friends) + 2
    assert st["links_correct"] == len(friends)
    assert st["families"]["relation-1"] == 1 and st["families"]["attribute"] == 1
    assert st["character"]["empty"] == 2  # the hub and "Residents of Nowhere."
    assert st["out_degree"]["max"] == len(friends) + 1 and st["out_degree"]["empty"] == 2
    # recall: X's friends all named, one job holder named through the hub, and the empty
    # hub's own member missing
    want = (len(x.friends) + 1) / (len(x.friends) + len(holders) + 1)
    assert st["recall"] == pytest.approx(want)
    assert edge_classes(lib)["index->index"] == 1
    assert empty in lib


def test_materialized_index(u):
    """An index that writes its members into its own sentence is materialized (§12.3); a
    text with several roster names and no value is unscorable."""
    lib = Library.from_universe(u)
    job = next(j for j in u.vocab["jobs"] if sum(p.job == j for p in u.people) >= 2)
    a, b = [p for p in u.people if p.job == job][:2]
    idx = lib.add(f"People whose job is {job}: {a.name} and {b.name}.").id
    lib.link(idx, _node_of(u, "job", a.pid))
    two = lib.add(f"{a.name} and {b.name}.").id
    lib.link(two, _node_of(u, "job", b.pid))
    st = index_structure(lib, u)
    assert st["character"] == {"genuine": 0, "empty": 0, "materialized": 1, "unscorable": 1}
    assert st["scorable"] == 1 and st["precision"] == 1.0
    assert two in lib


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
