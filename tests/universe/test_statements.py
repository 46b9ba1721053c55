"""Answer statements: one form per template, round-tripped through the parser."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbgym.worlds.people import UniverseConfig, generate
from kbgym.worlds.people.generate import build_world
from kbgym.worlds.people.statements import (
    STATEMENTS,
    answer_statement,
    parse_statement,
    question_slots,
    statement_prefix,
)
from kbgym.worlds.people.templates import BY_NAME, TEMPLATES


@pytest.fixture(scope="module")
def world():
    return build_world(UniverseConfig(n_people=80, n_cities=8, sizes=(10, 5, 5),
                                      eval_sizes=(2, 2)))[-1]


def test_every_instance_round_trips(world):
    """For every instance of every template: the question's slots, stated with its first gold,
    parse back to the same template, slots and answer."""
    seen = set()
    for name, pool in world.pools(random.Random(1)).items():
        for inst in pool:
            slots = question_slots(name, world.text(inst))
            assert slots is not None, world.text(inst)
            gold = world.answer(inst)[0][0]
            text = answer_statement(name, slots, gold)
            assert text.startswith(statement_prefix(name, slots) + " ")
            assert parse_statement(text) == (name, slots, gold)
            seen.add(name)
    assert len(seen) >= 24  # every template with instances in this world


def test_one_form_per_template():
    assert set(STATEMENTS) == set(BY_NAME)
    assert len(set(STATEMENTS.values())) == len(TEMPLATES)


@pytest.mark.parametrize("text, want", [
    ("The job of the spouse of Ann Lee is baker.", ("qc2_spouse_job", {"X": "Ann Lee"}, "baker")),
    ("the JOB of the spouse of Ann Lee is   baker", ("qc2_spouse_job", {"X": "Ann Lee"}, "baker")),
    ("The number of friends of Ann Lee who have the job of tanner is 2.",
     ("qc8_friend_job", {"X": "Ann Lee", "job": "tanner"}, "2")),
    ("The number of friends of Ann Lee is three.", ("qc4_friends", {"X": "Ann Lee"}, "three")),
    ("The roofer whose hobby is kite flying is Bo Vance.",
     ("qc6_job_hobby", {"job": "roofer", "hobby": "kite flying"}, "Bo Vance")),
    ("The friend of Ann Lee who is also a friend of Bo Vance is Cy Oakley, Di Ash.",
     ("qc7_common_friend", {"X": "Ann Lee", "Y": "Bo Vance"}, "Cy Oakley, Di Ash")),
    ("Ann Lee's job is baker.", None),
    ("Friends of Ann Lee.", None),
    ("The job of Ann Lee is.", None),
    ("THE JOB OF ANN LEE IS Baker.", ("qc1_job", {"X": "ANN LEE"}, "Baker")),  # any case
    ("The job of Ann Lee Vance is baker.", None),  # names are two words
])
def test_parse_statement(text, want):
    assert parse_statement(text) == want


def test_prefix_ignores_extra_slots_and_needs_its_own():
    assert statement_prefix("qc1_job", {"X": "Ann Lee", "job": "x"}) == "The job of Ann Lee is"
    with pytest.raises(KeyError):
        statement_prefix("qc9_older_pair", {"X": "Ann Lee"})


@given(answer=st.text(alphabet="abcdefghij ABC,0123456789-'", min_size=1, max_size=30)
       .map(str.strip).filter(lambda a: a and not a.endswith(".")))
def test_any_answer_round_trips(answer):
    slots = {"X": "Ann Lee", "Y": "Bo Vance", "job": "baker", "city": "Dunmere",
             "hobby": "rock climbing"}
    for t in TEMPLATES:
        got = parse_statement(answer_statement(t.name, slots, answer))
        assert got is not None and got[0] == t.name and got[2] == answer
        assert all(slots[k] == v for k, v in got[1].items())


def test_golds_of_a_generated_universe_are_stated_in_their_form():
    u = generate(UniverseConfig(n_people=40, n_cities=5, sizes=(8, 4, 4), eval_sizes=(2, 2)))
    for q in u.questions:
        slots = question_slots(q.template, q.text)
        assert parse_statement(answer_statement(q.template, slots, q.golds[0]))[0] == q.template
