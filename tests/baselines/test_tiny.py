"""Exact texts and link structure of every text-only builder on a hand-made library."""

from __future__ import annotations

import pytest

from kbgym.baselines import build, build_b2, build_b3, build_b4
from kbgym.baselines.common import communities, llm_text
from kbgym.baselines.extract import mentions_of
from kbgym.errors import ConfigError
from kbgym.library.snapshot import snapshot_hash

ADA = ["s0001", "s0002", "s0003", "s0004", "s0005", "s0007"]
BOB = ["s0005", "s0006", "s0007", "s0008"]
CY = ["s0008", "s0010", "s0011"]


def added(lib, first=12):
    return [n for n in lib if int(n.id[1:]) >= first]


def synapse_links(lib):
    return {(n.id, t) for n in lib if int(n.id[1:]) < 12 for t in n.links if int(t[1:]) < 12}


def clique(ids):
    return {(a, b) for a in ids for b in ids if a != b}


def test_b3_exact(tiny):
    before = snapshot_hash(tiny)
    meta = build_b3(tiny)
    lib = meta.library
    assert snapshot_hash(tiny) == before  # the input is untouched
    assert synapse_links(lib) == clique(ADA) | clique(BOB) | clique(CY)
    assert lib["s0001"].links[:5] == ["s0002", "s0003", "s0004", "s0005", "s0007"]
    # Bob's clique skips s0005 <-> s0007, which Ada's clique already made
    assert lib["s0006"].links[:3] == ["s0005", "s0007", "s0008"]
    assert [(n.id, n.text, n.links) for n in added(lib)] == [
        ("s0012", "Entity index for Ada Smith: every note that mentions Ada Smith is linked "
                  "from this note.", ADA),
        ("s0013", "Entity index for the job baker: every note about someone whose job is baker "
                  "is linked from this note.", ["s0001", "s0006"]),
        ("s0014", "Entity index for Bob Jones: every note that mentions Bob Jones is linked "
                  "from this note.", BOB),
        ("s0015", "Entity index for Cy Young: every note that mentions Cy Young is linked from "
                  "this note.", CY),
    ]
    assert lib["s0001"].links[-2:] == ["s0012", "s0013"]  # backlinks after the synapses
    assert lib["s0009"].links == [] and lib.in_links("s0009") == []
    assert all(n.is_authored for n in added(lib))
    assert (meta.nodes_added, meta.links_added) == (4, 30 + 10 + 6 + 2 * 15)
    assert lib.stats()["index_coverage"] == pytest.approx(10 / 11)
    assert meta.to_json() == {"schema_version": 1, "baseline": "b3", "params": {
        "synapse_cap": 40, "no_entity_index": False}, "nodes_added": 4, "links_added": 76,
        "llm": None}


def test_b3_cap_and_no_entity_index(tiny):
    lib = build_b3(tiny, synapse_cap=3, no_entity_index=True).library
    assert synapse_links(lib) == clique(CY)  # Ada (6) and Bob (4) are over the cap
    assert len(lib) == 11 and lib.stats()["index_coverage"] == 0.0
    with pytest.raises(ConfigError):
        build_b3(tiny, synapse_cap=1)


def test_b2_exact(tiny):
    lib = build_b2(tiny).library
    assert [(n.text, n.links) for n in added(lib)] == [
        ("Community summary: Ada Smith, Bob Jones, Cy Young, Dee Lane.",
         ["s0001", "s0002", "s0003", "s0004", "s0005", "s0006", "s0007", "s0008", "s0010",
          "s0011"])]
    lib2 = build_b2(tiny, max_size=2).library
    assert [(n.text, n.links) for n in added(lib2)] == [
        ("Community summary: Ada Smith, Bob Jones.",
         ["s0001", "s0002", "s0003", "s0004", "s0005", "s0006", "s0007", "s0008"]),
        ("Community summary: Cy Young, Dee Lane.", ["s0008", "s0010", "s0011"]),
    ]
    lib1 = build_b2(tiny, max_size=1).library
    assert [n.text for n in added(lib1)] == [f"Community summary: {p}." for p in
                                             ("Ada Smith", "Bob Jones", "Cy Young", "Dee Lane")]


def test_communities_take_heavy_edges_first(tiny):
    # Ada-Bob weighs 2 (both married notes); with max_size 2 they pair first, leaving Cy-Dee
    assert communities(mentions_of(tiny), 2) == [["Ada Smith", "Bob Jones"],
                                                 ["Cy Young", "Dee Lane"]]
    assert communities(mentions_of(tiny), 3) == [["Ada Smith", "Bob Jones", "Cy Young"],
                                                 ["Dee Lane"]]


def test_b4_exact(tiny):
    meta = build_b4(tiny, branching=2)
    assert [(n.id, n.text, n.links) for n in added(meta.library)] == [
        ("s0012", "Level-1 summary: notes about Ada Smith.",
         ["s0001", "s0002", "s0003", "s0004", "s0005"]),
        ("s0013", "Level-1 summary: notes about Bob Jones.", ["s0006", "s0007", "s0008"]),
        ("s0014", "Level-1 summary: notes about Cy Young.", ["s0010"]),
        ("s0015", "Level-1 summary: notes about Dee Lane.", ["s0011"]),
        ("s0016", "Level-2 summary: a group of 2 people: Ada Smith, Bob Jones.",
         ["s0012", "s0013"]),
        ("s0017", "Level-2 summary: a group of 2 people: Cy Young, Dee Lane.",
         ["s0014", "s0015"]),
    ]
    assert meta.to_json()["params"] == {"branching": 2, "summaries": "stub"}
    one_group = build_b4(tiny).library
    assert [n.text for n in added(one_group, 16)] == [
        "Level-2 summary: a group of 4 people: Ada Smith, Bob Jones, Cy Young, Dee Lane."]


class FakeLLM:
    meta = {"model": "fake-1"}

    def __init__(self, replies):
        self.replies = list(replies)
        self.seen = []
        self.last_usage = None

    def __call__(self, texts, max_words):
        self.seen.append((list(texts), max_words))
        self.last_usage = (10 * len(texts), 7)
        return self.replies.pop(0)


def test_b2_llm_text_and_accounting(tiny):
    fake = FakeLLM(["Ada Smith and Bob Jones are married; Cy Young is the child of Dee Lane."])
    meta = build_b2(tiny, summarize=fake)
    node = added(meta.library)[0]
    assert node.text == ("Community summary: Ada Smith and Bob Jones are married; Cy Young is "
                         "the child of Dee Lane.")
    texts, words = fake.seen[0]
    assert words == 120 and texts[0] == "Ada Smith's job is baker." and len(texts) == 10
    assert meta.llm == {"model": "fake-1", "calls": 1, "tokens_in": 100, "tokens_out": 7}
    assert meta.params == {"max_size": 10, "summaries": "llm"}


def test_b4_llm_empty_reply_falls_back(tiny):
    fake = FakeLLM(["  ", "Level-1 summary: Bob Jones is a baker.", "", "x", "Four people."])
    lib = build_b4(tiny, summarize=fake).library
    assert [n.text for n in added(lib)] == [
        "Level-1 summary: notes about Ada Smith.", "Level-1 summary: Bob Jones is a baker.",
        "Level-1 summary: notes about Cy Young.", "Level-1 summary: x",
        "Level-2 summary: Four people."]
    assert [w for _, w in fake.seen] == [60, 60, 60, 60, 120]
    assert fake.seen[-1][0][1] == "Level-1 summary: Bob Jones is a baker."


def test_llm_text_limits():
    reply = " ".join(f"w{i}" for i in range(200))
    assert llm_text("P: ", reply, "stub", 60, 1000) == "P: " + " ".join(f"w{i}" for i in range(60))
    assert len(llm_text("P: ", "abcdefghij " * 100, "stub", 120, 100)) <= 100
    assert llm_text("P: ", None, "stub", 60, 1000) == "stub"


def test_dispatch_checks_names_and_params(tiny):
    with pytest.raises(ConfigError, match="unknown baseline"):
        build("b9", tiny)
    with pytest.raises(ConfigError, match="no parameter 'branching'"):
        build("b3", tiny, params={"branching": 3})
    with pytest.raises(ConfigError, match="pass the universe"):
        build("oracle", tiny)
    with pytest.raises(ConfigError, match="writes no summaries"):
        build("b3", tiny, summarize=FakeLLM([]))
    assert build("B3", tiny).baseline == "b3"


def test_authored_text_of_a_trained_library_is_ignored(tiny):
    lib = tiny.copy()
    idx = lib.add("People whose job is baker.").id
    lib.link(idx, "s0001")
    b3 = build_b3(lib).library
    assert b3[idx].links == ["s0001"]  # untouched, and not linked into any clique
    assert idx not in {t for n in b3 if n.id != idx for t in n.links}
