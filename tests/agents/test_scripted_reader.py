"""The scripted reader: accuracy and cost on the untrained library, determinism, and the use of
index notes and answer statements when the library has them."""

from __future__ import annotations

from collections import defaultdict
from functools import cache

import pytest

from kbgym_agents.loop import run_episode
from kbgym_agents.scripted import ScriptedReader
from kbgym_agents.scripted.curator import TITLES
from kbgym_agents.scripted.text import answer_statement, parse_question
from kbgym.env import KBGymConfig, KBGymEnv
from kbgym.library.graph import Library
from kbgym.worlds.people import UniverseConfig, generate

SPLITS = ("test_in", "test_out", "train")
#: Per-class F1 floors on B1 at 100 people. Measured: 1.00 in every class for seeds 0, 1 and 7
#: (and at 60, 120 and 500 people); the margin leaves room for small universes' quirks.
F1_FLOOR = 0.9
#: Mean steps per question measured at 100 people: 3.5-3.7 (QC1 2.0, QC2 3.0, QC3 4.0).
MEAN_STEPS_CEILING = 5.0


@cache
def universe(seed: int = 0, n: int = 100):
    return generate(UniverseConfig(seed=seed, n_people=n))


def exam(u, library=None, qids=None, config=None, reader=None):
    env = KBGymEnv(u, mode="probe", library=library, config=config)
    reader = reader or ScriptedReader()
    out = {}
    for split in SPLITS if qids is None else ("x",):
        for qid in env.split_qids(split) if qids is None else qids:
            res = run_episode(env, reader, qid)
            out[qid] = dict(res["info"]["episode_summary"], steps=res["steps"], text=res["obs"]["text"])
    return out


def first_of(u, template: str):
    return next(q for q in u.questions if q.template == template)


def costliest(u, template: str, n: int = 12):
    """Of the first ``n`` questions of ``template``, the one B1 answers in the most steps (an
    index can only save steps where paging costs some)."""
    qs = [q for q in u.questions if q.template == template][:n]
    steps = exam(u, qids=[q.qid for q in qs])
    return max(qs, key=lambda q: (steps[q.qid]["steps"], q.qid))


@pytest.mark.parametrize("seed", [0, 1])
def test_reader_answers_every_class_on_the_untrained_library(seed):
    u = universe(seed)
    rows = exam(u)
    by_class = defaultdict(list)
    for r in rows.values():
        by_class[r["category"]].append(r)
    assert set(by_class) == {f"QC{i}" for i in range(1, 11)}
    for cat, group in by_class.items():
        f1 = sum(r["f1"] for r in group) / len(group)
        assert f1 >= F1_FLOOR, (cat, f1)
    assert all(r["status"] != "unanswered" for r in rows.values())
    mean_steps = sum(r["steps"] for r in rows.values()) / len(rows)
    assert mean_steps <= MEAN_STEPS_CEILING
    # forward chains sit at their floor: one search per hop plus the answer
    for r in rows.values():
        if r["category"] in ("QC1", "QC2", "QC3"):
            assert r["steps"] == {"QC1": 2, "QC2": 3, "QC3": 4}[r["category"]]
        if r["category"] == "QC5":
            assert r["steps"] <= 3  # "unknown" is cheap


def test_reader_is_deterministic():
    u = universe(0)
    qids = KBGymEnv(u, mode="probe").split_qids("test_in")[:40]

    def actions():
        env = KBGymEnv(u, mode="probe")
        reader = ScriptedReader()
        seq = []
        for qid in qids:
            obs, info = env.reset(options={"qid": qid})
            reader.reset()
            while True:
                a = reader.act(obs, info)
                seq.append(repr(a))
                obs, _, term, trunc, info = env.step(a)
                if term or trunc:
                    break
        return seq

    assert actions() == actions()


def test_reader_answers_before_the_budget_runs_out():
    u = universe(0)
    templates = ("qc6_job_city", "qc7_common_friend", "qc3_spouse_father_hobby",
                 "qc8_grandchildren")
    qids = [first_of(u, t).qid for t in templates]
    rows = exam(u, qids=qids, config=KBGymConfig(m=2))
    assert all(r["answer"] is not None and r["steps"] == 2 for r in rows.values())


# -- index notes ---------------------------------------------------------------------------


def indexed_library(u, keys) -> Library:
    """B1 plus hand-built index notes in the curator's titles, each linking the member facts."""
    lib = Library.from_universe(u)
    name = {p.pid: p.name for p in u.people}
    person = {p.name: p for p in u.people}
    facts = defaultdict(list)  # (kind, subject pid) -> node ids
    for node in u.nodes:
        facts[(node.fact.kind, node.fact.subject)].append(node)

    def role(x):
        return "father" if person[x].gender == "male" else "mother"

    for rel, key in keys:
        if rel in ("job", "hobby", "city"):
            targets = [n.id for p in u.people if getattr(p, rel) == key
                       for n in facts[(rel, p.pid)]]
        elif rel == "friends":
            targets = [n.id for n in facts[("friend_of", person[key].pid)]]
        elif rel == "children":
            targets = [n.id for n in facts[("parent_of", person[key].pid)]]
        elif rel == "grandchildren":
            targets = [n.id for c in person[key].children for n in facts[("parent_of", c)]]
        else:
            raise ValueError(rel)
        assert targets
        nid = lib.add(TITLES[rel].format(key=key, role=role(key) if key in person else "")).id
        for i in range(0, len(targets), 40):
            lib.link_many(nid, targets[i:i + 40])
    del name
    return lib


@pytest.mark.parametrize("template", ["qc6_job_city", "qc6_job_hobby", "qc10_spouse_job_city",
                                      "qc7_common_friend", "qc8_grandchildren",
                                      "qc8_spouse_friends", "qc4_friends"])
def test_reader_uses_index_notes_and_takes_fewer_steps(template):
    u = universe(0, 500)  # sets big enough that paging costs more than one read (the default)
    q = costliest(u, template)
    p = parse_question(q.text)
    person = {pp.name: pp for pp in u.people}
    keys = {
        "qc6_job_city": lambda: [("job", p.slots["job"]), ("city", p.slots["city"])],
        "qc6_job_hobby": lambda: [("job", p.slots["job"]), ("hobby", p.slots["hobby"])],
        "qc10_spouse_job_city": lambda: [("job", p.slots["job"]), ("city", p.slots["city"])],
        "qc7_common_friend": lambda: [("friends", p.X), ("friends", p.Y)],
        "qc8_grandchildren": lambda: [("children", p.X), ("grandchildren", p.X)],
        "qc8_spouse_friends": lambda: [("friends", u.person(person[p.X].spouse).name)],
        "qc4_friends": lambda: [("friends", p.X)],
    }[template]()
    base = exam(u, qids=[q.qid])[q.qid]
    lib = indexed_library(u, keys)
    indexed = exam(u, library=lib, qids=[q.qid])[q.qid]
    assert base["f1"] == indexed["f1"] == 1.0
    assert indexed["steps"] < base["steps"], (base["text"], indexed["text"])
    assert "read(id=" in indexed["text"]


def test_an_index_of_member_hubs_is_verified_through_the_hubs():
    """Oracle-style indexes (§14) link to the members' name hubs, not to their facts: a
    member counts only once its hub is read and shows the statement (every relation is
    verified the same way); hubs without links prove nothing and cost no F1."""
    u = universe(0, 300)
    q = costliest(u, "qc6_job_city")
    p = parse_question(q.text)
    base = exam(u, qids=[q.qid])[q.qid]
    for linked in (False, True):
        lib = Library.from_universe(u)
        hubs = {}
        for person in u.people:
            if person.job == p.slots["job"] or person.city == p.slots["city"]:
                hubs[person.name] = lib.add(f"Index of notes about {person.name}.").id
                if linked:
                    lib.link_many(hubs[person.name], [n.id for n in u.nodes
                                                      if n.fact.subject == person.pid][:40])
        for title, members in ((f"People whose job is {p.slots['job']}.",
                                [pp.name for pp in u.people if pp.job == p.slots["job"]]),
                               (f"Residents of {p.slots['city']}.",
                                [pp.name for pp in u.people if pp.city == p.slots["city"]])):
            nid = lib.add(title).id
            lib.link_many(nid, [hubs[m] for m in members if m in hubs])
        indexed = exam(u, library=lib, qids=[q.qid])[q.qid]
        assert indexed["f1"] == base["f1"] == 1.0


def test_reader_answers_from_a_stated_answer():
    u = universe(0)
    q = first_of(u, "qc6_job_city")
    lib = Library.from_universe(u)
    lib.add(answer_statement(parse_question(q.text), q.golds[0]))
    row = exam(u, library=lib, qids=[q.qid])[q.qid]
    assert row["f1"] == 1.0 and row["steps"] == 2


def test_reader_answers_from_a_note_asking_and_answering_the_question():
    """A curator's note of a question with its answer and evidence (``Q: ... A: ...
    Evidence: ...``, stored on one line) is an answer statement in another form: believed for
    its own question; another question's note is not believed, and its links are evidence,
    not a set of the person it names (docs/protocol/episodes.md §9.6)."""
    u = universe(0)
    q = first_of(u, "qc6_job_city")
    lib = Library.from_universe(u)
    lib.add(f"Q: {q.text}\nA: {q.golds[0]}\nEvidence: {lib[q.support[0]].text}")
    row = exam(u, library=lib, qids=[q.qid])[q.qid]
    assert row["f1"] == 1.0 and row["steps"] == 2
    other = next(o for o in u.questions if o.template == "qc4_friends"
                 and o.qid != q.qid and o.text.split(" does ")[1] != q.text)
    lib = Library.from_universe(u)
    wrong = next(str(n) for n in range(1, 9) if str(n) not in other.golds)
    lib.add(f"Q: {other.text.replace('friends', 'children')}\nA: {wrong}")
    assert exam(u, library=lib, qids=[other.qid])[other.qid]["f1"] == 1.0


def parts_library(u, job: str, by: str) -> Library:
    """B1 plus the holders of ``job`` split into parts by their ``by`` value (``Brewers: part
    Foxhollow.``), each part linking its members' job and ``by`` statements."""
    from kbgym.metrics.vocabulary import plural

    lib = Library.from_universe(u)
    stated = {(n.fact.kind, n.fact.subject): n.id for n in u.nodes}
    groups = defaultdict(list)
    for p in u.people:
        if p.job == job:
            groups[getattr(p, by)].append(p.pid)
    for label, pids in sorted(groups.items()):
        nid = lib.add(f"{plural(job).capitalize()}: part {label}.").id
        lib.link_many(nid, [stated[(k, pid)] for pid in pids for k in ("job", by)])
    return lib


def test_a_join_finds_the_part_of_the_job_split_by_its_other_value():
    """A job's set split into parts by city crowds the job's page; for "the <job> who lives in
    <city>" the part naming that city is the join: the reader reads it as soon as a page shows
    it (here the job's first page: 3 steps), where paging the statements costs more. Split by
    hobby, the parts hold no such join, and the reader does not ask for both values."""
    u = universe(0, 500)
    q = costliest(u, "qc6_job_city")
    p = parse_question(q.text)
    job, city = p.slots["job"], p.slots["city"]
    base = exam(u, qids=[q.qid])[q.qid]
    by_city = exam(u, library=parts_library(u, job, "city"), qids=[q.qid])[q.qid]
    assert by_city["f1"] == base["f1"] == 1.0
    assert by_city["steps"] == 3 < base["steps"], by_city["text"]
    assert "search(query=" in by_city["text"] and f"{city}" in by_city["text"]
    by_hobby = exam(u, library=parts_library(u, job, "hobby"), qids=[q.qid])[q.qid]
    assert by_hobby["f1"] == 1.0
    joint = [line for line in by_hobby["text"].splitlines()
             if "search(" in line and job in line and city in line]
    assert not joint, joint


def json_parts(u, lib: Library, kind: str, value: str, by: str) -> tuple[str, dict[str, str]]:
    """The holders of ``kind`` = ``value`` split by their ``by`` value into JSON records with
    their members (``{"key": "potters: part Oakhaven", "members": [...]}``), each linking
    its members' two statements, under a parent linking the parts; (parent id, label -> part
    id)."""
    import json

    from kbgym.metrics.vocabulary import plural

    stated = {(n.fact.kind, n.fact.subject): n.id for n in u.nodes}
    groups = defaultdict(list)
    for person in u.people:
        if getattr(person, kind) == value:
            groups[getattr(person, by)].append(person)
    parts = {}
    for label, people in sorted(groups.items()):
        text = json.dumps({"key": f"{plural(value)}: part {label}",
                           "members": [x.name for x in people]})
        parts[label] = lib.add(text).id
        lib.link_many(parts[label], [stated[(k, x.pid)] for x in people for k in (kind, by)])
    parent = lib.add(json.dumps({"key": f"{plural(value)}, by group", "members": []})).id
    lib.link_many(parent, list(parts.values()))
    return parent, parts


@cache
def json_parts_join() -> tuple[str, str, dict[str, str], dict]:
    """The costliest job-and-city join of a 500-person universe, examined on a library where
    the job's holders are split by city and the city's residents by hobby, both as JSON parts
    under a parent (:func:`json_parts`): (city, the job's parent, its parts, the exam row)."""
    u = universe(0, 500)
    q = costliest(u, "qc6_job_city")
    p = parse_question(q.text)
    job, city = p.slots["job"], p.slots["city"]
    lib = Library.from_universe(u)
    parent, parts = json_parts(u, lib, "job", job, "city")
    json_parts(u, lib, "city", city, "hobby")
    return city, parent, parts, exam(u, library=lib, qids=[q.qid])[q.qid]


def test_a_join_reads_the_part_naming_its_other_value_once_an_index_of_parts_shows_it():
    """Parts written as JSON records with their members rank below the job's short statements,
    so the job's page shows only the parts' parent (``{"key": "potters, by group"}``); once the
    parent is read, its link page shows the part naming the question's city: that part is the
    join, read next, before any holder is checked. (The city's residents are split by hobby
    too, so that the city's page shows its own parts.)"""
    city, parent, parts, row = json_parts_join()
    assert row["f1"] == 1.0
    reads = [line for line in row["text"].splitlines() if "read(" in line]
    assert len(reads) >= 2 and parent in reads[0] and f"part {city}" not in reads[0]
    assert parts[city] in reads[1], row["text"]


def test_a_join_asks_for_a_crowded_values_sentences_only_after_the_indexes_in_sight():
    """The city's page shows its residents split into parts by hobby and none of its
    statements; the city's own sentences (``lives in the city of X``) are asked for only after
    the job's index in sight was read (its part naming the city is the join), so here never:
    the answer comes from the two reads (reader 2026-12-07.2; before, the sentences were
    searched right after the city's page, a step the answer did not need)."""
    *_, row = json_parts_join()
    assert row["f1"] == 1.0
    actions = [line for line in row["text"].splitlines() if "read(" in line or "search(" in line]
    first_read = next(i for i, line in enumerate(actions) if "read(" in line)
    assert not any("lives in the city of" in line for line in actions[:first_read]), actions
    assert row["steps"] == 5, actions  # the job's page, the city's page, two reads, the answer


@pytest.mark.parametrize("template", ["qc6_job_city", "qc6_job_hobby", "qc10_spouse_job"])
def test_the_strict_reader_answers_joins(template):
    """``scripted-reader-strict`` (kept for comparison) shares the join plan, which asks its
    knowledge whether a page shows a set split into parts: its knowledge says no (it raised
    AttributeError on every join before 2026-12-07)."""
    from kbgym_agents.scripted.reader import StrictReader

    u = universe(0)
    q = first_of(u, template)
    row = exam(u, qids=[q.qid], reader=StrictReader())[q.qid]
    assert row["f1"] == 1.0


def read_ids(text: str) -> set[str]:
    """The ids an episode's transcript shows read."""
    import re

    return set(re.findall(r"read\(id=['\"]?(\w+)", text))


def test_a_join_reads_no_note_about_another_set_that_names_one_of_its_values():
    """In "the <job> who lives in <city>", three kinds of notes name one of the join's values
    and cannot hold its person, and the reader reads none of them, where it used to read
    each as a candidate for the value's set: a person's set restricted to the city
    (``F. Surname. (City)``), the job's intersection with another city (``Brewers in
    Othertown.``), and an index of the job's parts split by hobby (``Brewers, by group.``,
    linking ``Brewers: part chess.`` ...), whose parts name no city."""
    from kbgym.metrics.vocabulary import plural

    u = universe(0, 500)
    q = costliest(u, "qc6_job_city")
    p = parse_question(q.text)
    job, city = p.slots["job"], p.slots["city"]
    lib = parts_library(u, job, "hobby")
    parts = [n.id for n in lib.nodes() if n.text.startswith(f"{plural(job).capitalize()}: part")]
    parent = lib.add(f"{plural(job).capitalize()}, by group.").id
    lib.link_many(parent, parts)
    stated = {(n.fact.kind, n.fact.subject): n.id for n in u.nodes}
    other = next(c for c in sorted({x.city for x in u.people}) if c != city)
    inter = lib.add(f"{plural(job).capitalize()} in {other}.").id
    lib.link_many(inter, [stated[(k, x.pid)] for x in u.people
                          if x.job == job and x.city == other for k in ("job", "city")])
    someone = next(x for x in u.people if x.city != city)
    first, last = someone.name.split(" ", 1)
    persons = lib.add(f"{first[0]}. {last}. ({city})").id
    lib.link_many(persons, [stated[("city", x.pid)] for x in u.people if x.city == city][:4])
    got = exam(u, library=lib, qids=[q.qid])[q.qid]
    assert got["f1"] == 1.0
    assert not read_ids(got["text"]) & {parent, inter, persons, *parts}, got["text"]


@pytest.mark.parametrize("text, about_person", [
    ("L. Bramley. (Dunmere)", True),
    ("Friends of U. Whitlock in Dunmere", True),
    ("bramley, lavinia - dunmere", True),
    ("Dunmere: Lavinia Bramley, Cedric Thistlewood", False),
    ("People who live in the city of Dunmere", False),
    ("Dunmeres, by group.", False),
])
def test_a_note_naming_a_person_before_a_value_is_about_that_person(text, about_person):
    from kbgym_agents.scripted.knowledge import person_before

    assert person_before(text, "Dunmere") is about_person


@pytest.mark.parametrize("text, out", [
    ("Brewers in Pennymoor.", True),
    ("Both brewer and chess.", True),
    ("Brewers in Dunmere.", False),
    ("Brewers.", False),
    ("Brewers in Dunmere and Pennymoor.", False),
])
def test_a_note_naming_a_value_outside_a_join_is_another_set(text, out):
    from kbgym_agents.scripted.knowledge import outside

    assert outside(text, ("brewer", "Dunmere")) is out
