"""The library's incremental digest (kbgym.library.digest): after any sequence of operations,
forks, absorbs and snapshot round trips, the digest the library carries equals the digest
computed afresh from its notes, and equal content gives equal digests."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from libtest_helpers import SENTENCES, apply, make_lib, op_st

from kbgym.library import Library, load_snapshot, write_snapshot
from kbgym.library.digest import column_sum, library_digest, note_digest, origins_digest

UNI = {"path": None, "hash": None}


def recomputed(lib: Library) -> str:
    """The digest from scratch: every live note's digest summed, nothing carried."""
    return library_digest(lib.next_id, lib.merges, origins_digest(lib.origins),
                          sum(note_digest(n) for n in lib))


SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


@SETTINGS
@given(st.lists(op_st, max_size=40), st.booleans(), st.booleans(), st.integers(0, 40))
def test_carried_digest_equals_recomputed(ops, stale, early, ask_at):
    lib = make_lib(SENTENCES)
    if early:  # (the columns' sum computed before the edits, or only at the end)
        lib.digest()
    if stale:
        lib.enable_staleness({"s0002": "s0003"})
    for i, op in enumerate(ops):
        apply(lib, op)
        if i == ask_at:
            assert lib.digest() == recomputed(lib)
    assert lib.digest() == recomputed(lib)


@SETTINGS
@given(st.lists(op_st, max_size=20), st.lists(op_st, max_size=20), st.lists(op_st, max_size=10))
def test_forks_and_absorbs_carry_the_digest(pre, fork_ops, parent_ops):
    lib = make_lib(SENTENCES)
    for op in pre:
        apply(lib, op)
    fork = lib.fork()
    assert fork.digest() == lib.digest()
    for op in fork_ops:
        apply(fork, op)
    assert fork.digest() == recomputed(fork)
    assert lib.digest() == recomputed(lib)  # the parent is untouched by its fork's edits
    for op in parent_ops:
        apply(lib, op)
    lib.absorb_fork(fork)
    assert lib.digest() == recomputed(lib)


@SETTINGS
@given(st.lists(op_st, max_size=30), st.sampled_from(["json", "binary"]), st.lists(op_st, max_size=10))
def test_snapshot_round_trips_carry_the_digest(tmp_path_factory, ops, fmt, after):
    lib = make_lib(SENTENCES)
    for op in ops:
        apply(lib, op)
    path = tmp_path_factory.mktemp("d") / "kb"
    write_snapshot(path, lib, "x", UNI, format=fmt)
    back, _ = load_snapshot(path)
    assert back.digest() == lib.digest() == recomputed(back)
    for op in after:  # a loaded library goes on carrying it
        apply(back, op)
    assert back.digest() == recomputed(back)


def test_digest_is_content_not_history():
    """Two libraries reaching the same content by different paths agree; any change of a
    hidden field, the next id or the merge count moves it."""
    a, b = make_lib(SENTENCES), make_lib(SENTENCES)
    a.link("s0001", "s0002")
    a.link("s0001", "s0003")
    b.link("s0001", "s0003")
    b.unlink("s0001", "s0003")
    b.link("s0001", "s0002")
    b.link("s0001", "s0003")
    assert a.digest() == b.digest()
    b.unlink("s0001", "s0002")
    b.link("s0001", "s0002")  # the same links in another order: another library
    assert a.digest() != b.digest()
    c = make_lib(SENTENCES)
    c.add("Felix is a cooper.", dedup=False)
    d = make_lib(SENTENCES)
    d.add("Felix is a cooper.", dedup=False)
    assert c.digest() == d.digest()
    d.edit("s0001", d["s0001"].text, dedup=False)  # same text, now flagged edited
    assert c.digest() != d.digest()


def test_column_sum_matches_the_notes():
    lib = make_lib(SENTENCES + ["ünï ✓ \u2028 \"q\" \\"])
    cols = lib._nodes._base.source
    assert column_sum(cols) == sum(note_digest(n) for n in lib) % (1 << 256)


@SETTINGS
@given(st.lists(op_st, max_size=30), st.booleans())
def test_a_notes_digest_is_over_its_canonical_json(ops, stale):
    """node_json (what a note's digest hashes) is the note's canonical JSON object, for every
    shape of note (plain, edited, authored, linked, typed, hashed, absorbing)."""
    import json

    lib = make_lib(SENTENCES + ['quote " back \\\\ ünï \u2028'])
    if stale:
        lib.enable_staleness()
    for op in ops:
        apply(lib, op)
    from kbgym.library.digest import node_json

    for n in lib:
        assert node_json(n) == json.dumps(n.to_json(), sort_keys=True, separators=(",", ":"),
                                          ensure_ascii=False)
