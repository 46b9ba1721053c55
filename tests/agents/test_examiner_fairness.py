"""The examiner credits structure, not wording (issue: curator-agnostic measurement).

Metamorphic: the canonical trained library with its index titles rewritten in other styles
(the same links) must cost the reader the same. Curators written differently from ours must be
credited for useful structure and must not earn a star for misinformation."""

from __future__ import annotations

import pytest

from kbgym_agents.scripted.knowledge import LinkJudgedKnowledge
from kbgym_agents.zoo.curators import ZOO
from kbgym_agents.zoo.titles import STYLES, restyle, title
from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.plugins import make_agent
from kbgym.runs.gradient import examine_probe
from kbgym.runs.probe import make_probe_from_run, probe_table
from kbgym.runs.train import TrainConfig, train
from kbgym.worlds.people import UniverseConfig, generate

#: Styles whose cost must match the canonical titles' (the others are documented outliers:
#: ``about`` and ``bare`` titles crowd the reader's search pages, ``sentence`` titles are
#: long: ``test_both_readers_find_long_titles``).
INVARIANT = ("reworded", "plural", "possessive", "dash", "slash")
GROUPS = ("exact", "share2")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    # Slow (~13 s on CI), once for the module: four curators trained on 200 people, since the
    # rho thresholds below are statistical and need 60 questions per group.
    u = generate(UniverseConfig(seed=3, n_people=200))
    out = tmp_path_factory.mktemp("fair")
    cfg = TrainConfig(epochs=2, train_size=60, snapshot_every=1000)
    runs = {}
    for name in ("scripted-index", "entity-pages", "false-statements", "false-facts"):
        train(u, make_agent(ZOO[name], offered={"seed": 0}), out / name, config=cfg)
        runs[name], _ = load_snapshot(out / name / "kb_epoch_2.json")
    probe = make_probe_from_run(u, out / "scripted-index", per_group=60, seed=3)
    probe["splits"] = {g: probe["splits"][g] for g in GROUPS}
    byid = {p.pid: p for p in u.people}
    byname = {p.name: p for p in u.people}

    def spouse(n):
        p = byname.get(n)
        return byid[p.spouse].name if p and p.spouse else None

    reader = make_agent("scripted-reader")
    arms = {"B1": examine_probe(u, Library.from_universe(u), reader, probe)}
    for name, lib in runs.items():
        arms[name] = examine_probe(u, lib, reader, probe)
    for style in INVARIANT:
        lib = runs["scripted-index"].copy()
        assert restyle(lib, style, spouse)  # titles really changed
        arms[f"restyled:{style}"] = examine_probe(u, lib, reader, probe)
    return probe_table(arms, probe, resamples=2000)


def _cell(table, group, arm):
    return table["groups"][group]["all"][arm]


def test_b1_is_answered_perfectly(world):
    for g in GROUPS:
        assert _cell(world, g, "B1")["f1"] == 1.0


def test_canonical_index_saves_steps(world):
    c = _cell(world, "exact", "scripted-index")
    assert c["star"] and c["rho"] < 0.85


#: How far a restyled library's rho may be from the canonical titles': 0.03 on exact; 0.08 on
#: share2. The canonical hub titles (``Index of notes about X.``) rank below other people's
#: ``Friends of Y: everyone Y is a friend of.`` under the plural discovery search (``X
#: friends``) and below X's own statements under the bare name, where the restyled hubs
#: (``X - index``, ``X (all notes).``) rank first: the reader pays 0.86 on the canonical
#: library's share2 and 0.79-0.83 on the restyled ones. The ideal navigator ranks them the
#: other way round (0.85 against 0.88): a disagreement left open (docs/examiner.md).
TOLERANCE = {"exact": 0.03, "share2": 0.08}


@pytest.mark.parametrize("style", INVARIANT)
def test_same_links_other_words_same_rho(world, style):
    for g in GROUPS:
        canon = _cell(world, g, "scripted-index")["rho"]
        assert abs(_cell(world, g, f"restyled:{style}")["rho"] - canon) <= TOLERANCE[g], (g, style)


def test_entity_pages_are_credited(world):
    c = _cell(world, "exact", "entity-pages")
    assert c["rho"] < 1 and c["ci"][1] < 1 and c["star"]


@pytest.mark.parametrize("arm", ["false-statements", "false-facts"])
def test_false_answers_show_as_f1_harm_never_a_star(world, arm):
    c = _cell(world, "exact", arm)
    assert c["f1_diff"] < 0 and c["f1_loss"] and not c["star"]


def test_every_style_names_the_key():
    for style, rels in STYLES.items():
        for rel in rels:
            key = "Fenmarch" if rel == "city" else ("cooper" if rel == "job" else (
                "fishing" if rel == "hobby" else "Felix Abernathy"))
            text = title(style, rel, key, "Nora Vance")
            assert "{" not in text
            if style != "canonical":
                from kbgym_agents.scripted.knowledge import names_key
                assert names_key(text, key), (style, rel, text)


# -- the judgement, unit by unit ------------------------------------------------------------

FRIENDS = ["s1: Felix Abernathy is a friend of Nora Vance.",
           "s2: Milo Quimby is a friend of Felix Abernathy."]


def _kb(note: str, links: list[str], extra: list[str] = ()) -> LinkJudgedKnowledge:
    kb = LinkJudgedKnowledge()
    body = "\n".join(f"- {x}" for x in links) if links else ""
    kb.ingest_entry("read", {"id": "s90"}, f"s90: {note}\nlinks:" + ("\n" + body if body else
                                                                     " (none)"))
    for line in extra:
        nid, text = line.split(": ", 1)
        kb.note(nid, text)
    return kb


@pytest.mark.parametrize("note", ["Friends of Felix Abernathy.", "About Felix Abernathy's pals.",
                                  "Felix Abernathy.", "Index: Felix Abernathy / f"])
def test_any_wording_with_member_links_is_an_index(note):
    kb = _kb(note, FRIENDS)
    assert kb.index_candidates("friends", "Felix Abernathy") == ["s90"]
    assert kb.absorb_index("s90", "friends", "Felix Abernathy")
    assert kb.friends("Felix Abernathy") == {"Nora Vance", "Milo Quimby"}
    assert ("friends", "Felix Abernathy") in kb.complete


def test_links_about_someone_else_are_not_an_index():
    kb = _kb("Friends of Felix Abernathy.", ["s3: Olive Yardley's job is baker.",
                                             "s4: Tobias Vance is a friend of Greta Oakley."])
    assert not kb.absorb_index("s90", "friends", "Felix Abernathy")
    assert ("friends", "Felix Abernathy") not in kb.complete


def test_the_names_a_note_holds_do_not_change_what_its_links_show():
    links = FRIENDS + ["s5: Olive Yardley is a friend of Harold Vance."]
    for text in ("Which friends do Felix Abernathy and Olive Yardley share",
                 "Friends of Felix Abernathy."):
        kb = _kb(text, links)
        assert kb.absorb_index("s90", "friends", "Felix Abernathy")  # two of its three links
        assert kb.friends("Felix Abernathy") == {"Nora Vance", "Milo Quimby"}
        assert not kb.absorb_index("s90", "friends", "Olive Yardley")  # one of three


def test_a_couples_children_under_one_title():
    kids = ["s6: Felix Abernathy is the father of Milo Abernathy.",
            "s7: Felix Abernathy is the father of Ada Abernathy."]
    kb = _kb("Children of Felix Abernathy and Nora Abernathy.", kids)
    assert kb.absorb_index("s90", "children", "Felix Abernathy")
    assert not kb.absorb_index("s90", "children", "Nora Abernathy")  # her links: none
    both = kids + ["s8: Nora Abernathy is the mother of Milo Abernathy.",
                   "s9: Nora Abernathy is the mother of Ada Abernathy."]
    kb = _kb("Children of Felix Abernathy and Nora Abernathy.", both)
    # each child is stated with both parents: by its links the note may be the children the
    # two have in common, so it is neither parent's complete set
    assert not kb.absorb_index("s90", "children", "Felix Abernathy")
    assert not kb.absorb_index("s90", "children", "Nora Abernathy")


def test_an_entity_page_promises_only_the_relations_its_links_show():
    page = ["s8: Felix Abernathy's job is baker.", "s9: Felix Abernathy's hobby is chess.",
            *FRIENDS]
    kb = _kb("Everything on Felix Abernathy", page)
    assert kb.absorb_index("s90", "friends", "Felix Abernathy")
    assert kb.friends("Felix Abernathy") == {"Nora Vance", "Milo Quimby"}
    assert not kb.absorb_index("s90", "children", "Felix Abernathy")  # no child links
    assert ("children", "Felix Abernathy") not in kb.complete
    card = _kb("Felix Abernathy: card.", page[:2])
    for rel in ("friends", "children", "parents", "spouse"):
        assert not card.absorb_index("s90", rel, "Felix Abernathy")


def test_a_note_is_a_candidate_by_the_key_it_names_outside_questions_and_answers():
    kb = _kb("The job of the spouse of Felix Abernathy is baker.", FRIENDS)
    assert kb.index_candidates("friends", "Felix Abernathy") == []  # one answer statement
    kb = _kb("Notes for: How many friends does Felix Abernathy have?", FRIENDS)
    assert kb.index_candidates("friends", "Felix Abernathy") == []  # the key is in the question
    for text in ("Friends of Felix Abernathy. How many friends does Felix Abernathy have?",
                 "Felix Abernathy. The number of friends of Felix Abernathy is 2.",
                 "friends of felix abernathy.", "F. Abernathy - friends",
                 "Abernathy, Felix: friends"):
        kb = _kb(text, FRIENDS)
        assert kb.index_candidates("friends", "Felix Abernathy") == ["s90"], text
        assert kb.absorb_index("s90", "friends", "Felix Abernathy"), text


def test_value_index_by_plural():
    kb = _kb("Coopers.", ["s10: Felix Abernathy's job is cooper.",
                          "s11: Nora Vance's job is cooper."])
    assert kb.index_candidates("job", "cooper") == ["s90"]
    assert kb.absorb_index("s90", "job", "cooper")
    assert kb.holders("job", "cooper") == {"Felix Abernathy", "Nora Vance"}


def test_the_newest_statement_wins():
    kb = LinkJudgedKnowledge()
    kb.note("s0005", "Felix Abernathy's job is baker.")
    kb.note("s6001", "Felix Abernathy's job is tanner.")
    assert kb.attr("Felix Abernathy", "job") == "tanner"


# -- the evidence toolset and repeated exams ----------------------------------------------------

def test_both_readers_find_long_titles(tmp_path):
    """Long titles (a sentence of filler around the key) cost no credit: the evidence reader
    finds them with ``locate``, the exam reader with its plural discovery search."""
    from kbgym.env.config import KBGymConfig
    from kbgym.runs.exam import examine
    from kbgym.runs.gradient import probe_questions

    u = generate(UniverseConfig(seed=4, n_people=150))
    train(u, make_agent("scripted-index"), tmp_path / "run",
          config=TrainConfig(epochs=1, train_size=40, snapshot_every=1000))
    lib, _ = load_snapshot(tmp_path / "run" / "kb_epoch_1.json")
    byid = {p.pid: p for p in u.people}
    byname = {p.name: p for p in u.people}
    restyle(lib, "sentence", lambda n: byid[byname[n].spouse].name
            if n in byname and byname[n].spouse else None)
    probe = make_probe_from_run(u, tmp_path / "run", per_group=40, seed=4)
    qs, splits = probe_questions(probe)
    steps = {}
    for reader, cfg in (("scripted-reader", KBGymConfig()),
                        ("scripted-reader-evidence", KBGymConfig(toolset="evidence"))):
        for arm, library in (("B1", Library.from_universe(u)), ("long", lib)):
            rows = examine(u, library, make_agent(reader), cfg, split=["exact"], questions=qs,
                           splits=splits, repeats=2, seed=1)
            assert all(r["f1"] == 1.0 for r in rows)  # both readers answer everything
            steps[reader, arm] = sum(r["steps"] for r in rows)
    assert steps["scripted-reader-evidence", "long"] < 0.9 * steps["scripted-reader-evidence", "B1"]
    assert steps["scripted-reader", "long"] < 0.9 * steps["scripted-reader", "B1"]


def test_seeded_reader_still_answers_and_keeps_its_seed_across_the_episode():
    from kbgym_agents.scripted.reader import ScriptedReader
    from kbgym.env import KBGymEnv
    from kbgym.runs.episode import run_episode

    u = generate(UniverseConfig(seed=5, n_people=80))
    env = KBGymEnv(u, mode="probe")
    reader = ScriptedReader()
    for qid in env.split_qids("test_in")[:20]:
        for seed in (None, 1, 2):
            summary, _, _ = run_episode(env, reader, qid, seed)
            assert summary["f1"] == 1.0
            assert (reader._rng is None) == (seed is None)


def test_drift_notes_state_their_fact_and_the_newest_wins():
    from kbgym_agents.scripted.text import parse_fact

    f = parse_fact("As of the latest record, Felix Abernathy lives in the city of Dunmere.")
    assert f is not None and f.kind == "city" and f.obj == "Dunmere"
    kb = LinkJudgedKnowledge()
    kb.note("s0003", "Felix Abernathy lives in the city of Fenmarch.")
    kb.note("s10001", "As of the latest record, Felix Abernathy lives in the city of Dunmere.")
    assert kb.attr("Felix Abernathy", "city") == "Dunmere"
