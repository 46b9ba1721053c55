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
    lib = make_lib(SENTENCES + ["ünï ✓ \u2028 \"q\" \\", "long " * 300, "x" * 1023, "y" * 1024,
                                "", "\ud800 lone"])
    cols = lib._nodes._base.source
    assert column_sum(cols) == sum(note_digest(n) for n in lib) % (1 << 256)


def _decode(enc: str) -> dict:
    """A note's JSON object read back from its digest encoding (so the encoding loses
    nothing: notes with different objects have different encodings)."""
    pos = 0

    def string() -> str | None:
        nonlocal pos
        if enc[pos] == "-":
            pos += 1
            return None
        colon = enc.index(":", pos)
        n = int(enc[pos:colon])
        pos = colon + 1 + n
        return enc[colon + 1: pos]

    def count() -> int:
        nonlocal pos
        dot = enc.index(".", pos)
        n, pos = int(enc[pos:dot]), dot + 1
        return n

    d: dict = {"id": string(), "text": string(), "origin": string()}
    d["flag"] = {"n": None, "e": "edited", "a": "authored"}[enc[pos]]
    pos += 1
    d["absorbed"] = [string() for _ in range(count())]
    links, types, hashes = [], {}, {}
    for _ in range(count()):
        x, ty, h = string(), string(), string()
        links.append(x)
        if ty is not None:
            types[x] = ty
        if h is not None:
            hashes[x] = h
    d["links"] = links
    if types:
        d["link_types"] = types
    if hashes:
        d["link_hashes"] = hashes
    assert pos == len(enc)
    return d


@SETTINGS
@given(st.lists(op_st, max_size=30), st.booleans())
def test_a_notes_digest_input_holds_its_whole_json_object(ops, stale):
    """What a note's digest hashes (note_text) reads back as the note's JSON object, for every
    shape of note (plain, edited, authored, linked, typed, hashed, absorbing), texts with
    digits, colons and dashes included; node_json is that object's canonical JSON."""
    import json

    from kbgym.library.digest import node_json, note_text

    lib = make_lib(SENTENCES + ['quote " back \\ ünï \u2028', "12:3- 4:x- n0.0."])
    if stale:
        lib.enable_staleness()
    for op in ops:
        apply(lib, op)
    for n in lib:
        assert _decode(note_text(n)) == n.to_json()
        assert node_json(n) == json.dumps(n.to_json(), sort_keys=True, separators=(",", ":"),
                                          ensure_ascii=False)


def test_column_sum_of_loaded_columns_with_flags_origins_and_links(tmp_path):
    lib = make_lib(SENTENCES)
    lib.edit("s0001", "Mara is a cooper.", dedup=False)
    lib.add("Felix is a cooper.", dedup=False)
    lib.link("s0002", "s0003", "refers_to")
    lib.merge("s0004", "s0005")
    write_snapshot(tmp_path / "kb.kbgs", lib, "x", UNI, format="binary")
    back, _ = load_snapshot(tmp_path / "kb.kbgs")
    base = back._nodes._base
    linked = {k: n for k, n in base._made.items() if n.links}
    assert base.source.flags is not None and base.source.origins is not None
    assert column_sum(base.source, linked) == sum(note_digest(n) for n in lib) % (1 << 256)
