"""The optional evidence toolset (SPEC §18): typed links, locate and expand."""

from __future__ import annotations

from kbgym.env import KBGymConfig, KBGymEnv


def _backward_env(u, **cfg):
    env = KBGymEnv(u, config=KBGymConfig(typed_links=True, toolset="evidence", **cfg))
    q = u.split("train")[0]
    env.reset(options={"qid": q.qid})
    env.step({"action": "answer", "text": "x"})
    return env


def test_typed_links_are_shown_and_removed(small_universe):
    env = _backward_env(small_universe)
    info = env.step({"action": "add", "text": "Evidence hub."})[4]
    hub = info["result"].split()[-1]
    info = env.step({"action": "link", "source": hub, "target": "s0001", "type": "cites"})[4]
    assert info["result"] == f"linked {hub} -> s0001 [cites]"
    info = env.step({"action": "link", "source": hub, "target": "s0002", "type": "bogus"})[4]
    assert info["result"] == "ERROR: bad input: type is not a known link type"
    info = env.step({"action": "read", "id": hub})[4]
    assert f"- s0001 [cites]: {small_universe.node('s0001').text}" in info["result"]
    info = env.step({"action": "unlink", "source": hub, "target": "s0001"})[4]
    assert info["result"] == f"unlinked {hub} -> s0001"
    assert env.library[hub].link_types == {}


def test_types_disabled_by_default(small_universe):
    env = KBGymEnv(small_universe)
    env.reset(options={"qid": small_universe.split("train")[0].qid})
    env.step({"action": "answer", "text": "x"})
    info = env.step({"action": "link", "source": "s0001", "target": "s0002", "type": "cites"})[4]
    assert info["result"] == "ERROR: bad input: link types are disabled"


def test_locate_and_expand(small_universe):
    u = small_universe
    env = _backward_env(u)
    p = u.people[0]
    hub = env.step({"action": "add", "text": f"Index of notes about {p.name}."})[4]["result"]
    hub = hub.split()[-1]
    mine = [n.id for n in u.nodes if n.fact.subject == p.pid][:3]
    env.step({"action": "link_many", "source": hub, "targets": mine, "type": "member_of"})
    env.step({"action": "done"})

    env.reset(options={"qid": u.split("train")[1].qid})
    first = p.name.split()[0]
    info = env.step({"action": "locate", "terms": [p.name, "job"]})[4]
    assert info["result"] == f"- {mine[0]}: {u.node(mine[0]).text}"
    info = env.step({"action": "locate", "terms": p.name, "within": hub})[4]
    lines = info["result"].split("\n")
    assert lines[0] == f"- {hub}: Index of notes about {p.name}." and len(lines) == 4
    info = env.step({"action": "locate", "terms": "zzzz"})[4]
    assert info["result"] == "(no matches)"
    info = env.step({"action": "locate", "terms": first, "within": "s99999"})[4]
    assert info["result"] == "ERROR: no such note s99999"
    info = env.step({"action": "expand", "node": hub})[4]
    assert info["result"].split("\n")[0] == f"- member_of -> {mine[0]}: {u.node(mine[0]).text}"
    info = env.step({"action": "expand", "node": hub, "edges": ["member_of"], "hops": 2})[4]
    assert info["result"].startswith(f"path: {hub}\nbranch at {hub} (3 member_of edges):")
    info = env.step({"action": "expand", "node": hub, "hops": 2})[4]
    assert info["result"] == "ERROR: hops > 1 needs exactly one edge type"


def test_evidence_tools_only_with_the_toolset(small_universe):
    env = KBGymEnv(small_universe)
    env.reset(seed=0)
    info = env.step({"action": "locate", "terms": "job"})[4]
    assert info["result"] == "ERROR: locate is not available in this phase"
    names = [t["function"]["name"] for t in _backward_env(small_universe).tool_schemas("forward")]
    assert names == ["search", "read", "answer", "locate", "expand"]
