"""A hypothesis state machine over the library: random valid and invalid operations, with the
graph invariants, stats, search and refusal checks after every step, and a replay of the whole
trace at the end."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from libtest_helpers import brute_bm25, check_invariants, make_lib

from kbgym.errors import LibraryOpError
from kbgym.library import DedupGuard, apply_edit, replay_row
from kbgym.library.snapshot import snapshot_hash

WORDS = ["Felix", "Mara", "Quill", "job", "is", "cooper", "of", "friend", "city", "Fenmarch",
         "index"]  # fmt: skip
text_st = st.one_of(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join),
    st.sampled_from(["", "  \n ", "x" * 41, "Felix job cooper", "felix JOB cooper."]),
)
BAD_IDS = ["s99", " s0001 ", "S0002", "", "s0003\n", "s0999"]
type_st = st.sampled_from([None, None, "cites", "member_of"])
SEED_TEXTS = ["Felix Mara job", "Quill is of city", "Fenmarch cooper", "index of Felix"]
QUERIES = ["felix", "job of mara", "cooper city index", "quill quill", "of"]


def judge(a: str, b: str) -> bool:
    return a.casefold().rstrip(".") == b.casefold().rstrip(".")


class LibraryMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.lib = make_lib(SEED_TEXTS, dedup=DedupGuard(judge, threshold=0.9),
                            max_text_chars=40, link_batch_max=5)  # fmt: skip
        self.seen_ids = set(self.lib.ids())
        self.rows: list[dict] = []
        self.direct_merges = False

    @initialize(direct=st.booleans())
    def choose(self, direct):
        """Direct merges exercise merge() on random graphs, but a recorded trace cannot hold
        them, so only runs without them end with the replay check."""
        self.direct_merges = direct

    def _do(self, name, **args):
        lib = self.lib
        before_v, before_h, before_ids = lib.version, snapshot_hash(lib), set(lib.ids())
        result = apply_edit(lib, name, args)
        self.rows.append({"kind": "train", "phase": 2, "qid": "q", "step": len(self.rows),
                          "action": name, "input": args, "result": result})  # fmt: skip
        if result.startswith(("ERROR", "no links made", "duplicate of")):
            assert lib.version == before_v and snapshot_hash(lib) == before_h
        else:
            assert lib.version > before_v
        new = set(lib.ids()) - before_ids
        assert not (new & self.seen_ids), "an id was reused"
        self.seen_ids |= new
        return result

    def _id(self, data):
        """Mostly a live id (sometimes padded with whitespace), sometimes a dead or bad one."""
        live = self.lib.ids()
        kind = data.draw(st.integers(0, 9))
        if live and kind < 7:
            return data.draw(st.sampled_from(live))
        if live and kind == 7:
            return " " + data.draw(st.sampled_from(live)) + "\n"
        if kind == 8 and self.seen_ids:
            return data.draw(st.sampled_from(sorted(self.seen_ids)))
        return data.draw(st.sampled_from(BAD_IDS))

    @rule(text=text_st)
    def add(self, text):
        self._do("add", text=text)

    @rule(data=st.data(), text=text_st, copy=st.booleans())
    def edit(self, data, text, copy):
        live = self.lib.ids()
        if copy and live:  # another node's text (upper-cased): a duplicate the judge accepts
            text = self.lib[data.draw(st.sampled_from(live))].text.upper()
        self._do("edit", id=self._id(data), text=text)

    @rule(data=st.data())
    def delete(self, data):
        self._do("delete", id=self._id(data))

    @rule(data=st.data(), ltype=type_st)
    def link(self, data, ltype):
        args = {"source": self._id(data), "target": self._id(data)}
        if ltype:
            args["type"] = ltype
        self._do("link", **args)

    @rule(data=st.data(), n=st.integers(0, 6), ltype=type_st)
    def link_many(self, data, n, ltype):
        args = {"source": self._id(data), "targets": [self._id(data) for _ in range(n)]}
        if ltype:
            args["type"] = ltype
        self._do("link_many", **args)

    @rule(data=st.data())
    def unlink(self, data):
        lib = self.lib
        linked = [(n.id, t) for n in lib for t in n.links]
        if linked and data.draw(st.booleans()):
            a, b = data.draw(st.sampled_from(linked))
        else:
            a, b = self._id(data), self._id(data)
        self._do("unlink", source=a, target=b)

    @precondition(lambda self: self.direct_merges and len(self.lib) >= 2)
    @rule(data=st.data())
    def merge(self, data):
        ids = self.lib.ids()
        lo = data.draw(st.sampled_from(ids))
        sv = data.draw(st.sampled_from(ids))
        before = snapshot_hash(self.lib)
        try:
            self.lib.merge(lo, sv)
        except LibraryOpError:
            assert lo == sv and snapshot_hash(self.lib) == before
            return
        assert lo != sv and lo not in self.lib

    @invariant()
    def graph_is_consistent(self):
        check_invariants(self.lib)

    @invariant()
    def search_matches_brute_force(self):
        docs = {n.id: n.text for n in self.lib}
        for q in QUERIES:
            assert self.lib.search(q, 7) == brute_bm25(docs, q, 7)

    def teardown(self):
        if self.direct_merges:
            return
        fresh = make_lib(SEED_TEXTS, search=False, max_text_chars=40, link_batch_max=5)
        for row in self.rows:
            replay_row(fresh, row)
        assert snapshot_hash(fresh) == snapshot_hash(self.lib)
        assert fresh.stats() == self.lib.stats()


# slow (~4 s on CI): 120 random programs of 30 library operations, every invariant after each
LibraryMachine.TestCase.settings = settings(
    max_examples=120, stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)  # fmt: skip
TestLibraryMachine = LibraryMachine.TestCase
