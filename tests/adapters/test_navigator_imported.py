"""The ideal navigator on imported universes (docs/protocol.md §12.6): no relation words,
names from the roster (PhantomWiki's people) or the questions' entity keys (a corpus);
questions with unavailable support get no figure; plans replay through env.step."""

from __future__ import annotations

from pathlib import Path

from kbgym.worlds.corpus import import_corpus
from kbgym.env.config import KBGymConfig
from kbgym.env.env import KBGymEnv
from kbgym.protocol.results import result_ids
from kbgym.library.graph import Library
from kbgym.metrics.navigator import (
    SHOWN,
    UNAVAILABLE,
    Navigator,
    base_vocabulary,
    roster_names,
)

ROOT = Path(__file__).resolve().parents[2]


def check_universe(u) -> dict[str, int]:
    env = KBGymEnv(u, mode="probe", library=Library.from_universe(u),
                   questions=list(u.questions), split="all", config=KBGymConfig())
    nav = Navigator(env.library, u)
    assert dict(nav.words) == {} and not nav.hints.reads_facts  # no relation words, no sets
    seen = {"shown": 0, "unavailable": 0}
    for q in u.questions:
        assert base_vocabulary(q, nav.words) == [q.text] + [k.split(":", 1)[1] for k in q.keys]
        res = nav.run(q)
        if q.support_status == "unavailable":
            assert (res.steps, res.f1, res.reason) == (None, None, UNAVAILABLE)
            seen["unavailable"] += 1
            continue
        assert 1 <= res.steps <= 15 and res.f1 in (0.0, 1.0)
        if res.reason != SHOWN:
            continue
        env.reset(options={"qid": q.qid})
        shown = set()
        for act in res.plan:
            step = ({"action": "search", "query": act[1], "page": act[2]} if act[0] == "search"
                    else {"action": "read", "id": act[1]})
            _, _, _, _, info = env.step(step)
            ids = result_ids(info["result"])
            shown |= {o for i in ids for o in env.library[i].carried()}
        assert set(q.support) <= shown
        seen["shown"] += 1
    return seen


def test_phantomwiki(pw_universe):
    names = roster_names(pw_universe)
    assert names == [p.name for p in pw_universe.people] and names
    seen = check_universe(pw_universe)
    assert seen["shown"] > 10


def test_corpus_without_people():
    u = import_corpus(ROOT / "examples" / "corpus" / "docs",
                      ROOT / "examples" / "corpus" / "questions.jsonl",
                      sizes=(3, 2, 1), eval_sizes=(1, 0))
    assert not u.people
    assert roster_names(u) == sorted({k.split(":", 1)[1] for q in u.questions for k in q.keys})
    seen = check_universe(u)
    assert seen["shown"] + seen["unavailable"] > 0
