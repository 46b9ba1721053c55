"""The exam reader's rules as properties of links and truth (docs/protocol.md §9.6, issue 18).

Libraries are built from the hidden truth (the universe's people and facts) in many textual
shapes; each test states one rule:

- truthful notes never cost F1;
- a note promises only what its links show;
- the same links earn the same credit whatever else the text says;
- a rejected candidate costs its read and nothing else;
- links on original notes are followed where they can save steps;
- every relation's members are verified the same way (grandchildren included).
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbgym.env import KBGymConfig, KBGymEnv
from kbgym.library.graph import Library
from kbgym.worlds.people import UniverseConfig, generate
from kbgym.worlds.people.statements import answer_statement
from kbgym_agents.scripted.knowledge import LinkJudgedKnowledge, judge_set
from kbgym_agents.scripted.reader import ScriptedReader
from kbgym_agents.scripted.text import parse_fact, parse_question
from kbgym_agents.zoo.generated import RENDERINGS, TITLES, Truth, generate_libraries

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


#: Every rendering of the zoo: parts, edited originals with pointers and answer statements
#: after a prefix are read with the claim reader (docs/examiner.md).
READ_RENDERINGS = RENDERINGS


@cache
def world(seed: int = 11, n: int = 120):
    u = generate(UniverseConfig(seed=seed, n_people=n))
    return u, Truth(u)


def exam(u, library, qids, config=None, reader=None) -> dict:
    """qid -> (steps, f1, actions) with the exam reader."""
    env = KBGymEnv(u, mode="probe", library=library, config=config, split="train")
    reader = reader or ScriptedReader()
    out = {}
    for qid in qids:
        obs, info = env.reset(options={"qid": qid})
        reader.reset()
        acts = []
        while True:
            a = reader.act(obs, info)
            acts.append(a)
            obs, _, term, trunc, info = env.step(a)
            if term or trunc:
                break
        out[qid] = (len(acts), info["episode_summary"]["f1"], acts)
    return out


def read_into(kb: LinkJudgedKnowledge, nid: str, text: str, linked: list[tuple[str, str]]):
    body = "".join(f"\n- {i}: {t}" for i, t in linked)
    kb.ingest_entry("read", {"id": nid}, f"{nid}: {text}\nlinks:" + (body or " (none)"))


def people_with(truth: Truth, rel: str, at_least: int) -> list[str]:
    return sorted(n for n in truth.by_name if len(truth.members(rel, n)) >= at_least)


# -- truthful notes never cost F1 --------------------------------------------------------------


@SETTINGS
@given(seed=st.integers(0, 10 ** 6))
def test_truthful_notes_never_cost_f1(seed):
    u, _ = world()
    qs = u.split("train")[:30]
    libs = [g for g in generate_libraries(u, seed, 3, questions=qs, renderings=READ_RENDERINGS)
            if g.truthful]
    qids = [q.qid for q in qs]
    base = exam(u, Library.from_universe(u), qids)
    for g in libs:
        got = exam(u, g.library, qids)
        lost = [q for q in qids if got[q][1] < base[q][1]]
        assert not lost, (g.name, g.shapes, g.text_forms, g.noise, lost)


@pytest.mark.parametrize("titles", [("Friends of {x}.", "Friends of {x}."),
                                    ("Friends of {x}.", "More friends of {x}."),
                                    ("{x}: social page.", "{x}: social page.")])
def test_a_set_written_twice_without_markers_costs_no_f1(titles, monkeypatch):
    """A curator that appends a second note for a set instead of editing the first writes one
    set as two notes that do not say they are halves; seen together they are judged together
    (§9.6 rule 1). Judged alone, as before, each half was taken as the set."""
    u, truth = world()
    qs = [q for q in u.questions if q.template == "qc4_friends"
          and len(truth.members("friends", q.keys[0].split(":", 1)[1])) >= 4]
    lib = Library.from_universe(u)
    for q in qs:  # each half names two members or more: alone, it passes for the set
        x = q.keys[0].split(":", 1)[1]
        members = truth.members("friends", x)
        names = sorted(members)
        for title, half in zip(titles, (names[:len(names) // 2], names[len(names) // 2:])):
            nid = lib.add(title.format(x=x), dedup=False).id
            lib.link_many(nid, sorted({n for m in half for n in members[m]}))
    qids = [q.qid for q in qs]
    base = exam(u, Library.from_universe(u), qids)
    got = exam(u, lib, qids)
    assert qids and all(got[q][1] == base[q][1] == 1.0 for q in qids)
    monkeypatch.setattr(LinkJudgedKnowledge, "twins", False)
    alone = exam(u, lib, qids)
    assert any(alone[q][1] < 1.0 for q in qids)  # the test sees the difference


# -- a note promises only what its links show ------------------------------------------------


@SETTINGS
@given(data=st.data())
def test_a_note_promises_only_what_its_links_show(data):
    u, t = world()
    x = data.draw(st.sampled_from(people_with(t, "friends", 2)))
    p = t.by_name[x]
    friends = t.members("friends", x)
    # a card: some of the person's own statements, no friend links
    attrs = t.attributes(x)
    card = data.draw(st.lists(st.sampled_from(attrs), min_size=1, unique=True))
    kb = LinkJudgedKnowledge()
    read_into(kb, "s9001", f"{x}: card.", [(i, t.node[i].text) for i in card])
    for rel in ("friends", "children", "parents", "spouse"):
        assert not kb.absorb_index("s9001", rel, x)
    for kind in ("job", "hobby", "city"):
        assert not kb.absorb_index("s9001", kind, getattr(p, kind))
    # the friends index itself, written from either end
    side = data.draw(st.sampled_from(["forward", "backward", "both"]))
    links = [n for ns in friends.values() for n in ns
             if side == "both" or (t.node[n].fact.subject == p.pid) == (side == "forward")]
    kb = LinkJudgedKnowledge()
    read_into(kb, "s9002", f"Friends of {x}.", [(i, t.node[i].text) for i in links])
    assert kb.absorb_index("s9002", "friends", x)
    assert kb.friends(x) == set(friends)
    assert not kb.absorb_index("s9002", "children", x)
    for f in friends:  # one of x's friends' lists is not that friend's list
        assert not kb.absorb_index("s9002", "friends", f)


@SETTINGS
@given(data=st.data())
def test_an_intersection_note_indexes_the_intersection_only(data):
    u, t = world()
    pairs = sorted({(p.job, p.city) for p in u.people
                    if len(t.members("job", p.job)) > sum(1 for q in u.people
                                                          if (q.job, q.city) == (p.job, p.city))})
    job, city = data.draw(st.sampled_from(pairs))
    both = sorted(set(t.members("job", job)) & set(t.members("city", city)))
    links = [n for m in both for n in t.members("job", job)[m] + t.members("city", city)[m]]
    kb = LinkJudgedKnowledge()
    read_into(kb, "s9003", f"{job}s in {city}.", [(i, t.node[i].text) for i in links])
    assert not kb.absorb_index("s9003", "job", job)
    assert not kb.absorb_index("s9003", "city", city)
    assert {kb.attr(m, "city") for m in both} == {city}  # its statements are still believed


# -- the same links earn the same credit whatever else the text says ---------------------------

EXTRA = ("question", "answer", "members", "cross", "lower", "upper", "initials", "lower_name")


@SETTINGS
@given(data=st.data())
def test_the_same_links_earn_the_same_credit_whatever_the_text_says(data):
    u, t = world()
    rel = data.draw(st.sampled_from(["friends", "children", "job", "city"]))
    if rel in ("job", "city"):
        key = data.draw(st.sampled_from(sorted({getattr(p, rel) for p in u.people})))
    else:
        key = data.draw(st.sampled_from(people_with(t, rel, 1)))
    members = t.members(rel, key)
    links = [(n, t.node[n].text) for ns in members.values() for n in ns]
    extras = data.draw(st.lists(st.sampled_from(EXTRA), unique=True, max_size=4))
    name = key
    if "initials" in extras and " " in key:
        name = f"{key[0]}. {key.split(' ')[1]}"
    elif "lower_name" in extras:
        name = key.lower()
    pattern = data.draw(st.sampled_from(TITLES["value" if rel in ("job", "city") else rel]))
    text = pattern.format(X=name, v=key, vs=key + "s", Vs=key.capitalize() + "s")
    q = next(q for q in u.questions if q.template in ("qc4_friends", "qc8_friend_job"))
    pq = parse_question(q.text)
    if "question" in extras:
        text += " " + q.text
    if "answer" in extras:
        text += " " + answer_statement(q.template, pq.slots, q.golds[0])
    if "members" in extras:
        text += " Members: " + ", ".join(sorted(members)) + "."
    if "cross" in extras:
        text += f" See also {u.people[0].name}."
    if "lower" in extras:
        text = text.lower()
    elif "upper" in extras:
        text = text.upper()
    verdicts = []
    for note in (f"Index {rel} {key}.", text):  # plain wording, then the drawn one
        kb = LinkJudgedKnowledge()
        kb.ingest_entry("search", {"query": key, "page": 1}, f"page 1:\n- s9004: {note}")
        assert "s9004" in kb.index_candidates(rel, key), note
        read_into(kb, "s9004", note, links)
        verdicts.append((kb.absorb_index("s9004", rel, key),
                         kb.index_members.get((rel, key))))
    assert verdicts[0] == verdicts[1]
    assert verdicts[0][0] == (len(members) >= 2 or rel in ("job", "city") and len(members) >= 2)


# -- a rejected candidate costs its read and nothing else -------------------------------------


class _Blind(LinkJudgedKnowledge):
    """Knowledge that never considers the decoys (the plan they must not change)."""

    decoys: frozenset = frozenset()

    def index_candidates(self, rel, key, values=()):
        return [n for n in super().index_candidates(rel, key, values) if n not in self.decoys]


@SETTINGS
@given(seed=st.integers(0, 10 ** 6))
def test_a_rejected_candidate_costs_its_read_and_nothing_else(seed):
    u, t = world()
    rng = random.Random(seed)
    qs = [q for q in u.split("train")[:60] if q.category not in ("QC1", "QC5", "QC9")]
    lib = Library.from_universe(u)
    decoys = set()
    births = [n.id for n in u.nodes if n.fact.kind == "born"]  # facts no plan here uses
    for q in rng.sample(qs, 6):
        for k in q.keys:
            v = k.split(":", 1)[1]
            text = rng.choice([f"About {v}.", f"{v} - notes", f"{v.lower()}.", f"Index: {v}"])
            nid = lib.add(text, dedup=False).id
            decoys.add(nid)
            if rng.random() < 0.7:  # links to statements of no use here, or none
                lib.link_many(nid, rng.sample(births, 3))
    cls = type("Blind", (_Blind,), {"decoys": frozenset(decoys)})
    blind = type("BlindReader", (ScriptedReader,), {"knowledge_cls": cls})()
    cfg = KBGymConfig(m=40)
    qids = [q.qid for q in qs]
    seen = exam(u, lib, qids, cfg)
    plan = exam(u, lib, qids, cfg, reader=blind)
    for qid in qids:
        kept = [a for a in seen[qid][2] if not (a["action"] == "read" and a["id"] in decoys)]
        assert kept == plan[qid][2], qid
        assert seen[qid][1] == plan[qid][1]


# -- links on original notes are followed where they can save steps ---------------------------


def test_links_on_original_notes_are_followed():
    u = generate(UniverseConfig(seed=11, n_people=150, friend_degree=9))
    t = Truth(u)
    qs = [q for q in u.questions if q.template == "qc4_friends"
          and len(t.members("friends", q.text.split("does ")[1].removesuffix(" have?"))) >= 8]
    xs = [q.text.split("does ")[1].removesuffix(" have?") for q in qs]
    lib = Library.from_universe(u)
    for x in xs:  # each friendship statement of x links x's other ones
        nids = [n for ns in t.members("friends", x).values() for n in ns]
        for n in nids:
            lib.link_many(n, [m for m in nids if m != n][:40])
        # and an index of x's children (read first: the curator indexes) when x has any
        kids = [n for ns in t.members("children", x).values() for n in ns]
        if kids:
            lib.link_many(lib.add(f"{x}.", dedup=False).id, kids)
    assert qs
    qids = [q.qid for q in qs]
    base, got = exam(u, Library.from_universe(u), qids), exam(u, lib, qids)
    assert all(got[q][1] == base[q][1] for q in qids)
    assert sum(got[q][0] for q in qids) < sum(base[q][0] for q in qids)


# -- every relation's members are verified the same way ----------------------------------------


def test_grandchildren_are_verified_through_the_children():
    u, t = world()
    x = next(n for n in people_with(t, "grandchildren", 2))
    kids = set(t.members("children", x))
    grand = t.members("grandchildren", x)
    stray = next(n.id for n in u.nodes if n.fact.kind == "parent_of"
                 and t.name(n.fact.subject) not in kids | {x})
    facts = [parse_fact(t.node[n].text) for ns in grand.values() for n in ns]
    facts.append(parse_fact(t.node[stray].text))
    assert judge_set(facts, "grandchildren", x, kids) == set(grand)
    # the same wrong link in a friends or a value index is no member either
    f = parse_fact(t.node[stray].text)
    assert judge_set([f], "friends", x) == set()
    p = t.by_name[x]
    wrong = next(n.text for n in u.nodes if n.fact.kind == "job" and n.fact.object != p.job)
    jobs = [parse_fact(t.node[n].text) for ns in t.members("job", p.job).values() for n in ns]
    if len(jobs) >= 2:
        assert judge_set(jobs + [parse_fact(wrong)], "job", p.job) == set(t.members("job", p.job))


def test_a_grandchildren_note_is_verified_before_other_candidates_are_read():
    """A grandchildren note naming parents not yet known as X's children waits for X's
    children; the reader fetches those next instead of reading X's other notes first."""
    u, t = world()
    qs = [q for q in u.questions if q.template == "qc8_grandchildren"][:8]
    lib = Library.from_universe(u)
    notes = {}
    for q in qs:
        x = q.text.removeprefix("How many grandchildren does ").removesuffix(" have?")
        notes[q.qid] = {}
        for title, rel in ((f"{x}.", "friends"), (f"Grandchildren of {x}.", "grandchildren"),
                           (f"Children of {x}.", "children")):
            links = [n for ns in t.members(rel, x).values() for n in ns]
            nid = notes[q.qid][rel] = lib.add(title, dedup=False).id
            for i in range(0, len(links), 40):
                lib.link_many(nid, links[i:i + 40])
    got = exam(u, lib, [q.qid for q in qs])
    for q in qs:
        _, f1, acts = got[q.qid]
        reads = [a["id"] for a in acts if a["action"] == "read"]
        assert f1 == 1.0, (q.text, acts)
        # the person's friends note ("X.") is never read: the children settle the question
        assert reads == [notes[q.qid]["grandchildren"], notes[q.qid]["children"]], (q.text, acts)


def test_wrong_grandchildren_links_cost_no_f1():
    u, t = world()
    lib = Library.from_universe(u)
    rng = random.Random(3)
    parents = [n.id for n in u.nodes if n.fact.kind == "parent_of"]
    qs = [q for q in u.questions if q.template == "qc8_grandchildren"][:12]
    for q in qs:
        x = q.text.removeprefix("How many grandchildren does ").removesuffix(" have?")
        links = [n for ns in t.members("grandchildren", x).values() for n in ns]
        links += rng.sample(parents, max(1, len(links) * 3 // 10))  # ~30 % wrong links
        nid = lib.add(f"Grandchildren of {x}.", dedup=False).id
        for i in range(0, len(links), 40):
            lib.link_many(nid, links[i:i + 40])
    qids = [q.qid for q in qs]
    base, got = exam(u, Library.from_universe(u), qids), exam(u, lib, qids)
    assert [got[q][1] for q in qids] == [base[q][1] for q in qids]


@pytest.mark.parametrize("seed", [0])
def test_generated_libraries_are_deterministic(seed):
    u, _ = world()
    a = generate_libraries(u, seed, 3, questions=u.split("train")[:20])
    b = generate_libraries(u, seed, 3, questions=u.split("train")[:20])
    assert [g.name for g in a] == [g.name for g in b]
    assert [g.library.snapshot() for g in a] == [g.library.snapshot() for g in b]
    assert all(g.truthful == (not g.harms and not g.noise) for g in a)


def test_each_harm_leaves_its_mark_and_truthful_libraries_none():
    """A generated library's harm is really in it: dropped members leave incomplete sets,
    wrong members and false statements leave false statements, deleted facts leave support
    no note states; truthful libraries have none of these."""
    from kbgym.metrics.misinformation import incomplete_sets, misinformation

    u, _ = world()
    qs = u.split("train")[:20]
    seen = set()
    libs = [g for seed in (0, 1) for g in generate_libraries(u, seed, 30, questions=qs,
                                                              renderings=("short",))]
    for g in libs:
        m = misinformation(g.library, u)
        gone = sum(1 for q in qs for o in q.support if o not in g.library)
        marks = {"dropped_members": m["incomplete_sets"], "wrong_members": m["false_statements"],
                 "false_statements": m["false_statements"], "deleted_facts": gone}
        for harm in g.harms:
            assert marks[harm] > 0, (g.name, harm)
            seen.add(harm)
        if g.truthful:
            assert (m["incomplete_sets"], m["false_statements"], gone) == (0, 0, 0), g.name
            assert incomplete_sets(g.library, u) == []
    assert seen == {"dropped_members", "wrong_members", "false_statements", "deleted_facts"}


# -- where the reader looks: what a question or another relation's name in a note says ---------


def test_a_part_seen_rules_out_its_siblings_whatever_question_they_hold():
    """Once a note naming another value was a part of the set, the others are parts too: a
    question the siblings hold (the words of the curator's training question) changes
    nothing."""
    u, t = world()
    job = next(j for j in sorted({p.job for p in u.people})
               if len(t.members("job", j)) >= 3)
    holders = sorted(t.members("job", job))
    city = t.by_name[holders[0]].city
    others = sorted({t.by_name[h].city for h in holders} - {city})
    ask = f"Who is the {job} who lives in the city of {city}?"
    kb = LinkJudgedKnowledge()
    page = "".join(f"\n- s900{i}: {job}s: part {c}. {ask}" for i, c in enumerate([city] + others))
    kb.ingest_entry("search", {"query": job, "page": 1}, "page 1:" + page)
    first = kb.index_candidates("job", job)
    assert first[:1] == ["s9000"] and len(first) > 1
    members = [h for h in holders if t.by_name[h].city == city]
    part = [n for h in members for n in t.members("job", job)[h]]
    part += [n for h in members for n in t.subj[("city", t.by_name[h].pid)]]
    read_into(kb, "s9000", f"{job}s: part {city}. {ask}", [(i, t.node[i].text) for i in part])
    assert not kb.absorb_index("s9000", "job", job)
    assert kb.index_candidates("job", job) == []


def test_a_join_reads_notes_naming_its_values_outside_the_questions_they_hold():
    u, _ = world()
    p = u.people[0]
    ask = f"Who is the {p.job} whose hobby is {p.hobby}?"
    kb = LinkJudgedKnowledge()
    kb.ingest_entry("search", {"query": p.job, "page": 1},
                    f"page 1:\n- s9001: {p.job} (part one). {ask}"
                    f"\n- s9002: {p.job}s who enjoy {p.hobby}.")
    assert kb.joint_candidates([p.job, p.hobby]) == ["s9002"]


def test_a_candidate_s_linked_notes_about_other_relations_are_not_read():
    u, t = world()
    x = next(n for n in people_with(t, "grandchildren", 1))
    kb = LinkJudgedKnowledge()
    read_into(kb, "s9001", f"{x}.", [("s9002", f"{x}'s friends."), ("s9003", f"{x} (part)."),
                                      ("s9004", f"Grandchildren of {x}.")])
    assert kb.unread_subnotes("s9001", "grandchildren", x) == ["s9003", "s9004"]
    assert kb.unread_subnotes("s9001", "friends", x) == ["s9002", "s9003"]


def test_a_join_finds_its_person_whose_statement_was_edited_longer():
    """Truthful notes never cost F1, also where a curator appended pointers to originals
    (``X's job is cooper. See also: X's friends.``): the longer statement ranks below short
    authored notes about the value, which would end its set's pages, so a join that finds no
    one pages on rather than answer that there is no such person."""
    u, t = world(n=500)
    train = {q.qid for q in u.split("train")}
    checked = 0
    for q in u.questions:
        if q.template != "qc6_job_hobby" or q.qid not in train or checked >= 8:
            continue
        job, hobby = q.text.removeprefix("Who is the ").removesuffix("?").split(
            " whose hobby is ")
        p = next(h for h in u.people if h.job == job and h.hobby == hobby)
        lib = Library.from_universe(u)
        for kind in ("job", "hobby"):
            for nid in t.subj[(kind, p.pid)]:
                lib.edit(nid, f"{lib[nid].text} See also: {p.name}'s friends.", dedup=False)
        for city in sorted({h.city for h in u.people})[:3]:  # short notes naming each value
            lib.add(f"{job} ({city})")
            lib.add(f"{hobby} ({city})")
        steps, f1, _ = exam(u, lib, [q.qid])[q.qid]
        assert f1 == 1.0, (q.text, steps)
        checked += 1
    assert checked == 8
