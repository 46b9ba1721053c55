"""Generations at other question depths (issue 13): real phantom-wiki 1.0.3 output at
--question-depth 10 (20 types) and --question-depth 20 --easy-mode (50 types). Types are template
indices, so categories and the reserved templates come from each template's query shape."""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbgym.worlds.phantomwiki import (
    adapt_phantomwiki,
    build_universe,
    make_pw_probe,
    read_source,
    summarize,
)
from kbgym.worlds.phantomwiki.facts import FactStore
from kbgym.worlds.phantomwiki.query import evaluate
from kbgym.errors import ConfigError
from kbgym.worlds.phantomwiki.questions import (
    RESERVED_SHAPES,
    Shape,
    question_shape,
    recompute_support,
)

DATA = Path(__file__).parent / "data"
D10 = DATA / "phantomwiki_d10_seed2"
D20 = DATA / "phantomwiki_d20_easy_seed3"
SIZES = {"sizes": (30, 20, 10), "eval_sizes": (6, 4)}
#: The relations phantom-wiki's --easy-mode samples from (difficulty 1, plus friend).
EASY = {"parent", "sibling", "sister", "brother", "mother", "father", "child", "son",
        "daughter", "wife", "husband", "friend"}


@pytest.fixture(scope="module", params=[D10, D20], ids=["depth10", "depth20easy"])
def src(request) -> Path:
    return request.param


@cache
def _adapted(src: Path):
    return adapt_phantomwiki(src, **SIZES)


@cache
def _store(src: Path) -> FactStore:
    return FactStore.from_nodes((n.id, n.text) for n in _adapted(src).nodes)


def _raw(src: Path) -> list[dict]:
    return json.loads((src / "questions.json").read_text(encoding="utf-8"))


def _template_shape(template: list[str]) -> Shape:
    """The shape read from phantom-wiki's own template tokens (independent of the query)."""
    head = {"Who is": "who", "What is": "what", "How many": "count"}[template[0]]
    hops = sum(bool(re.fullmatch(r"<relation>_\d+", t)) for t in template)
    anchor = "attribute" if "the person whose" in template else "name"
    return Shape(head, hops, anchor)


def test_shapes_match_the_templates(src):
    raw = _raw(src)
    _, questions = read_source(src)
    by_type: dict[int, set] = {}
    for r, q in zip(raw, questions, strict=True):
        shape = question_shape(q)
        assert shape == _template_shape(r["template"]), r["question"]
        by_type.setdefault(q.type, set()).add(shape)
    assert all(len(s) == 1 for s in by_type.values())  # one shape per type
    # every template of the grammar at that depth is a distinct shape
    assert len({next(iter(s)) for s in by_type.values()}) == len(by_type)


def test_adapts_every_type_with_categories_by_shape(src):
    u = _adapted(src)
    raw = _raw(src)
    n_types = len({r["type"] for r in raw})
    assert n_types == (20 if src == D10 else 50)
    templates = u.vocab["templates"]
    assert list(templates) == [f"pw_type{t}" for t in range(n_types)]
    shape_of = {f"pw_type{r['type']}": _template_shape(r["template"]) for r in raw}
    for name, t in templates.items():
        shape = shape_of[name]
        want = {"count": "PW_AGG", "what": "PW_ATTR"}.get(
            shape.head, "PW_REL" if shape.hops else "PW_PERSON")
        assert t["category"] == want
        assert t["reserved"] == (shape in RESERVED_SHAPES)
    reserved = [n for n, t in templates.items() if t["reserved"]]  # table order
    assert len(reserved) == 2 and u.meta["reserved_templates"] == reserved
    for q in u.questions:
        assert q.category == templates[q.template]["category"]


def test_support_recomputed_for_every_question(src):
    u = _adapted(src)
    report = u.meta["adapter_report"]
    assert report["unparsed_nodes"] == 0
    assert report["support"]["recomputed"] == report["questions"] == 100
    assert all(q.support_status == "recomputed" for q in u.questions)


def test_support_alone_gives_the_answer(src):
    """Support is sufficient: the facts of the support nodes alone give PhantomWiki's answer."""
    articles, questions = read_source(src)
    u = _adapted(src)
    text = {n.id: n.text for n in u.nodes}
    by_text = {q.text: q for q in questions}
    for rec in u.questions:
        q = by_text[rec.text]
        small = FactStore.from_nodes((i, text[i]) for i in rec.support)
        answers, support = evaluate(q.query, q.answer_var, small)
        assert {a.casefold() for a in answers} == {a.casefold() for a in q.answer}, rec.text
        assert support == set(rec.support)


def test_splits_hold_out_the_reserved_shapes(src):
    u = _adapted(src)
    reserved = set(u.meta["reserved_templates"])
    for split in ("train", "test_in"):
        assert not {q.template for q in u.split(split)} & reserved
    assert {q.template for q in u.split("test_out")} == reserved
    for q in u.split("eval"):
        assert (q.template in reserved) == (q.eval_flavor == "out")
    trained = [t for t in u.vocab["templates"] if t not in reserved]
    counts = Counter(q.template for q in u.split("train"))
    # round robin over every trained type: the counts differ by at most one
    assert set(counts) <= set(trained) and max(counts.values()) - min(counts.values()) <= 1
    assert sum(counts.values()) == 30


def test_easy_mode_relations():
    _, questions = read_source(D20)
    used = set()
    for q in questions:
        used |= {re.match(r"(?:aggregate_all\(count, distinct\()?(\w+)\(", lit).group(1)
                 for lit in q.query}
    assert used - {"dob", "job", "hobby", "gender"} <= EASY


def _probe_counts(u, probe, stratify):
    by_gid = {q["qid"]: q for q in probe["questions"]}
    return {group: Counter(by_gid[g][stratify] for g in gids)
            for group, gids in probe["splits"].items()}


def test_pw_probe_with_many_types():
    """50 types of 2 questions: no template fills all three pools, so the per-template probe
    is empty and the per-category one is not; both keep equal mixes across the groups."""
    u = adapt_phantomwiki(D20, sizes=(60, 10, 10), eval_sizes=(0, 0))
    log = [{"qid": qid} for qid in u.splits["train"][:40]]
    assert make_pw_probe(u, log)["per_group"] == 0
    probe = make_pw_probe(u, log, stratify="category")
    assert probe["stratify"] == "category"
    quota = {t: n for t, n in probe["quota"].items() if n}
    assert probe["per_group"] == sum(quota.values()) > 0
    assert set(quota) <= {"PW_REL", "PW_ATTR", "PW_AGG"}  # PW_PERSON names nobody
    counts = _probe_counts(u, probe, "category")
    assert counts["exact"] == counts["share1"] == counts["share0"] == quota
    with pytest.raises(ConfigError, match="stratify"):
        make_pw_probe(u, log, stratify="hops")


def test_pw_probe_per_template_at_depth10():
    u = adapt_phantomwiki(D10, sizes=(30, 20, 10), eval_sizes=(0, 0))
    log = [{"qid": qid} for qid in u.splits["train"][:20]]
    probe = make_pw_probe(u, log)
    assert "stratify" not in probe
    quota = {t: n for t, n in probe["quota"].items() if n}
    assert probe["per_group"] == sum(quota.values()) > 0
    counts = _probe_counts(u, probe, "template")
    assert counts["exact"] == counts["share1"] == counts["share0"] == quota
    anchored = {f"pw_type{r['type']}" for r in _raw(D10) if _template_shape(r["template"]).anchor
                == "name"}
    assert set(quota) <= anchored


def test_unevaluable_shapes_are_unavailable_with_a_reason():
    articles, questions = read_source(D10)
    deep = max(questions, key=lambda q: len(q.query))
    assert len(deep.query) >= 4
    store = _store(D10)
    assert recompute_support(deep, store).status == "recomputed"
    cases = {
        "unmapped predicate ancestor/2": dataclasses.replace(
            deep, query=deep.query[:2] + ("ancestor(Y_6, Y_4)",) + deep.query[3:]),
        "aggregate_all(count, G, N) without distinct(G)": dataclasses.replace(
            deep, query=("aggregate_all(count, friend(Y_3, Y_1), Count_1)",) + deep.query[1:],
            answer_var="Count_1", answer=("2",)),
        "only aggregate_all(count, distinct(G), N) is mapped": dataclasses.replace(
            deep, query=("aggregate_all(max, distinct(friend(Y_3, Y_1)), Count_1)",)
            + deep.query[1:], answer_var="Count_1", answer=("2",)),
    }
    for reason, q in cases.items():
        res = recompute_support(q, store)
        assert (res.status, res.reason, res.support) == ("unavailable", "unmapped", ())
        assert res.detail == reason
    u = build_universe(articles, [dataclasses.replace(q, text=f"{r}?")
                                  for r, q in cases.items()] + questions, **SIZES)
    report = u.meta["adapter_report"]
    assert report["support"]["unavailable"] == 3 and report["support"]["unmapped"] == 3
    assert set(report["unmapped"]) == set(cases)
    shown = summarize(u)
    assert "unavailable=3 (unmapped 3" in shown
    assert all(f"unmapped     {why}" in shown for why in cases)  # the reasons are listed


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_truncated_chains_evaluate_like_phantomwiki_would(data):
    """Any suffix of a depth-20 query (the anchor and its first k hops) is itself a valid
    'Who is' chain; its support, evaluated alone, reproduces its answers."""
    _, questions = read_source(D20)
    store = _store(D20)
    q = data.draw(st.sampled_from([q for q in questions if not q.answer_var.startswith("C")]))
    k = data.draw(st.integers(1, len(q.query)))
    suffix = q.query[-k:]
    var = re.search(r"(Y_\d+)\)$", suffix[0])
    if var is None:  # the anchor literal "attr(Y, value)" asks for Y
        var = re.match(r"\w+\((Y_\d+)", suffix[0])
    answers, support = evaluate(suffix, var.group(1), store)
    small = FactStore.from_nodes((n, t) for n, t in _texts(D20).items() if n in support)
    again, support2 = evaluate(suffix, var.group(1), small)
    assert again == answers and support2 == support


def _texts(src: Path) -> dict[str, str]:
    return {n.id: n.text for n in _adapted(src).nodes}
