"""Library.copy() copies named fields, not ``__dict__``: every field a library has is either
taken over or made anew by name, so a new field cannot ride along into copies unnoticed."""

from __future__ import annotations

from kbgym.library.graph import _COPIED, _FORKED, Library


def test_every_field_of_a_library_is_named_by_copy():
    lib = Library.from_texts([("s0001", "Ada is a baker."), ("s0002", "Bo is a cook.")])
    fields = set(vars(lib)) - {"_ceiling"}
    assert fields == set(_COPIED) | set(_FORKED)
    assert not set(_COPIED) & set(_FORKED)


def test_a_copy_has_the_same_fields_and_state_and_is_independent():
    lib = Library.from_texts([("s0001", "Ada is a baker."), ("s0002", "Bo is a cook.")])
    lib.original_ceiling()
    other = lib.copy()
    assert set(vars(other)) == set(vars(lib))
    assert other.state_key() == lib.state_key() and other.frozen is False
    nid = other.add("Ada and Bo are friends.").id
    assert nid in other and nid not in lib
    assert lib.state_key() != other.state_key()
