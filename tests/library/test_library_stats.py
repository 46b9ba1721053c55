"""SPEC §6.2 stats and §12.2 coverage."""

from __future__ import annotations

from types import SimpleNamespace

from libtest_helpers import check_invariants, make_lib

from kbgym.library.stats import recompute_stats
from kbgym.library import index_coverage, index_coverage_2hop, question_index_coverage


def test_stats_fields_and_values():
    lib = make_lib()
    assert list(lib.stats()) == [
        "n_nodes", "n_links", "origins_total", "origins_alive", "preservation", "dup_origins",
        "authored_statements", "edited_statements", "statement_tokens", "orphan_nodes", "merges",
        "index_coverage",
    ]  # fmt: skip
    lib.add("Index of Mara Quill.")  # 20 chars -> 5 tokens
    lib.link_many("s0007", ["s0002", "s0003"])
    lib.link("s0002", "s0003")
    lib.edit("s0001", "Felix is a cooper.")
    lib.merge("s0001", "s0004")
    st = lib.stats()
    assert st == recompute_stats(lib)
    assert st["n_nodes"] == 6 and st["n_links"] == 3 and st["origins_total"] == 6
    assert st["origins_alive"] == 6 and st["dup_origins"] == 0 and st["merges"] == 1
    # the edited one was merged away
    assert st["authored_statements"] == 1 and st["edited_statements"] == 0
    assert st["statement_tokens"] == sum(len(n.text) // 4 for n in lib)
    assert st["orphan_nodes"] == 3  # s0004, s0005, s0006
    assert st["index_coverage"] == 2 / 6 == index_coverage(lib)
    check_invariants(lib)


def test_index_coverage_counts_edited_originals_but_not_authored_targets():
    lib = make_lib()
    lib.add("hub")  # s0007
    lib.add("sub-index")  # s0008
    lib.link("s0007", "s0008")
    lib.link("s0008", "s0001")
    lib.link("s0002", "s0003")  # original -> original does not count
    lib.edit("s0001", "edited text")
    assert lib.stats()["index_coverage"] == 1 / 6
    assert index_coverage_2hop(lib) == 1 / 6
    lib.delete("s0008")
    assert lib.stats()["index_coverage"] == 0.0 == index_coverage(lib)


def test_question_index_coverage():
    lib = make_lib()
    lib.add("idx")  # s0007
    lib.add("idx2")  # s0008
    lib.link_many("s0007", ["s0001", "s0008"])
    lib.merge("s0002", "s0008")  # s0008 (a link target of an authored node) now carries s0002
    qs = [
        SimpleNamespace(support=("s0001",), support_status="exact"),
        SimpleNamespace(support=("s0001", "s0002"), support_status="exact"),
        SimpleNamespace(support=("s0001", "s0003"), support_status="recomputed"),
        SimpleNamespace(support=(), support_status="exact"),  # skipped: empty support
        {"support": ["s0001"], "support_status": "unavailable"},  # skipped
    ]
    assert question_index_coverage(lib, qs) == {"covered": 2, "total": 3, "share": 2 / 3}
    lib.edit("s0001", "changed")  # an edited original no longer carries its origin
    assert question_index_coverage(lib, qs)["covered"] == 0
    assert question_index_coverage(lib, []) == {"covered": 0, "total": 0, "share": 0.0}


def test_empty_library_stats():
    from kbgym.library import Library

    lib = Library()
    assert lib.stats() == recompute_stats(lib)
    assert lib.stats()["preservation"] == 0.0 and lib.stats()["index_coverage"] == 0.0
