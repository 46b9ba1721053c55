"""The misinformation metric: stated facts and answers checked against the hidden truth."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from kbgym.library.graph import Library
from kbgym.metrics.misinformation import Truth, incomplete_sets, misinformation, sentences
from kbgym.worlds.people import UniverseConfig, generate
from kbgym.worlds.people.facts import render_date
from kbgym.worlds.people.questions import World
from kbgym.worlds.people.statements import answer_statement, question_slots


@pytest.fixture(scope="module")
def u():
    return generate(UniverseConfig(n_people=60, n_cities=8, sizes=(10, 5, 5), eval_sizes=(2, 2)))


@pytest.fixture(scope="module")
def truth(u):
    return Truth(u)


def test_every_original_sentence_is_true(u, truth):
    assert {truth.sentence(n.text) for n in u.nodes} == {("fact", "true")}


def test_fact_forms_that_contradict_the_universe_are_false(u, truth):
    by = {p.pid: p for p in u.people}
    p = next(q for q in u.people if q.children and q.spouse and q.friends)
    other_job = next(j for j in u.vocab["jobs"] if j != p.job)
    other_city = next(c for c in u.vocab["cities"] if c != p.city)
    stranger = next(q for q in u.people if q.pid not in p.friends and q.pid != p.pid)
    child = by[p.children[0]]
    wrong_role = "mother" if p.gender == "male" else "father"
    false = [f"{p.name}'s job is {other_job}.", f"{p.name} lives in the city of {other_city}.",
             f"{p.name} is a friend of {stranger.name}.", f"{p.name} is a child of {child.name}.",
             f"{p.name} is the {wrong_role} of {child.name}.",
             f"{p.name} is married to {stranger.name}.",
             f"{p.name} was born on {render_date('1700-01-02')}."]
    for s in false:
        assert truth.sentence(s) == ("fact", "false"), s
    assert truth.sentence(f"Nobody Known's job is {p.job}.") == ("fact", "unverifiable")
    assert truth.sentence(f"{p.name} is a friend of Nobody Known.") == ("fact", "unverifiable")
    assert truth.sentence(f"Friends of {p.name}.") is None


def test_answer_statements_are_checked_against_every_instance_gold(u, truth):
    """Each instance's gold stated in its form is true; another instance's different gold of
    the same template is false."""
    world = World(u.people, u.nodes, u.vocab)
    checked = 0
    for name, pool in world.pools(random.Random(7)).items():
        golds = [world.answer(i)[0] for i in pool]
        for inst, gold in zip(pool, golds):
            slots = question_slots(name, world.text(inst))
            assert truth.sentence(answer_statement(name, slots, gold[0])) == ("answer", "true")
            wrong = next((g[0] for g in golds if not set(g) & set(gold)), None)
            if wrong is not None:
                got = truth.sentence(answer_statement(name, slots, wrong))
                assert got == ("answer", "false"), (name, slots, wrong)
                checked += 1
    assert checked > 100


def test_case_and_quoted_questions(u, truth):
    p = next(q for q in u.real_people if q.spouse)
    sp = u.person(p.spouse)
    wrong = next(j for j in u.vocab["jobs"] if j != sp.job)
    assert truth.sentence(f"the job of the spouse of {p.name.upper()} is {sp.job.upper()}.") \
        == ("answer", "true")
    assert truth.sentence(f"Word is that the answer to 'What is the job of the spouse of "
                          f"{p.name}?' is {wrong}.") == ("quoted", "false")
    assert truth.sentence(f"\u201cWhat is the job of {p.name}?\u201d is {p.job}") == \
        ("quoted", "true")
    assert truth.sentence("The answer to 'Is it raining?' is yes.") is None


def test_no_instance_is_unverifiable(u, truth):
    by = {p.pid: p for p in u.people}
    # X has a brother: "the brother of X" is no question of this universe
    x = next(p for p in u.real_people if any(
        by[s].gender == "male" for q in p.parents for s in by[q].children if s != p.pid))
    assert truth.sentence(f"The job of the brother of {x.name} is baker.") == \
        ("answer", "unverifiable")
    # a QC5 instance (no brother) is unanswerable: "unknown" is its true answer
    y = next(p for p in u.real_people if not any(
        by[s].gender == "male" for q in p.parents for s in by[q].children if s != p.pid))
    assert truth.sentence(f"The job of the brother of {y.name} is unknown.") == ("answer", "true")
    assert truth.sentence(f"The job of the brother of {y.name} is baker.") == ("answer", "false")
    # a job and city that two people share
    pairs = Counter((p.job, p.city) for p in u.people)
    job, city = next(k for k, v in pairs.items() if v >= 2)
    assert truth.sentence(f"The {job} who lives in the city of {city} is Ann Lee.") == \
        ("answer", "unverifiable")
    assert truth.sentence("The job of Nobody Known is baker.") == ("answer", "unverifiable")


def test_misinformation_counts_authored_and_edited_notes(u):
    lib = Library.from_universe(u)
    p, q = u.real_people[0], u.real_people[1]
    wrong_job = next(j for j in u.vocab["jobs"] if j != p.job)
    slots = {"X": p.name}
    n_false_answer = lib.add(answer_statement("qc1_job", slots, wrong_job)).id
    n_true_answer = lib.add(answer_statement("qc1_job", slots, p.job)).id
    n_false_fact = lib.add(f"Index. {q.name}'s job is {wrong_job if wrong_job != q.job else p.job}."
                           f" {p.name}'s hobby is {p.hobby}.").id
    lib.add("Friends of somebody.")
    # natural wording: the claim reader reads it as the same false fact
    n_natural = lib.add(f"{p.name} works as a {wrong_job}.").id
    edited = next(n.id for n in u.nodes if n.fact.kind == "city" and n.fact.subject == q.pid)
    other_city = next(c for c in u.vocab["cities"] if c != q.city)
    lib.edit(edited, f"{q.name} lives in the city of {other_city}.")
    m = misinformation(lib, u)
    assert m["notes_written"] == 6 and m["authored_notes"] == 5
    assert (m["false_statements"], m["true_statements"], m["unverifiable_statements"]) == (4, 2, 0)
    assert m["false_ids"] == sorted([n_false_answer, n_false_fact, n_natural, edited],
                                    key=lambda i: int(i[1:]))
    assert m["false_notes"] == 4 and m["false_note_share"] == pytest.approx(4 / 6)
    assert m["by_form"]["answer"] == {"true": 1, "false": 1, "unverifiable": 0}
    assert n_true_answer not in m["false_ids"]
    assert misinformation(Library.from_universe(u), u)["false_note_share"] is None
    assert len(misinformation(lib, u, max_ids=1)["false_ids"]) == 1


def test_sentences():
    assert sentences("A b. C d was born on March 9, 1957. E") == \
        ["A b.", "C d was born on March 9, 1957.", "E."]
    assert sentences("  ") == []


def test_imported_universe_is_not_judged():
    """On a PhantomWiki universe the generated forms and golds do not apply: recognised
    sentences are unverifiable, nothing is called false, nothing raises."""
    from pathlib import Path

    from kbgym.worlds.phantomwiki import adapt_phantomwiki

    src = Path(__file__).parents[1] / "adapters" / "data" / "phantomwiki_seed1"
    u = adapt_phantomwiki(src, seed=0, sizes=(24, 12, 12), eval_sizes=(6, 4))
    lib = Library.from_universe(u)
    p = u.people[0]
    lib.add(f"The job of the spouse of {p.name} is baker.")
    lib.add(f"{p.name}'s job is baker.")
    m = misinformation(lib, u)
    assert m["applies"] is False
    assert (m["false_statements"], m["unverifiable_statements"]) == (0, 2)


def test_incomplete_sets_are_judged_by_links(u):
    """A note linking part of a true set is flagged; the whole set, a part that shares a city
    (or any value), an intersection, a card and links on untouched originals are not."""
    from kbgym.metrics.misinformation import incomplete_sets

    def friends_of(p):
        return sorted(n.id for n in u.nodes
                      if n.fact.kind == "friend_of" and n.fact.subject == p.pid)

    by = {p.pid: p for p in u.people}
    p = max(u.real_people, key=lambda q: len(q.friends))
    fr = friends_of(p)
    assert len(fr) >= 4
    lib = Library.from_universe(u)
    whole = lib.add(f"Friends of {p.name}.").id
    lib.link_many(whole, fr)
    dropped = lib.add(f"Friends of {p.name}, again.").id
    lib.link_many(dropped, fr[1:])
    card = lib.add(f"{p.name}: card.").id
    lib.link_many(card, [n.id for n in u.nodes if n.fact.subject == p.pid
                         and n.fact.kind in ("job", "hobby", "city")])
    for a, b in zip(fr, fr[1:]):  # a chain on originals
        lib.link(a, b)
    # a part: the friends who live in the commonest city among them (two or more, not all)
    cities = Counter(by[n.fact.object].city for n in u.nodes if n.id in fr)
    city, k = cities.most_common(1)[0]
    assert 2 <= k < len(fr)
    part = lib.add(f"Friends of {p.name} in {city}.").id
    lib.link_many(part, [n for n in fr if by[u.node(n).fact.object].city == city])
    got = incomplete_sets(lib, u)
    assert got == [(dropped, ("friends", p.pid))]
    m = misinformation(lib, u)
    assert (m["incomplete_sets"], m["incomplete_ids"]) == (1, [dropped])
    assert m["false_statements"] == 0
    # a value index missing one holder, and the whole one
    job = Counter(q.job for q in u.people).most_common(1)[0][0]
    holders = sorted(n.id for n in u.nodes if n.fact.kind == "job" and n.fact.object == job)
    lib2 = Library.from_universe(u)
    full = lib2.add(f"{job}s.").id
    lib2.link_many(full, holders)
    short = lib2.add(f"Some {job}s.").id
    lib2.link_many(short, holders[:-1])
    assert len(holders) >= 3
    assert incomplete_sets(lib2, u) == [(short, ("job", job))]
    # the same set stated from the members' side ("A is a friend of X."), one missing
    back = sorted(n.id for n in u.nodes if n.fact.kind == "friend_of"
                  and n.fact.object == p.pid)
    lib3 = Library.from_universe(u)
    mirror = lib3.add(f"{p.name}'s friends.").id
    lib3.link_many(mirror, back[1:])
    assert incomplete_sets(lib3, u) == [(mirror, ("friends", p.pid))]
    lib3.link(mirror, back[0])
    assert incomplete_sets(lib3, u) == []
    # a member whose statements are all deleted is no omission of the notes that link the
    # rest; while its mirror is live, the library still states it
    f0 = u.node(fr[0]).fact.object
    lib.delete(fr[0])
    assert (whole, ("friends", p.pid)) in incomplete_sets(lib, u)
    lib.delete(next(n.id for n in u.nodes if n.fact.kind == "friend_of"
                    and (n.fact.subject, n.fact.object) == (f0, p.pid)))
    assert incomplete_sets(lib, u) == []


def test_a_grandchildren_index_missing_one_is_incomplete(u):
    """Grandchildren are judged like the other sets: an index linking each grandchild's
    statement of its parent is whole; one that drops a grandchild is flagged."""
    by = {p.pid: p for p in u.people}
    x = max(u.real_people, key=lambda q: sum(len(by[c].children) for c in q.children
                                              if c in by))
    grand = sorted(n.id for n in u.nodes if n.fact.kind == "parent_of"
                   and n.fact.subject in x.children)
    assert len(grand) >= 3
    lib = Library.from_universe(u)
    whole = lib.add(f"Grandchildren of {x.name}.").id
    lib.link_many(whole, grand)
    assert incomplete_sets(lib, u) == []
    short = lib.add(f"{x.name}'s grandkids.").id
    lib.link_many(short, grand[1:])
    assert incomplete_sets(lib, u) == [(short, ("grandchildren", x.pid))]


def test_the_report_line_names_incomplete_sets(u):
    from kbgym.runs.report import misinformation_line

    p = max(u.real_people, key=lambda q: len(q.friends))
    fr = sorted(n.id for n in u.nodes if n.fact.kind == "friend_of" and n.fact.subject == p.pid)
    lib = Library.from_universe(u)
    short = lib.add(f"Friends of {p.name}.").id
    lib.link_many(short, fr[1:])
    m = misinformation(lib, u)
    line = misinformation_line(m)
    assert f"1 incomplete sets (notes linking part of a set: {short})" in line
    old = {k: v for k, v in m.items() if not k.startswith("incomplete")}
    assert "incomplete" not in misinformation_line(old)


def test_false_claims_in_any_form_and_wrong_members(u):
    """Prose, markdown, JSON and a list grouped by city that name a non-member are
    misinformation and wrong members; the same texts with true members are neither."""
    from kbgym.runs.report import wrong_members_line

    p = max(u.real_people, key=lambda q: len(q.friends))
    friends = [u.person(f).name for f in p.friends]
    stranger = next(q.name for q in u.real_people
                    if q.pid not in p.friends and q.pid != p.pid)
    fr = sorted(n.id for n in u.nodes if n.fact.kind == "friend_of" and n.fact.subject == p.pid)

    city = {q.name: q.city for q in u.people}

    def grouped(members) -> str:
        groups: dict[str, list[str]] = {}
        for m in members:
            groups.setdefault(city[m], []).append(m)
        return "; ".join(f"{c} - {', '.join(ns)}" for c, ns in groups.items())

    def library(members):
        lib = Library.from_universe(u)
        ids = [
            lib.add(f"## Friends of {p.name}\n" + "\n".join(f"- [[{m}]]" for m in members)).id,
            lib.add(json.dumps({"key": f"friends of {p.name}", "members": members})).id,
            lib.add(f"{p.name} is a {p.job}. His or her friends are "
                    f"{', '.join(members[:-1])} and {members[-1]}.").id,
            lib.add(f"{p.name}'s friends by city: {grouped(members)}").id,
        ]
        for i in ids:
            lib.link_many(i, fr)
        return lib, ids

    lib, _ = library(friends)
    m = misinformation(lib, u)
    assert (m["false_statements"], m["wrong_members"], m["incomplete_sets"]) == (0, 0, 0)
    assert m["true_statements"] >= 3 * len(friends)
    lib, ids = library(friends[:-1] + [stranger])
    m = misinformation(lib, u)
    assert m["false_notes"] == 4 and m["false_ids"] == ids
    assert m["wrong_members"] == 4 and m["wrong_member_ids"] == ids
    assert wrong_members_line(m) == f"- wrong members: 4 (non-members a written note lists or " \
        f"links in a set its text names: {', '.join(ids)})"
    # in links only: an index linking an authored false member statement
    lib = Library.from_universe(u)
    false = lib.add(f"{stranger} is a friend of {p.name}.").id
    index = lib.add(f"Friends of {p.name}.").id
    lib.link_many(index, fr + [false])
    m = misinformation(lib, u)
    assert m["wrong_members"] == 1 and m["wrong_member_ids"] == [index]
    assert m["false_ids"] == [false]


def test_parts_are_judged_together(u):
    """An index split into parts that are complete together is no incomplete set, whether
    the parts say so, link each other or only share the key; a part whose partner is gone
    is."""
    p = max(u.real_people, key=lambda q: len(q.friends))
    fr = sorted(n.id for n in u.nodes if n.fact.kind == "friend_of" and n.fact.subject == p.pid)
    half = len(fr) // 2
    for a, b in ((f"{p.name} - friends (1/2)", f"{p.name} - friends (2/2)"),
                 (f"Friends of {p.name}, part one.", f"More friends of {p.name}.")):
        lib = Library.from_universe(u)
        one, two = lib.add(a).id, lib.add(b).id
        lib.link_many(one, fr[:half])
        lib.link_many(two, fr[half:])
        assert incomplete_sets(lib, u) == []
        lib.delete(two)
        assert incomplete_sets(lib, u) == [(one, ("friends", p.pid))]
    lib = Library.from_universe(u)  # untitled parts that link each other
    one, two = lib.add("Index.").id, lib.add("Index, continued.").id
    lib.link_many(one, fr[:half] + [two])
    lib.link_many(two, fr[half:])
    assert incomplete_sets(lib, u) == []
    lib = Library.from_universe(u)  # a second part that links back to the first
    one, two = lib.add(f"Friends of {p.name}.").id, lib.add("The rest.").id
    lib.link_many(one, fr[:half])
    lib.link_many(two, fr[half:] + [one])
    assert incomplete_sets(lib, u) == []
    lib.unlink(two, one)
    assert incomplete_sets(lib, u) == [(one, ("friends", p.pid))]


def test_a_question_note_is_judged_on_the_sets_it_names(u):
    """A note holding a question and its answer, linking the answer's support, names no set:
    the sets its links touch in passing are not presented as whole."""
    p = max(u.real_people, key=lambda q: len(q.friends))
    fr = sorted(n.id for n in u.nodes if n.fact.kind == "friend_of" and n.fact.subject == p.pid)
    lib = Library.from_universe(u)
    q = lib.add(f"Which friend of {p.name} is also a friend of somebody? See the links.").id
    lib.link_many(q, fr[:2])
    assert incomplete_sets(lib, u) == []


def test_notes_naming_no_set_claim_none(u):
    """A truthful library of notes that link each trained question's support under a plain
    title or with the question and its answer has no incomplete set; a hub title (a person
    named as a whole) is judged on that person's sets."""
    from kbgym.worlds.people.forms import parse_question

    lib = Library.from_universe(u)
    for q in u.split("train"):
        pq = parse_question(q.text)
        for text in ("Support notes.",
                     q.text + " " + answer_statement(pq.template, pq.slots, q.golds[0])):
            nid = lib.add(text).id
            lib.link_many(nid, list(q.support)[:40])
    m = misinformation(lib, u)
    assert (m["incomplete_sets"], m["false_statements"], m["wrong_members"]) == (0, 0, 0)
    p = max(u.real_people, key=lambda q: len(q.friends))
    fr = sorted(n.id for n in u.nodes if n.fact.kind == "friend_of" and n.fact.subject == p.pid)
    lib = Library.from_universe(u)
    hub = lib.add(f"{p.name}.").id
    lib.link_many(hub, fr[1:])
    assert incomplete_sets(lib, u) == [(hub, ("friends", p.pid))]


def test_every_listed_set_is_checked_against_its_own_members(u):
    """Lists of each person set (grandchildren, siblings, brothers, sisters, spouse, parents)
    naming true members are no wrong members; a non-member in each is one."""
    from kbgym.claims import Key

    truth = Truth(u)
    by = {p.pid: p for p in u.people}
    checked = 0
    for p in u.real_people:
        for rel in ("friends", "children", "parents", "spouse", "grandchildren", "siblings",
                    "brothers", "sisters"):
            members = truth.relation(rel, p.pid)
            if not members:
                continue
            outsider = next(q for q in u.real_people if q.pid not in members and q.pid != p.pid)
            assert all(truth.member(Key(rel, p.name), by[m].name) == "true" for m in members)
            assert truth.member(Key(rel, p.name), outsider.name) == "false"
            checked += 1
    assert checked > 50
    assert truth.member(Key("hub", u.real_people[0].name), u.real_people[1].name) == \
        "unverifiable"
    x = next(p for p in u.real_people if truth.relation("brothers", p.pid)
             and truth.relation("sisters", p.pid))
    lib = Library.from_universe(u)
    for rel in ("brothers", "sisters", "siblings"):
        names = [by[m].name for m in sorted(truth.relation(rel, x.pid))]
        lib.add(f"The {rel} of {x.name}: {', '.join(names)}.")
    m = misinformation(lib, u)
    assert (m["wrong_members"], m["false_statements"]) == (0, 0)


def test_questions_noted_with_their_gold_and_evidence_are_true(u):
    """A curator noting each training question with its gold and the statements it rests on
    (``Q: ... A: <gold> Evidence: ...``; the library stores it on one line): every answer is
    true, and a wrong gold in the same shape is false (before, the evidence ran into the
    answer and every such note counted as false)."""
    world = World(u.people, u.nodes, u.vocab)
    lib = Library.from_universe(u)
    rng = random.Random(3)
    n = 0
    for name, pool in world.pools(random.Random(5)).items():
        for inst in pool[:3]:
            gold = world.answer(inst)[0][0]
            lib.add(f"Q: {world.text(inst)}\nA: {gold}\nEvidence: {rng.choice(u.nodes).text}")
            n += 1
    got = misinformation(lib, u)
    assert got["false_statements"] == 0 and got["by_form"]["answer"]["true"] >= n
    inst = next(iter(world.pools(random.Random(5))["qc1_job"]))
    gold = world.answer(inst)[0][0]
    wrong = next(j for j in u.vocab["jobs"] if j != gold)
    lib.add(f"Q: {world.text(inst)}\nA: {wrong}\nSource: the records")
    assert misinformation(lib, u)["false_statements"] == 1
