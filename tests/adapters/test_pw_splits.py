"""Splits (SPEC §5 with §17's changes), determinism and the universe file."""

from __future__ import annotations

import json
from collections import Counter

from kbgym.worlds.phantomwiki import adapt_phantomwiki
from kbgym.jsonio import canonical
from kbgym.types import Universe

RESERVED = {"pw_type0", "pw_type6"}

# Regenerate with (prints the hash):
#   python scripts/examples/phantomwiki_import.py --src tests/adapters/data/phantomwiki_seed1 \
#       --out /tmp/pw.json --train 24 --test-in 12 --test-out 12 --eval-in 6 --eval-out 4
FIXTURE_HASH = "sha256:6bed1eae7c34e358b216de6539d125132743be28ab02ae1f7dde336f915b517d"


def test_reserved_types_only_in_test_out_and_eval_out(pw_universe):
    u = pw_universe
    for split in ("train", "test_in"):
        assert not {q.template for q in u.split(split)} & RESERVED
    assert {q.template for q in u.split("test_out")} == RESERVED
    for q in u.split("eval"):
        assert (q.template in RESERVED) == (q.eval_flavor == "out")
    assert [q.eval_flavor for q in u.split("eval")] == ["in"] * 6 + ["out"] * 4


def test_round_robin_over_all_trained_types(pw_universe):
    u = pw_universe
    assert Counter(q.template for q in u.split("train")) == {
        f"pw_type{t}": 4 for t in (1, 2, 3, 4, 5, 7)}
    assert Counter(q.template for q in u.split("test_out")) == {"pw_type0": 6, "pw_type6": 6}
    assert [len(u.splits[s]) for s in ("train", "test_in", "test_out", "eval")] == [24, 12, 12, 10]
    assert all(v == 0 for v in u.meta["split_shortfall"].values())


def test_qids_draw_order_then_unsplit(pw_universe):
    u = pw_universe
    drawn = [qid for s in ("train", "test_in", "test_out", "eval") for qid in u.splits[s]]
    assert drawn == ["q%04d" % i for i in range(1, 59)]
    assert len(set(drawn)) == len(drawn)
    rest = [q.qid for q in u.questions[58:]]
    assert rest == ["q%04d" % i for i in range(59, 81)]
    assert u.meta["adapter_report"]["unsplit"] == 22
    for q in u.questions:
        assert (q.eval_flavor is not None) == (q.qid in u.splits["eval"])


def test_default_sizes_record_the_shortfall(pw_src):
    u = adapt_phantomwiki(pw_src)
    assert u.meta["sizes"] == [150, 100, 50] and u.meta["eval_sizes"] == [20, 10]
    # 60 trained and 20 reserved questions: train and test_out take everything
    assert u.meta["split_shortfall"] == {"train": 90, "test_in": 100, "test_out": 30,
                                         "eval_in": 20, "eval_out": 10}
    assert len(u.splits["train"]) == 60 and len(u.splits["test_out"]) == 20


def test_deterministic_and_seeded(pw_src, pw_universe, adapt_small):
    again = adapt_small(pw_src)
    assert again == pw_universe and again.dumps() == pw_universe.dumps()
    other = adapt_small(pw_src, seed=1)
    assert other.nodes == pw_universe.nodes and other.people == pw_universe.people
    assert [q.text for q in other.split("train")] != [q.text for q in pw_universe.split("train")]
    assert other.meta["seed"] == 1


def test_golden_hash(pw_universe):
    assert pw_universe.hash == FIXTURE_HASH


def test_universe_file_round_trip(pw_universe, tmp_path):
    text = pw_universe.dumps()
    data = json.loads(text)
    assert canonical(data) == text
    assert data["kind"] == "kbgym.universe" and data["schema_version"] == 1
    back = Universe.from_json(data)
    assert back == pw_universe and back.hash == pw_universe.hash
