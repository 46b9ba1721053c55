"""The scripted agents' reading of text: §3 sentences, §10 observations, §4.2 questions,
answer statements and index titles."""

from __future__ import annotations

from functools import cache

import pytest

from kbgym_agents.scripted.knowledge import Knowledge, Tier
from kbgym_agents.scripted.text import (
    Fact,
    answer_statement,
    index_keys,
    names_in,
    names_person,
    parse_fact,
    parse_observation,
    parse_question,
    statement_answer,
)
from kbgym.env.actions import parse_action
from kbgym.env.memory import Memory
from kbgym.worlds.people import UniverseConfig, generate


@cache
def small_universe():
    return generate(UniverseConfig(seed=0, n_people=60))


@pytest.mark.parametrize("text,fact", [
    ("Felix Abernathy's job is cooper.", Fact("job", "Felix Abernathy", "cooper")),
    ("Nora Vance's hobby is jigsaw puzzles.", Fact("hobby", "Nora Vance", "jigsaw puzzles")),
    ("Nora Vance lives in the city of Fenmarch.", Fact("city", "Nora Vance", "Fenmarch")),
    ("Nora Vance was born on March 9, 1957.", Fact("born", "Nora Vance", "1957-03-09")),
    ("Nora Vance is married to Felix Abernathy.",
     Fact("married", "Nora Vance", "Felix Abernathy")),
    ("Nora Vance is a child of Felix Abernathy.",
     Fact("child_of", "Nora Vance", "Felix Abernathy")),
    ("Felix Abernathy is the father of Nora Vance.",
     Fact("father_of", "Felix Abernathy", "Nora Vance")),
    ("Clara Oakley is the mother of Nora Vance.", Fact("mother_of", "Clara Oakley", "Nora Vance")),
    ("Nora Vance is a friend of Felix Abernathy.",
     Fact("friend_of", "Nora Vance", "Felix Abernathy")),
])
def test_every_sentence_form_parses(text, fact):
    assert parse_fact(text) == fact


def test_every_universe_sentence_parses_and_authored_text_does_not():
    u = small_universe()
    name_of = {p.pid: p.name for p in u.people}
    for node in u.nodes:
        f = parse_fact(node.text)
        assert f is not None, node.text
        want = node.fact.kind
        assert f.kind == want or (want == "parent_of" and f.kind in ("father_of", "mother_of"))
        assert f.subj == name_of[node.fact.subject]
    for text in ("Residents of Fenmarch.", "Index of notes about Felix Abernathy.",
                 "Friends of Felix Abernathy: everyone Felix Abernathy is a friend of.",
                 "The job of the spouse of Nora Vance is baker."):
        assert parse_fact(text) is None


def test_every_question_shape_parses_to_its_template():
    u = small_universe()
    for q in u.questions:
        parsed = parse_question(q.text)
        assert parsed is not None and parsed.template == q.template, q.text
        for key in q.keys:
            kind, _, value = key.partition(":")
            assert value in parsed.slots.values()


def test_answer_statements_round_trip_for_every_template():
    u = small_universe()
    for q in u.questions:
        parsed = parse_question(q.text)
        sentence = answer_statement(parsed, q.golds[0])
        assert parse_fact(sentence) is None
        assert statement_answer(parsed, sentence) == q.golds[0]


def test_observation_parsing_reads_what_memory_renders():
    mem = Memory(30)
    mem.set_task("QUESTION q0001\nWho is older, Felix Abernathy or Nora Vance?")
    mem.push(parse_action({"action": "search", "query": "born Felix Abernathy", "page": 1}),
             "page 1:\n- s0004: Felix Abernathy was born on March 9, 1957.\n"
             "- s0010: Nora Vance is a friend of Felix Abernathy.")
    mem.push(parse_action({"action": "read", "id": "s6001"}),
             "s6001: Friends of Felix Abernathy.\nlinks:\n"
             "- s0010: Nora Vance is a friend of Felix Abernathy.")
    mem.push(parse_action({"action": "search", "query": "it's (odd) -> x", "page": 2}),
             "(page 2 is empty - no further matches)")
    mem.push(parse_action({"action": "fly"}), "ERROR: unknown action fly")
    obs = parse_observation(mem.render(11))
    assert obs.question == "Who is older, Felix Abernathy or Nora Vance?"
    assert obs.remaining == 11
    assert [e.name for e in obs.entries] == ["search", "read", "search", "fly"]
    assert obs.entries[2].args == {"query": "it's (odd) -> x", "page": 2}
    kb = Knowledge()
    kb.ingest(obs)
    assert kb.facts["s0004"] == Fact("born", "Felix Abernathy", "1957-03-09")
    assert kb.links["s6001"] == ["s0010"]
    assert kb.pages[("it's (odd) -> x", 2)] == []
    assert kb.friends("Felix Abernathy") == {"Nora Vance"}


def test_exhaustion_ignores_authored_hits_and_repeated_words():
    kb = Knowledge(page_size=5)
    query = "Milo Abernathy is a friend of"
    kb.tiers[query] = Tier(["milo", "abernathy", "friend"])
    hits = [("s6001", "Friends of Milo Abernathy: everyone Milo Abernathy is a friend of."),
            ("s0001", "Milo Abernathy is a friend of Nora Vance."),
            ("s0002", "Nora Vance is a friend of Milo Abernathy."),
            ("s0003", "Milo Quimby is a child of Milo Abernathy."),  # repeats "milo"
            ("s0004", "Mabel Abernathy is married to Milo Abernathy.")]  # repeats "abernathy"
    for nid, text in hits:
        kb.note(nid, text)
    kb.pages[(query, 1)] = hits
    assert not kb.exhausted(query, 1)
    hits[-1] = ("s0005", "Milo Abernathy lives in the city of Fenmarch.")
    kb.note(*hits[-1])
    assert kb.exhausted(query, 1)
    kb.pages[(query, 2)] = hits[:3]
    assert kb.exhausted(query, 2)  # a short page ends the set


def test_index_titles_name_their_keys():
    assert index_keys("Residents of Fenmarch.") == [("city", "Fenmarch")]
    assert index_keys("People whose job is cooper.") == [("job", "cooper")]
    assert index_keys("People whose hobby is jigsaw puzzles.") == [("hobby", "jigsaw puzzles")]
    assert index_keys("Index of notes about Felix Abernathy.") == [("hub", "Felix Abernathy")]
    assert index_keys("Friends of Felix Abernathy.") == [("friends", "Felix Abernathy")]
    assert index_keys("Grandchildren of Nora Vance: the children of everyone Nora Vance is the "
                      "mother of.") == [("grandchildren", "Nora Vance")]
    assert index_keys("Felix Abernathy's job is cooper.") == []
    assert names_in("Friends of Felix Abernathy and Nora Vance.") == ["Felix Abernathy",
                                                                      "Nora Vance"]
    assert index_keys("Friends of Felix Abernathy and Nora Vance.") == []


def test_parse_observation_reads_both_layouts():
    """The current layout (counter line last) and the first one (kbgym/KBGym-v0)."""
    for layout in ("counter_last", "counter_first"):
        mem = Memory(30, layout=layout)
        mem.set_task("QUESTION q0001\nWhat is the job of Ann Bell?")
        empty = parse_observation(mem.render(15))
        assert (empty.remaining, empty.entries) == (15, [])
        assert empty.task.text == "QUESTION q0001\nWhat is the job of Ann Bell?"
        assert (empty.task.phase, empty.task.qid, empty.phase) == ("probe", "q0001", "probe")
        mem.push(parse_action({"action": "search", "query": "Ann Bell"}),
                 "page 1:\n- s0001: Ann Bell is a doctor.")
        mem.push(parse_action({"action": "read", "id": "s0001"}),
                 "s0001: Ann Bell is a doctor.\nlinks: (none)")
        obs = parse_observation(mem.render(13))
        assert obs.remaining == 13 and obs.question == "What is the job of Ann Bell?"
        assert [(e.name, e.args) for e in obs.entries] == [
            ("search", {"query": "Ann Bell", "page": 1}), ("read", {"id": "s0001"})]
        assert obs.entries[1].result == "s0001: Ann Bell is a doctor.\nlinks: (none)"


@pytest.mark.parametrize("text,named", [
    ("Friends of Lavinia Thistlewood.", True),
    ("FRIENDS OF LAVINIA THISTLEWOOD", True),
    ("Friends of L. Thistlewood", True),
    ("Friends: Thistlewood, Lavinia; Vance, Ivor", True),
    ("Thistlewood, Lavinia and Vance, Ivor", True),
    ("friends of thistlewood, l.", True),
    # a list whose neighbours only look like the reversed form
    ("Friends of Gideon Davenport: Cedric Thistlewood, Lavinia Pemberton.", False),
    ('{"key": "friends of X", "members": ["Cedric Thistlewood", "Lavinia Pemberton"]}', False),
    ("Cedric Thistlewood Lavinia Pemberton", False),
])
def test_a_person_is_named_in_any_form_and_not_by_two_neighbours(text, named):
    assert names_person(text, "Lavinia Thistlewood") is named
