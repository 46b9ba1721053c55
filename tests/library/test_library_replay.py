"""SPEC §15.3: replaying recorded edits with no search backend and no judge."""

from __future__ import annotations

import pytest
from libtest_helpers import check_invariants, make_lib

from kbgym.errors import ReplayMismatchError
from kbgym.library import DedupGuard, apply_edit, is_replayable, replay_edit, replay_row
from kbgym.library.snapshot import snapshot_hash


class EqJudge:
    calls = 0

    def __call__(self, a, b):
        EqJudge.calls += 1
        return a.casefold().rstrip(".") == b.casefold().rstrip(".")


SCRIPT = [
    ("add", {"text": "Index of Mara Quill."}),
    ("add", {"text": "felix abernathy's job is cooper"}),  # duplicate of s0001
    ("link_many", {"source": "s0007", "targets": ["s0002", "s0003", "s0099", "s0007"]}),
    ("link", {"source": "s0001", "target": "s0007"}),
    # merged into s0003:
    ("edit", {"id": "s0004", "text": "mara quill lives in the city of fenmarch"}),
    ("add", {"text": "  "}),  # ERROR, not replayed
    ("unlink", {"source": "s0007", "target": "s0002"}),
    ("add", {"text": "Temporary."}),
    ("delete", {"id": "s0008"}),
    ("add", {"text": "People whose job is cooper."}),
    ("edit", {"id": "s0009", "text": "People whose job is cooper (all of them)."}),
    ("link_many", {"source": "s0009", "targets": ["s0001"]}),
    ("link_many", {"source": "s0009", "targets": ["s0001"]}),  # no links made: still replayed
]


def _record():
    lib = make_lib(dedup=DedupGuard(EqJudge()))
    rows = []
    for step, (name, args) in enumerate(SCRIPT, 1):
        rows.append({"kind": "train", "phase": 2, "qid": "q1", "step": step, "action": name,
                     "input": args, "result": apply_edit(lib, name, args)})  # fmt: skip
    rows.insert(0, {"kind": "train", "phase": 1, "action": "search", "input": {}, "result": "x"})
    return lib, rows


def test_recorded_results():
    _lib, rows = _record()
    results = [r["result"] for r in rows[1:]]
    assert results[1] == "duplicate of s0001 - merged, no new note created"
    assert results[4] == "merged into s0003"
    assert results[5] == "ERROR: note text must not be empty"


def test_replay_round_trip():
    live, rows = _record()
    calls = EqJudge.calls
    fresh = make_lib(search=False)  # replay needs no backend and no judge
    applied = [replay_row(fresh, r) for r in rows]
    assert applied == [False] + [not r["result"].startswith("ERROR") for r in rows[1:]]
    assert snapshot_hash(fresh) == snapshot_hash(live)
    assert fresh.stats() == live.stats()
    assert EqJudge.calls == calls
    check_invariants(fresh)


def test_is_replayable():
    row = {"kind": "train", "phase": 2, "action": "add", "result": "added s0007"}
    assert is_replayable(row)
    assert not is_replayable({**row, "kind": "test"})
    assert not is_replayable({**row, "phase": 1})
    assert not is_replayable({**row, "action": "search"})
    assert not is_replayable({**row, "result": "ERROR: note text must not be empty"})


def test_forced_ids_may_skip_ahead():
    lib = make_lib(search=False)
    assert replay_edit(lib, "add", {"text": "x"}, "added s0010") == "added s0010"
    assert lib.next_id == 11


@pytest.mark.parametrize(
    ("name", "args", "recorded"),
    [
        ("add", {"text": "x"}, "added s0003"),  # an id that is already taken
        ("add", {"text": "x"}, "duplicate of s0099 - merged, no new note created"),
        ("edit", {"id": "s0001", "text": "x"}, "merged into s0099"),
        ("edit", {"id": "s0001", "text": "x"}, "edited s0002"),
        ("link", {"source": "s0001", "target": "s0002"}, "linked s0001 -> s0003"),
        ("delete", {"id": "s0099"}, "deleted s0099"),
    ],
)
def test_mismatch_raises(name, args, recorded):
    lib = make_lib(search=False)
    row = {"qid": "q7", "step": 3, "action": name}
    with pytest.raises(ReplayMismatchError) as err:
        replay_edit(lib, name, args, recorded, row=row)
    assert err.value.row is row and err.value.expected == recorded
    assert err.value.got != recorded and "q7 step 3" in str(err.value)
