"""LibraryLearner: rollouts fork the learner's library, commits advance it by the rule, the
folder is an ordinary run (replay byte-exact, probe make works), and a second kept rollout's
new-note ids are mapped onto the ids its re-execution creates."""

from __future__ import annotations

import functools
import json

import pytest

from kbgym.library.snapshot import load_snapshot, snapshot_hash
from kbgym.rl import KBGymSession, session_rows
from kbgym.runs.learner import LibraryLearner, remap
from kbgym.runs.probe import make_probe_from_run
from kbgym.runs.replay import replay_run, verify_all_epochs

CONFIG = {"reward": "both", "reward_k": 2, "reward_own": True}


@pytest.fixture(scope="module")
def small_universe():
    from kbgym.worlds.people import UniverseConfig, generate

    return generate(UniverseConfig(n_people=60, n_cities=8, sizes=(40, 30, 20),
                                   eval_sizes=(10, 6)))


def play(session, u, row, g):
    """Generation g of a group: even generations add an index note and link it, odd ones
    only answer."""
    q = u.question(row["qid"])
    session.reset(**row)
    session.answer(text=q.golds[0] if g % 2 == 0 else "nobody")
    if g % 2 == 0:
        out = session.add(text=f"Index of notes for {q.qid} number {g}.")
        assert out.startswith("added s")
        session.link(source=out.split()[1], target=q.support[0])
    session.done()
    return session.get_reward()


@pytest.fixture()
def learner(small_universe, tmp_path):
    return LibraryLearner(small_universe, tmp_path / "rl", config=CONFIG, rule="best")


def test_commits_keep_the_best_rollout_per_group_and_log_an_ordinary_run(small_universe,
                                                                          learner, tmp_path):
    u = small_universe
    rows = session_rows(u, limit=2)
    factory = functools.partial(KBGymSession, u, CONFIG, learner=learner)
    pool = [factory() for _ in range(4)]
    start = learner.library.state_key()
    for step in range(2):
        rewards = [play(s, u, rows[i // 2], i % 2) for i, s in enumerate(pool)]
        rec = learner.commit()
        assert [k["qid"] for k in rec["kept"]] == [rows[0]["qid"], rows[1]["qid"]]
        assert [k["index"] for k in rec["kept"]] == [0, 0]  # the answering, editing one
        for k, best in zip(rec["kept"], (max(rewards[:2]), max(rewards[2:]))):
            assert k["reward"] == pytest.approx(best)
            assert k["replayed_reward"] == pytest.approx(k["reward"])
    learner.close()
    assert learner.library.state_key() != start
    run = tmp_path / "rl"
    assert verify_all_epochs(run, u) == {0: None, 1: None, 2: None}
    final, _ = load_snapshot(run / "kb_epoch_2.json")
    assert snapshot_hash(replay_run(run, universe=u)) == snapshot_hash(final) == snapshot_hash(
        learner.library)
    log = [json.loads(x) for x in (run / "train_log.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in log] == [1, 2, 3, 4]
    # the second group's note got another id than in its rollout; its link followed it
    texts = {n["text"]: n for n in final.snapshot()["nodes"]}
    for qid in (rows[0]["qid"], rows[1]["qid"]):
        note = texts[f"Index of notes for {qid} number 0."]
        assert u.question(qid).support[0] in note["links"]
    probe = make_probe_from_run(u, run, per_group=5, seed=0)
    assert probe["splits"]["exact"]


def test_stale_rollouts_are_dropped_and_rules_choose(small_universe, learner):
    u = small_universe
    rows = session_rows(u, limit=1)
    s = KBGymSession(u, CONFIG, learner=learner)
    play(s, u, rows[0], 1)  # odd: no edit
    learner.commit()  # keeps it: the library's key is unchanged
    s2 = KBGymSession(u, CONFIG, learner=learner)
    s2.reset(**rows[0])
    play(s, u, rows[0], 0)
    learner.commit()  # the library moved: s2's rollout (started before) is stale
    s2.answer(text="x")
    s2.get_reward()
    rec = learner.commit()
    assert rec["stale"] == 1 and rec["kept"] == []
    picky = LibraryLearner(u, learner.root.parent / "picky", config=CONFIG,
                           rule="best_positive")
    s3 = KBGymSession(u, CONFIG, learner=picky)
    s3.reset(**rows[0])
    s3.answer(text="nobody")
    s3.delete(id=u.question(rows[0]["qid"]).support[0])
    assert s3.get_reward() < 0
    assert picky.commit()["kept"] == []
    with pytest.raises(ValueError, match="unknown rule"):
        LibraryLearner(u, learner.root.parent / "x", rule="luck")
    with pytest.raises(ValueError, match="not empty"):  # a run folder is never wiped silently
        LibraryLearner(u, learner.root, config=CONFIG)
    again = LibraryLearner(u, learner.root, config=CONFIG, overwrite=True)
    assert again.commits == 0 and not (learner.root / "kb_epoch_2.json").exists()


def test_the_plain_python_rollout_helper_with_a_scripted_agent(small_universe, learner):
    from kbgym.plugins import make_agent

    u = small_universe
    qid = u.splits["train"][0]
    a = learner.rollout(make_agent("scripted-index"), qid)
    b = learner.rollout(make_agent("scripted-noop"), qid)
    assert a["qid"] == b["qid"] == qid and a["steps"] and b["steps"]
    rec = learner.commit()
    assert len(rec["kept"]) == 1 and rec["kept"][0]["replayed_reward"] == pytest.approx(
        max(a["reward"], b["reward"]))


def test_remap_maps_every_id_field():
    m = {"s0100": "s0102", "s0101": "s0103"}
    assert remap({"action": "link_many", "source": "s0100", "targets": ["s0101", "s0007"]},
                 m) == {"action": "link_many", "source": "s0102", "targets": ["s0103", "s0007"]}
    assert remap({"action": "edit", "id": "s0101", "text": "s0100"}, m)["text"] == "s0100"


def test_rollouts_cut_before_answering_leave_a_folder_that_replays(small_universe, tmp_path):
    """TRL cuts a rollout whose model never calls ``answer`` (no tool call, length, tool-call
    limit): kept by the rule, it made no edit and is not re-executed, so the library stays as
    it was and every epoch still replays; one group's answering, editing rollout is merged."""
    u = small_universe
    learner = LibraryLearner(u, tmp_path / "rl", config=CONFIG)
    rows = session_rows(u, limit=3)
    pool = [KBGymSession(u, CONFIG, learner=learner) for _ in range(2)]
    for step, row in enumerate(rows):
        before = learner.library.state_key()
        for g, s in enumerate(pool):
            s.reset(**row)
            if step == 1 and g == 1:
                q = u.question(row["qid"])
                s.answer(text=q.golds[0])
                added = s.add(text=f"Index of notes for {q.qid}.")
                s.link(source=added.split()[1], target=q.support[0])
            else:
                s.search(query="who")  # then cut by the trainer: it never answers
            s.get_reward()
        rec = learner.commit()
        (kept,) = rec["kept"]
        if step == 1:
            assert kept["index"] == 1 and kept["iteration"] is not None
            assert learner.library.state_key() != before
        else:
            assert kept["iteration"] is None and kept["replayed_reward"] is None
            assert learner.library.state_key() == before
    learner.close()
    assert not any(verify_all_epochs(tmp_path / "rl", u).values())
