"""The curation reward (kbgym.runs.curation) and library forks."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbgym.env import KBGymConfig, KBGymEnv
from kbgym.runs.curation import pool_score, reward_pool
from kbgym.errors import ConfigError
from kbgym.library.graph import Library
from kbgym.plugins import make_agent
from kbgym.runs.exam import examine
from kbgym.runs.probe import make_probe


def play(env, qid, backward):
    """Forward with the scripted reader, then ``backward`` actions (ending in done)."""
    reader = make_agent("scripted-reader")
    obs, info = env.reset(options={"qid": qid})
    reader.reset()
    rewards = []
    while obs["phase"] == 1:
        obs, r, term, trunc, info = env.step(reader.act(obs, info))
        rewards.append(r)
    for action in backward:
        obs, r, term, trunc, info = env.step(action)
        rewards.append(r)
        if term or trunc:
            break
    return rewards, info


def index_note(env, qid):
    """An index note for ``qid`` linking its support notes (an edit that shortens exams)."""
    q = env.question(qid)
    return [{"action": "add", "text": f"Index: {q.text}"},
            {"action": "link_many", "source": env.library.peek_next_id(),
             "targets": list(q.support)[:40]},
            {"action": "done"}]


def delete_support(env, qid):
    """Delete the notes that answer ``qid``: an edit that must cost the reader F1."""
    return [{"action": "delete", "id": s} for s in env.question(qid).support] + [
        {"action": "done"}]


def test_default_reward_is_answer_f1_and_has_no_curation(small_universe):
    env = KBGymEnv(small_universe)
    assert env.config.reward == "answer"
    qid = small_universe.splits["train"][0]
    rewards, info = play(env, qid, [{"action": "done"}])
    assert "curation" not in info
    assert rewards[-1] == 0.0 and max(rewards) == env.episode.f1


def test_config_rejects_bad_reward_settings():
    with pytest.raises(ConfigError):
        KBGymConfig(reward="gold")
    with pytest.raises(ConfigError):
        KBGymConfig(reward_k=-1)
    with pytest.raises(ConfigError):
        KBGymConfig(reward_mu=-0.1)
    for bad in ({"reward_transfer": -1}, {"reward_norm": "max"}, {"reward_scale": -1.0},
                {"reward_shaping": "always"}):
        with pytest.raises(ConfigError):
            KBGymConfig(**bad)


def test_pool_is_transfer_questions_then_k_training_questions(small_universe):
    u = small_universe
    train = u.splits["train"]
    env = KBGymEnv(u, config={"reward": "curation", "reward_k": 5, "reward_transfer": 3})
    held_out = {q for name, qids in u.splits.items() if name != "train" for q in qids}
    probe = make_probe(u, [{"qid": q} for q in train[:10]], per_group=5)
    probe_sources = {q.get("source_qid") for q in probe["questions"]}
    keys = {q: set(u.question(q).keys) for q in train}
    with_transfer = 0
    for qid in train[:12]:
        pool = env.reward_fn.pool(qid)
        assert qid not in pool  # its gold was just shown: not examined by default
        assert len(pool) == len(set(pool)) and 5 <= len(pool) <= 8
        assert set(pool) <= set(train)
        assert not set(pool) & held_out
        assert not set(pool) & {g for gids in probe["splits"].values() for g in gids}
        sharing = [q for q in pool if keys[q] & keys[qid]]
        transfer = pool[:len(pool) - 5]  # the transfer part comes first
        assert set(transfer) <= set(sharing)
        assert len(transfer) == min(3, sum(1 for q in train if q != qid and keys[q] & keys[qid]))
        with_transfer += bool(transfer)
        assert pool == reward_pool(train, qid, 5, 0, keys=keys, transfer=3)  # deterministic
    assert with_transfer >= 3
    # a probe's exact group copies trained questions: the pool holds the originals (train
    # qids), never the probe gids
    assert probe_sources - {None} <= set(train)
    # the others are the same for every episode (that is what makes the cache pay)
    others = [set(env.reward_fn.pool(q)[-5:]) for q in train[:8]]
    assert len(set.intersection(*others)) >= 5 - 4
    own = KBGymEnv(u, config={"reward": "curation", "reward_k": 5, "reward_own": True})
    assert own.reward_fn.pool(train[0])[-1] == train[0]
    # a non-training question is not in its own pool
    test_q = u.splits["test_in"][0]
    assert test_q not in reward_pool(train, test_q, 5, 0, own=True)


def test_pool_seed_changes_the_order(small_universe):
    train = small_universe.splits["train"]
    assert reward_pool(train, train[0], 8, 0) != reward_pool(train, train[0], 8, 1)


def test_curation_reward_is_delta_of_the_pool_score(small_universe):
    u = small_universe
    env = KBGymEnv(u, config={"reward": "curation", "reward_k": 6, "reward_mu": 0.5,
                              "reward_own": True})
    qid = u.splits["train"][3]
    before_lib = env.fork_library()
    rewards, info = play(env, qid, delete_support(env, qid))
    cur = info["curation"]
    assert cur["after"]["f1"] < cur["before"]["f1"] and cur["reward"] < 0
    assert set(cur) == {"pool", "mu", "before", "after", "reward"}
    assert cur["pool"] == env.reward_fn.pool(qid)
    assert all(rewards[i] == 0.0 for i in range(len(rewards) - 1))  # answer step too
    assert rewards[-1] == pytest.approx(cur["after"]["score"] - cur["before"]["score"])
    json.dumps(info)  # JSON-serialisable
    # the same figures from the exam machinery on frozen copies (fresh search index)
    reader = make_agent("scripted-reader")
    qs = [u.question(q) for q in cur["pool"]]
    for lib, side in ((before_lib, "before"), (env.library, "after")):
        rows = examine(u, lib, reader, env.config, split="pool",
                       questions={q.qid: q for q in qs}, splits={"pool": cur["pool"]})
        expect = pool_score([(r["f1"], r["steps"]) for r in rows], 0.5, env.config.m)
        assert cur[side] == pytest.approx(expect)
    assert not env.library.frozen  # the examination view is released


def test_both_adds_answer_f1_and_curation(small_universe):
    u = small_universe
    qid = u.splits["train"][1]
    env = KBGymEnv(u, config={"reward": "both", "reward_k": 4})
    rewards, info = play(env, qid, index_note(env, qid))
    assert env.episode.f1 in rewards  # the answer step keeps F1
    assert rewards[-1] == pytest.approx(info["curation"]["reward"])


def test_no_edit_means_zero_reward_and_no_new_examination(small_universe):
    u = small_universe
    env = KBGymEnv(u, config={"reward": "curation", "reward_k": 6})
    train = u.splits["train"]
    play(env, train[0], [{"action": "done"}])
    exams = env.reward_fn.exams
    rewards, info = play(env, train[1], [{"action": "done"}])
    assert info["curation"]["reward"] == 0.0 and rewards[-1] == 0.0
    # only the new own question needed examining (the others were cached)
    assert env.reward_fn.exams - exams <= 8  # at most the new transfer questions


def test_cache_makes_an_episode_cost_about_k_examinations(small_universe):
    u = small_universe
    k, t = 6, 3
    env = KBGymEnv(u, config={"reward": "curation", "reward_k": k, "reward_transfer": t})
    train = u.splits["train"]
    play(env, train[0], index_note(env, train[0]))
    exams = env.reward_fn.exams
    play(env, train[1], index_note(env, train[1]))
    assert env.reward_fn.exams - exams <= k + 2 * t


def test_scale_sum_and_edit_shaping_pay_the_same_change_differently(small_universe):
    u = small_universe
    qid = u.splits["train"][3]
    base = {"reward": "curation", "reward_k": 6, "reward_own": True}

    def run(**extra):
        env = KBGymEnv(u, config={**base, **extra})
        return (*play(env, qid, delete_support(env, qid)), env)

    r0, i0, _ = run()
    delta = i0["curation"]["reward"]
    assert delta < 0 and r0[-1] == pytest.approx(delta)
    r1, i1, _ = run(reward_scale=4.0)
    assert i1["curation"]["reward"] == pytest.approx(4 * delta) == pytest.approx(r1[-1])
    r2, i2, _ = run(reward_norm="sum")
    n = len(i2["curation"]["pool"])
    assert i2["curation"]["reward"] == pytest.approx(n * delta)
    r3, i3, env = run(reward_shaping="edits")
    assert i3["curation"]["reward"] == pytest.approx(delta)
    assert sum(r3) == pytest.approx(delta)  # the same total, paid along the way
    n_support = len(env.question(qid).support)
    assert any(r != 0.0 for r in r3[-(n_support + 1):-1])  # some delete step was paid


def test_budget_exhausted_backward_also_gets_the_reward(small_universe):
    u = small_universe
    env = KBGymEnv(u, config={"reward": "curation", "reward_k": 3, "n2": 2})
    qid = u.splits["train"][2]
    rewards, info = play(env, qid, [{"action": "search", "query": "x"}] * 5)
    assert env.episode.truncated and "curation" in info
    assert info["curation"]["reward"] == 0.0  # searches change nothing


def test_probe_mode_and_missing_train_split(small_universe):
    u = small_universe
    env = KBGymEnv(u, mode="probe", config={"reward": "curation"})
    obs, info = env.reset()
    assert type(env.reward_fn).__name__ == "AnswerReward"  # an exam has no backward phase
    qs = [u.question(q) for q in u.splits["test_in"][:3]]
    with pytest.raises(ValueError, match="train split"):
        KBGymEnv(u, questions=qs, split="all", config={"reward": "curation"})


# -- forks ---------------------------------------------------------------------------------

def test_fork_is_independent_and_keeps_the_search_index(small_universe):
    u = small_universe
    env = KBGymEnv(u)
    parent = env.library
    fork = env.fork_library()
    assert fork is not parent and fork.snapshot() == parent.snapshot()
    assert fork.state_key() == parent.state_key()
    assert fork.search("job", 5) == parent.search("job", 5)
    fork.add("Zyxwv quokka index note.")
    assert fork.state_key() != parent.state_key()
    assert "s%04d" % (fork.next_id - 1) not in parent
    assert parent.search("quokka", 5) == [] and fork.search("quokka", 5)


def test_group_rollouts_from_one_fork_are_identical(small_universe):
    u = small_universe
    env = KBGymEnv(u, config={"reward": "curation", "reward_k": 4, "reward_own": True})
    qid = u.splits["train"][5]
    play(env, u.splits["train"][4], index_note(env, u.splits["train"][4]))
    start = env.fork_library()
    infos = []
    for _ in range(3):
        env.reset(options={"qid": qid, "library": start.fork()})
        _, info = play(env, qid, delete_support(env, qid))
        infos.append(info["curation"])
    assert infos[0] == infos[1] == infos[2] and infos[0]["reward"] < 0
    assert start.version == start.fork().version  # the start state was never edited


def test_reset_from_a_snapshot_object_and_path(small_universe, tmp_path):
    u = small_universe
    env = KBGymEnv(u)
    qid = u.splits["train"][0]
    play(env, qid, index_note(env, qid))
    path = tmp_path / "lib.json"
    env.snapshot(path)
    fresh = KBGymEnv(u)
    fresh.reset(options={"library": str(path)})
    assert fresh.library.snapshot() == env.library.snapshot()
    fresh.reset(options={"library": json.loads(path.read_text())})
    assert fresh.library.snapshot() == env.library.snapshot()
    assert fresh.library.search("Index", 3) == env.library.search("Index", 3)
    with pytest.raises(ValueError, match="options\\['library'\\]"):
        fresh.reset(options={"library": 42})
    before = fresh.library
    with pytest.raises(ValueError, match="unknown qid"):
        fresh.reset(options={"library": Library.from_universe(u), "qid": "q9999"})
    assert fresh.library is before  # a refused reset changes nothing


def test_probe_env_reset_with_a_library_freezes_a_copy(small_universe):
    u = small_universe
    lib = Library.from_universe(u)
    env = KBGymEnv(u, mode="probe")
    env.reset(options={"library": lib})
    assert env.library is not lib and env.library.frozen and not lib.frozen


OPS = st.lists(st.tuples(st.sampled_from(["add", "link", "delete", "fork", "switch"]),
                         st.integers(0, 30)), max_size=25)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=OPS)
def test_equal_state_keys_mean_equal_content(ops):
    """Across forks and edits, two libraries with equal state keys hold the same content."""
    libs = [Library.from_texts([(f"s{i:04d}", f"note {i}") for i in range(1, 11)])]
    cur = 0
    for op, n in ops:
        lib = libs[cur]
        ids = lib.ids()
        if op == "add":
            lib.add(f"added {n}")
        elif op == "link" and len(ids) > 1:
            a, b = ids[n % len(ids)], ids[(n + 1) % len(ids)]
            if b not in lib[a].links:
                lib.link(a, b)
        elif op == "delete" and len(ids) > 1:
            lib.delete(ids[n % len(ids)])
        elif op == "fork":
            libs.append(lib.fork())
        elif op == "switch":
            cur = n % len(libs)
    for a in libs:
        for b in libs:
            if a.state_key() == b.state_key():
                assert a.snapshot() == b.snapshot()
