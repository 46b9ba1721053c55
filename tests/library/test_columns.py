"""Column helpers (kbgym.library.columns): a StrColumn reads like the list it stands for, a
LazyDict like its dict (also as a LayeredMap base, through forks and folds), and neither is
made before it is read."""

from __future__ import annotations

import pickle

from hypothesis import given
from hypothesis import strategies as st

from kbgym.library.binsnap import _strings
from kbgym.library.columns import LazyDict, LazySet, StrColumn
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
