"""KBGymEnv: the protocol of SPEC §9–§10 and the Gymnasium contract of §16."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import kbgym
from kbgym.env import KBGymConfig, KBGymEnv
from kbgym.protocol.tasks import INSTRUCTION, OUTCOME_NO_ANSWER, OUTCOME_RIGHT, OUTCOME_WRONG
from kbgym.errors import ResetNeeded

HIDDEN_INFO_KEYS = {"golds", "support", "origin", "flag", "absorbed", "privileged"}


def first_of(u, template, split="train"):
    return next(q for q in u.split(split) if q.template == template)


@pytest.mark.parametrize("mode", ["train", "probe"])
def test_check_env_passes(mode):
    env = gym.make(kbgym.ENV_ID, mode=mode)
    check_env(env.unwrapped)
    env.close()
    env.close()  # idempotent


def test_registered_without_step_limit():
    spec = gym.spec(kbgym.ENV_ID)
    assert spec.max_episode_steps is None and spec.nondeterministic is False
    assert spec.entry_point == "kbgym.env:KBGymEnv"


def test_record_episode_statistics_wraps_the_env(small_universe):
    """Gymnasium's RecordEpisodeStatistics writes info["episode"] at every episode end; the
    env's own summary lives under info["episode_summary"], so the two coexist."""
    from gymnasium.wrappers import RecordEpisodeStatistics

    env = RecordEpisodeStatistics(KBGymEnv(small_universe))
    env.reset(options={"qid": small_universe.splits["train"][0]})
    env.step({"action": "answer", "text": "nobody"})
    _, _, term, _, info = env.step({"action": "done"})
    assert term and info["episode"]["l"] == 2 and info["episode"]["r"] == 0.0
    assert info["episode_summary"]["status"] == "answered"


def test_the_module_qualified_id_imports_kbgym_itself():
    """Gymnasium 1.x has no entry-point plugins: ``kbgym:`` before the id makes
    gym.make import the package that registers it (tests/test_install.py checks it in a
    fresh interpreter)."""
    env = gym.make("kbgym:" + kbgym.ENV_ID)
    assert isinstance(env.unwrapped, KBGymEnv)
    env.close()


def test_step_before_reset_raises(small_universe):
    env = KBGymEnv(small_universe)
    with pytest.raises(ResetNeeded):
        env.step({"action": "done"})


def test_unknown_qid_and_split_raise(small_universe):
    env = KBGymEnv(small_universe)
    with pytest.raises(ValueError, match="unknown qid"):
        env.reset(options={"qid": "q9999"})
    with pytest.raises(ValueError, match="unknown split"):
        env.reset(options={"split": "nope"})


def test_forward_answer_reveals_gold_once_then_backward(small_universe):
    u = small_universe
    q = first_of(u, "qc1_job")
    env = KBGymEnv(u)
    obs, info = env.reset(options={"qid": q.qid})
    assert obs["phase"] == 1 and obs["steps_left"] == 15
    assert obs["text"] == (f"TRAIN QUESTION {q.qid} [phase 1: answer it]\n{q.text}\n\n"
                           "Recent actions (oldest first):\n(no actions yet)\n\n"
                           "Remaining actions this phase: 15.")
    assert "metrics" in info and info["f1"] is None and not info["answered"]
    obs, r, term, trunc, info = env.step({"action": "answer", "text": q.golds[0]})
    assert (r, term, trunc) == (1.0, False, False)
    assert info["result"] == "submitted | your F1: 1.00" and "metrics" in info
    assert obs["phase"] == 2 and obs["steps_left"] == 30
    lines = obs["text"].split("\n")
    assert lines[:6] == [
        f"TRAIN QUESTION {q.qid} [phase 2: backward]", q.text, f'your answer: "{q.golds[0]}"',
        f'gold answer: "{q.golds[0]}" | F1 1.00', OUTCOME_RIGHT, INSTRUCTION]
    assert f"- answer(text={q.golds[0]!r}) -> submitted | your F1: 1.00" in obs["text"]
    obs, r, term, trunc, info = env.step({"action": "done"})
    assert (r, term, trunc) == (0.0, True, False)
    assert info["result"] == "phase complete" and info["episode_summary"]["p1_steps"] == 1
    assert info["episode_summary"]["p2_steps"] == 1 and info["episode_summary"]["status"] == "answered"
    # after the end: an error, same flags, nothing changes
    version = env.library.version
    obs, r, term, trunc, info = env.step({"action": "add", "text": "x"})
    assert obs["text"] == "ERROR: episode is over - call reset()"
    assert (r, term, trunc) == (0.0, True, False) and env.library.version == version


def test_wrong_answer_outcome(small_universe):
    q = first_of(small_universe, "qc1_hobby")
    env = KBGymEnv(small_universe)
    env.reset(options={"qid": q.qid})
    obs, r, *_ = env.step({"action": "answer", "text": "nothing at all"})
    assert r == 0.0 and OUTCOME_WRONG in obs["text"]


def test_forward_budget_exhaustion_switches_to_backward(small_universe):
    q = first_of(small_universe, "qc1_job")
    env = KBGymEnv(small_universe, config=KBGymConfig(n1=3, n2=2))
    env.reset(options={"qid": q.qid})
    for i in range(3):
        obs, r, term, trunc, info = env.step({"action": "search", "query": "zzzz"})
        assert not term and not trunc
    assert obs["phase"] == 2 and info["f1"] == 0.0 and "metrics" in info
    assert "your answer: (none - budget exhausted, scored F1 0.00)" in obs["text"]
    assert OUTCOME_NO_ANSWER in obs["text"]
    obs, *_ = env.step({"action": "answer", "text": "late"})
    assert "ERROR: answer is not available in this phase" in obs["text"]
    obs, r, term, trunc, info = env.step({"action": "read", "id": "s0001"})
    assert (term, trunc) == (False, True)
    assert info["episode_summary"]["status"] == "unanswered" and info["episode_summary"]["p2_steps"] == 2


def test_probe_mode_is_frozen_and_budgeted(small_universe):
    u = small_universe
    env = KBGymEnv(u, mode="probe", split="test_out", config=KBGymConfig(m=2))
    q = u.split("test_out")[0]
    obs, info = env.reset(options={"qid": q.qid})
    assert obs["phase"] == 0 and obs["text"].startswith(f"QUESTION {q.qid}\n{q.text}\n\n")
    obs, r, term, trunc, info = env.step({"action": "add", "text": "A new note."})
    assert info["result"] == "ERROR: add is not available in this phase"
    assert env.library.frozen and not term
    obs, r, term, trunc, info = env.step({"action": "search", "query": "job"})
    assert (term, trunc) == (False, True)
    assert info["episode_summary"]["status"] == "unanswered" and info["episode_summary"]["f1"] == 0.0
    env.reset(options={"qid": q.qid})
    obs, r, term, trunc, info = env.step({"action": "answer", "text": q.golds[0]})
    assert info["result"] == "submitted" and term and r == 1.0
    assert info["episode_summary"]["status"] == "answered"


def test_probe_copies_the_library(small_universe):
    train = KBGymEnv(small_universe)
    probe = KBGymEnv(small_universe, mode="probe", library=train.library)
    assert probe.library is not train.library and not train.library.frozen


def test_errors_cost_a_step_and_change_nothing(small_universe):
    env = KBGymEnv(small_universe)
    env.reset(seed=3)
    v = env.library.version
    cases = [
        (None, "ERROR: no action was given", "__noop__"),
        ("{not json", "ERROR: bad input: could not read an action", "__invalid__"),
        ({"action": "fly"}, "ERROR: unknown action fly", "__invalid__"),
        ({"action": "delete", "id": "s0001"}, "ERROR: delete is not available in this phase",
         "__invalid__"),
        ({"action": "read"}, "ERROR: bad input: id is missing", "__invalid__"),
        ({"action": "search", "query": ""}, "ERROR: query must not be empty", "search"),
        ({"action": "search", "query": "x", "page": 13}, "ERROR: page must be between 1 and 12",
         "search"),
        ({"action": "read", "id": "s99999"}, "ERROR: no such note s99999", "read"),
    ]
    for i, (action, error, name) in enumerate(cases, start=1):
        obs, r, term, trunc, info = env.step(action)
        assert info["result"] == error and info["action_error"] == error
        assert info["action"] == name and info["action_valid"] is False
        assert info["steps"] == i and obs["steps_left"] == 15 - i
        assert env.library.version == v


def test_edits_are_counted_and_visible(small_universe):
    q = first_of(small_universe, "qc1_job")
    env = KBGymEnv(small_universe)
    env.reset(options={"qid": q.qid})
    env.step({"action": "answer", "text": "x"})
    obs, r, term, trunc, info = env.step({"action": "add", "text": "People whose job is baker."})
    new_id = info["result"].removeprefix("added ")
    assert info["edits"]["add"] == 1
    env.step({"action": "link", "source": new_id, "target": "s0001"})
    obs, r, term, trunc, info = env.step({"action": "link", "source": new_id, "target": "s0001"})
    assert info["result"] == f"ERROR: {new_id} already links to s0001"
    assert info["edits"]["link"] == 1  # errors are not counted
    obs, r, term, trunc, info = env.step({"action": "search", "query": "people whose job baker"})
    assert f"- {new_id}: People whose job is baker." in info["result"]
    obs, r, term, trunc, info = env.step({"action": "done"})
    assert info["metrics"]["index_coverage"] > 0
    assert info["episode_summary"]["edits"] == {"add": 1, "edit": 0, "delete": 0, "link": 1,
                                        "link_many": 0, "unlink": 0}


def test_reset_mid_episode_abandons(small_universe):
    env = KBGymEnv(small_universe)
    env.reset(seed=1)
    env.step({"action": "search", "query": "job"})
    obs, info = env.reset(seed=2)
    assert info["abandoned"]["abandoned"] is True and info["abandoned"]["p1_steps"] == 1


def test_memory_keeps_last_k(small_universe):
    env = KBGymEnv(small_universe, config=KBGymConfig(memory_k=2, n1=5))
    env.reset(seed=0)
    for query in ("alpha", "beta", "gamma"):
        obs, *_ = env.step({"action": "search", "query": query})
    assert "alpha" not in obs["text"].split("Recent actions")[1]
    assert "query='beta'" in obs["text"] and "query='gamma'" in obs["text"]


def test_same_seed_same_rollout(small_universe):
    def rollout():
        env = KBGymEnv(small_universe)
        env.action_space.seed(5)
        out = []
        obs, info = env.reset(seed=11)
        out.append((obs, info))
        for _ in range(60):
            obs, r, term, trunc, info = env.step(env.action_space.sample())
            out.append((obs, r, term, trunc, info))
            if term or trunc:
                out.append(env.reset())
        return out, env.library.snapshot()

    a, b = rollout(), rollout()
    assert json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def test_info_is_json_and_never_holds_hidden_fields(small_universe):
    env = KBGymEnv(small_universe)
    env.action_space.seed(0)
    env.reset(seed=0)
    for _ in range(80):
        obs, r, term, trunc, info = env.step(env.action_space.sample())
        json.dumps(info)
        assert not HIDDEN_INFO_KEYS & set(info)
        if term or trunc:
            env.reset()


def test_privileged_info_only_when_asked(small_universe):
    env = KBGymEnv(small_universe, privileged_info=True)
    q = small_universe.split("train")[0]
    _, info = env.reset(options={"qid": q.qid})
    assert info["privileged"] == {"golds": list(q.golds), "support": list(q.support)}


def test_gold_appears_only_in_the_backward_block(small_universe):
    """SPEC §16.3: the gold is revealed once, in the pinned backward task block.

    The block stays pinned for the backward phase (SPEC §10: stateless agents see it every
    step), so the gold line is in backward observations only, never in forward ones, and
    never in any result string.
    """
    env = KBGymEnv(small_universe, config=KBGymConfig(n1=4, n2=4))
    env.action_space.seed(1)
    for q in small_universe.split("train")[:15]:
        obs, info = env.reset(options={"qid": q.qid})
        seen_backward = 0
        while True:
            assert ("gold answer:" in obs["text"]) == (obs["phase"] == 2)
            seen_backward += obs["phase"] == 2
            obs, r, term, trunc, info = env.step(env.action_space.sample())
            assert "gold answer" not in info["result"]
            if term or trunc:
                break
        assert f'gold answer: "{q.golds[0]}"' in obs["text"] or seen_backward


def test_tool_schemas_follow_the_phase(small_universe):
    env = KBGymEnv(small_universe)
    env.reset(seed=0)
    names = [t["function"]["name"] for t in env.tool_schemas()]
    assert names == ["search", "read", "answer"]
    back = [t["function"]["name"] for t in env.tool_schemas("backward")]
    assert back == ["search", "read", "add", "edit", "delete", "link", "link_many", "unlink",
                    "done"]
    link = next(t for t in env.tool_schemas("backward") if t["function"]["name"] == "link")
    assert "type" not in link["function"]["parameters"]["properties"]
    typed = KBGymEnv(small_universe, config=KBGymConfig(typed_links=True))
    link = next(t for t in typed.tool_schemas("backward") if t["function"]["name"] == "link")
    assert "type" in link["function"]["parameters"]["properties"]


def test_render_modes(small_universe):
    env = KBGymEnv(small_universe, render_mode="ansi")
    obs, _ = env.reset(seed=0)
    assert env.render() == obs["text"]


def test_sync_vector_env(small_universe):
    envs = gym.vector.SyncVectorEnv([lambda: KBGymEnv(small_universe) for _ in range(2)])
    obs, info = envs.reset(seed=[0, 1])
    assert len(obs["text"]) == 2 and list(obs["phase"]) == [1, 1]
    obs, r, term, trunc, info = envs.step([{"action": "search", "query": "job"}] * 2)
    assert list(obs["steps_left"]) == [14, 14]
    envs.close()


def test_snapshot_round_trip(small_universe, tmp_path):
    from kbgym.library.snapshot import load_snapshot

    env = KBGymEnv(small_universe)
    q = first_of(small_universe, "qc1_job")
    env.reset(options={"qid": q.qid})
    env.step({"action": "answer", "text": "x"})
    env.step({"action": "add", "text": "Index of notes about nobody."})
    digest = env.snapshot(tmp_path / "kb.json", label="test")
    lib, header = load_snapshot(tmp_path / "kb.json")
    assert header["content_hash"] == digest and lib.snapshot() == env.library.snapshot()


def test_env_pickles_mid_episode(small_universe):
    import pickle

    env = KBGymEnv(small_universe)
    env.reset(seed=4)
    env.step({"action": "search", "query": "job"})
    clone = pickle.loads(pickle.dumps(env))
    a = env.step({"action": "search", "query": "friend"})
    b = clone.step({"action": "search", "query": "friend"})
    assert a[0] == b[0] and a[4] == b[4]


def test_remaining_actions_after_an_early_end(small_universe):
    env = KBGymEnv(small_universe, mode="probe", split="test_in")
    env.reset(options={"qid": small_universe.split("test_in")[0].qid})
    obs, r, term, trunc, info = env.step({"action": "answer", "text": "x"})
    assert term and obs["steps_left"] == 14 and "Remaining actions this phase: 14." in obs["text"]


def test_refused_action_object_renders_without_none_fields(small_universe):
    from kbgym.env.actions import Link

    env = KBGymEnv(small_universe)
    env.reset(seed=0)
    obs, *_ = env.step(Link(source="s0001", target="s0002"))
    assert ("- link(source='s0001', target='s0002') -> ERROR: link is not available in this "
            "phase") in obs["text"]


def test_backend_by_name_and_config_errors(small_universe):
    from kbgym.errors import ConfigError

    env = KBGymEnv(small_universe, search_backend="bm25")
    env.reset(seed=0)
    assert env.step({"action": "search", "query": "job"})[4]["result"].startswith("page 1:")
    with pytest.raises(ConfigError, match="n1"):
        KBGymConfig(n1=0)


@pytest.mark.parametrize("mode", ["train", "probe"])
def test_no_hidden_field_or_probe_gold_in_observations(small_universe, mode):
    """Observations carry notes' text and links only: never origin/flag/absorbed, support
    ids as a list, or (in probe mode) anything derived from the gold."""
    split = "train" if mode == "train" else "test_in"
    env = KBGymEnv(small_universe, mode=mode, split=split, config=KBGymConfig(n1=5, n2=8, m=6))
    env.action_space.seed(3)
    for q in small_universe.split(split)[:12]:
        obs, info = env.reset(options={"qid": q.qid})
        while True:
            text = obs["text"]
            for hidden in ("origin", "absorbed", '"flag"', "authored", "support"):
                assert hidden not in text
            assert str(list(q.support)) not in text
            if mode == "probe":
                assert "gold" not in text and q.text in text
            obs, r, term, trunc, info = env.step(env.action_space.sample())
            if term or trunc:
                break


def test_legacy_id_keeps_the_first_layout():
    import warnings

    assert kbgym.ENV_ID == "kbgym/KBGym-v1"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium: "v0 is out of date"
        old = gym.make("kbgym/KBGym-v0", mode="probe").unwrapped
    new = gym.make(kbgym.ENV_ID, mode="probe").unwrapped
    a, _ = old.reset(seed=1)
    b, _ = new.reset(seed=1)
    head, counter = b["text"].rsplit("\n\n", 1)
    assert counter == "Remaining actions this phase: 15."
    task, history = head.split("\n\n", 1)
    assert a["text"] == f"{task}\n\n{counter}\n{history}"
