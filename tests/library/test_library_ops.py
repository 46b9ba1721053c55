"""SPEC §6.1 and §8: every result and error string the library produces, and op semantics."""

from __future__ import annotations

import pytest
from libtest_helpers import check_invariants, fake_universe, make_lib

from kbgym.errors import LibraryFrozenError, LibraryOpError
from kbgym.library import Library, apply_edit, format_id, id_num, read_result
from kbgym.library.snapshot import snapshot_hash


def edit(lib, name, **args):
    return apply_edit(lib, name, args)


# -- construction -------------------------------------------------------------------------------


def test_from_universe_is_b1():
    lib = make_lib()
    assert lib.origins == tuple(f"s{i:04d}" for i in range(1, 7))
    assert lib.next_id == 7 and lib.merges == 0 and lib.version == 0 and not lib.frozen
    for n in lib:
        assert n.origin == n.id and n.flag is None and n.links == [] and n.absorbed == ()
    assert lib.stats()["orphan_nodes"] == 6
    check_invariants(lib)


def test_ids_width_is_a_minimum_and_order_is_numeric():
    assert format_id(1) == "s0001" and format_id(9999) == "s9999" and format_id(10000) == "s10000"
    assert id_num("s10000") == 10000
    lib = Library(next_id=9999)
    assert edit(lib, "add", text="a") == "added s9999"
    assert edit(lib, "add", text="b") == "added s10000"
    assert [n.id for n in lib] == ["s9999", "s10000"]
    with pytest.raises(ValueError):
        id_num("x1")


# -- text ---------------------------------------------------------------------------------------


def test_text_is_normalised():
    lib = make_lib()
    assert edit(lib, "add", text="  two\n\nlines\t and  spaces \u00a0 ") == "added s0007"
    assert lib["s0007"].text == "two lines and spaces"


@pytest.mark.parametrize("text", ["", "   ", "\n\t \r\n"])
def test_empty_text(text):
    lib = make_lib()
    assert edit(lib, "add", text=text) == "ERROR: note text must not be empty"
    assert edit(lib, "edit", id="s0001", text=text) == "ERROR: note text must not be empty"


def test_text_cap_default_and_configurable():
    lib = make_lib()
    assert edit(lib, "add", text="x" * 1000) == "added s0007"
    assert edit(lib, "add", text="x" * 1001) == "ERROR: note text is longer than 1000 characters"
    assert edit(lib, "add", text="  " + "x" * 1000 + "\n") == "added s0008"  # cap after stripping
    small = make_lib(max_text_chars=10)
    assert edit(small, "add", text="x" * 11) == "ERROR: note text is longer than 10 characters"
    assert edit(small, "edit", id="s0001", text="x" * 11) == (
        "ERROR: note text is longer than 10 characters"
    )


# -- add / edit / delete ------------------------------------------------------------------------


def test_add_mints_authored_nodes_and_never_reuses_ids():
    lib = make_lib()
    assert edit(lib, "add", text="Index of Mara Quill.") == "added s0007"
    n = lib["s0007"]
    assert n.origin is None and n.flag == "authored"
    assert edit(lib, "delete", id="s0007") == "deleted s0007"
    assert edit(lib, "add", text="again") == "added s0008"
    assert lib.next_id == 9


def test_edit_flags():
    lib = make_lib()
    assert edit(lib, "edit", id="s0001", text="Felix's job is cooper.") == "edited s0001"
    assert lib["s0001"].flag == "edited" and lib["s0001"].origin == "s0001"
    edit(lib, "add", text="an index")
    assert edit(lib, "edit", id="s0007", text="a better index") == "edited s0007"
    assert lib["s0007"].flag == "authored"  # authored stays authored
    st = lib.stats()
    assert st["edited_statements"] == 1 and st["authored_statements"] == 1
    # an edited original no longer carries its origin
    assert st["origins_alive"] == 5 and st["preservation"] == 5 / 6


def test_no_such_note_strings_and_id_stripping():
    lib = make_lib()
    assert edit(lib, "edit", id="s0099", text="x") == "ERROR: no such note s0099"
    assert edit(lib, "edit", id="s0099", text="") == "ERROR: no such note s0099"  # id first
    assert edit(lib, "delete", id=" s0099 ") == "ERROR: no such note s0099"
    assert edit(lib, "delete", id="S0001") == "ERROR: no such note S0001"  # exact match
    assert edit(lib, "delete", id="s1") == "ERROR: no such note s1"
    assert edit(lib, "delete", id="  s0002\n") == "deleted s0002"
    assert read_result(lib, "s0002") == "ERROR: no such note s0002"


def test_delete_cascades_inbound_links():
    lib = make_lib()
    edit(lib, "add", text="idx")
    edit(lib, "link_many", source="s0007", targets=["s0001", "s0002", "s0003"])
    edit(lib, "link", source="s0004", target="s0002")
    assert edit(lib, "delete", id="s0002") == "deleted s0002"
    assert lib["s0007"].links == ["s0001", "s0003"] and lib["s0004"].links == []
    check_invariants(lib)
    assert edit(lib, "delete", id="s0007") == "deleted s0007"
    assert lib.stats()["index_coverage"] == 0.0
    check_invariants(lib)


# -- link / unlink ------------------------------------------------------------------------------


def test_link_strings_and_check_order():
    lib = make_lib()
    assert edit(lib, "link", source="s0001", target="s0002") == "linked s0001 -> s0002"
    assert edit(lib, "link", source="s0001", target="s0002") == (
        "ERROR: s0001 already links to s0002"
    )
    assert edit(lib, "link", source="s0001", target="s0001") == (
        "ERROR: cannot link a note to itself"
    )
    assert edit(lib, "link", source="s0098", target="s0099") == "ERROR: no such note s0098"
    assert edit(lib, "link", source="s0001", target="s0099") == "ERROR: no such note s0099"
    assert edit(lib, "link", source="s0099", target="s0099") == "ERROR: no such note s0099"
    assert edit(lib, "link", source=" s0002", target="s0001 ") == "linked s0002 -> s0001"
    assert edit(lib, "link", source="s0003", target="s0001", type="cites") == (
        "linked s0003 -> s0001 [cites]"
    )
    assert lib["s0003"].link_types == {"s0001": "cites"}
    with pytest.raises(ValueError):
        lib.link("s0003", "s0002", type="bogus")


def test_unlink_strings():
    lib = make_lib()
    lib.link("s0001", "s0002", type="related")
    assert edit(lib, "unlink", source="s0002", target="s0001") == (
        "ERROR: s0002 does not link to s0001"
    )
    assert edit(lib, "unlink", source="s0001", target="s0099") == "ERROR: no such note s0099"
    assert edit(lib, "unlink", source="s0099", target="s0001") == "ERROR: no such note s0099"
    assert edit(lib, "unlink", source="s0001", target="s0001") == (
        "ERROR: s0001 does not link to s0001"
    )
    assert edit(lib, "unlink", source="s0001", target="s0002") == "unlinked s0001 -> s0002"
    assert lib["s0001"].links == [] and not lib["s0001"].link_types
    check_invariants(lib)


def test_read_strings():
    lib = make_lib()
    assert read_result(lib, "s0001") == "s0001: Felix Abernathy's job is cooper.\nlinks: (none)"
    lib.link("s0001", "s0003")
    lib.link("s0001", "s0002", type="refers_to")
    assert read_result(lib, " s0001 ") == (
        "s0001: Felix Abernathy's job is cooper.\nlinks:"
        "\n- s0003: Mara Quill lives in the city of Fenmarch."
        "\n- s0002 [refers_to]: Felix Abernathy is a friend of Mara Quill."
    )


# -- link_many ----------------------------------------------------------------------------------


def test_link_many_formats():
    lib = make_lib([f"note {i}" for i in range(1, 21)])
    ids = [f"s{i:04d}" for i in range(2, 12)]  # 10 targets
    assert edit(lib, "link_many", source="s0001", targets=ids) == (
        "linked s0001 -> 10 notes: s0002, s0003, s0004, s0005, s0006, s0007, s0008, s0009, "
        "+2 more (s0001 now has 10 links)"
    )
    assert edit(lib, "link_many", source="s0012", targets=["s0001"]) == (
        "linked s0012 -> 1 notes: s0001 (s0012 now has 1 links)"
    )
    got = edit(lib, "link_many", source="s0012",
               targets=["s0013", "s0099", "s0012", "s0001", "s0013", " s0014 "])  # fmt: skip
    assert got == (
        "linked s0012 -> 2 notes: s0013, s0014 (s0012 now has 3 links) | skipped: "
        "s0099 (no such note); s0012 (self); s0001 (already linked); s0013 (already linked)"
    )
    assert edit(lib, "link_many", source="s0012", targets=["s0001", "s0077"]) == (
        "no links made from s0012 | skipped: s0001 (already linked); s0077 (no such note)"
    )
    assert edit(lib, "link_many", source="s0015", targets=["s0016", "s0017"], type="member_of") == (
        "linked s0015 -> 2 notes [member_of]: s0016, s0017 (s0015 now has 2 links)"
    )
    check_invariants(lib)


def test_link_many_errors_in_table_order():
    lib = make_lib()
    assert edit(lib, "link_many", source="s0099", targets=[]) == "ERROR: targets is empty"
    assert edit(lib, "link_many", source="s0099", targets=["s0001"] * 41) == (
        "ERROR: targets has 41 ids, more than 40 - link only the notes that actually belong, "
        "in several calls if needed"
    )
    assert edit(lib, "link_many", source="s0099", targets=["s0001"]) == "ERROR: no such note s0099"
    small = make_lib(link_batch_max=2)
    assert edit(small, "link_many", source="s0001", targets=["s0002"] * 3).startswith(
        "ERROR: targets has 3 ids, more than 2 - ")


def test_link_many_with_no_links_made_changes_nothing():
    lib = make_lib()
    v, h = lib.version, snapshot_hash(lib)
    assert edit(lib, "link_many", source="s0001", targets=["s0001"]) == (
        "no links made from s0001 | skipped: s0001 (self)"
    )
    assert lib.version == v and snapshot_hash(lib) == h


# -- merge ----------------------------------------------------------------------------------------


def test_merge_semantics():
    lib = make_lib([f"n{i}" for i in range(1, 9)])
    # loser s0001 links s0002 s0003 s0004(typed); survivor s0005 links s0003
    lib.link("s0001", "s0002")
    lib.link("s0001", "s0003")
    lib.link("s0001", "s0004", type="cites")
    lib.link("s0001", "s0005")
    lib.link("s0005", "s0003")
    # in-links to the loser: s0006 (-> s0007, s0001, s0008), s0007 (already -> s0005), s0005 itself
    lib.link("s0006", "s0007")
    lib.link("s0006", "s0001", type="related")
    lib.link("s0006", "s0008")
    lib.link("s0007", "s0005")
    lib.link("s0007", "s0001")
    lib.link("s0005", "s0001")
    lib._nodes["s0001"].absorbed = ("s0008",)  # as if s0001 had absorbed s0008 earlier
    lib._carry(["s0008"], +1)
    assert lib.merge("s0001", "s0005") == "s0005"
    sv = lib["s0005"]
    assert sv.absorbed == ("s0001", "s0008")
    assert sv.links == ["s0003", "s0002", "s0004"]  # existing kept first, loser's appended
    assert sv.link_types == {"s0004": "cites"}
    assert lib["s0006"].links == ["s0007", "s0005", "s0008"]  # rewired in place
    assert lib["s0006"].link_types == {"s0005": "related"}
    assert lib["s0007"].links == ["s0005"]  # duplicate dropped
    assert "s0001" not in lib and lib.merges == 1
    st = lib.stats()
    assert st["origins_alive"] == 8 and st["dup_origins"] == 1  # s0008 carried twice
    check_invariants(lib)


def test_merge_absorbs_origin_of_an_edited_loser():
    lib = make_lib()
    lib.edit("s0001", "changed")
    assert lib.stats()["origins_alive"] == 5
    lib.merge("s0001", "s0002")
    assert lib["s0002"].absorbed == ("s0001",)
    assert lib.stats()["origins_alive"] == 6
    check_invariants(lib)


def test_merge_errors():
    lib = make_lib()
    with pytest.raises(LibraryOpError, match="no such note s0099"):
        lib.merge("s0099", "s0001")
    with pytest.raises(LibraryOpError):
        lib.merge("s0001", "s0001")


# -- refusals and freezing ----------------------------------------------------------------------


def test_refused_ops_change_nothing():
    lib = make_lib()
    lib.link("s0001", "s0002")
    v, h, st = lib.version, snapshot_hash(lib), lib.stats()
    for name, args in [
        ("add", {"text": " "}), ("edit", {"id": "s0099", "text": "x"}), ("delete", {"id": "x"}),
        ("link", {"source": "s0001", "target": "s0002"}),
        ("unlink", {"source": "s0002", "target": "s0001"}),
        ("link_many", {"source": "s0001", "targets": []}),
    ]:  # fmt: skip
        assert edit(lib, name, **args).startswith("ERROR: ")
        assert lib.version == v and snapshot_hash(lib) == h and lib.stats() == st


def test_version_counts_successful_mutations():
    lib = make_lib()
    edit(lib, "add", text="x")
    edit(lib, "link", source="s0007", target="s0001")
    edit(lib, "link_many", source="s0007", targets=["s0002", "s0003"])
    edit(lib, "unlink", source="s0007", target="s0001")
    edit(lib, "edit", id="s0007", text="y")
    edit(lib, "delete", id="s0007")
    assert lib.version == 6


def test_frozen_library_refuses_mutation():
    lib = make_lib()
    lib.freeze()
    for call in (lambda: lib.add("x"), lambda: lib.edit("s0001", "x"), lambda: lib.delete("s0001"),
                 lambda: lib.link("s0001", "s0002"), lambda: lib.link_many("s0001", ["s0002"]),
                 lambda: lib.unlink("s0001", "s0002"), lambda: lib.merge("s0001", "s0002"),
                 lambda: apply_edit(lib, "add", {"text": "x"})):  # fmt: skip
        with pytest.raises(LibraryFrozenError):
            call()
    assert read_result(lib, "s0001").startswith("s0001: ")
    other = lib.copy()
    assert not other.frozen and other.add("x").id == "s0007" and "s0007" not in lib


def test_unknown_edit_name_is_api_misuse():
    with pytest.raises(ValueError):
        apply_edit(make_lib(), "search", {})


def test_copy_is_independent():
    lib = make_lib()
    lib.link("s0001", "s0002")
    other = lib.copy()
    other.link("s0002", "s0001")
    other.edit("s0001", "changed text")
    assert lib["s0002"].links == [] and lib["s0001"].text.startswith("Felix")
    assert [i for i, _ in other.search("changed", 5)] == ["s0001"]
    assert lib.search("changed", 5) == []
    check_invariants(lib)
    check_invariants(other)


def test_to_networkx():
    pytest.importorskip("networkx")
    lib = make_lib()
    lib.link("s0001", "s0002", type="cites")
    lib.link("s0003", "s0001")
    g = lib.to_networkx()
    assert list(g.nodes) == lib.ids()
    assert g.number_of_edges() == 2 and g.edges["s0001", "s0002"]["type"] == "cites"
    assert g.nodes["s0001"]["origin"] == "s0001"


def test_in_links_sorted():
    lib = make_lib(fake_universe().nodes and [f"t{i}" for i in range(12)])
    lib.link("s0011", "s0001")
    lib.link("s0002", "s0001")
    assert lib.in_links("s0001") == ["s0002", "s0011"]


def test_pickle_round_trip():
    import pickle

    lib = make_lib()
    lib.link("s0001", "s0002", type="cites")
    lib.link("s0003", "s0001")
    lib.search("felix", 5)
    back = pickle.loads(pickle.dumps(lib))
    assert snapshot_hash(back) == snapshot_hash(lib) and back.stats() == lib.stats()
    assert back.search("felix mara", 5) == lib.search("felix mara", 5)
    back.link("s0002", "s0003", type="related")
    assert back["s0002"].link_types == {"s0003": "related"} and lib["s0002"].link_types == {}
    check_invariants(back)


def test_link_many_repeated_ids_count_as_already_linked():
    """SPEC §8.2: a repeated id counts as `already linked`, whatever its first reason was."""
    from kbgym.library.apply import apply_edit

    lib = make_lib()
    i = lib.add("An index.").id
    out = apply_edit(lib, "link_many", {"source": i, "targets": ["s9", "s9", i, i, "s0001",
                                                                "s0001"]})
    assert out == (f"linked {i} -> 1 notes: s0001 ({i} now has 1 links) | skipped: "
                   f"s9 (no such note); s9 (already linked); {i} (self); {i} (already linked); "
                   "s0001 (already linked)")


def test_notes_without_links_share_one_read_only_empty_list():
    """Every note without links shows ``links == []`` through one shared list (one object
    fewer per note for the garbage collector to walk) that refuses changes; linking gives
    the source its own list and leaves every other note's alone, in forks and pickles too."""
    import copy
    import pickle

    from kbgym.library.graph import NO_LINKS

    lib = make_lib()
    a, b = lib["s0001"], lib["s0002"]
    assert a.links == [] and a.links is b.links is NO_LINKS
    for change in (lambda x: x.append("s0002"), lambda x: x.extend(["s0002"]),
                   lambda x: x.insert(0, "s0002"), lambda x: x.__setitem__(slice(0, 0), ["s1"]),
                   lambda x: x.__iadd__(["s0002"])):
        with pytest.raises(TypeError, match="read-only"):
            change(a.links)
    assert NO_LINKS == [] and len(NO_LINKS) == 0
    fork = lib.fork()
    lib.link("s0001", "s0002")
    assert lib["s0001"].links == ["s0002"] and lib["s0002"].links == [] and NO_LINKS == []
    assert fork["s0001"].links == [] and fork["s0001"].links is NO_LINKS
    again = pickle.loads(pickle.dumps(lib))
    assert again["s0003"].links is NO_LINKS and again["s0001"].links == ["s0002"]
    assert copy.deepcopy(lib["s0003"]).links is NO_LINKS
    again.link("s0003", "s0001")
    assert again["s0003"].links == ["s0001"] and lib["s0003"].links == []
