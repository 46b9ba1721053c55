"""Copy-on-write forks (Library.fork, BM25Index.fork) and absorb_fork: a fork behaves exactly
like a deep copy (snapshot bytes, hidden fields, stats, staleness, search results), whatever
its parent, siblings and descendants do afterwards."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from libtest_helpers import (QUERIES, SENTENCES, apply, brute_bm25, check_invariants, make_lib,
                             op_st, text_st)

from kbgym.library.stats import recompute_stats
from kbgym.jsonio import canonical
from kbgym.library import BM25Index, Library
from kbgym.library.layers import LayeredMap


def deep_copy(lib: Library) -> Library:
    """An independent library with the same content, built from its snapshot."""
    out = Library.from_snapshot(lib.snapshot(), search=BM25Index())
    if lib.track_hashes:
        out.enable_staleness(lib.superseded)
    return out


def same(lib: Library, twin: Library) -> None:
    assert canonical(lib.snapshot()) == canonical(twin.snapshot())
    assert lib.stats() == twin.stats() == recompute_stats(lib)
    for q in QUERIES:
        want = brute_bm25({n.id: n.text for n in twin}, q, 7)
        assert lib.search(q, 7) == twin.search(q, 7) == want


step_st = st.one_of(
    st.tuples(st.just("fork"), st.integers(0, 10**6)),
    st.tuples(st.just("edit"), st.integers(0, 10**6), op_st),
    st.tuples(st.just("absorb"), st.integers(0, 10**6)),
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step_st, min_size=150, max_size=220), st.booleans())
def test_100_forks_of_forks_equal_deep_copies(steps, stale):
    root = make_lib(SENTENCES)
    if stale:  # link-target hashes (source drift) travel with forks too
        root.enable_staleness({"s0002": "s0003"})
    pool = [(root, deep_copy(root), None)]  # (library, its deep twin, index of its parent)
    forks = 0
    for step in steps:
        i = step[1] % len(pool)
        lib, twin, parent = pool[i]
        if step[0] == "fork":
            child = lib.fork()
            assert child.state_key() == lib.state_key()
            pool.append((child, deep_copy(twin), i))
            forks += 1
        elif step[0] == "edit":
            assert apply(lib, step[2]) == apply(twin, step[2])
        elif parent is not None and pool[parent][0].state_key() == lib._parent_key:
            # absorb a fork into its unchanged parent: the parent becomes the fork's state
            p_lib = pool[parent][0]
            out = p_lib.absorb_fork(lib)
            assert out["mode"] == "fast-forward"
            pool[parent] = (p_lib, deep_copy(twin), pool[parent][2])
    if forks < 100:  # top up so that every example has at least 100 forks of forks
        for n in range(100 - forks):
            lib, twin, _ = pool[-1 - (n % 3)]
            pool.append((lib.fork(), deep_copy(twin), len(pool) - 1))
            apply(pool[-1][0], ("add", n, n, "index of Felix"))
            apply(pool[-1][1], ("add", n, n, "index of Felix"))
    for lib, twin, _ in pool:
        check_invariants(lib)
        same(lib, twin)


def test_a_fork_shares_storage_until_written():
    lib = make_lib(SENTENCES)
    fork = lib.fork()
    assert fork._nodes._base is lib._nodes._base
    assert fork.search_backend._hs is lib.search_backend._hs
    fork.edit("s0001", "Felix Abernathy's job is baker.")
    assert lib["s0001"].text == "Felix Abernathy's job is cooper."
    assert fork["s0001"].text == "Felix Abernathy's job is baker."
    assert lib["s0002"] is fork["s0002"]  # untouched notes stay shared
    assert [i for i, _ in lib.search("cooper", 5)] == ["s0001"]
    assert fork.search("cooper", 5) == []


def test_absorb_fast_forward_then_replay_of_a_sibling():
    parent = make_lib(SENTENCES)
    a, b = parent.fork(), parent.fork()
    a_id = a.add("Index of Felix.").id
    a.link(a_id, "s0001")
    b_id = b.add("Index of Mara.").id  # the same id a minted: replay must renumber it
    b.link_many(b_id, ["s0002", "s0003"])
    b.edit("s0004", "Mara Quill's hobby is rowing.", dedup=False)
    b.unlink(b_id, "s0002")
    b.delete("s0006")
    assert a_id == b_id
    expect = deep_copy(parent)
    for x in (expect,):  # what a's and then b's operations do, written out by hand
        x.add("Index of Felix.", dedup=False)
        x.link(a_id, "s0001")
        new = x.add("Index of Mara.", dedup=False).id
        x.link_many(new, ["s0002", "s0003"])
        x.edit("s0004", "Mara Quill's hobby is rowing.", dedup=False)
        x.unlink(new, "s0002")
        x.delete("s0006")
    assert parent.absorb_fork(a)["mode"] == "fast-forward"
    out = parent.absorb_fork(b)
    assert out["mode"] == "replay" and out["skipped"] == 0 and out["ids"] == {b_id: new}
    same(parent, expect)
    check_invariants(parent)


def test_replay_skips_what_no_longer_applies():
    parent = make_lib(SENTENCES)
    fork = parent.fork()
    fork.link("s0001", "s0002")
    fork.edit("s0003", "Mara Quill lives in the city of Oakhaven.", dedup=False)
    parent.delete("s0002")
    out = parent.absorb_fork(fork)
    assert out["mode"] == "replay" and (out["applied"], out["skipped"]) == (1, 1)
    assert parent["s0003"].text.endswith("Oakhaven.") and "s0002" not in parent


def test_absorb_needs_a_fork_and_an_unfrozen_parent():
    lib = make_lib(SENTENCES)
    with pytest.raises(ValueError, match="fork"):
        lib.absorb_fork(make_lib(SENTENCES))
    fork = lib.fork()
    lib.freeze()
    with pytest.raises(Exception, match="frozen"):
        lib.absorb_fork(fork)


def test_absorb_into_a_fork_extends_its_log():
    root = make_lib(SENTENCES)
    mid = root.fork()
    mid.add("Index of Felix.")
    leaf = mid.fork()
    leaf.link("s0007", "s0001")
    mid.absorb_fork(leaf)
    root.absorb_fork(mid)  # root unchanged: fast-forward to mid, which holds leaf's link
    assert root["s0007"].links == ["s0001"] and root.stats() == recompute_stats(root)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 40),
                          st.one_of(st.none(), text_st)), max_size=80),
       st.sampled_from([0, 10**9]), st.booleans())
def test_index_forks_equal_brute_force(ops, dense_max, maps):
    """Forked BM25 indexes, mutated in any interleaving, answer as fresh ones do."""
    first = BM25Index()
    first.DENSE_MAX_SLOTS = dense_max  # both the dense and the MaxScore paths
    first.TAIL_MIN, first.COMPACT_MIN = 2, 2  # fold tails and renumber slots often
    if maps:  # every term's head through a slot -> code map shared by the forks
        first.DMAP_MIN, first.DMAP_FRACTION, first.SPARSE_MAX = 0, 10**9, 0
    indexes, docs = [first], [{}]
    for which, num, text in ops:
        i = which % len(indexes)
        if which == 3:
            indexes.append(indexes[i].fork())
            docs.append(dict(docs[i]))
            continue
        nid = f"s{num:04d}"
        if text is None:
            indexes[i].remove(nid)
            docs[i].pop(nid, None)
        else:
            indexes[i].upsert(nid, text)
            docs[i][nid] = text
    for index, d in zip(indexes, docs):
        assert len(index) == len(d)
        for q in QUERIES + ("of", "is a friend of"):
            for k in (1, 3, 60):
                assert index.query(q, k) == brute_bm25(d, q, k), q


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 20), st.booleans()), max_size=80))
def test_layered_map_forks_behave_like_dicts(ops):
    import kbgym.library.layers as layers

    old = layers.FOLD_MIN
    layers.FOLD_MIN = 3  # fold mids into bases often
    try:
        maps, dicts = [LayeredMap()], [{}]
        for which, key, put in ops:
            i = which % len(maps)
            if which == 4:
                maps.append(maps[i].fork())
                dicts.append(dict(dicts[i]))
            elif put:
                maps[i][key] = which + 1
                dicts[i][key] = which + 1
            elif key in dicts[i]:
                del maps[i][key]
                del dicts[i][key]
            for m, d in zip(maps, dicts):
                assert len(m) == len(d) and all(m.get(k) == v for k, v in d.items())
        for m, d in zip(maps, dicts):
            assert dict(m.items()) == d and sorted(m) == sorted(d)
    finally:
        layers.FOLD_MIN = old


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), text_st), max_size=40),
       st.lists(st.tuples(st.integers(0, 60), st.one_of(st.none(), text_st)), max_size=20))
def test_bulk_load_equals_upserting_one_by_one(docs, later):
    docs = list({f"s{i:04d}": t for i, t in docs}.items())
    bulk, one = BM25Index(), BM25Index()
    bulk.bulk_load(docs)
    for i, t in docs:
        one.upsert(i, t)
    for ix in (bulk, one):  # both take further edits alike
        for num, text in later:
            ix.upsert(f"s{num:04d}", text) if text else ix.remove(f"s{num:04d}")
    truth = dict(docs)
    for num, text in later:
        if text:
            truth[f"s{num:04d}"] = text
        else:
            truth.pop(f"s{num:04d}", None)
    for q in QUERIES + ("of", "is"):
        for k in (1, 5, 60):
            assert bulk.query(q, k) == one.query(q, k) == brute_bm25(truth, q, k)
