"""SPEC §15.2: snapshot round trip, atomic writes, tamper detection; a universe loads as B1."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from libtest_helpers import SENTENCES, check_invariants, make_lib

from kbgym.errors import SnapshotIntegrityError
from kbgym.jsonio import canonical, content_hash
from kbgym.library import BM25Index, load_snapshot, read_result, snapshot_hash, write_snapshot
from kbgym.library.snapshot import snapshot_object

UNI = {"path": "u.json", "hash": "sha256:" + "0" * 64}


def _built():
    lib = make_lib()
    lib.add("Index of Mara Quill.")
    lib.link_many("s0007", ["s0002", "s0003", "s0004"])
    lib.link("s0001", "s0002", type="refers_to")
    lib.edit("s0005", "Tom Brand is Mara Quill's child.")
    lib.merge("s0006", "s0005")
    lib.delete("s0004")
    return lib


def test_snapshot_object_shape():
    lib = _built()
    obj = lib.snapshot()
    assert list(obj) == ["nodes", "origins", "next_id", "merges"]
    assert [n["id"] for n in obj["nodes"]] == ["s0001", "s0002", "s0003", "s0005", "s0007"]
    n1 = obj["nodes"][0]
    assert n1 == {"id": "s0001", "text": SENTENCES[0], "links": ["s0002"], "origin": "s0001",
                  "flag": None, "absorbed": [], "link_types": {"s0002": "refers_to"}}  # fmt: skip
    assert "link_types" not in obj["nodes"][1]  # only when typed
    assert obj["nodes"][3]["absorbed"] == ["s0006"] and obj["nodes"][3]["flag"] == "edited"
    assert obj["next_id"] == 8 and obj["merges"] == 1 and len(obj["origins"]) == 6


def test_round_trip(tmp_path):
    lib = _built()
    p = tmp_path / "kb_epoch_1.json"
    h = write_snapshot(p, lib, "epoch 1", UNI)
    text = p.read_text(encoding="utf-8")
    obj = json.loads(text)
    assert text == canonical(obj)
    assert obj["schema_version"] == 1 and obj["kind"] == "kbgym.snapshot" and obj["label"] == (
        "epoch 1"
    )
    assert obj["universe"] == UNI and obj["content_hash"] == h == content_hash(obj["library"])
    back, header = load_snapshot(p, search=BM25Index())
    assert header == {k: v for k, v in obj.items() if k != "library"}
    assert back.snapshot() == lib.snapshot() and snapshot_hash(back) == h
    assert back.stats() == lib.stats()
    check_invariants(back)
    assert read_result(back, "s0001") == read_result(lib, "s0001")
    assert back.search("mara quill", 10) == lib.search("mara quill", 10)  # index rebuilt on load
    assert back.add("x").id == "s0008"  # next_id survives


# labels, paths and texts with what canonical JSON escapes (quotes, controls, U+2028, lone
# surrogates) and what it writes raw (non-ASCII)
_TEXTS = st.text(st.sampled_from(['a', 'Z', ' ', '"', '\\', '\n', '\x00', '\u2028', '\u0085',
                                   '\ud800', 'é', '😀', '{', '}', ':', ',']), max_size=12)
_NOTE_TEXTS = st.text(st.sampled_from(['a', 'Z', ' ', '"', '\\', 'é', '😀', '{', '}', ':', ',']),
                      max_size=12)  # (a note refuses controls and invisible characters)


@settings(max_examples=60, deadline=None)
@given(label=_TEXTS, path=st.none() | _TEXTS, text=_NOTE_TEXTS)
def test_json_file_is_canonical_json_of_the_snapshot_object(tmp_path_factory, label, path, text):
    """The file is written from the library's text spliced into the header's (the library is
    serialized once): byte for byte ``canonical(snapshot_object(...))``, the hash the same."""
    lib = _built()
    lib.add("x" + text)
    universe = {"path": path, "hash": "sha256:" + "1" * 64}
    p = tmp_path_factory.mktemp("snap") / "kb.json"
    h = write_snapshot(p, lib, label, universe)
    obj = snapshot_object(lib, label, universe)
    assert p.read_bytes() == canonical(obj).encode("utf-8")
    assert h == obj["content_hash"] == content_hash(lib.snapshot())


def test_memo_reuses_an_unchanged_library_and_never_a_changed_one(tmp_path, monkeypatch):
    """With a memo (the trainer's), an unchanged library is not serialized again, and a
    changed one is: every file is what a write without the memo gives."""
    lib, memo, calls = _built(), {}, []
    real = lib.snapshot
    monkeypatch.setattr(lib, "snapshot", lambda: calls.append(1) or real())

    def check(name: str, label: str) -> None:
        h = write_snapshot(tmp_path / name, lib, label, UNI, memo=memo)
        assert h == write_snapshot(tmp_path / "plain.json", lib, label, UNI)
        assert (tmp_path / name).read_bytes() == (tmp_path / "plain.json").read_bytes()

    check("a.json", "iteration 20")
    n = len(calls)
    check("b.json", "iteration 40")  # unchanged: the memo's text
    assert len(calls) == n + 1  # (only the write without the memo serialized it)
    lib.edit("s0001", "Mara Quill's job is baker.")
    check("c.json", "iteration 60")  # changed: serialized again
    assert len(calls) == n + 3
    assert json.loads((tmp_path / "c.json").read_text())["library"]["nodes"][0]["text"] == (
        "Mara Quill's job is baker.")


def test_tamper_detection(tmp_path):
    p = tmp_path / "s.json"
    write_snapshot(p, _built(), "x", UNI)
    obj = json.loads(p.read_text())
    obj["library"]["nodes"][0]["text"] = "tampered"
    p.write_text(canonical(obj))
    with pytest.raises(SnapshotIntegrityError, match="content hash mismatch") as err:
        load_snapshot(p)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ('{"kind": "kbgym.snapshot", "library": {', "malformed JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"kind": "kbgym.probe"}', "kind is 'kbgym.probe'"),
        ('{"kind": "kbgym.snapshot", "schema_version": 2}', "schema_version"),
        ('{"kind": "kbgym.snapshot", "schema_version": 1}', "missing field 'library'"),
    ],
)
def test_bad_files(tmp_path, content, match):
    p = tmp_path / "bad.json"
    p.write_text(content)
    with pytest.raises(SnapshotIntegrityError, match=match) as err:
        load_snapshot(p)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda lib: lib["nodes"][0].update(links=["s0099"]),
        lambda lib: lib["nodes"][0].update(links=["s0001"]),
        lambda lib: lib["nodes"][0].update(links=["s0002", "s0002"]),
        lambda lib: lib["nodes"][0].update(flag="weird"),
        lambda lib: lib["nodes"][0].update(id="x1"),
        lambda lib: lib["nodes"][0].pop("text"),
        lambda lib: lib.update(next_id=2),
        lambda lib: lib["nodes"].append(dict(lib["nodes"][0])),
        lambda lib: lib["nodes"][0].update(link_types={"s0003": "cites"}),
        lambda lib: lib.pop("origins"),
    ],
)
def test_bad_shape_with_a_valid_hash(tmp_path, mutate):
    lib = _built().snapshot()
    mutate(lib)
    obj = {"schema_version": 1, "kind": "kbgym.snapshot", "label": "x", "universe": UNI,
           "library": lib, "content_hash": content_hash(lib)}  # fmt: skip
    p = tmp_path / "shape.json"
    p.write_text(canonical(obj))
    with pytest.raises(SnapshotIntegrityError, match="malformed snapshot library") as err:
        load_snapshot(p)
    assert "\n" not in str(err.value)


def test_atomic_write_leaves_nothing_on_failure(tmp_path, monkeypatch):
    p = tmp_path / "kb.json"

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_snapshot(p, _built(), "x", UNI)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fmt", ["json", "binary"])
def test_old_file_survives_a_failed_write(tmp_path, monkeypatch, fmt):
    p = tmp_path / "kb.snap"
    write_snapshot(p, make_lib(), "old", UNI, format=fmt)
    before = p.read_bytes()
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError("io")))
    with pytest.raises(OSError):
        write_snapshot(p, _built(), "new", UNI, format=fmt)
    assert p.read_bytes() == before and [f.name for f in tmp_path.iterdir()] == ["kb.snap"]


def test_universe_file_loads_as_b1(tmp_path):
    obj = {"schema_version": 1, "kind": "kbgym.universe", "meta": {}, "vocab": {}, "people": [],
           "nodes": [{"id": f"s{i:04d}", "text": t, "fact": {"kind": "job", "subject": "p1",
                      "object": "x"}} for i, t in enumerate(SENTENCES, 1)],
           "questions": [], "splits": {}}  # fmt: skip
    p = tmp_path / "universe.json"
    p.write_text(canonical(obj))
    lib, header = load_snapshot(p)
    assert header["kind"] == "kbgym.universe" and header["label"] == "B1"
    assert header["universe"] == {"path": str(p), "hash": content_hash(obj)}
    assert lib.snapshot() == make_lib().snapshot()
    p.write_text(canonical({"kind": "kbgym.universe", "nodes": [{"id": 3}]}))
    with pytest.raises(SnapshotIntegrityError, match="no valid nodes"):
        load_snapshot(p)
