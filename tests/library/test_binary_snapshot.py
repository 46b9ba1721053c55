"""Binary snapshots (kbgs-1): the same content as the JSON form, the content hash when it was
known and the library's digest in the header, the index loaded instead of rebuilt, and a
one-line SnapshotIntegrityError for any damage."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from libtest_helpers import QUERIES, SENTENCES, apply, brute_bm25, check_invariants, make_lib, op_st

from kbgym.library.stats import recompute_stats
from kbgym.errors import SnapshotIntegrityError
from kbgym.jsonio import canonical, content_hash
from kbgym.library import load_snapshot, snapshot_hash, write_snapshot
from kbgym.library.binsnap import library_hash

UNI = {"path": None, "hash": None}
ODD = ["Line\u2028sep", 'quote " and \\ back', "ünï ✓ 42", "tab\there"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(op_st, max_size=40), st.booleans(), st.booleans())
def test_binary_round_trip_equals_json(tmp_path, ops, stale, pending):
    lib = make_lib(SENTENCES + ODD, refresh="iteration" if pending else "immediate")
    if stale:
        lib.enable_staleness({"s0002": "s0003"})
    for op in ops:
        apply(lib, op)
    digest = content_hash(lib.snapshot())
    assert library_hash(lib) == digest == snapshot_hash(lib)
    jpath, bpath = tmp_path / "kb.json", tmp_path / "kb.kbgs"
    assert write_snapshot(jpath, lib, "x", UNI) == digest
    assert write_snapshot(bpath, lib, "x", UNI, format="binary") == lib.digest()
    back, header = load_snapshot(bpath)
    viaj, _ = load_snapshot(jpath)
    assert header["content_hash"] == digest and header["format"] == "kbgs-1"
    assert header["digest"] == lib.digest() == back.digest() == viaj.digest()
    assert canonical(back.snapshot()) == canonical(viaj.snapshot()) == canonical(lib.snapshot())
    assert back.stats() == recompute_stats(back) == recompute_stats(viaj)
    check_invariants(back)
    assert (back.search_backend is not None) == (not lib.dirty)  # stored only when in step
    if back.search_backend is None:
        from kbgym.library import BM25Index

        back.attach_search(BM25Index())
    for q in QUERIES:
        assert back.search(q, 7) == brute_bm25({n.id: n.text for n in back}, q, 7)
    new = back.add("Zyzzyva index.").id  # a loaded library (and its index) takes edits
    back.refresh()
    assert [i for i, _ in back.search("zyzzyva", 3)] == [new]


def _good(tmp_path):
    lib = make_lib(SENTENCES)
    lib.link("s0001", "s0002")
    path = tmp_path / "kb.kbgs"
    write_snapshot(path, lib, "x", UNI, format="binary")
    return path


@pytest.mark.parametrize("cut", [1, 9, 20, 200, -1, -33])
def test_truncated_binary_is_one_line_error(tmp_path, cut):
    path = _good(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:cut] if cut > 0 else data[:cut])
    with pytest.raises(SnapshotIntegrityError) as err:
        load_snapshot(path)
    assert "\n" not in str(err.value) and str(path) in str(err.value)


@pytest.mark.parametrize("where", [0.3, 0.6, 0.95])
def test_flipped_byte_is_caught_by_the_checksum(tmp_path, where):
    path = _good(tmp_path)
    data = bytearray(path.read_bytes())
    data[int(where * (len(data) - 40))] ^= 0x5A
    path.write_bytes(bytes(data))
    with pytest.raises(SnapshotIntegrityError, match="corrupt|malformed|magic"):
        load_snapshot(path)


def test_huge_header_length_is_refused_before_reading(tmp_path):
    path = _good(tmp_path)
    data = bytearray(path.read_bytes())
    data[8:16] = (2**62).to_bytes(8, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(SnapshotIntegrityError, match="header length"):
        load_snapshot(path)


def test_unknown_format_is_refused(tmp_path):
    with pytest.raises(ValueError, match="json or binary"):
        write_snapshot(tmp_path / "x", make_lib(SENTENCES), "x", UNI, format="pickle")
    assert not os.listdir(tmp_path)


def test_binary_header_without_a_known_content_hash(tmp_path):
    """A library whose content hash was never computed is written without one (no pass over
    the notes); the loaded library computes it when asked, equal to the JSON form's."""
    lib = make_lib(SENTENCES + ODD)
    lib.link("s0001", "s0002", "refers_to")
    lib.edit("s0003", "Mara is a cooper.", dedup=False)
    path = tmp_path / "kb.kbgs"
    assert write_snapshot(path, lib, "x", UNI, format="binary") == lib.digest()
    back, header = load_snapshot(path)
    assert header["content_hash"] is None and header["digest"] == lib.digest()
    assert snapshot_hash(back) == content_hash(lib.snapshot()) == snapshot_hash(lib)


def test_header_digest_that_disagrees_with_its_note_sum_is_refused(tmp_path):
    import json

    lib = make_lib(SENTENCES)
    path = tmp_path / "kb.kbgs"
    write_snapshot(path, lib, "x", UNI, format="binary")
    data = path.read_bytes()
    n = int.from_bytes(data[8:16], "little")
    head = json.loads(data[16:16 + n])
    head["library"]["note_sum"] = "%064x" % (int(head["library"]["note_sum"], 16) ^ 1)
    new = canonical(head).encode()
    body = data[:8] + len(new).to_bytes(8, "little") + new + data[16 + n:-40]
    import hashlib

    path.write_bytes(body + b"KBGSEND1" + hashlib.sha256(body).digest())
    with pytest.raises(SnapshotIntegrityError, match="digest does not match"):
        load_snapshot(path)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**17), st.sampled_from(["s", "s0", "s00", "t", "s1x"])),
                min_size=1, max_size=8))
def test_id_check_over_the_blob_agrees_with_id_num(pairs):
    """The loader's vectorized check (every id spells its note number) says what id_num says."""
    import numpy as np

    from kbgym.library.binsnap import _ids_are_numbers, _strings
    from kbgym.protocol.ids import id_num

    ids = [p + str(k) for k, p in pairs]
    nums = np.array([k for k, _ in pairs], dtype=np.int64)
    blob, off = _strings(ids)

    def slow():
        try:
            return [id_num(x) for x in ids] == nums.tolist()
        except ValueError:
            return False

    assert _ids_are_numbers(blob, off, nums, ids) == slow()
    shifted = nums + 1
    assert not _ids_are_numbers(blob, off, shifted, ids)


def test_loaded_texts_are_one_column_and_write_back_unchanged(tmp_path):
    """A loaded library's texts stay one string cut on access; writing it again gives the
    same file, and the loaded library edits and searches like any other."""
    from kbgym.library.columns import StrColumn

    lib = make_lib(SENTENCES)
    lib.link("s0002", "s0004", "refers_to")
    a, b = tmp_path / "a.kbgs", tmp_path / "b.kbgs"
    write_snapshot(a, lib, "x", UNI, format="binary")
    back, _ = load_snapshot(a)
    assert isinstance(back._nodes._base.source.texts, StrColumn)
    assert [n.text for n in back] == [n.text for n in lib]
    write_snapshot(b, back, "x", UNI, format="binary")
    assert a.read_bytes() == b.read_bytes()
    back.edit("s0001", "Mara is a cooper.", dedup=False)
    back.delete("s0003")
    assert back.digest() == make_edited(lib).digest()


def make_edited(lib):
    other = lib.copy()
    other.edit("s0001", "Mara is a cooper.", dedup=False)
    other.delete("s0003")
    return other


def test_every_note_changed_in_order_round_trips(tmp_path):
    """The writer's shortcut for a change to every note (the changes in id order) gives the
    same file content as the library: edits, a deletion, a link and an add on top."""
    lib = make_lib(SENTENCES + ODD)
    for i in lib.ids():
        lib.edit(i, lib[i].text + " Again.", dedup=False)
    lib.delete("s0003")
    lib.link("s0001", "s0002", "refers_to")
    lib.add("Zyzzyva index.", dedup=False)
    path = tmp_path / "kb.kbgs"
    write_snapshot(path, lib, "x", UNI, format="binary")
    back, _ = load_snapshot(path)
    assert canonical(back.snapshot()) == canonical(lib.snapshot())
    assert back.digest() == lib.digest() and back.stats() == recompute_stats(back)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(op_st, max_size=25), st.lists(op_st, max_size=25), st.booleans())
def test_loaded_library_edited_round_trips(tmp_path, first, then, every):
    """A library loaded from a binary snapshot keeps its flags and origins as the file's
    codes; changed again (every note edited, or a few operations) and written again, it reads
    back as the same library, with the same digest and content hash."""
    lib = make_lib(SENTENCES + ODD)
    for op in first:
        apply(lib, op)
    a, b = tmp_path / "a.kbgs", tmp_path / "b.kbgs"
    write_snapshot(a, lib, "x", UNI, format="binary")
    back, _ = load_snapshot(a)
    if every:
        for i in back.ids():
            back.edit(i, back[i].text + " Again.", dedup=False)
    for op in then:
        apply(back, op)
    assert write_snapshot(b, back, "x", UNI, format="binary") == back.digest()
    again, header = load_snapshot(b)
    assert canonical(again.snapshot()) == canonical(back.snapshot())
    assert snapshot_hash(again) == content_hash(back.snapshot()) == library_hash(back)
    assert again.digest() == back.digest() == header["digest"]
    assert again.stats() == recompute_stats(again) == recompute_stats(back)
    check_invariants(again)


@given(st.lists(st.tuples(st.sampled_from([0, 1, 2]), st.sampled_from(["s1", "s2", "x"])),
                max_size=12), st.integers(-14, 14), st.integers(-14, 14))
def test_code_and_origin_columns_read_like_their_lists(rows, lo, hi):
    import numpy as np

    from kbgym.library.columns import CodeColumn, OriginColumn

    values = (None, "edited", "authored")
    codes = np.array([k for k, _ in rows], dtype=np.uint8)
    flags = [values[k] for k, _ in rows]
    col = CodeColumn(codes, values)
    assert list(col) == flags and col == flags and col[lo:hi] == flags[lo:hi]
    assert [col[i] for i in range(-len(rows), len(rows))] == flags + flags
    ids = [f"s{i}" for i in range(len(rows))]
    origins = [None if k == 0 else ids[i] if k == 1 else o for i, (k, o) in enumerate(rows)]
    oc = OriginColumn(codes, ids, [o for k, o in rows if k == 2])
    assert list(oc) == origins and oc[lo:hi] == origins[lo:hi]
    assert [oc[i] for i in range(-len(rows), len(rows))] == origins + origins
    with pytest.raises(ValueError):
        OriginColumn(codes, ids, ["extra"] * (1 + int((codes == 2).sum())))


@pytest.mark.parametrize("edit", [(), ("s0002",), ("s0001", "s0002", "s0003", "s0004")])
def test_notes_carrying_another_origin_round_trip_through_edits(tmp_path, edit):
    """Origins other than the note's own id (a JSON snapshot may hold them) stay in place
    when the notes around them, or they themselves, are edited between binary round trips."""
    from kbgym.library import Library

    obj = make_lib(SENTENCES).snapshot()
    obj["nodes"][1]["origin"] = "s0005"
    obj["nodes"][3]["origin"] = "s0001"
    lib = Library.from_snapshot(obj)
    a, b = tmp_path / "a.kbgs", tmp_path / "b.kbgs"
    write_snapshot(a, lib, "x", UNI, format="binary")
    back, _ = load_snapshot(a)
    assert canonical(back.snapshot()) == canonical(lib.snapshot())
    for i in edit:
        back.edit(i, back[i].text + " Again.", dedup=False)
        lib.edit(i, lib[i].text + " Again.", dedup=False)
    back.add("Zyzzyva index.", dedup=False)
    lib.add("Zyzzyva index.", dedup=False)
    write_snapshot(b, back, "x", UNI, format="binary")
    again, _ = load_snapshot(b)
    assert canonical(again.snapshot()) == canonical(lib.snapshot())
    assert again.digest() == lib.digest() and again.stats() == recompute_stats(again)
    assert [n.origin for n in again] == [n.origin for n in lib]


@pytest.mark.parametrize("change", ["add", "delete first", "delete last", "none"])
def test_origin_list_section_is_the_join_of_the_origins(tmp_path, change):
    """The origin list is written as the join of the origins whether or not it is cut from
    the id column (the originals then only additions), and reads back as the library's."""
    import numpy as np

    from kbgym.library.binsnap import _strings, library_columns

    lib = make_lib(SENTENCES)
    if change == "add":
        lib.add("Zyzzyva index.", dedup=False)
    elif change == "delete first":
        lib.delete("s0001")
    elif change == "delete last":
        lib.delete("s0006")
        lib.add("Zyzzyva index.", dedup=False)
    head, cols = library_columns(lib)
    if not head["origins_are_ids"]:
        blob, off = _strings(list(lib.origins))
        assert bytes(cols["origins_blob"]) == bytes(blob)
        assert np.array_equal(cols["origins_off"], off)
    path = tmp_path / "kb.kbgs"
    write_snapshot(path, lib, "x", UNI, format="binary")
    back, _ = load_snapshot(path)
    assert back.origins == lib.origins and back.digest() == lib.digest()
    assert canonical(back.snapshot()) == canonical(lib.snapshot())
