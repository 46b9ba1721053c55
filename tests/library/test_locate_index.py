"""``locate`` through the BM25 postings gives exactly what a scan of every note gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbgym.library import BM25Index, Library
from kbgym.library.evidence import locate, locate_scan

WORDS = ["ada", "bo", "cy", "of", "is", "job", "Ada's", "the"]
text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)
term = st.lists(st.sampled_from(WORDS + ["zz", "!"]), min_size=1, max_size=2).map(" ".join)
ops = st.lists(
    st.one_of(
        st.tuples(st.just("add"), text),
        st.tuples(st.just("edit"), st.integers(0, 60), text),
        st.tuples(st.just("delete"), st.integers(0, 60)),
        st.tuples(st.just("refresh")),
    ),
    max_size=25,
)


def _apply(lib: Library, op: tuple) -> None:
    ids = lib.ids()
    if op[0] == "add":
        lib.add(op[1])
    elif op[0] == "refresh":
        lib.refresh()
    elif ids:
        nid = ids[op[1] % len(ids)]
        if op[0] == "edit":
            lib.edit(nid, op[2])
        else:
            lib.delete(nid)


def _index(slot_maps: bool) -> BM25Index:
    index = BM25Index()
    if slot_maps:  # every further term through a slot -> code map, as very common terms are
        index.DMAP_MIN, index.DMAP_FRACTION = 1, 10**9
    return index


@settings(max_examples=200, deadline=None)
@given(st.lists(text, min_size=1, max_size=30), ops, st.sampled_from(["immediate", "iteration"]),
       st.lists(st.one_of(term, st.lists(term, min_size=1, max_size=3)), min_size=1, max_size=6),
       st.booleans())
def test_indexed_locate_equals_scan(originals, operations, refresh, queries, slot_maps):
    lib = Library.from_texts(((f"s{i + 1:04d}", t) for i, t in enumerate(originals)),
                             search=_index(slot_maps), refresh=refresh)
    for op in operations:
        _apply(lib, op)
    assert lib.original_ceiling() is not None
    for q in queries:
        assert locate(lib, q) == locate_scan(lib, q)


def test_more_than_ten_matches_keep_authored_first_then_id_order():
    lib = Library.from_texts(((f"s{i:04d}", f"Ada note {i}") for i in range(1, 40)),
                             search=BM25Index())
    for i in range(12):
        lib.add(f"Index {i} of Ada")
    lib.delete("s0003")
    got = locate(lib, ["ada"])
    assert got == locate_scan(lib, ["ada"])
    assert got.splitlines()[0] == "- s0040: Index 0 of Ada" and len(got.splitlines()) == 10
    assert locate(lib, "note") == locate_scan(lib, "note")
    assert locate(lib, "note").splitlines()[2] == "- s0004: Ada note 4"


def test_falls_back_to_the_scan_when_ids_do_not_separate_authored_notes():
    snap = {"nodes": [
        {"id": "s0001", "text": "Ada hub", "links": [], "origin": None, "flag": "authored",
         "absorbed": []},
        {"id": "s0002", "text": "Ada is here", "links": [], "origin": "s0002", "flag": None,
         "absorbed": []}], "origins": ["s0002"], "next_id": 3, "merges": 0}
    lib = Library.from_snapshot(snap, search=BM25Index())
    assert lib.original_ceiling() is None
    assert locate(lib, "ada") == "- s0001: Ada hub\n- s0002: Ada is here"


def test_pending_notes_match_on_their_current_text():
    lib = Library.from_texts([("s0001", "ada bo"), ("s0002", "cy bo")], search=BM25Index(),
                             refresh="iteration")
    lib.add("ada cy")
    lib.edit("s0002", "ada")
    assert lib.dirty == ["s0002", "s0003"]
    assert locate(lib, "ada") == "- s0003: ada cy\n- s0001: ada bo\n- s0002: ada"
    assert locate(lib, "cy") == "- s0003: ada cy"
    assert locate(lib, "ada") == locate_scan(lib, "ada")
