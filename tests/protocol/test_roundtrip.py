"""The published protocol (kbgym.protocol): every string form parses back to what was
formatted, a whole generated universe renders and parses back to its facts, and what the
environment prints is exactly what the formatters write."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbgym import protocol as P
from kbgym.protocol import errors as E
from kbgym.protocol.limits import LINK_TYPES, READ_LINKS_PER_PAGE
from kbgym.protocol.observation import format_call, format_line
from kbgym.worlds.people.forms import QUESTION_FORMS
from kbgym.worlds.people import UniverseConfig, generate
from kbgym.worlds.people import facts as F
from kbgym.worlds.people import forms as Q
from kbgym.worlds.people import statements as ST
from kbgym.worlds.people.vocab import CITIES, FEMALE_FIRST, HOBBIES, JOBS, MALE_FIRST

ids = st.integers(1, 10**7).map(P.format_id)
#: Note text as the library stores it: one line, no control characters, not empty.
texts = st.text(string.ascii_letters + string.digits + " .,'?!-:;()[]\"", min_size=1,
                max_size=80).map(lambda t: " ".join(t.split()) or "x")
tags = st.lists(st.sampled_from(LINK_TYPES + ("stale",)), max_size=2, unique=True).map(tuple)
hits = st.builds(P.Hit, ids, texts, tags)
plain_hits = st.builds(P.Hit, ids, texts)
names = st.builds(lambda a, b: f"{a} {b}", st.sampled_from(MALE_FIRST + FEMALE_FIRST),
                  st.sampled_from(["Vance", "Oakley", "Abernathy", "Bramley-Holt"]))


@given(st.integers(1, 12), st.lists(plain_hits, max_size=5))
def test_search_pages(page, shown):
    text = P.format_search(page, [(h.id, h.text) for h in shown])
    got = P.parse_search(text)
    assert got == P.SearchPage(page if shown or page > 1 else 1, shown)
    assert P.result_ids(text) == list(dict.fromkeys(h.id for h in shown))


@given(ids, texts, st.lists(hits, max_size=6), st.booleans())
def test_reads(nid, text, links, paged):
    page = P.LinksPage(1, len(links), len(links) + 3, 2) if paged and links else None
    out = P.format_read(nid, text, links, page)
    assert P.parse_read(out) == P.ReadResult(nid, text, links, page)


@given(st.one_of(st.none(), st.floats(0, 1)))
def test_submitted(f1):
    ok, shown = P.parse_submitted(P.format_submitted(f1))
    assert ok and (shown is None if f1 is None else abs(shown - f1) <= 0.005)


@given(ids, ids, st.sampled_from((None,) + LINK_TYPES))
def test_edits(a, b, ltype):
    for kind, text, want in (
            ("added", P.format_added(a), (a,)), ("duplicate", P.format_duplicate(a), (a,)),
            ("edited", P.format_edited(a), (a,)), ("merged", P.format_merged_into(a), (a,)),
            ("deleted", P.format_deleted(a), (a,)), ("unlinked", P.format_unlinked(a, b), (a, b))):
        assert P.parse_edit(text) == P.EditResult(kind, want)
    assert P.parse_edit(P.format_linked(a, b, ltype)) == P.EditResult("linked", (a, b), ltype)


@given(ids, st.lists(ids, max_size=30, unique=True), st.sampled_from((None,) + LINK_TYPES),
       st.lists(st.tuples(ids, st.sampled_from(("no such note", "self", "already linked"))),
                max_size=4))
def test_link_many(src, made, ltype, skipped):
    degree = len(made) + 3
    out = P.parse_link_many(P.format_link_many(src, made, degree, ltype, skipped))
    assert out == P.LinkManyResult(src, len(made), tuple(made[:8]), degree if made else None,
                                   ltype if made else None, tuple(skipped))


@given(st.lists(plain_hits, max_size=10))
def test_locate(shown):
    assert P.parse_locate(P.format_locate((h.id, h.text) for h in shown)) == shown


@given(st.lists(st.builds(P.Edge, st.sampled_from(LINK_TYPES + ("untyped",)), ids, texts),
                max_size=6), st.lists(ids, min_size=1, max_size=4), st.booleans())
def test_expand(edges, path, branch):
    assert P.parse_expand(P.format_expand(edges)) == P.ExpandResult(edges)
    walk = P.format_walk(path, (path[-1], "cites", edges) if branch and len(edges) > 1 else None)
    got = P.parse_expand(walk)
    assert got.path == path
    if branch and len(edges) > 1:
        assert (got.branch, got.edges) == (path[-1], edges)
    else:
        assert (got.branch, got.edges) == (None, [])


@given(st.sampled_from(("search", "read")), st.lists(ids, max_size=5))
def test_collapsed(name, shown):
    assert P.parse_collapsed(P.format_collapsed(name, shown)) == (name, shown)


@given(st.sampled_from(list(QUESTION_FORMS)), names, names,
       st.sampled_from(JOBS), st.sampled_from(HOBBIES), st.sampled_from(CITIES))
def test_questions_and_answer_statements(template, x, y, job, hobby, city):
    slots = {"X": x, "Y": y, "job": job, "hobby": hobby, "city": city}
    used = {k: v for k, v in slots.items() if "{" + k + "}" in QUESTION_FORMS[template]}
    text = Q.render_question(template, used)
    assert Q.parse_question(text) == Q.ParsedQuestion(template, used)
    assert Q.question_slots(template, text.lower()) == {k: v.lower() for k, v in used.items()}
    statement = ST.answer_statement(template, used, "baker")
    assert ST.parse_statement(statement) == (template, used, "baker")


@given(st.sampled_from(["q0001", "q1234", "g0042"]), texts, st.one_of(st.none(), texts),
       texts, st.floats(0, 1))
def test_task_blocks(qid, question, answer, gold, f1):
    assert P.parse_task(P.format_forward(qid, question)) == P.Task(
        "forward", qid, question, P.format_forward(qid, question))
    assert P.parse_task(P.format_probe(qid, question)).question == question
    block = P.format_backward(qid, question, answer, gold, f1)
    task = P.parse_task(block)
    assert (task.phase, task.qid, task.question, task.answer, task.gold) == (
        "backward", qid, question, answer, gold)
    assert abs(task.f1 - f1) <= 0.005
    assert task.outcome == ("no_answer" if answer is None else "wrong" if f1 < 0.5 else "right")


@settings(max_examples=60)
@given(st.sampled_from(["TRAIN QUESTION q0001 [phase 1: answer it]\nWhat is the job of Ann Bell?",
                        "QUESTION g0002\nWho is older, Ann Bell or Bo Vance?"]),
       st.lists(st.tuples(st.sampled_from(["search", "read", "add"]), texts, texts),
                max_size=6),
       st.integers(0, 15), st.sampled_from(P.observation.LAYOUTS))
def test_observations_in_both_layouts(block, steps, left, layout):
    lines = [format_line(format_call(name, {"text": arg}), result) for name, arg, result in steps]
    obs = P.parse_observation(P.render_observation(block, lines, left, layout))
    assert obs.task == P.parse_task(block) and obs.steps_left == left
    assert obs.phase == ("forward" if block.startswith("TRAIN") else "probe")
    assert [(e.name, e.args, e.result) for e in obs.history] == [
        (name, {"text": arg}, result) for name, arg, result in steps]


def test_errors_are_errors():
    for text in (E.ERR_NO_ACTION, E.err_no_such_note("s0009"), E.EPISODE_OVER,
                 E.err_too_many_targets(41), E.err_page_range(12)):
        assert P.is_error(text) and P.error_message(text) == text[len("ERROR: "):]
    assert not P.is_error(P.format_added("s0001")) and P.error_message("added s1") is None


@pytest.fixture(scope="module")
def universe():
    return generate(UniverseConfig(seed=5, n_people=120))


def test_a_whole_universe_renders_and_parses_back_to_its_facts(universe):
    name = {p.pid: p.name for p in universe.people}
    for node in universe.nodes:
        fact = F.parse_fact(node.text)
        assert fact is not None, node.text
        assert fact.relation == node.fact.kind and fact.subj == name[node.fact.subject]
        want = name.get(node.fact.object, node.fact.object)
        assert fact.obj == want
        assert F.render_fact(fact) == node.text


def test_every_question_of_a_universe_parses_to_its_template(universe):
    for q in universe.questions:
        parsed = Q.parse_question(q.text)
        assert parsed is not None and parsed.template == q.template
        assert Q.render_question(q.template, parsed.slots) == q.text


def test_what_the_env_prints_is_what_the_parsers_read(universe):
    from kbgym.env.env import KBGymEnv

    env = KBGymEnv(universe, mode="train")
    qid = universe.splits["train"][0]
    obs, _ = env.reset(options={"qid": qid})
    q = universe.question(qid)
    parsed = P.parse_observation(obs)
    assert (parsed.task.qid, parsed.question, parsed.phase, parsed.history) == (
        qid, q.text, "forward", [])
    person = q.text.split(" of ")[-1].rstrip("?")
    _, _, _, _, info = env.step({"action": "search", "query": person})
    page = P.parse_search(info["result"])
    assert page.page == 1 and page.hits
    _, _, _, _, info = env.step({"action": "read", "id": page.hits[0].id})
    assert P.parse_read(info["result"]).id == page.hits[0].id
    obs, _, _, _, info = env.step({"action": "answer", "text": "unknown"})
    back = P.parse_observation(obs)
    assert back.phase == "backward" and back.task.gold == q.golds[0]
    assert back.task.answer == "unknown" and back.task.f1 == info["f1"]
    assert [e.name for e in back.history] == ["search", "read", "answer"]
    _, _, _, _, info = env.step({"action": "add", "text": "Index of things."})
    nid = P.parse_edit(info["result"]).ids[0]
    _, _, _, _, info = env.step({"action": "link_many", "source": nid,
                                 "targets": [h.id for h in page.hits] + [nid, "s9999999"]})
    lm = P.parse_link_many(info["result"])
    assert lm.source == nid and lm.made == len(page.hits)
    assert dict(lm.skipped) == {nid: "self", "s9999999": "no such note"}
    _, _, _, _, info = env.step({"action": "read", "id": nid})
    assert P.parse_read(info["result"]).link_ids == [h.id for h in page.hits]
    _, _, _, _, info = env.step({"action": "read", "id": "s9999999"})
    assert P.is_error(info["result"]) and P.parse_read(info["result"]) is None


def test_read_pages_of_a_heavily_linked_note(universe):
    from kbgym.library.apply import read_result
    from kbgym.library.graph import Library

    lib = Library.from_universe(universe)
    hub = lib.add("hub").id
    targets = [n.id for n in universe.nodes[: READ_LINKS_PER_PAGE + 7]]
    for i in range(0, len(targets), 40):
        lib.link_many(hub, targets[i:i + 40])
    first = P.parse_read(read_result(lib, hub, None, READ_LINKS_PER_PAGE))
    last = P.parse_read(read_result(lib, hub, 2, READ_LINKS_PER_PAGE))
    assert first.page == P.LinksPage(1, 100, 107, 2) and len(first.links) == 100
    assert last.page == P.LinksPage(101, 107, 107, None) and len(last.links) == 7
    assert first.link_ids + last.link_ids == targets
