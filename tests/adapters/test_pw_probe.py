"""The PW probe (SPEC §17): one-key questions, groups exact/share1/share0, equal quota per
template, streams probe/pw/{group}."""

from __future__ import annotations

from collections import Counter

import pytest

from kbgym.worlds.phantomwiki import make_pw_probe, make_pw_probe_from_run
from kbgym.env.env import KBGymEnv
from kbgym.errors import ConfigError


def _log(u, n):
    return [{"qid": qid, "abandoned": False} for qid in u.splits["train"][:n]] + [
        {"qid": u.splits["test_in"][0], "abandoned": True}]  # abandoned rows do not count


def test_groups_and_quota(pw_universe):
    u = pw_universe
    probe = make_pw_probe(u, _log(u, 24))
    assert probe["kind"] == "kbgym.probe" and probe["variant"] == "pw"
    assert probe["universe_hash"] == u.hash and probe["seed"] == 0
    assert list(probe["splits"]) == ["exact", "share1", "share0"]
    by_gid = {q["qid"]: q for q in probe["questions"]}
    assert list(by_gid) == ["g%04d" % i for i in range(1, len(by_gid) + 1)]

    trained = [u.question(qid) for qid in u.splits["train"]]
    train_keys = {k for q in trained for k in q.keys}
    trained_texts = {q.text for q in trained}
    counts = {}
    for group, gids in probe["splits"].items():
        items = [by_gid[g] for g in gids]
        counts[group] = Counter(q["template"] for q in items)
        for q in items:
            assert len(q["keys"]) == 1 and q["keys"][0].startswith("person:")
            if group == "exact":
                src = u.question(q["source_qid"])
                assert src.qid in u.splits["train"] and src.text == q["text"]
                assert tuple(q["golds"]) == src.golds and tuple(q["support"]) == src.support
            else:
                assert q["text"] not in trained_texts and "source_qid" not in q
                assert (q["keys"][0] in train_keys) == (group == "share1")
    assert counts["exact"] == counts["share1"] == counts["share0"]
    quota = {t: n for t, n in probe["quota"].items() if n}
    assert dict(counts["exact"]) == quota
    assert set(quota) <= {"pw_type1", "pw_type3", "pw_type5", "pw_type7"}  # one-key types
    assert probe["per_group"] == sum(quota.values()) > 0


def test_quota_is_min_of_pool_sizes(pw_universe):
    u = pw_universe
    probe = make_pw_probe(u, _log(u, 24))
    trained = [u.question(qid) for qid in u.splits["train"]]
    train_keys = {k for q in trained for k in q.keys}
    texts = {q.text for q in trained}
    for t, n in probe["quota"].items():
        exact = sum(q.template == t and len(q.keys) == 1 for q in trained)
        rest = [q for q in u.questions if q.template == t and len(q.keys) == 1
                and q.text not in texts]
        share1 = sum(q.keys[0] in train_keys for q in rest)
        assert n == min(exact, share1, len(rest) - share1)
    capped = make_pw_probe(u, _log(u, 24), per_template=0)
    assert capped["per_group"] == 0


def test_deterministic_and_seeded(pw_universe):
    u = pw_universe
    assert make_pw_probe(u, _log(u, 24)) == make_pw_probe(u, _log(u, 24))
    a, b = make_pw_probe(u, _log(u, 24), seed=0), make_pw_probe(u, _log(u, 24), seed=5)
    assert a["quota"] == b["quota"]
    assert [q["text"] for q in a["questions"]] != [q["text"] for q in b["questions"]]


def test_probe_runs_in_the_env(pw_universe, tmp_path):
    u = pw_universe
    with pytest.raises(ConfigError):
        make_pw_probe_from_run(u, tmp_path)
    (tmp_path / "train_log.jsonl").write_text(
        "".join(f'{{"qid": "{qid}"}}\n' for qid in u.splits["train"]), encoding="utf-8")
    probe = make_pw_probe_from_run(u, tmp_path)
    assert probe["train_log_hash"].startswith("sha256:")
    env = KBGymEnv(u, mode="probe", questions=probe, split="share0")
    gid = probe["splits"]["share0"][0]
    env.reset(options={"qid": gid})
    gold = next(q["golds"][0] for q in probe["questions"] if q["qid"] == gid)
    _, r, term, _, _ = env.step({"action": "answer", "text": gold})
    assert term and r == 1.0
