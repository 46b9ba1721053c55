"""SPEC §11: normalisation, EM/F1, unanswerables and the score block."""

from __future__ import annotations

import pytest

from kbgym.scoring import (
    UNANSWERABLE_ALIASES,
    exact_match,
    f1_score,
    normalize,
    score,
    score_block,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Hello, World!", "hello world"),
        ("  The   Doctor  ", "doctor"),
        ("a an the", ""),
        ("An apple a day", "apple day"),
        ("I don't know", "i dont know"),
        ("well-known", "wellknown"),  # dashes are punctuation (Pd) and are deleted
        ("«Quoted» text…", "quoted text"),  # Unicode punctuation too
        ("$5", "$5"),  # symbols (Sc) are not punctuation
        ("theater them", "theater them"),  # only whole words are dropped
        ("The\tthe\nTHE", ""),
        ("line\nbreak", "line break"),
        ("Ünïcödé", "ünïcödé"),
        ("", ""),
        (None, ""),
    ],
)
def test_normalize(raw, expected):
    assert normalize(raw) == expected


def test_normalize_order_punctuation_before_articles():
    # Punctuation goes first, so "the." becomes "the" and is then dropped.
    assert normalize("the. cat") == "cat"
    # ...and a word split only by punctuation is joined, not split.
    assert normalize("a-b") == "ab"


def test_exact_match_and_f1_basic():
    assert exact_match("The Doctor.", ["doctor"]) == 1.0
    assert exact_match("doctors", ["doctor"]) == 0.0
    assert f1_score("doctor", ["doctor"]) == 1.0
    assert f1_score("the cat sat", ["cat sat down"]) == pytest.approx(0.8)
    assert f1_score("x", ["y"]) == 0.0


def test_f1_is_multiset_overlap():
    assert f1_score("cat cat dog", ["cat dog dog"]) == pytest.approx(2 / 3)
    assert f1_score("cat cat", ["cat"]) == pytest.approx(2 * 0.5 * 1 / 1.5)


def test_number_words_are_distinct_tokens_and_golds_carry_both():
    golds = ["3", "three"]
    assert score("3", golds) == (1.0, 1.0)
    assert score("Three", golds) == (1.0, 1.0)
    assert score("3", ["three"]) == (0.0, 0.0)
    assert score("three children", golds) == (pytest.approx(2 / 3), 0.0)


def test_multi_answer_variants_take_the_best_gold():
    golds = ["Ann Bell, Carl Dunn", "Ann Bell", "Carl Dunn"]
    assert score("Ann Bell", golds) == (1.0, 1.0)
    assert score("Carl Dunn and Ann Bell", golds) == (pytest.approx(8 / 9), 0.0)
    assert score("Ann Bell, Carl Dunn", golds) == (1.0, 1.0)
    assert score("Carl Dunn, Ann Bell", golds) == (1.0, 0.0)  # same tokens, different order


@pytest.mark.parametrize(
    "pred",
    [
        "unknown", "Unknown.", "not known", "No answer", "unanswerable",
        "Cannot be determined", "I don't know", "I dont know.", "don't know", "None",
        "  UNKNOWN  ",
    ],
)  # fmt: skip
def test_unanswerable_aliases_score_one(pred):
    assert score(pred, ["unknown"], unanswerable=True) == (1.0, 1.0)


@pytest.mark.parametrize(
    "pred", ["", "unknown person", "maybe unknown", "no", "doctor", "I do not know", "can't say"]
)
def test_unanswerable_is_all_or_nothing(pred):
    assert score(pred, ["unknown"], unanswerable=True) == (0.0, 0.0)


def test_unanswerable_alias_set_is_normalised():
    assert all(normalize(a) == a for a in UNANSWERABLE_ALIASES)
    assert len(UNANSWERABLE_ALIASES) == 8


def test_answerable_question_gets_no_credit_for_unknown():
    assert score("unknown", ["doctor"]) == (0.0, 0.0)


def test_empty_predictions():
    assert score("", ["doctor"]) == (0.0, 0.0)
    assert score(None, ["doctor"]) == (0.0, 0.0)
    assert score("the", ["doctor"]) == (0.0, 0.0)  # normalises to nothing
    # both empty after normalisation: F1 = EM = 1
    assert score("", [""]) == (1.0, 1.0)
    assert score("The", ["a"]) == (1.0, 1.0)
    # empty gold, non-empty prediction
    assert score("doctor", [""]) == (0.0, 0.0)
    # no golds at all
    assert score("doctor", []) == (0.0, 0.0)


def _row(category, f1, em, steps, status):
    return {"category": category, "f1": f1, "em": em, "steps": steps, "status": status}


def test_score_block():
    rows = [
        _row("QC1", 1.0, 1.0, 3, "answered"),
        _row("QC6", 0.5, 0.0, 9, "wrong"),
        _row("QC4", 0.0, 0.0, 15, "unanswered"),
        _row("QC5", 1.0, 1.0, 2, "answered"),
        _row("QC5", 0.0, 0.0, 5, "wrong"),
    ]
    block = score_block(rows)
    assert block == {
        "n": 5,
        "f1": pytest.approx(0.5),
        "em": pytest.approx(1 / 3),
        "unanswerable_acc": pytest.approx(0.5),
        "unanswered_rate": pytest.approx(0.2),
        "wrong_rate": pytest.approx(0.4),
        "mean_steps": pytest.approx(34 / 5),
    }


def test_score_block_edge_cases():
    only_qc5 = score_block([_row("QC5", 1.0, 1.0, 2, "answered")])
    assert only_qc5["f1"] is None and only_qc5["em"] is None
    assert only_qc5["unanswerable_acc"] == 1.0 and only_qc5["n"] == 1

    no_qc5 = score_block([_row("PW_REL", 1.0, 1.0, 4, "answered")])
    assert no_qc5["unanswerable_acc"] is None and no_qc5["f1"] == 1.0

    empty = score_block([])
    assert empty == {
        "n": 0, "f1": None, "em": None, "unanswerable_acc": None,
        "unanswered_rate": None, "wrong_rate": None, "mean_steps": None,
    }  # fmt: skip
