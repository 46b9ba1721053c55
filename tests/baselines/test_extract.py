"""Extraction (SPEC §14): one anchored pattern per §3 shape, mentions, first-mention order."""

from __future__ import annotations

import pytest

from kbgym.baselines.extract import Entity, Mentions, extract, mentions_of, parse
from kbgym.worlds.people import UniverseConfig, generate


@pytest.mark.parametrize("text, want", [
    ("Ada Smith's job is baker.", ("Ada Smith", "job", "baker")),
    ("Ada Smith's hobby is jigsaw puzzles.", ("Ada Smith", "hobby", "jigsaw puzzles")),
    ("Ada Smith lives in the city of Oakton.", ("Ada Smith", "city", "Oakton")),
    ("Ada Smith was born on March 9, 1957.", ("Ada Smith", "born", "1957-03-09")),
    ("Ada Smith was born on December 28, 2009.", ("Ada Smith", "born", "2009-12-28")),
    ("Ada Smith is married to Bob Jones.", ("Ada Smith", "married", "Bob Jones")),
    ("Ada Smith is a child of Bob Jones.", ("Ada Smith", "child_of", "Bob Jones")),
    ("Ada Smith is the mother of Bob Jones.", ("Ada Smith", "parent_of", "Bob Jones")),
    ("Bob Jones is the father of Ada Smith.", ("Bob Jones", "parent_of", "Ada Smith")),
    ("Ada Smith is a friend of Bob Jones.", ("Ada Smith", "friend_of", "Bob Jones")),
])
def test_each_shape(text, want):
    assert parse(text) == want


@pytest.mark.parametrize("text", [
    "People whose job is baker.", "Index of notes about Ada Smith.", "Friends of Ada Smith.",
    "Entity index for Ada Smith: every note that mentions Ada Smith is linked from this note.",
    "Community summary: Ada Smith, Bob Jones.", "Ada Smith's job is baker",
    "ada smith's job is baker.",
    "Ada Smith's job is baker. Bob Jones's job is miner.", "Ada Smith was born on Smarch 9, 1957.",
    "Ada Smith is a friend of Bob Jones and Cy Young.", "Ada Smith: born 1957.", "",
])
def test_other_text_is_ignored(text):
    assert parse(text) is None


def test_mentions_never_include_dates():
    class N:
        def __init__(self, id, text):
            self.id, self.text = id, text

    st = extract([N("s0001", "Ada Smith was born on March 9, 1957."),
                  N("s0002", "Ada Smith is married to Bob Jones."),
                  N("s0003", "Ada Smith's hobby is chess.")])
    assert [s.mentions for s in st] == [
        (Entity("person", "Ada Smith"),),
        (Entity("person", "Ada Smith"), Entity("person", "Bob Jones")),
        (Entity("person", "Ada Smith"), Entity("hobby", "chess")),
    ]


def test_first_mention_order(tiny):
    m = mentions_of(tiny)
    assert [str(e) for e in m.entities] == [
        "person:Ada Smith", "job:baker", "hobby:chess", "city:Oakton", "person:Bob Jones",
        "person:Cy Young", "hobby:jigsaw puzzles", "person:Dee Lane"]
    assert m.people == ["Ada Smith", "Bob Jones", "Cy Young", "Dee Lane"]
    assert m.of(Entity("person", "Ada Smith")) == ["s0001", "s0002", "s0003", "s0004", "s0005",
                                                   "s0007"]
    assert m.of(Entity("job", "baker")) == ["s0001", "s0006"]
    assert m.by_subject["Bob Jones"] == ["s0006", "s0007", "s0008"]
    assert isinstance(m, Mentions) and len(m.statements) == 10  # s0009 ignored


@pytest.mark.parametrize("seed, n", [(0, 60), (3, 500)])
def test_every_original_parses_back_to_its_fact(seed, n):
    u = generate(UniverseConfig(seed=seed, n_people=n))
    pid_of = {p.name: p.pid for p in u.people}
    assert len(pid_of) == len(u.people)
    for node in u.nodes:
        parsed = parse(node.text)
        assert parsed is not None, node.text
        subject, relation, obj = parsed
        f = node.fact
        assert (pid_of[subject], relation) == (f.subject, f.kind), node.text
        if relation in ("married", "child_of", "parent_of", "friend_of"):
            assert pid_of[obj] == f.object, node.text
        else:
            assert obj == f.object, node.text


def test_generated_names_parse():
    """Growth kicks in beyond the fixed vocabulary: generated surnames and cities still parse."""
    u = generate(UniverseConfig(n_people=2000, sizes=(5, 5, 5), eval_sizes=(2, 2), n_cities=30))
    assert any(c.endswith("ton") for c in u.vocab["cities"])
    assert len(extract(u.nodes)) == len(u.nodes)
