"""Citation consistency: evidence sets from what the reader was shown, repeated exams with a
per-repeat reader seed, and the mean pairwise Jaccard in test_meta and the probe table."""

from __future__ import annotations

import json
import random
import re

import pytest

from kbgym import agent_factory
from kbgym.cli import main
from kbgym.library.apply import read_result
from kbgym.library.graph import Library
from kbgym.metrics.consistency import consistency, evidence_set, jaccard, mean_pairwise_jaccard
from kbgym.runs.concurrent import examine_concurrent
from kbgym.runs.exam import examine, repeat_seed
from kbgym.runs.logs import read_jsonl
from kbgym.runs.probe import format_table, probe_table
from kbgym.worlds.people import UniverseConfig, generate


@pytest.fixture(scope="module")
def universe():
    return generate(UniverseConfig(n_people=40, n_cities=6, sizes=(20, 12, 10),
                                   eval_sizes=(6, 4)))


class Reader:
    """Search the question, read one of the first page's hits, answer. Without a seed it
    always reads the first hit; ``reset(seed=)`` makes it pick a hit at random."""

    meta = {"model": "seeded-toy"}

    def __init__(self):
        self.seeds = []
        self.reset()

    def reset(self, seed=None):
        self.seeds.append(seed)
        self.rng = None if seed is None else random.Random(seed)

    def act(self, obs, info):
        text = obs["text"]
        if "search(" not in text:
            return {"action": "search", "query": text.split("\n")[1]}
        if "read(" not in text:
            hits = re.findall(r"\n- (s\d+): ", text.split("Recent actions")[1])
            pick = hits[0] if self.rng is None or not hits else self.rng.choice(hits)
            return {"action": "read", "id": pick or "s0001"}
        return {"action": "answer", "text": "x"}


class Plain(Reader):
    def reset(self):  # no seed hook: repeats just repeat it
        self.rng = None


@agent_factory
def plain(**_options):
    return Plain()


def test_evidence_set_counts_originals_shown_by_read_and_expand_before_an_answer():
    lib = Library.from_texts([("s0001", "a"), ("s0002", "b"), ("s0003", "c"), ("s0004", "d")])
    hub = lib.add("hub").id
    lib.link_many(hub, ["s0002", "s0003"])
    lib.freeze()
    rows = [
        {"action": "search", "input": {"query": "a"}, "result": "page 1:\n- s0001: a",
         "valid": True},
        {"action": "read", "input": {"id": hub}, "result": read_result(lib, hub), "valid": True},
        {"action": "read", "input": {"id": "s0009"}, "result": "ERROR: no such note s0009",
         "valid": True},
        {"action": "expand", "input": {"node": "s0004"},
         "result": "path: s0004 -> s0001\nbranch at s0001 (2 cites edges):\n"
                   "- cites -> s0004: d\n- cites -> s0005: hub", "valid": True},
        {"action": "answer", "input": {"text": "b"}, "result": "submitted", "valid": True},
    ]
    assert evidence_set(rows, lib) == ["s0002", "s0003", "s0004"]
    # what counts is what the result showed: a result that shows nothing adds nothing
    rows[1] = dict(rows[1], result=f"{hub}: hub\nlinks: (none)")
    assert evidence_set(rows, lib) == ["s0004"]
    assert evidence_set(rows[:-1], lib) == []  # no answer, nothing used for one


def test_jaccard_conventions():
    assert jaccard([], []) == 1.0
    assert jaccard(["a", "b"], ["b", "c"]) == pytest.approx(1 / 3)
    assert mean_pairwise_jaccard([["a"]]) is None
    assert mean_pairwise_jaccard([["a"], ["a"], ["b"]]) == pytest.approx(1 / 3)
    rows = [{"qid": "q1", "evidence": ["a"]}, {"qid": "q1", "evidence": ["a"]},
            {"qid": "q2", "evidence": ["a"]}, {"qid": "q2", "evidence": ["b"]}]
    assert consistency(rows) == pytest.approx(0.5)
    assert consistency(rows[:1] + rows[2:3]) is None


def test_repeats_seed_the_reader_and_a_deterministic_reader_scores_one(universe, tmp_path):
    lib = Library.from_universe(universe)
    plain = examine(universe, lib, Plain(), split="test_in", limit=5, repeats=3,
                    out=tmp_path / "plain")
    assert [r["repeat"] for r in plain] == [0] * 5 + [1] * 5 + [2] * 5
    assert all(r["evidence"] for r in plain)  # it read something every time
    assert consistency(plain) == 1.0  # the wiring check
    logged = read_jsonl(tmp_path / "plain" / "test_log.jsonl")
    assert [(r["qid"], r["repeat"], r["evidence"]) for r in logged] == \
        [(r["qid"], r["repeat"], r["evidence"]) for r in plain]
    assert {r["repeat"] for r in read_jsonl(tmp_path / "plain" / "trace.jsonl")} == {0, 1, 2}

    reader = Reader()
    seeded = examine(universe, lib, reader, split="test_in", limit=5, repeats=3)
    qids = [r["qid"] for r in seeded[:5]]
    assert reader.seeds[1:] == [repeat_seed(0, r, q) for r in range(3) for q in qids]
    assert consistency(seeded) < 1.0
    single = examine(universe, lib, Reader(), split="test_in", limit=5)
    assert all("repeat" not in r for r in single) and all(r["evidence"] for r in single)


def test_concurrent_exam_matches_sequential_with_repeats(universe, tmp_path):
    class Async(Reader):
        async def aact(self, obs, info):
            return self.act(obs, info)

        def spawn(self):
            return Async()

    lib = Library.from_universe(universe)
    seq = examine(universe, lib, Async(), split="test_in", limit=4, repeats=2,
                  out=tmp_path / "a")
    con = examine_concurrent(universe, lib, Async(), split="test_in", limit=4, repeats=2,
                             out=tmp_path / "b", max_concurrent=3)
    assert seq == con
    for name in ("test_log.jsonl", "trace.jsonl"):
        assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text()


def test_probe_table_reports_jaccard_per_group_and_arm():
    probe = {"splits": {"exact": ["g0001", "g0002"]}, "seed": 0}

    def row(qid, rep, ev, steps=3):
        return {"qid": qid, "split": "exact", "repeat": rep, "evidence": ev, "steps": steps,
                "f1": 1.0, "status": "answered"}

    b1 = [row("g0001", 0, ["s1"]), row("g0002", 0, ["s2"]),
          row("g0001", 1, ["s1"]), row("g0002", 1, ["s3"], steps=9)]
    table = probe_table({"B1": b1}, probe, resamples=50)
    cell = table["groups"]["exact"]["all"]["B1"]
    assert cell["jaccard"] == pytest.approx(0.5)
    assert cell["n"] == 2 and cell["mean_steps"] == 3  # the first repeat only
    assert format_table(table).splitlines()[1].endswith("  0.500")


def test_cli_test_repeats(universe, tmp_path, capsys):
    upath = tmp_path / "u.json"
    upath.write_text(universe.dumps())
    out = tmp_path / "exam"
    rc = main(["test", "--universe", str(upath), "--reader", "tests.runs.test_consistency:plain",
               "--split", "test_in", "--limit", "3", "--repeats", "2", "--out", str(out)])
    assert rc == 0
    meta = json.loads((out / "test_meta.json").read_text())
    assert meta["repeats"] == 2 and meta["consistency"] == {"test_in": 1.0}
    assert "jaccard=1.000" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:  # the flag's range, checked by argparse
        main(["test", "--universe", str(upath), "--repeats", "0"])
    assert exit_.value.code == 2
    assert "argument --repeats: must be between 1 and 100" in capsys.readouterr().err
