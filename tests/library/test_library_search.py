"""SPEC §7: BM25 against an independent brute force, paging strings, iteration refresh."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from libtest_helpers import brute_bm25, make_lib

from kbgym.library import BM25Index, Library, apply_edit, search_result, tokenize
from kbgym.protocol.results import format_search as format_page

WORDS = ["felix", "Abernathy's", "job", "is", "cooper", "of", "a", "friend", "mara", "city",
         "lives", "in", "the", "fenmarch", "ünï", "x_y", "42", "Job", "OF"]  # fmt: skip
SEPS = [" ", ", ", ". ", "\n", "-", "_", "!"]

text_st = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPS)), max_size=12).map(
    lambda ws: "".join(w + s for w, s in ws))
query_st = st.one_of(text_st, st.text(max_size=20))


def test_tokenizer():
    assert tokenize("Felix Abernathy's job_title is ÜBER-cool, 42x!") == [
        "felix", "abernathy", "s", "job", "title", "is", "über", "cool", "42x"]  # fmt: skip
    assert tokenize("Straße") == ["strasse"]  # casefold, not lower


def _check(index: BM25Index, docs: dict[str, str], queries, k):
    for q in queries:
        got = index.query(q, k)
        want = brute_bm25(docs, q, k)
        assert got == want, q  # ids, order and float64 scores all equal


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ops=st.lists(st.tuples(st.integers(0, 30), st.one_of(st.none(), text_st)), max_size=60),
    queries=st.lists(query_st, min_size=1, max_size=4),
    k=st.integers(1, 12),
    sparse=st.sampled_from([0, 3, 24_576]),
    lookup=st.sampled_from(["search", "dmap", "scratch"]),
)
def test_bm25_equals_brute_force(ops, queries, k, sparse, lookup):
    index = BM25Index()
    index.SPARSE_MAX = sparse  # 0: always dense; 3: mixed; default: candidate path
    index.COMPACT_MIN = 2  # exercise slot renumbering
    if lookup == "dmap":  # every looked-up term gets a slot -> code map of its head
        index.DMAP_MIN, index.DMAP_FRACTION = 0, 10**9
        index.TAIL_MIN = 2  # fold tails into heads early, so that heads (and maps) exist
    elif lookup == "scratch":
        index.SCRATCH_MIN = 0
    docs: dict[str, str] = {}
    for step, (num, text) in enumerate(ops):
        nid = f"s{num:04d}"
        if text is None:
            index.remove(nid)
            docs.pop(nid, None)
        else:
            index.upsert(nid, text)
            docs[nid] = text
        if step % 7 == 6:
            _check(index, docs, queries[:1], k)
    assert len(index) == len(docs)
    _check(index, docs, queries, k)


def _people_docs(n_people=400):
    firsts = ["Felix", "Mara", "Tom", "Ada", "Bo", "Cy", "Di", "Ed"]
    lasts = [f"Last{i}" for i in range(50)]
    jobs = ["cooper", "smith", "baker", "mason"]
    cities = ["Fenmarch", "Oldport", "Redhill"]
    docs, i = {}, 1
    for p in range(n_people):
        name = f"{firsts[p % 8]} {lasts[p % 50]}"
        friend = f"{firsts[(p + 1) % 8]} {lasts[(p + 3) % 50]}"
        city = cities[p % 3]
        for t in (f"{name}'s job is {jobs[p % 4]}.", f"{name} lives in the city of {city}.",
                  f"{name} is a friend of {friend}."):  # fmt: skip
            docs[f"s{i:04d}"] = t
            i += 1
    return docs


@pytest.mark.parametrize("dmap", [False, True])
@pytest.mark.parametrize("sparse", [0, 50, 24_576])
def test_bm25_pruning_paths_agree_on_shaped_data(sparse, dmap):
    docs = _people_docs()
    index = BM25Index()
    index.SPARSE_MAX = sparse
    if dmap:
        index.DMAP_MIN = 100
    else:
        index.SCRATCH_MIN = 10
    for i, t in docs.items():
        index.upsert(i, t)
    queries = ["job of Felix Last3", "lives in the city of Fenmarch", "of", "is a friend of",
               "Mara Last7 friend", "cooper", "Ada Last12 job city", "nobody",
               "the the of of"]  # fmt: skip
    for k in (1, 3, 4, 5, 60):
        _check(index, docs, queries, k)
    for i in list(docs)[::7]:  # tombstones in every posting list
        index.remove(i)
        docs.pop(i)
    for k in (1, 5, 60):
        _check(index, docs, queries, k)


def test_tie_break_is_numeric_id_order():
    index = BM25Index()
    for nid in ("s10000", "s9999", "s0002"):
        index.upsert(nid, "same words")
    assert [i for i, _ in index.query("same", 10)] == ["s0002", "s9999", "s10000"]


def test_zero_scores_are_never_returned():
    index = BM25Index()
    index.upsert("s0001", "alpha beta")
    index.upsert("s0002", "!!!")  # no tokens: counts in N, never matches
    assert index.query("gamma", 5) == [] and index.query("", 5) == []
    assert index.query("alpha", 0) == []
    assert [i for i, _ in index.query("alpha gamma", 5)] == ["s0001"]
    index.remove("s0009")  # unknown id: a no-op


def test_copy_is_independent():
    a = BM25Index()
    a.upsert("s0001", "alpha")
    b = a.copy()
    b.upsert("s0002", "alpha alpha")
    b.remove("s0001")
    assert [i for i, _ in a.query("alpha", 5)] == ["s0001"]
    assert [i for i, _ in b.query("alpha", 5)] == ["s0002"]


# -- pages ----------------------------------------------------------------------------------------


def test_page_strings():
    assert format_page(1, []) == "(no hits)"
    assert format_page(3, []) == "(page 3 is empty - no further matches)"
    assert format_page(2, [("s0001", "a b"), ("s0002", "c")]) == "page 2:\n- s0001: a b\n- s0002: c"


def test_search_result_paging():
    lib = make_lib([f"note number {i}" for i in range(1, 14)])
    p1 = search_result(lib, "note", 1)
    assert p1.splitlines() == ["page 1:", "- s0001: note number 1", "- s0002: note number 2",
                               "- s0003: note number 3", "- s0004: note number 4",
                               "- s0005: note number 5"]  # fmt: skip
    assert search_result(lib, "note", 3) == (
        "page 3:\n- s0011: note number 11\n- s0012: note number 12\n- s0013: note number 13"
    )
    assert search_result(lib, "note", 4) == "(page 4 is empty - no further matches)"
    assert search_result(lib, "zebra", 1) == "(no hits)"
    assert search_result(lib, "zebra", 2) == "(page 2 is empty - no further matches)"
    assert search_result(lib, "   ", 1) == "ERROR: query must not be empty"
    assert search_result(lib, "", 99) == "ERROR: query must not be empty"
    assert search_result(lib, "note", 13) == "ERROR: page must be between 1 and 12"
    assert search_result(lib, "note", 0) == "ERROR: page must be between 1 and 12"
    assert search_result(lib, "note", 7, max_page=6) == "ERROR: page must be between 1 and 6"
    for bad in (True, 1.5, "two", None, [1]):
        assert search_result(lib, "note", bad) == "ERROR: page must be an integer"
    two = search_result(lib, "note", 2)
    assert search_result(lib, "note", "2") == search_result(lib, "note", 2.0) == two
    assert search_result(lib, "note", 1, page_size=2) == (
        "page 1:\n- s0001: note number 1\n- s0002: note number 2"
    )


def test_search_needs_a_backend():
    lib = make_lib(search=False)
    with pytest.raises(RuntimeError):
        search_result(lib, "x", 1)


# -- refresh --------------------------------------------------------------------------------------


def test_immediate_refresh_and_regens():
    lib = make_lib()
    assert apply_edit(lib, "add", {"text": "zebra crossing"}) == "added s0007"
    assert [i for i, _ in lib.search("zebra", 5)] == ["s0007"]
    apply_edit(lib, "edit", {"id": "s0007", "text": "zebra again"})
    apply_edit(lib, "edit", {"id": "s0001", "text": "a zebra job"})
    assert lib.refresh() == 2  # distinct nodes re-indexed this iteration
    assert lib.refresh() == 0


def test_iteration_refresh_staleness():
    lib = make_lib(refresh="iteration")
    assert lib.refresh_mode == "iteration"
    apply_edit(lib, "add", {"text": "zebra crossing"})
    assert search_result(lib, "zebra", 1) == "(no hits)"  # a new node is unfindable
    apply_edit(lib, "edit", {"id": "s0001", "text": "Quokka pictures."})
    # an edited node ranks by its old text but displays its new text
    assert search_result(lib, "quokka", 1) == "(no hits)"
    assert search_result(lib, "cooper", 1) == "page 1:\n- s0001: Quokka pictures."
    apply_edit(lib, "delete", {"id": "s0002"})  # deletions leave the index at once
    assert "s0002" not in [i for i, _ in lib.search("friend", 10)]
    apply_edit(lib, "add", {"text": "temporary"})
    apply_edit(lib, "delete", {"id": "s0008"})
    assert lib.dirty == ["s0001", "s0007"]
    assert lib.refresh() == 2
    assert lib.dirty == []
    assert [i for i, _ in lib.search("zebra", 5)] == ["s0007"]
    assert [i for i, _ in lib.search("quokka", 5)] == ["s0001"]
    assert lib.search("cooper", 5) == []


def test_iteration_mode_merge_loser_leaves_index_at_once():
    lib = make_lib(refresh="iteration")
    lib.merge("s0001", "s0002")
    assert "s0001" not in [i for i, _ in lib.search("cooper felix", 10)]


def test_library_search_matches_brute_force_after_edits():
    lib = make_lib()
    for t in ("Index of Felix Abernathy.", "People whose job is cooper.", "Residents of Fenmarch."):
        lib.add(t)
    lib.edit("s0002", "Felix Abernathy and Mara Quill are friends.")
    lib.delete("s0005")
    docs = {n.id: n.text for n in lib}
    for q in ("felix", "job cooper", "of", "mara quill friend", "Residents"):
        assert lib.search(q, 60) == brute_bm25(docs, q, 60)


def test_attach_search_later():
    lib = make_lib(search=False)
    lib.add("zebra")
    lib.attach_search(BM25Index())
    assert [i for i, _ in lib.search("zebra", 3)] == ["s0007"]
    assert isinstance(Library().search_backend, type(None))



@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(st.tuples(st.sampled_from(["add", "edit", "delete", "merge", "refresh"]),
                              st.integers(1, 12), st.integers(1, 12), text_st),
                    max_size=40))  # fmt: skip
def test_iteration_mode_index_follows_its_own_text(ops):
    """Until refresh(), the index holds each surviving node's text as of the last refresh
    (new nodes absent); deletions and merge losers leave at once."""
    lib = make_lib(["felix job", "mara of city", "the cooper"], refresh="iteration")
    shadow = {n.id: n.text for n in lib}  # what the index should hold
    for op, a, b, text in ops:
        ida, idb = f"s{a:04d}", f"s{b:04d}"
        if op == "add" and text.strip():
            lib.add(text)
        elif op == "edit" and ida in lib and text.strip():
            lib.edit(ida, text)
        elif op == "delete" and ida in lib:
            lib.delete(ida)
            shadow.pop(ida, None)
        elif op == "merge" and ida in lib and idb in lib and ida != idb:
            lib.merge(ida, idb)
            shadow.pop(ida, None)
        elif op == "refresh":
            pending = set(lib.dirty)
            assert lib.refresh() == len(pending)
            shadow = {n.id: n.text for n in lib}
        for q in ("felix", "of the city", "cooper job mara"):
            assert lib.search(q, 8) == brute_bm25(shadow, q, 8)


# -- query paths and caches -----------------------------------------------------------------------
# Small indexes are scored densely from per-term weights cached per index generation; larger ones
# go through MaxScore over the postings (DENSE_MAX_SLOTS = 0 forces it). Rankings are cached per
# generation too. Every upsert and remove must invalidate both, at once.


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ops=st.lists(st.tuples(st.integers(0, 30), st.one_of(st.none(), text_st)), max_size=60),
    queries=st.lists(query_st, min_size=1, max_size=4),
    ks=st.lists(st.integers(1, 14), min_size=1, max_size=3),
    path=st.sampled_from(["dense", "dense-all-vectors", "dense-no-vectors", "postings",
                          "postings-mixed"]),  # fmt: skip
    rank_cache=st.sampled_from([0, 2, 256]),
)
def test_bm25_paths_and_caches_equal_brute_force(ops, queries, ks, path, rank_cache):
    """Queries repeated (at several k) between mutations: every path, cached or not, keeps
    answering exactly what a fresh brute force does."""
    index = BM25Index()
    index.COMPACT_MIN = 2  # exercise slot renumbering under cached weights
    index.RANK_CACHE = rank_cache
    if path == "dense-all-vectors":  # every term cached as a full slot -> weight vector
        index.DENSE_TERM_FRACTION = 10**9
    elif path == "dense-no-vectors":  # every term cached as (slots, weights)
        index.DENSE_TERM_FRACTION = 0
    elif path == "postings":
        index.DENSE_MAX_SLOTS = 0
    elif path == "postings-mixed":
        index.DENSE_MAX_SLOTS, index.SPARSE_MAX = 0, 3
    docs: dict[str, str] = {}
    for step, (num, text) in enumerate(ops):
        nid = f"s{num:04d}"
        if text is None:
            index.remove(nid)
            docs.pop(nid, None)
        else:
            index.upsert(nid, text)
            docs[nid] = text
        if step % 3 == 2:
            for k in ks:
                _check(index, docs, queries[:2], k)
    for k in ks + ks[::-1]:
        _check(index, docs, queries, k)


@pytest.mark.parametrize("dense_max", [0, 10**9])
def test_bm25_paths_agree_on_shaped_data(dense_max):
    docs = _people_docs()
    index = BM25Index()
    index.DENSE_MAX_SLOTS = dense_max
    for i, t in docs.items():
        index.upsert(i, t)
    queries = ["job of Felix Last3", "lives in the city of Fenmarch", "of", "is a friend of",
               "Mara Last7 friend", "cooper", "Ada Last12 job city", "nobody",
               "the the of of", "people whose job is cooper", "Residents of Redhill"]  # fmt: skip
    for k in (1, 3, 4, 5, 10, 60, 1000, 5000):
        _check(index, docs, queries, k)
    for i in list(docs)[::7]:  # tombstones in every posting list
        index.remove(i)
        docs.pop(i)
    for i in list(docs)[::11]:  # re-indexed documents move to fresh slots (out of id order)
        docs[i] += " Felix Last3 cooper"
        index.upsert(i, docs[i])
    for k in (60, 5, 1, 2000):
        _check(index, docs, queries, k)


def test_ranking_cache_answers_every_k_it_covers():
    docs = _people_docs(60)
    index = BM25Index()
    for i, t in docs.items():
        index.upsert(i, t)
    fresh = BM25Index()
    fresh.RANK_CACHE = 0
    for i, t in docs.items():
        fresh.upsert(i, t)
    for q, k in [("Felix friend", 5), ("friend Felix", 10), ("Felix, friend!", 3),
                 ("Felix friend", 60), ("felix FRIEND", 7), ("cooper", 60), ("cooper", 2),
                 ("cooper", 1000)]:  # fmt: skip
        assert index.query(q, k) == fresh.query(q, k) == brute_bm25(docs, q, k)
    hits = index.query("felix friend", 5)
    hits.clear()  # a caller mutating its list leaves the cache alone
    assert index.query("felix friend", 5) == fresh.query("felix friend", 5)


def test_ranking_cache_is_bounded_lru():
    index = BM25Index()
    index.RANK_CACHE = 2
    for i, t in _people_docs(20).items():
        index.upsert(i, t)
    for q in ("felix", "mara", "tom", "felix", "ada", "bo"):
        index.query(q, 5)
    assert len(index._rank_cache) == 2


def test_caches_follow_every_mutation():
    index = BM25Index()
    index.upsert("s0001", "alpha beta")
    index.upsert("s0002", "alpha")
    assert [i for i, _ in index.query("alpha beta", 5)] == ["s0001", "s0002"]
    index.upsert("s0003", "beta beta beta")  # also changes N, df and avgdl: every score moves
    docs = {"s0001": "alpha beta", "s0002": "alpha", "s0003": "beta beta beta"}
    assert index.query("alpha beta", 5) == brute_bm25(docs, "alpha beta", 5)
    index.upsert("s0001", "gamma")  # re-index
    docs["s0001"] = "gamma"
    assert index.query("alpha beta", 5) == brute_bm25(docs, "alpha beta", 5)
    index.remove("s0003")
    docs.pop("s0003")
    assert index.query("alpha beta", 5) == brute_bm25(docs, "alpha beta", 5)
    index.remove("s0404")  # unknown id: nothing changes, caches stay valid
    assert index.query("alpha beta", 5) == brute_bm25(docs, "alpha beta", 5)


def test_copy_and_pickle_do_not_share_caches():
    import pickle

    a = BM25Index()
    for i, t in _people_docs(30).items():
        a.upsert(i, t)
    want = a.query("Felix Last3 job", 10)
    b = a.copy()
    c = pickle.loads(pickle.dumps(a))
    assert b.query("Felix Last3 job", 10) == c.query("Felix Last3 job", 10) == want
    b.upsert("s9000", "Felix Last3 job job job")
    c.remove(want[0][0])
    assert a.query("Felix Last3 job", 10) == want
    assert b.query("Felix Last3 job", 10)[0][0] == "s9000"
    assert want[0][0] not in [i for i, _ in c.query("Felix Last3 job", 10)]


QUERIES = ("felix job", "mara quill friend", "zebra", "cooper", "of the city", "quokka mara")


def _assert_search_is_fresh(lib):
    docs = {n.id: n.text for n in lib}
    for q in QUERIES:
        for k in (60, 5, 2):  # the largest first, so smaller k could come from a cached ranking
            assert lib.search(q, k) == brute_bm25(docs, q, k), q


def test_immediate_mode_search_sees_every_change_at_once():
    lib = make_lib()
    _assert_search_is_fresh(lib)
    lib.add("zebra crossing near Felix's job")
    _assert_search_is_fresh(lib)
    lib.edit("s0001", "Quokka pictures of Mara Quill.")
    _assert_search_is_fresh(lib)
    lib.delete("s0003")
    _assert_search_is_fresh(lib)
    lib.merge("s0002", "s0004")
    _assert_search_is_fresh(lib)
    lib.add("another cooper, friend of the city")
    lib.edit("s0007", "zebra zebra cooper")
    _assert_search_is_fresh(lib)


def test_iteration_mode_cached_search_stays_stale_until_refresh():
    lib = make_lib(refresh="iteration")
    shadow = {n.id: n.text for n in lib}
    before = {q: lib.search(q, 10) for q in QUERIES}
    lib.add("zebra crossing")
    lib.edit("s0001", "Quokka pictures.")
    for q in QUERIES:  # the index is unchanged: same answers (an edited node ranks by old text)
        assert lib.search(q, 10) == before[q] == brute_bm25(shadow, q, 10)
    lib.delete("s0002")  # deletions leave at once
    shadow.pop("s0002")
    for q in QUERIES:
        assert lib.search(q, 10) == brute_bm25(shadow, q, 10)
    lib.refresh()
    docs = {n.id: n.text for n in lib}
    for q in QUERIES:
        assert lib.search(q, 10) == brute_bm25(docs, q, 10)
    assert [i for i, _ in lib.search("quokka", 5)] == ["s0001"]


# -- ties at scale: the lowest ids without looking at every tie -----------------------------------


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 700),
    moves=st.lists(st.integers(1, 700), max_size=40),
    tail_min=st.sampled_from([1, 8, 256]),
    seed=st.integers(0, 2**16),
    need=st.integers(1, 12),
)
def test_lowest_ids_equal_a_sort_by_numeric_id(n, moves, tail_min, seed, need):
    """Ids upserted in order, some re-indexed later (fresh slots out of id order, some folded
    into the head): the ``need`` lowest ids among any ascending subset of live slots are those
    a full sort gives, whether or not the fast path (the first ``need`` in slot order, the
    displaced ones and the tail's) applies."""
    index = BM25Index()
    index.TAIL_MIN, index.TAIL_FRACTION = tail_min, 64
    for i in range(1, n + 1):
        index.upsert(f"s{i:04d}", "same words")
    for i in moves:
        if i <= n:
            index.upsert(f"s{i:04d}", "same words")
    live = np.array(sorted(index.slot_of(i) for i in index._doc_slot), dtype=np.int64)
    rng = np.random.default_rng(seed)
    slots = live[rng.random(len(live)) < rng.choice([0.3, 0.9, 1.0])]
    if len(slots) <= need:
        return
    got = sorted(index._ids(slots[index._lowest(slots, need)].tolist()))
    want = sorted(index._ids(slots.tolist()), key=lambda i: int(i[1:]))[:need]
    assert got == sorted(want)


@pytest.mark.parametrize("dense_max", [0, 10**9])
def test_many_ties_with_reindexed_documents(dense_max):
    """Hundreds of identical scores at the top (common-word queries at scale), with
    re-indexed documents out of id order in head and tail: exactly the brute force."""
    index = BM25Index()
    index.DENSE_MAX_SLOTS = dense_max
    index.TAIL_MIN, index.TAIL_FRACTION = 8, 100  # edits folded into the head, too
    docs = {f"s{i:04d}": f"P{i % 37} is a friend of Q{i % 11}." for i in range(1, 1500)}
    for i, t in docs.items():
        index.upsert(i, t)
    for n in range(3, 1500, 17):  # edits: fresh slots, ids far below their neighbours'
        i = f"s{n:04d}"
        docs[i] = f"P{n % 5} is a friend of Q{n % 3}."
        index.upsert(i, docs[i])
    for n in range(5, 1500, 29):
        index.remove(f"s{n:04d}")
        docs.pop(f"s{n:04d}", None)
    for k in (1, 10, 20, 60):
        _check(index, docs, ["is a friend of", "of", "friend P3", "is Q2"], k)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(text_st, st.text(max_size=30),
                          st.text(alphabet=st.characters(max_codepoint=127), max_size=30)),
                max_size=8))
def test_bulk_tokens_equal_tokenize_text_by_text(texts):
    """bulk_load's all-at-once tokenizer (translate + split for ASCII, one findall else, one
    text at a time when a text holds NUL) gives exactly tokenize() of every text."""
    from kbgym.library.search import _bulk_nums, _bulk_token_ids

    vocab, tids, dl = _bulk_token_ids(texts)
    want = [tokenize(t) for t in texts]
    flat = [t for w in want for t in w]
    assert list(vocab) == list(dict.fromkeys(flat))  # first-occurrence order
    assert tids.tolist() == [vocab[t] for t in flat]
    assert dl.tolist() == [len(w) for w in want]
    ids = [f"s{i:0{i % 5}d}" for i in range(1, len(texts) + 2)]
    assert _bulk_nums(ids).tolist() == list(range(1, len(texts) + 2))


def test_a_folded_head_leaves_the_collectors_lists(monkeypatch):
    """Adds go to the slot tail; a long tail is folded into the head without copying the
    head (the tail becomes one more chunk), and what the index makes for a head (a fold's
    chunk, a compaction's array) is not tracked by the garbage collector: a list of 10^6 ids
    would be walked by every collection it is in. Rankings stay exact across folds."""
    import gc

    def made_parts(col):  # the parts of a head the index made (the first is the library's)
        return col.chunks[1:] if hasattr(col, "chunks") else [col]

    monkeypatch.setattr(BM25Index, "TAIL_MIN", 4)
    lib = make_lib()
    ix = lib.search_backend
    head = ix._nh
    for i in range(30):
        apply_edit(lib, "add", {"text": f"Felix Quill is a friend of Mara number {i}."})
    apply_edit(lib, "delete", {"id": lib.ids()[0]})
    assert ix._nh > head and len(made_parts(ix._sid_h)) >= 2  # folded, more than once
    assert not any(gc.is_tracked(c) for col in (ix._sid_h, ix._stx_h) for c in made_parts(col))
    docs = {n.id: n.text for n in lib}
    for q in ("friend of mara", "felix", "number 7", "number 29"):
        want = [d for d, _ in brute_bm25(docs, q, 5)]
        assert [d for d, _ in lib.search(q, 5)] == want
        assert all(ix.indexed_text(d) == docs[d] for d in want)
    ix._compact_slots()  # (what many deletions trigger)
    assert not any(gc.is_tracked(c) for col in (ix._sid_h, ix._stx_h) for c in made_parts(col))
    assert [d for d, _ in lib.search("friend of mara", 5)] == [
        d for d, _ in brute_bm25(docs, "friend of mara", 5)]
