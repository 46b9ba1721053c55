"""Support recomputation (SPEC §17): facts parsed from the nodes, the query evaluator, and the
recomputed / unavailable statuses."""

from __future__ import annotations

import dataclasses

import pytest

from kbgym.worlds.phantomwiki import build_universe, read_source
from kbgym.worlds.phantomwiki.facts import FactStore
from kbgym.worlds.phantomwiki.query import (
    Comp,
    Const,
    QuerySyntaxError,
    Unmapped,
    Var,
    evaluate,
    parse_literal,
    rules,
)
from kbgym.worlds.phantomwiki.questions import recompute_support


@pytest.fixture(scope="module")
def store(pw_universe) -> FactStore:
    return FactStore.from_nodes((n.id, n.text) for n in pw_universe.nodes)


def texts(u, ids):
    return [u.node(i).text for i in ids]


def test_parse_literal():
    assert parse_literal('niece("Jeannine Wexler", Y_3)') == Comp(
        "niece", (Const("Jeannine Wexler"), Var("Y_3")))
    assert parse_literal("husband('kanesha', Y_2).") == Comp(
        "husband", (Const("kanesha"), Var("Y_2")))
    agg = parse_literal("aggregate_all(count, distinct(cousin(Y_3, Y_1)), Count_1)")
    assert agg == Comp("aggregate_all", (
        Const("count"), Comp("distinct", (Comp("cousin", (Var("Y_3"), Var("Y_1"))),)),
        Var("Count_1")))
    with pytest.raises(QuerySyntaxError):
        parse_literal("job(Y_1, ")
    assert "cousin" in rules() and "parent" in rules()


def test_fixture_all_recomputed(pw_universe):
    report = pw_universe.meta["adapter_report"]
    assert report["support"] == {"recomputed": 80, "unavailable": 0, "unmapped": 0,
                                 "answer_mismatch": 0}
    ids = {n.id for n in pw_universe.nodes}
    for q in pw_universe.questions:
        assert q.support_status == "recomputed"
        assert set(q.support) <= ids
        assert list(q.support) == sorted(q.support, key=lambda i: int(i[1:]))
        if q.golds[0] != "0":
            assert q.support, q.text


def test_support_of_a_relation_chain(pw_universe):
    q = next(q for q in pw_universe.questions if q.text == "Who is the niece of Jeannine Wexler?")
    assert q.golds[0] == "Johnetta Wang, Leeann Hackworth, Lenore Hackworth"
    assert texts(pw_universe, q.support) == [
        "The daughter of Aida Wang is Johnetta Wang.",
        "The sisters of Jeannine Wexler are Aida Wang, Vicki Hackworth.",
        "The daughters of Vicki Hackworth are Leeann Hackworth, Lenore Hackworth.",
    ]


def test_support_of_attribute_and_count(pw_universe, store):
    answers, support = evaluate(
        ["great_grandparent(Y_4, Y_2)", 'job(Y_4, "early years teacher")'], "Y_2", store)
    assert answers == {"Dominique Smock", "Gene Smock"}
    assert texts(pw_universe, sorted(support)) == [
        "The mother of Jeannine Wexler is Shelli Beltran.",
        "The occupation of Jeannine Wexler is early years teacher.",
        "The father of Shelli Beltran is Williams Smock.",
        "The mother of Williams Smock is Dominique Smock.",
        "The father of Williams Smock is Gene Smock.",
    ]
    answers, support = evaluate(
        ['aggregate_all(count, distinct(niece("Jeannine Wexler", Y_1)), Count_1)'],
        "Count_1", store)
    assert answers == {"3"} and len(support) == 3
    answers, support = evaluate(
        ['aggregate_all(count, distinct(niece("Johnetta Wang", Y_1)), Count_1)'],
        "Count_1", store)
    assert answers == {"0"} and support == set()


def test_unavailable_statuses(pw_src):
    articles, questions = read_source(pw_src)
    q = questions[0]
    wrong = dataclasses.replace(q, answer=("Nobody Atall",))
    unmapped = dataclasses.replace(q, query=("ancestor(Y_4, Y_2)",) + q.query[1:],
                                   text="Who is the ancestor?")
    no_distinct = dataclasses.replace(
        q, query=('aggregate_all(count, niece("Jeannine Wexler", Y_1), Count_1)',),
        answer_var="Count_1", answer=("3",), text="How many nieces, without distinct?")
    bad_syntax = dataclasses.replace(q, query=("job(Y_4, ",), text="Broken?")
    u = build_universe(articles, [wrong, unmapped, no_distinct, bad_syntax] + questions[1:],
                       sizes=(24, 12, 12), eval_sizes=(6, 4))
    report = u.meta["adapter_report"]
    assert report["support"] == {"recomputed": 79, "unavailable": 4, "unmapped": 3,
                                 "answer_mismatch": 1}
    assert report["repeated_dropped"] == 0
    assert "unmapped predicate ancestor/2" in report["unmapped"]
    assert report["by_template"]["pw_type0"] == {"questions": 13, "recomputed": 9,
                                                 "unavailable": 4}
    for rec in u.questions:
        if rec.support_status == "unavailable":
            assert rec.support == ()
    # the status of the unchanged question is still computed from the same facts
    store = FactStore.from_nodes((n.id, n.text) for n in u.nodes)
    assert recompute_support(q, store).status == "recomputed"
    assert recompute_support(wrong, store).reason == "answer_mismatch"
    with pytest.raises(Unmapped):
        evaluate(["stepfather_of(Y_1, Y_2)"], "Y_2", store)


def test_normalised_answers_match(pw_src):
    """Answers are compared after SPEC §11 normalisation (case, punctuation)."""
    articles, questions = read_source(pw_src)
    q = next(q for q in questions if q.type == 2)
    shouted = dataclasses.replace(q, answer=tuple(a.upper() + "." for a in q.answer))
    u = build_universe(articles, [shouted], sizes=(1, 0, 0), eval_sizes=(0, 0))
    assert u.questions[0].support_status == "recomputed"
