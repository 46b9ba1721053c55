"""The scripted backward-phase curators, run through real training episodes."""

from __future__ import annotations

import re
from functools import cache

from kbgym_agents.base import Agent
from kbgym_agents.loop import run_episode
from kbgym_agents.scripted import (
    ContentWriter,
    IndexCurator,
    NoopCurator,
    RandomCurator,
    ScriptedReader,
    TrainAgent,
)
from kbgym_agents.scripted.curator import TITLES
from kbgym_agents.scripted.text import answer_statement, parse_question
from kbgym.env import KBGymConfig, KBGymEnv
from kbgym.library.snapshot import snapshot_hash
from kbgym.metrics.structure import index_structure
from kbgym.worlds.people import UniverseConfig, generate
from kbgym.types import Question

_TITLE = re.compile(r"^(People whose job is|People whose hobby is|Residents of|Friends of|"
                    r"Children of|Grandchildren of|Index of notes about) ([^:.]+)[:.]")


@cache
def universe(n: int = 100, seed: int = 0):
    return generate(UniverseConfig(seed=seed, n_people=n))


def first_of(u, template: str):
    return next(q for q in u.questions if q.template == template)


def train_env(u, **config) -> KBGymEnv:
    return KBGymEnv(u, mode="train", config=KBGymConfig(**config) if config else None)


def members_of(u, title: str) -> set[str]:
    """The member names an index title promises, from the universe's truth."""
    m = _TITLE.match(title)
    assert m, title
    kind, key = m.groups()
    people = [p for p in u.people]
    by_name = {p.name: p for p in people}
    name = {p.pid: p.name for p in people}
    if kind == "People whose job is":
        return {p.name for p in people if p.job == key}
    if kind == "People whose hobby is":
        return {p.name for p in people if p.hobby == key}
    if kind == "Residents of":
        return {p.name for p in people if p.city == key}
    x = by_name[key]
    if kind == "Friends of":
        return {name[f] for f in x.friends}
    if kind == "Children of":
        return {name[c] for c in x.children}
    if kind == "Grandchildren of":
        return {name[g] for c in x.children for g in u.person(c).children}
    return {key}  # a name hub


def check_indexes(u, library) -> int:
    """Every authored note is a titled index whose links all point at original notes naming a
    member (precision 1) and together name every member (complete); returns the link count."""
    links = 0
    for node in library:
        if not node.is_authored:
            continue
        members = members_of(u, node.text)
        assert node.links, f"empty index {node.text!r}"
        named = set()
        for t in node.links:
            target = library[t]
            assert target.is_original, (node.text, target.text)
            hit = {m for m in members if re.search(rf"\b{re.escape(m)}\b", target.text)}
            assert hit, f"{node.text!r} links {target.text!r}, which names no member"
            named |= hit
        assert named == members, f"{node.text!r} is incomplete"
        links += len(node.links)
    return links


def test_scripted_agents_follow_the_agent_protocol():
    for agent in (ScriptedReader(), IndexCurator(), ContentWriter(), NoopCurator(),
                  RandomCurator(0), TrainAgent(ScriptedReader(), NoopCurator())):
        assert isinstance(agent, Agent)
        assert agent.tokens_in == 0 and agent.tokens_out == 0


def test_index_curator_leaves_precise_complete_indexes():
    u = universe(300)
    templates = ("qc6_job_city", "qc6_job_hobby", "qc8_grandchildren", "qc8_friend_job",
                 "qc7_common_friend", "qc4_children", "qc9_older_pair", "qc8_spouse_friends",
                 "qc10_spouse_job_city", "qc2_spouse_job")
    for template in templates:
        env = train_env(u)
        curator = IndexCurator()
        q = first_of(u, template)
        out = run_episode(env, TrainAgent(ScriptedReader(), curator), q.qid)
        ep = out["info"]["episode_summary"]
        assert out["info"]["phase"] == "backward" and ep["status"] == "answered"
        assert out["obs"]["text"].rsplit("\n\n", 1)[0].endswith("done() -> phase complete")
        lib = env.unwrapped.library
        assert curator.stats["added"] >= 1, template
        assert check_indexes(u, lib) == curator.stats["links"]
        structure = index_structure(lib, u)
        assert structure["precision"] == 1.0 and structure["recall"] == 1.0
        assert structure["character"]["genuine"] == structure["index_nodes"]
        for node in lib:
            if node.is_authored:
                key = _TITLE.match(node.text).group(2)
                allowed = {t.format(key=key, role=r) for t in TITLES.values()
                           for r in ("father", "mother")}
                assert node.text in allowed


def test_index_curator_extends_a_partial_index_and_leaves_a_complete_one_alone():
    u = universe(300)
    q = first_of(u, "qc6_job_city")
    job = parse_question(q.text).slots["job"]
    env = train_env(u)
    lib = env.unwrapped.library
    holders = [n for n in u.nodes if n.fact.kind == "job" and n.fact.object == job]
    stray = next(n for n in u.nodes if n.fact.kind == "job" and n.fact.object != job)
    title = TITLES["job"].format(key=job)
    partial = lib.add(title).id
    lib.link_many(partial, [holders[0].id, stray.id])

    agent = TrainAgent(ScriptedReader(), IndexCurator())
    first = run_episode(env, agent, q.qid)["info"]["episode_summary"]
    assert first["edits"]["unlink"] == 1 and first["edits"]["link_many"] >= 1
    assert [n.id for n in lib if n.text == title] == [partial]
    assert sorted(lib[partial].links) == sorted(n.id for n in holders)
    check_indexes(u, lib)

    version = lib.version
    second = run_episode(env, agent, q.qid)["info"]["episode_summary"]
    assert sum(second["edits"].values()) == 0
    assert lib.version == version


def test_index_curator_deletes_an_index_left_with_no_members():
    u = universe(300)
    x = next(p for p in u.people if not p.distractor and not p.friends)
    q = Question("q9001", "qc4_friends", "QC4", "easy", 1, f"How many friends does {x.name} have?",
                 ("0", "zero"), (), (f"person:{x.name}",), False, "exact", None, None)
    env = KBGymEnv(u, mode="train", questions=[q], split="all")
    lib = env.unwrapped.library
    wrong = next(n for n in u.nodes if n.fact.kind == "job" and n.fact.subject == x.pid)
    bad = lib.add(TITLES["friends"].format(key=x.name)).id
    lib.link_many(bad, [wrong.id])
    ep = run_episode(env, TrainAgent(ScriptedReader(), IndexCurator()), q.qid)["info"]["episode_summary"]
    assert ep["edits"]["delete"] == 1 and bad not in lib
    assert not any(n.is_authored for n in lib)


def test_index_curator_never_leaves_a_partial_index_when_the_budget_is_short():
    u = universe(300)
    for template in ("qc6_job_city", "qc7_common_friend", "qc8_grandchildren"):
        for n2 in (3, 6, 9):
            env = train_env(u, n2=n2)
            run_episode(env, TrainAgent(ScriptedReader(), IndexCurator()),
                        first_of(u, template).qid)
            check_indexes(u, env.unwrapped.library)


def test_noop_curator_leaves_the_library_identical():
    u = universe()
    env = train_env(u)
    lib = env.unwrapped.library
    before, version = snapshot_hash(lib), lib.version
    agent = TrainAgent(ScriptedReader(), NoopCurator())
    for qid in env.split_qids("train")[:15]:
        out = run_episode(env, agent, qid)
        assert out["info"]["episode_summary"]["p2_steps"] == 1
    assert lib.version == version and snapshot_hash(lib) == before


def test_content_writer_adds_the_answer_as_one_sentence():
    u = universe()
    q = first_of(u, "qc2_spouse_job")
    env = train_env(u)
    agent = TrainAgent(ScriptedReader(), ContentWriter())
    ep = run_episode(env, agent, q.qid)["info"]["episode_summary"]
    lib = env.unwrapped.library
    authored = [n for n in lib if n.is_authored]
    assert ep["edits"]["add"] == 1 and len(authored) == 1
    assert authored[0].text == answer_statement(parse_question(q.text), q.golds[0])
    assert authored[0].links == []
    again = run_episode(env, agent, q.qid)["info"]["episode_summary"]
    assert again["edits"]["add"] == 0 and again["p1_steps"] == 2  # found and used in forward
    assert len([n for n in lib if n.is_authored]) == 1


def test_random_curator_is_seeded_and_ends_its_episodes():
    u = universe()
    qids = KBGymEnv(u, mode="train").split_qids("train")[:12]

    def run(seed):
        env = train_env(u)
        agent = TrainAgent(ScriptedReader(), RandomCurator(seed))
        for qid in qids:
            out = run_episode(env, agent, qid)
            assert out["info"]["phase"] == "backward"
        return snapshot_hash(env.unwrapped.library), env.unwrapped.library.version

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_train_agent_dispatches_on_phase():
    u = universe()
    env = train_env(u)
    q = first_of(u, "qc1_job")
    agent = TrainAgent(ScriptedReader(), NoopCurator())
    obs, info = env.reset(options={"qid": q.qid})
    agent.reset()
    a = agent.act(obs, info)
    assert obs["phase"] == 1 and a["action"] == "search"
    obs, *_ = env.step(a)
    a = agent.act(obs, info)
    assert a["action"] == "answer"
    obs, *_ = env.step(a)
    assert obs["phase"] == 2 and agent.act(obs, info) == {"action": "done"}


def test_typed_index_curator_links_members_as_member_of_and_refers_grandchildren_to_children(
        tmp_path):
    from kbgym.env.config import KBGymConfig
    from kbgym.library.snapshot import load_snapshot
    from kbgym.plugins import make_agent
    from kbgym.runs.train import TrainConfig, train
    from kbgym.worlds.people import UniverseConfig, generate

    u = generate(UniverseConfig(seed=1, n_people=150))
    train(u, make_agent("scripted-index-typed"), tmp_path, env_config=KBGymConfig(
        typed_links=True), config=TrainConfig(epochs=1, train_size=60, snapshot_every=1000))
    lib, _ = load_snapshot(tmp_path / "kb_epoch_1.json")
    authored = [n for n in lib if n.is_authored]
    assert authored and all(t == "member_of" for n in authored for tgt, t in
                            n.link_types.items() if not lib[tgt].is_authored)
    refers = [(n, tgt) for n in authored for tgt, t in n.link_types.items() if t == "refers_to"]
    assert refers
    for n, tgt in refers:
        assert n.text.startswith("Grandchildren of ") and lib[tgt].text.startswith("Children of ")
