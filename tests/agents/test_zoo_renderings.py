"""The compositional zoo (agents/zoo): every rendering writes the same links, its twin holds
them under the canonical short titles, and each rendering's text is what it says it is."""

import json
from functools import cache

import pytest

from kbgym.worlds.people.facts import parse_fact
from kbgym.worlds.people import UniverseConfig, generate
from kbgym_agents.zoo.generated import HARMS, RENDERINGS, Truth, generate_libraries
from kbgym_agents.zoo.renderings import LISTS_MEMBERS, render


@cache
def world():
    u = generate(UniverseConfig(seed=5, n_people=80))
    return u, Truth(u), u.split("train")[:20]


def authored(lib):
    return [n for n in lib if n.is_authored]


def link_sets(lib):
    """The sets of ids the authored notes link (parts pooled per key: their links together)."""
    return sorted(sorted(n.links) for n in authored(lib) if n.links)


@pytest.mark.parametrize("rendering", [r for r in RENDERINGS if r != "short"])
def test_a_truthful_rendering_has_a_twin_with_the_same_originals_linked(rendering):
    u, _, qs = world()
    libs = generate_libraries(u, 1, 4, questions=qs, renderings=(rendering,), twins=True)
    truthful = [g for g in libs if g.truthful]
    assert truthful, "some library of four is truthful"
    for g in truthful:
        assert g.rendering == rendering and g.twin is not None
        originals = {n.id for n in u.nodes}
        linked = {x for n in authored(g.library) for x in n.links if x in originals}
        twin_linked = {x for n in authored(g.twin) for x in n.links if x in originals}
        assert linked == twin_linked
        # the twin is untouched by the rendering: no edited original, no part markers
        assert all(n.flag is None for n in g.twin if not n.is_authored)
        assert not any("(1/2)" in n.text for n in authored(g.twin))


def test_renderings_write_what_they_say():
    slots = {"X": "Ada Byron", "v": "", "vs": ""}
    members = ["Bob Day", "Cy Ames"]
    md = render("markdown", "friends", slots, "Friends of Ada Byron.", members, None)
    assert md.startswith("## Friends of Ada Byron") and "- [[Bob Day]]" in md
    rec = json.loads(render("json", "friends", slots, "", members, None))
    assert rec == {"key": "friends of Ada Byron", "members": members}
    table = render("table", "friends", slots, "", members, None)
    assert table.count("\n| ") == 2
    prose = render("prose", "friends", slots, "", members, None, "female")
    assert prose.startswith("Ada Byron has 2 friends") and "She counts Bob Day and Cy Ames" in prose
    assert "(2) Cy Ames" in render("enumeration", "friends", slots, "", members, None)
    assert len(render("long", "friends", slots, "", members, None)) > 150


def test_parts_are_complete_together_and_pointers_keep_each_fact():
    u, t, qs = world()
    g = next(g for g in generate_libraries(u, 2, 8, questions=qs, renderings=("parts",))
             if any("(1/2)" in n.text for n in authored(g.library)))
    by_title = {}
    for n in authored(g.library):
        if "(1/2)" in n.text or "(2/2)" in n.text:
            by_title.setdefault(n.text.replace("(1/2)", "").replace("(2/2)", ""), []).append(n)
    pair = next(v for v in by_title.values() if len(v) == 2)
    assert not set(pair[0].links) & set(pair[1].links)  # halves
    g = generate_libraries(u, 2, 1, questions=qs, renderings=("pointers",))[0]
    edited = [n for n in g.library if not n.is_authored and n.flag is not None]
    assert edited
    for n in edited:
        first, _, rest = n.text.partition(" See also: ")
        assert parse_fact(first) is not None and rest.endswith(".")
        assert parse_fact(first) == parse_fact(u.node(n.id).text)


def test_wrong_member_in_text_only_leaves_the_links_right():
    u, t, qs = world()
    assert "wrong_member_text" in HARMS
    found = False
    for seed in range(12):
        for g in generate_libraries(u, seed, 3, questions=qs, renderings=sorted(LISTS_MEMBERS)):
            if g.harms != ("wrong_member_text",):
                continue
            found = True
            originals = {n.id: n for n in u.nodes}
            for n in authored(g.library):
                for x in n.links:  # every linked original is true and kept
                    assert x not in originals or g.library[x].text == originals[x].text
        if found:
            break
    assert found


def test_a_twin_writes_the_names_the_initials_rendering_abbreviated_in_full():
    """The twin is the same links under the canonical short titles: ``Friends of Edmund
    Hargreaves.``, not the rendering's ``Friends of E. Hargreaves.`` (the twin kept the
    rendering's names until 2026-12-08, so the audit compared initials with themselves)."""
    import re

    u, t, qs = world()
    abbreviated = re.compile(r"\b[A-Z]\. [A-Z][a-z]+")
    libs = generate_libraries(u, 1, 6, questions=qs, renderings=("initials",), twins=True)
    pairs = [(g.library, g.twin) for g in libs if g.twin is not None]
    assert pairs
    seen = 0
    for lib, twin in pairs:
        assert len(authored(lib)) == len(authored(twin))
        for a, b in zip(authored(lib), authored(twin)):
            assert a.links == b.links
            assert not abbreviated.search(b.text), b.text
            for short in abbreviated.findall(a.text):  # the same title, the name written whole
                seen += 1
                whole = [p for p in t.by_name if p.endswith(short[3:]) and p[0] == short[0]]
                assert any(p in b.text for p in whole), (a.text, b.text)
    assert seen
