"""A casebook universe in the environment: a train episode and an exam round trip, the
answer action's stated citations (``cites``) reaching the exam row, and the stated-citation
consistency that leaves a question undefined when a repeat cites nothing."""

from __future__ import annotations

from gymnasium.utils.env_checker import check_env

from kbgym.env import KBGymEnv
from kbgym.library import Library
from kbgym.metrics.consistency import stated_consistency
from kbgym.runs.exam import examine
from kbgym.worlds.casebook.grammar import parse_question


def test_check_env_and_a_training_episode(casebook):
    u = casebook(0)
    env = KBGymEnv(u)
    check_env(env, skip_render_check=True)
    q = u.question(u.splits["train"][0])
    obs, _ = env.reset(options={"qid": q.qid})
    assert q.text in obs["text"] and parse_question(q.text)[0] == q.template
    _, reward, _, _, _ = env.step({"action": "answer", "text": q.golds[0], "cites": list(q.support)})
    assert reward == 1.0


class _Citer:
    """Answers the gold at once, citing the question's support."""

    def __init__(self, u):
        self.u = u

    def reset(self):
        pass

    def act(self, obs, info):
        q = self.u.question(info["qid"])
        return {"action": "answer", "text": q.golds[0], "cites": list(q.support)}


def test_stated_citations_reach_the_exam_row(casebook):
    u = casebook(0)
    lib = Library.from_universe(u)
    rows = examine(u, lib, _Citer(u), split="test_in", limit=3, repeats=2, navigate=False)
    assert all(r["f1"] == 1.0 and r["cited"] == list(u.question(r["qid"]).support) for r in rows)
    assert stated_consistency(rows) == (1.0, 3, 0)


def test_a_repeat_citing_nothing_is_undefined_not_one(casebook):
    rows = [{"qid": "a", "cited": ["s1", "s2"]}, {"qid": "a", "cited": ["s2"]},
            {"qid": "b", "cited": ["s1"]}, {"qid": "b"}]
    value, defined, undefined = stated_consistency(rows)
    assert value == 0.5 and defined == 1 and undefined == 1
    assert stated_consistency([{"qid": "c"}, {"qid": "c"}]) == (None, 0, 1)


def test_the_answer_tool_offers_cites_to_model_readers():
    from kbgym.env.actions import parse_action, tool_schemas

    answer = next(t for t in tool_schemas(["answer"]) if t["function"]["name"] == "answer")
    props = answer["function"]["parameters"]["properties"]
    assert props["cites"] == {"items": {"type": "string"}, "type": "array"}
    assert answer["function"]["parameters"]["required"] == ["text"]
    act = parse_action({"name": "answer", "arguments": '{"text": "x", "cites": [" s0001 "]}'})
    assert act.cites == ["s0001"]
    bad = parse_action({"action": "answer", "text": "x", "cites": "s0001"})
    assert not bad.valid and "cites" in bad.error
