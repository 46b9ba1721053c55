"""Column helpers (kbgym.library.columns): a StrColumn reads like the list it stands for, a
LazyDict like its dict (also as a LayeredMap base, through forks and folds), and neither is
made before it is read; IdPositions answers like the id -> position dict without making it."""

from __future__ import annotations

import pickle

from hypothesis import given
from hypothesis import strategies as st

from kbgym.library.binsnap import _strings
from array import array

from kbgym.library.columns import IdPositions, LazyDict, LazySet, StrColumn
from kbgym.library.layers import LayeredMap

texts = st.lists(st.text(alphabet=st.characters(min_codepoint=1, max_codepoint=127)),
                 min_size=1, max_size=12)


@given(texts, st.integers(-15, 15), st.integers(-15, 15))
def test_str_column_reads_like_its_list(items, lo, hi):
    blob, off = _strings(items)
    col = StrColumn(blob.tobytes().decode(), off, True)
    assert len(col) == len(items) and list(col) == items and col == items
    assert col[lo:hi] == items[lo:hi]
    for i in range(-len(items), len(items)):
        assert col[i] == items[i]
    assert col + ["x"] == items + ["x"] and ["x"] + col == ["x"] + items
    assert pickle.loads(pickle.dumps(col)) == items
    again, off2 = _strings(col)  # written again: the same blob and offsets, no join
    assert again.tobytes() == blob.tobytes() and list(off2) == list(off)


def test_lazy_dict_is_made_once_on_first_read():
    calls = []

    def make():
        calls.append(1)
        return {"a": 1, "b": 2}

    d = LazyDict(make, 2)
    assert len(d) == 2 and not calls  # the size is known without making it
    assert d.get("a") == 1 and "b" in d and d["b"] == 2 and dict(d.items()) == {"a": 1, "b": 2}
    assert calls == [1]
    assert pickle.loads(pickle.dumps(d)) == {"a": 1, "b": 2}


def test_lazy_dict_as_a_layered_map_base_through_forks_and_folds(monkeypatch):
    from kbgym.library import layers

    monkeypatch.setattr(layers, "FOLD_MIN", 2)
    m = LayeredMap.over(LazyDict(lambda: dict.fromkeys("abcdef", 1), 6))
    f = m.fork()
    for k in "abcd":
        f[k] = 2
    del f["e"]
    g = f.fork()  # the mid outgrows FOLD_MIN and a quarter of the base: folded
    assert dict(g.items()) == {"a": 2, "b": 2, "c": 2, "d": 2, "f": 1}
    assert dict(m.items()) == dict.fromkeys("abcdef", 1) and len(g) == 5


def test_lazy_set():
    s = LazySet(["x", "y"])
    assert "x" in s and "z" not in s and len(s) == 2 and s == {"x", "y"}


@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 3)), max_size=40, unique=True),
       st.lists(st.one_of(st.integers(0, 70).map(lambda i: f"s{i:04d}"),
                          st.integers(0, 70).map(lambda i: f"s{i}"),
                          st.sampled_from(["", "x12", "s", "S0001", "s-1", "s0001 "]),
                          st.integers(0, 3)), max_size=30))
def test_id_positions_answer_like_the_dict_without_making_it(spelled, probes):
    """Ids in id order (numbers ascending, ``s01`` and ``s0001`` sharing one) are found by
    their number and checked by spelling: every id, every miss and every non-id answer as
    the dict of every id does, and the dict is made only when a bulk reader asks for it."""
    items = sorted({(num, f"s{num:0{width + 1}d}") for num, width in spelled})
    ids = [i for _, i in items]
    want = dict(zip(ids, range(len(ids))))
    pos = IdPositions(ids, array("q", [num for num, _ in items]))
    for key in ids + probes:
        assert pos.get(key) == want.get(key) and pos.get(key, -1) == want.get(key, -1)
        assert (key in pos) == (key in want)
    assert pos._d is None and len(pos) == len(want)  # nothing made by lookups
    assert pos.to_dict() == want and dict(pos.items()) == want
    assert all(pos.get(k) == v for k, v in want.items())  # and the same through the dict


def test_a_search_page_reads_texts_without_making_nodes():
    """A library built from texts makes a note's Node only when something touches the note:
    the texts a search page shows are read from the columns (nothing piles up for the
    collector), and read like the Nodes' texts once edits put Nodes on top."""
    from kbgym.library import BM25Index, Library, apply_edit, search_result

    texts = [f"Felix Vance{i} is a friend of Mara Quill{i}." for i in range(1, 40)]
    lib = Library.from_texts([(f"s{i:04d}", t) for i, t in enumerate(texts, 1)],
                             search=BM25Index())
    base = lib._nodes._base
    page = search_result(lib, "friend Mara", 1)
    assert "Felix Vance1 is a friend of Mara Quill1." in page and not base._made
    apply_edit(lib, "edit", {"id": "s0002", "text": "Mara Quill2 is a cooper."})
    apply_edit(lib, "delete", {"id": "s0003"})
    assert lib.text_of("s0002") == "Mara Quill2 is a cooper." and lib.text_of("s0003") is None
    assert "Mara Quill2 is a cooper." in search_result(lib, "cooper", 1)
    assert set(base._made) <= {"s0002", "s0003"}  # only the touched notes were made
