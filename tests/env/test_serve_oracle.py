"""The exam service is no answer oracle: a probe episode's answer tells the client nothing of
its score (scores go to the server's exam book and log; a whole probe set's mean is told once),
a question is examined once per library, and train episodes still show their gold. In-process
(KBGymServerEnv without a socket), so fast; needs the ``openenv`` extra."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openenv")

from kbgym.serve import (  # noqa: E402
    KBGymAction,
    KBGymServerEnv,
    ServerPolicy,
    Shared,
    probe_safe_info,
)
from kbgym.env.config import KBGymConfig  # noqa: E402

SCORE_WORDS = ("f1", "em", "reward", "status", "correct", "gold")


def _shared(u, tmp_path, **policy):
    return Shared(u, KBGymConfig(), {}, ServerPolicy(exam_log=str(tmp_path / "exam.jsonl"),
                                                     **policy))


def _answer(session, text):
    return session.step(KBGymAction(action="answer", args={"text": text}))


def test_a_probe_answer_carries_no_score_and_the_exam_log_has_it(small_universe, tmp_path):
    u = small_universe
    shared = _shared(u, tmp_path)
    qid = u.splits["test_in"][0]
    gold = u.question(qid).golds[0]
    s = KBGymServerEnv(shared)
    r = s.reset(qid=qid, mode="probe")
    assert r.done is False and r.reward is None
    r = _answer(s, gold)  # the right answer looks exactly like a wrong one
    assert r.done and r.reward is None
    sent = json.loads(r.model_dump_json())
    (tmp_path / "other").mkdir()
    wrong = KBGymServerEnv(_shared(u, tmp_path / "other"))
    wrong.reset(qid=qid, mode="probe")
    other = json.loads(_answer(wrong, "nobody at all").model_dump_json())
    assert sent["reward"] is None and other["reward"] is None
    flat = json.dumps(sent["info"])
    assert not any(f'"{w}"' in flat for w in SCORE_WORDS), flat
    assert sent["info"]["episode_summary"].keys() == other["info"]["episode_summary"].keys()
    rows = [json.loads(x) for x in (tmp_path / "exam.jsonl").read_text().splitlines()]
    assert rows[0]["qid"] == qid and rows[0]["f1"] == 1.0 and rows[0]["library"] == "B1"


def test_a_question_is_examined_once_per_library(small_universe, tmp_path):
    u = small_universe
    shared = _shared(u, tmp_path)
    qid = u.splits["test_in"][1]
    a, b = KBGymServerEnv(shared), KBGymServerEnv(shared)
    a.reset(qid=qid, mode="probe")
    _answer(a, "x")
    for s in (a, b):  # the same session again, or another session on the same library
        r = s.reset(qid=qid, mode="probe")
        assert r.done and "already been examined" in r.text
    r = b.reset(qid=qid, mode="probe", library="B1")  # a fresh fork of B1 is still B1
    assert "already been examined" in r.text
    # an edited library is another library: its exam is scored again
    c = KBGymServerEnv(shared)
    c.reset(qid=u.splits["train"][0], mode="train")
    _answer(c, "x")
    c.step(KBGymAction(action="add", args={"text": "A note that makes a new library."}))
    c.step(KBGymAction(action="done"))
    r = c.reset(qid=qid, mode="probe")
    assert not r.done and r.text.startswith("QUESTION")


def test_a_split_reset_picks_a_question_not_yet_examined(small_universe, tmp_path):
    u = small_universe
    shared = _shared(u, tmp_path)
    split = "test_in"
    seen, told = [], []
    s = KBGymServerEnv(shared)
    for i in range(len(u.splits[split])):
        r = s.reset(split=split, mode="probe", seed=i)
        assert not r.done, r.text
        seen.append(r.info["qid"])
        r = _answer(s, u.question(seen[-1]).golds[0] if i % 2 else "nobody")
        told.append(r.info.get("probe_sets"))
    assert sorted(seen) == sorted(u.splits[split])
    assert told[:-1] == [None] * (len(seen) - 1)  # only the last answer tells the mean
    agg = next(t for t in told[-1] if t["split"] == split)
    assert agg["questions"] == len(seen) and 0 < agg["mean_f1"] < 1
    r = s.reset(split=split, mode="probe")
    assert r.done and "every question" in r.text


def test_train_episodes_keep_their_gold_reveal(small_universe, tmp_path):
    u = small_universe
    s = KBGymServerEnv(_shared(u, tmp_path))
    qid = next(q for q in u.splits["train"] if u.question(q).golds[0] not in u.question(q).text)
    s.reset(qid=qid, mode="train")
    r = _answer(s, "nobody")
    assert u.question(qid).golds[0] in r.text and r.reward is not None


def test_probe_safe_info_drops_every_score():
    info = {"mode": "probe", "qid": "q1", "f1": 1.0, "em": 1.0, "answered": True,
            "episode_summary": {"qid": "q1", "f1": 1.0, "em": 1.0, "status": "answered",
                                "answer": "x"}}
    safe = probe_safe_info(info)
    assert safe == {"mode": "probe", "qid": "q1", "answered": True,
                    "episode_summary": {"qid": "q1", "answer": "x"}}


def test_the_task_api_methods_stay_on_the_session_class(small_universe, tmp_path):
    """OpenEnv answers 501 for a task method the session class lacks."""
    s = KBGymServerEnv(_shared(small_universe, tmp_path))
    assert {x["name"] for x in s.list_splits()} == set(small_universe.splits)
    assert s.num_tasks("train") == len(small_universe.splits["train"])
    assert s.get_metadata().name == "kbgym"
    s.close()
