"""SPEC §6.3: the dedup guard with fake judges."""

from __future__ import annotations

import pytest
from libtest_helpers import check_invariants, make_lib

from kbgym.library import DedupGuard, apply_edit, token_cosine
from kbgym.library.dedup import judge_user_message, judge_verdict


class FakeJudge:
    def __init__(self, verdict=True, raises=False):
        self.verdict, self.raises, self.calls = verdict, raises, []

    def __call__(self, a, b):
        self.calls.append((a, b))
        if self.raises:
            raise RuntimeError("api down")
        return self.verdict


def test_token_cosine():
    assert token_cosine("Mara Quill", "mara, QUILL!") == pytest.approx(1.0)
    assert token_cosine("a b", "c d") == 0.0
    assert token_cosine("", "a") == 0.0
    assert token_cosine("a a b", "a b") == pytest.approx(3 / (5 ** 0.5 * 2 ** 0.5))


def test_judge_helpers():
    assert judge_user_message("x", "y") == "1. x\n2. y"
    assert judge_verdict("Yes, same fact") and not judge_verdict("no") and not judge_verdict(None)


def test_off_without_a_judge():
    lib = make_lib(dedup=DedupGuard())
    assert apply_edit(lib, "add", {"text": "Felix Abernathy's job is cooper."}) == "added s0007"


def test_add_duplicate_creates_nothing():
    judge = FakeJudge(True)
    guard = DedupGuard(judge)
    lib = make_lib(dedup=guard)
    v = lib.version
    got = apply_edit(lib, "add", {"text": "felix abernathy's JOB is cooper"})
    assert got == "duplicate of s0001 - merged, no new note created"
    assert len(lib) == 6 and lib.next_id == 7 and lib.version == v
    assert judge.calls == [("felix abernathy's JOB is cooper", "Felix Abernathy's job is cooper.")]
    assert guard.judge_calls == 1 and guard.duplicates == 1


def test_below_threshold_accepts_without_a_judge():
    judge = FakeJudge(True)
    guard = DedupGuard(judge)
    lib = make_lib(dedup=guard)
    assert apply_edit(lib, "add", {"text": "Felix Abernathy's job is baker."}) == "added s0007"
    assert judge.calls == [] and guard.judge_calls == 0
    low = DedupGuard(FakeJudge(True), threshold=0.5)
    lib2 = make_lib(dedup=low)
    got = apply_edit(lib2, "add", {"text": "Felix Abernathy's job is baker."})
    assert got.startswith("duplicate of s0001")


def test_judge_says_no_and_judge_errors():
    guard = DedupGuard(FakeJudge(False))
    lib = make_lib(dedup=guard)
    assert apply_edit(lib, "add", {"text": "Felix Abernathy's job is cooper"}) == "added s0007"
    assert guard.judge_calls == 1 and guard.judge_errors == 0
    bad = DedupGuard(FakeJudge(raises=True))
    lib = make_lib(dedup=bad)
    assert apply_edit(lib, "add", {"text": "Felix Abernathy's job is cooper"}) == "added s0007"
    assert bad.judge_calls == 1 and bad.judge_errors == 1


def test_edit_duplicate_merges_into_survivor():
    guard = DedupGuard(FakeJudge(True))
    lib = make_lib(dedup=guard)
    lib.link("s0002", "s0003")
    lib.link("s0004", "s0002")
    text = "Mara Quill lives in the city of Fenmarch"
    got = apply_edit(lib, "edit", {"id": "s0002", "text": text})
    assert got == "merged into s0003"
    assert "s0002" not in lib
    assert lib["s0003"].absorbed == ("s0002",)
    assert lib["s0004"].links == ["s0003"]
    assert lib.merges == 1
    check_invariants(lib)


def test_edit_excludes_itself_and_uses_top_four():
    judge = FakeJudge(True)
    lib = make_lib(dedup=DedupGuard(judge))
    assert apply_edit(lib, "edit", {"id": "s0001", "text": "Felix Abernathy's job is cooper!"}) == (
        "edited s0001"
    )
    assert judge.calls == []  # the only near-identical hit was the node itself


def test_dead_ids_are_dropped():
    class Stale:
        """A backend that still reports a deleted id."""

        def upsert(self, id, text): ...
        def remove(self, id): ...
        def refresh(self): ...
        def query(self, text, k):
            return [("s0099", 9.0), ("s0001", 1.0)]

    judge = FakeJudge(True)
    lib = make_lib(search=False, dedup=DedupGuard(judge))
    lib.attach_search(Stale())
    got = apply_edit(lib, "add", {"text": "Felix Abernathy's job is cooper."})
    assert got.startswith("duplicate of s0001")


def test_iteration_mode_dedup_cannot_see_pending_adds():
    judge = FakeJudge(True)
    lib = make_lib(dedup=DedupGuard(judge), refresh="iteration")
    assert apply_edit(lib, "add", {"text": "zebra crossing here"}) == "added s0007"
    assert apply_edit(lib, "add", {"text": "zebra crossing here"}) == "added s0008"
    lib.refresh()
    assert apply_edit(lib, "add", {"text": "zebra crossing here"}) == (
        "duplicate of s0007 - merged, no new note created"
    )


def test_custom_similarity():
    guard = DedupGuard(FakeJudge(True), similarity=lambda a, b: 1.0 if a[0] == b[0] else 0.0)
    lib = make_lib(dedup=guard)
    # top 3 hits: s0002 (starts with F: 0.0), s0005 ("Tom": 0.0), s0004 ("Mara": 1.0)
    assert [i for i, _ in lib.search("Mara is a friend", 3)] == ["s0002", "s0005", "s0004"]
    assert apply_edit(lib, "add", {"text": "Mara is a friend"}).startswith("duplicate of s0004")
