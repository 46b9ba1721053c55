"""The independent gold checker (scripts/experiments/casebook_gold_check.py) agrees with every
gold and every fact placement of small worlds, and catches a planted error of each kind."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kbgym.types import Node, Universe


@pytest.fixture(scope="module")
def checker(load_script):
    return load_script("scripts/experiments/casebook_gold_check.py")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_no_mismatch(casebook, checker, seed):
    done, placements, bad = checker.check(casebook(seed))
    assert bad == []
    assert sum(done.values()) == len(casebook(seed).questions) and placements > 300


def _copy(u: Universe, **changes) -> Universe:
    fields = dict(meta=u.meta, vocab=u.vocab, people=u.people, nodes=u.nodes,
                  questions=u.questions, splits=u.splits)
    fields.update(changes)
    return Universe(**fields)


def test_a_wrong_gold_is_caught(casebook, checker):
    u = casebook(0)
    i = next(i for i, q in enumerate(u.questions) if q.template == "cb_effective")
    qs = list(u.questions)
    qs[i] = replace(qs[i], golds=("$1",) + qs[i].golds[1:])
    _, _, bad = checker.check(_copy(u, questions=tuple(qs)))
    assert len(bad) == 1 and bad[0].startswith(qs[i].qid)


def test_a_paragraph_missing_its_value_is_caught(casebook, checker):
    u = casebook(0)
    fact = next(f for f in u.meta["casebook"]["facts"] if f["kind"] == "amends")
    nid = u.meta["casebook"]["where"][fact["id"]][0]
    nodes = [Node(n.id, n.text.replace("$", "USD ").replace(" dollars", " bucks"), n.fact)
             if n.id == nid else n for n in u.nodes]
    _, _, bad = checker.check(_copy(u, nodes=tuple(nodes)))
    assert any(fact["id"] in line and "does not state" in line for line in bad)


def test_an_amendment_naming_its_concept_is_caught(casebook, checker):
    """Version 2's rule: the paragraph that governs never names the provision it changes."""
    from kbgym.worlds.casebook.vocab import CONCEPT_BY_ID

    u = casebook(0)
    fact = next(f for f in u.meta["casebook"]["facts"] if f["kind"] == "amends")
    nid = u.meta["casebook"]["where"][fact["id"]][0]
    name = CONCEPT_BY_ID[fact["concept"]].name
    nodes = [Node(n.id, n.text + f" The {name} is amended.", n.fact) if n.id == nid else n
             for n in u.nodes]
    _, _, bad = checker.check(_copy(u, nodes=tuple(nodes)))
    assert any(fact["id"] in line and f"names {name}" in line for line in bad)


def test_a_schedule_on_the_wrong_edition_is_caught(casebook, checker):
    """A Schedule naming the form alone attaches to the edition in force on its date."""
    u = casebook(0)
    cb = u.meta["casebook"]
    att = next(f for f in cb["facts"] if f["kind"] == "attaches" and f.get("by_date"))
    other = next(d["key"] for d in cb["docs"] if d["kind"] == "form"
                 and d["key"] != att["target"])
    facts = [dict(f, target=other) if f is att else f for f in cb["facts"]]
    meta = {**u.meta, "casebook": {**cb, "facts": facts}}
    _, _, bad = checker.check(_copy(u, meta=meta))
    assert any(att["id"] in line for line in bad)


def test_a_bulletin_naming_a_provision_or_the_wrong_class_is_caught(casebook, checker):
    """A bulletin bounds a class ("Class A limit") and never names a provision of its kind."""
    from kbgym.worlds.casebook.vocab import CONCEPT_BY_ID

    u = casebook(0)
    fact = next(f for f in u.meta["casebook"]["facts"] if f["kind"] == "bound")
    nid = u.meta["casebook"]["where"][fact["id"]][0]
    name = CONCEPT_BY_ID[fact["concept"]].name
    other = "Class B" if "Class A" in next(n.text for n in u.nodes if n.id == nid) else "Class A"
    nodes = [Node(n.id, n.text.replace("Class A", other).replace("Class B", other)
                  + f" See the {name}.", n.fact) if n.id == nid else n for n in u.nodes]
    _, _, bad = checker.check(_copy(u, nodes=tuple(nodes)))
    assert any(fact["id"] in line and f"names {name}" in line for line in bad)
    assert any(fact["id"] in line and "does not name Class" in line for line in bad)
