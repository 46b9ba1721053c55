"""Documents (SPEC §17): lines, sentence splitting, self-contained sentences, node ids, and
the pattern table that parses sentences back into facts."""

from __future__ import annotations

import re

from kbgym.worlds.phantomwiki.documents import (
    article_lines,
    node_rows,
    self_contained,
    split_sentences,
)
from kbgym.worlds.phantomwiki.facts import FactStore, parse_sentence


def test_article_lines_drop_headers_and_blanks():
    article = "# Ann Lee\n\n## Family\nThe mother of Ann Lee is Bea Lee.\n  \n## Friends\nX.\n"
    assert article_lines(article) == ["The mother of Ann Lee is Bea Lee.", "X."]


def test_split_needs_terminal_whitespace_and_capital():
    line = "Ann Lee is here. He likes tea! Does she? yes she does.Then Bo left.  Next one"
    assert split_sentences(line) == [
        "Ann Lee is here.", "He likes tea!", "Does she? yes she does.Then Bo left.", "Next one"]
    assert split_sentences("The date of birth of Ann Lee is 0295-05-30.") == [
        "The date of birth of Ann Lee is 0295-05-30."]


def test_pronouns_become_the_title():
    t = "Ann Lee"
    assert self_contained("He is a baker.", t) == "Ann Lee is a baker."
    assert self_contained("She likes chess.", t) == "Ann Lee likes chess."
    assert self_contained("They live far away.", t) == "Ann Lee live far away."
    assert self_contained("His hobby is chess.", t) == "Ann Lee's hobby is chess."
    assert self_contained("Her job is baker.", t) == "Ann Lee's job is baker."
    assert self_contained("Their friends are Bo Yu.", t) == "Ann Lee's friends are Bo Yu."


def test_title_prefix_only_when_still_absent():
    t = "Ann Lee"
    assert self_contained("The hobby of Ann Lee is chess.", t) == "The hobby of Ann Lee is chess."
    assert self_contained("Heather is a friend.", t) == "Ann Lee: Heather is a friend."
    assert self_contained("Hers is blue.", t) == "Ann Lee: Hers is blue."
    assert self_contained("The weather was fine.", t) == "Ann Lee: The weather was fine."
    # a rewritten pronoun already names the title: no prefix
    assert self_contained("He met Bo Yu.", t) == "Ann Lee met Bo Yu."


def test_node_ids_in_article_then_sentence_order():
    rows = node_rows([
        ("Ann Lee", "# Ann Lee\n\nShe is tall. Her cat is old.\nThe job of Ann Lee is baker.\n"),
        ("Bo Yu", "# Bo Yu\nHe sings! Nobody knows why."),
    ])
    assert rows == [
        ("s0001", "Ann Lee", "Ann Lee is tall."),
        ("s0002", "Ann Lee", "Ann Lee's cat is old."),
        ("s0003", "Ann Lee", "The job of Ann Lee is baker."),
        ("s0004", "Bo Yu", "Bo Yu sings!"),
        ("s0005", "Bo Yu", "Bo Yu: Nobody knows why."),
    ]


def test_fixture_nodes(pw_universe, pw_raw):
    articles, _ = pw_raw
    lines = [(a["title"], line) for a in articles for line in article_lines(a["article"])]
    nodes = pw_universe.nodes
    # PhantomWiki 1.0.3 writes one sentence per line, each naming its subject
    assert [n.text for n in nodes] == [line for _, line in lines]
    assert [n.id for n in nodes] == ["s%04d" % i for i in range(1, len(nodes) + 1)]
    assert len(nodes) == 206
    by_pid = {p.pid: p for p in pw_universe.people}
    for n, (title, _) in zip(nodes, lines, strict=True):
        assert title in n.text
        assert by_pid[n.fact.subject].name == title
    assert [p.name for p in pw_universe.people] == [a["title"] for a in articles]


def test_pattern_table_recovers_phantomwikis_own_facts(pw_universe, pw_raw):
    """Sentences parsed by the pattern table give exactly the Prolog facts PhantomWiki lists
    with each article."""
    articles, _ = pw_raw
    expected = set()
    for a in articles:
        for f in a["facts"]:
            m = re.fullmatch(r'(\w+)\("(.*)", "(.*)"\)\.', f)
            expected.add(m.groups())
    store = FactStore.from_nodes((n.id, n.text) for n in pw_universe.nodes)
    got = {(p, s, o) for p in store.predicates for s, o, _ in store.match(p, None, None)}
    assert got == expected
    assert all(parse_sentence(n.text) for n in pw_universe.nodes)
    assert pw_universe.meta["adapter_report"]["unparsed_nodes"] == 0


def test_parse_sentence_forms():
    p = parse_sentence("The sisters of Ann Lee are Bea Lee, Cy Lee.")
    assert (p.predicate, p.subject, p.objects) == ("sister", "Ann Lee", ("Bea Lee", "Cy Lee"))
    p = parse_sentence("The sister-in-law of Ann Lee is Di Yu.")
    assert (p.predicate, p.objects) == ("sister_in_law", ("Di Yu",))
    p = parse_sentence("Ann Lee's siblings are Bea Lee, Cy Lee.")
    assert (p.predicate, p.subject) == ("sibling", "Ann Lee")
    p = parse_sentence("The occupation of Ann Lee is IT trainer.")
    assert (p.predicate, p.objects) == ("job", ("IT trainer",))
    assert parse_sentence("Ann Lee: something else.") is None


def test_people_table(pw_universe):
    aida = next(p for p in pw_universe.people if p.name == "Aida Wang")
    name = {p.pid: p.name for p in pw_universe.people}
    assert (aida.gender, aida.job, aida.hobby, aida.born) == (
        "female", "personal assistant", "meditation", "0295-05-30")
    assert name[aida.spouse] == "Ryan Wang"
    assert sorted(name[p] for p in aida.parents) == ["Dino Beltran", "Shelli Beltran"]
    assert [name[c] for c in aida.children] == ["Johnetta Wang"]
    assert len(aida.friends) == 4 and aida.city == "" and not aida.distractor
