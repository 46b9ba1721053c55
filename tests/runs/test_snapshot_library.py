"""The demo hands its trained library to its report and view (``snapshot_library``): reused only
while its content is the snapshot's, loaded from the file otherwise."""

from __future__ import annotations

from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot, write_snapshot
from kbgym.runs.replay import snapshot_library

UNI = {"path": None, "hash": "sha256:" + "0" * 64}
TEXTS = [("s0001", "Mara Quill's job is baker."), ("s0002", "Tom Brand lives in Fenmarch.")]


def _written(tmp_path, name="kb_epoch_1.json", extra=None):
    lib = Library.from_texts(TEXTS)
    if extra:
        lib.add(extra)
    path = tmp_path / name
    write_snapshot(path, lib, "epoch 1", UNI)
    return path


def test_the_loaded_library_is_reused(tmp_path):
    path = _written(tmp_path)
    loaded, _ = load_snapshot(path)
    assert snapshot_library(path, loaded) is loaded


def test_a_changed_library_or_another_file_is_loaded_from_the_file(tmp_path):
    path = _written(tmp_path)
    loaded, _ = load_snapshot(path)
    loaded.add("Index of Mara Quill.")  # changed since it was loaded
    got = snapshot_library(path, loaded)
    assert got is not loaded and got.snapshot() == load_snapshot(path)[0].snapshot()
    other = _written(tmp_path, "kb_epoch_2.json", extra="Index of Tom Brand.")
    fresh, _ = load_snapshot(path)
    got = snapshot_library(other, fresh)  # a library of another snapshot
    assert got is not fresh and len(got) == 3
    assert snapshot_library(path).snapshot() == fresh.snapshot()  # nothing given: loaded
