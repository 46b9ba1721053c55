"""The ideal navigator (docs/protocol.md §12.6): what its actions show equals what the env
shows, its plans replay through ``env.step`` to the same step count, it never beats the
exhaustive optimum, and support that is gone, edited away or unavailable is handled as
documented. Small universes only: the default suite stays fast."""

from __future__ import annotations

import dataclasses
from collections import defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbgym.baselines import build_baseline
from kbgym.env.config import KBGymConfig
from kbgym.env.env import KBGymEnv
from kbgym.protocol.results import result_ids
from kbgym.library.graph import Library
from kbgym.library.search import make_backend
from kbgym.metrics.navigator import (
    BUDGET,
    NO_SUPPORT,
    SHOWN,
    STUCK,
    SUPPORT_GONE,
    UNAVAILABLE,
    Navigator,
    base_vocabulary,
)
from kbgym.metrics.vocabulary import plural
from kbgym.worlds.people import UniverseConfig, generate
from kbgym.worlds.people.world import RELATION_WORDS


@pytest.fixture(scope="module")
def tiny():
    return generate(UniverseConfig(seed=1, n_people=10, n_cities=3, sizes=(10, 10, 5),
                                   eval_sizes=(2, 2)))


@pytest.fixture(scope="module")
def small():
    return generate(UniverseConfig(seed=3, n_people=24, n_cities=4, sizes=(20, 15, 10),
                                   eval_sizes=(4, 4)))


def indexed(lib: Library) -> Library:
    lib.attach_search(make_backend("bm25"))
    lib.freeze()
    return lib


def libraries(u) -> dict[str, Library]:
    """B1, the oracle index and B3 (entity indexes plus fact-to-fact links)."""
    out = {"B1": indexed(Library.from_universe(u))}
    for name in ("oracle", "b3"):
        lib, _ = build_baseline(name, u, {})
        out[name] = indexed(lib.copy(search=None, dedup=None))
    return out


def probe_env(u, lib: Library, m: int = 15) -> KBGymEnv:
    return KBGymEnv(u, mode="probe", library=lib, questions=list(u.questions), split="all",
                    config=KBGymConfig(m=m))


def wanted(nav: Navigator, q) -> frozenset[str]:
    """Every origin some way of answering ``q`` must show (:meth:`Navigator.goals`)."""
    return frozenset().union(*(goal for goal, _ in nav.goals(q)))


def stated_by(nav: Navigator, q) -> dict[str, set[str]]:
    """note id -> the origins it states (carries, or carries the mirror of), of those some
    way of answering ``q`` must show."""
    out: dict[str, set[str]] = {}
    for o in wanted(nav, q):
        for nid in nav.carriers().get(o, ()):
            out.setdefault(nid, set()).add(o)
    return out


def env_action(act: tuple) -> dict:
    if act[0] == "search":
        return {"action": "search", "query": act[1], "page": act[2]}
    out = {"action": "read", "id": act[1]}
    if act[2] is not None:
        out["links_page"] = act[2]
    return out


def replay(env: KBGymEnv, nav: Navigator, q, plan) -> tuple[int, set[str]]:
    """Step ``plan`` then an answer through the env; checks that each result shows exactly
    the ids the navigator said; returns (env steps, wanted origins the env showed)."""
    env.reset(options={"qid": q.qid})
    shown: set[str] = set()
    states = stated_by(nav, q)
    info = {}
    for act in plan:
        _, _, _, _, info = env.step(env_action(act))
        ids = result_ids(info["result"])
        want = nav.search_shows(act[1], act[2]) if act[0] == "search" \
            else nav.read_shows(act[1], act[2])
        assert ids == want, (act, info["result"][:300])
        for i in ids:  # a note may state several (a merge survivor, a mirror)
            shown.update(states.get(i, ()))
    _, _, terminated, _, info = env.step({"action": "answer", "text": "x"})
    assert terminated
    return info["steps"], shown


def test_vocabulary_is_the_documented_one(tiny):
    q = next(q for q in tiny.questions if q.template == "qc6_job_city")
    job = next(k[4:] for k in q.keys if k.startswith("job:"))
    city = next(k[5:] for k in q.keys if k.startswith("city:"))
    forms = ["job", "jobs", "hobby", "hobbies", "city", "cities"]
    assert base_vocabulary(q, RELATION_WORDS) == [q.text, city, job] + [
        f"{v} {w}" for v in (city, job) for w in forms] + [
        f"{city} {plural(city)}", f"{job} {plural(job)}"]
    p = next(q for q in tiny.questions if q.template == "qc9_older_pair")
    a, b = (k[len("person:"):] for k in p.keys)
    forms = ("born", "borns", "father", "fathers", "mother", "mothers", "child", "children")
    assert base_vocabulary(p, RELATION_WORDS) == [p.text, a, b] + [
        f"{x} {w}" for x in (a, b) for w in forms] + [f"{w} {a} {b}" for w in forms]
    assert all(q.category in RELATION_WORDS for q in tiny.questions)


def test_search_and_read_show_what_env_step_shows(small):
    """Every vocabulary query on every page, and every read, on libraries with and without
    links: the navigator's ids equal the ids in the env's own result."""
    for name, lib in libraries(small).items():
        env = probe_env(small, lib)
        nav = Navigator(env.library, small)
        env.reset(options={"qid": small.questions[0].qid})
        checked = 0
        for q in small.questions[:12]:
            for query in base_vocabulary(q, nav.words):
                for page in (1, 2, 3, 12):
                    _, _, _, _, info = env.step({"action": "search", "query": query,
                                                 "page": page})
                    assert result_ids(info["result"]) == nav.search_shows(query, page)
                    checked += 1
                    if env.episode.over:
                        env.reset(options={"qid": q.qid})
        for node in list(env.library)[-25:]:
            _, _, _, _, info = env.step({"action": "read", "id": node.id})
            assert result_ids(info["result"]) == nav.read_shows(node.id)
            if env.episode.over:
                env.reset(options={"qid": small.questions[0].qid})
        assert checked > 100, name


def test_read_pages_links_as_the_env_does(tiny):
    lib = Library.from_universe(tiny)
    hub = lib.add("Everything.").id
    targets = [n.id for n in lib if n.id != hub]
    for i in range(0, len(targets), 40):
        lib.link_many(hub, targets[i:i + 40])
    assert len(lib[hub].links) > 100
    env = probe_env(tiny, indexed(lib))
    nav = Navigator(env.library, tiny)
    env.reset(options={"qid": tiny.questions[0].qid})
    assert nav.link_pages(hub) == 2
    for page in (1, 2):
        _, _, _, _, info = env.step({"action": "read", "id": hub, "links_page": page})
        assert result_ids(info["result"]) == nav.read_shows(hub, page)
    assert nav.read_shows(hub, 3) == []


@pytest.mark.parametrize("arm", ["B1", "oracle", "b3"])
def test_greedy_plans_replay_through_the_env(small, arm):
    """The plan steps through env.step with the same results, the same step count, and the
    env's results show everything one way of answering needs (the support, or for a join
    the support and every holder of one of its values)."""
    lib = libraries(small)[arm]
    env = probe_env(small, lib)
    nav = Navigator(env.library, small)
    answered = 0
    for q in small.questions:
        res = nav.run(q)
        if res.reason != SHOWN:
            continue
        steps, shown = replay(env, nav, q, res.plan)
        assert steps == res.steps == len(res.plan) + 1
        assert shows_a_way(nav, q, shown), q.qid
        answered += 1
    assert answered > 0.9 * len(small.questions)


def test_one_fact_questions_cost_one_search_and_the_answer(small):
    nav = Navigator(indexed(Library.from_universe(small)), small)
    qc1 = [q for q in small.questions if q.category == "QC1"]
    assert qc1
    for q in qc1:
        res = nav.run(q)
        assert (res.steps, res.f1, res.reason) == (2, 1.0, SHOWN)
        assert res.plan[0][0] == "search"


def test_an_index_of_the_support_is_one_read_away(small):
    """A note linking exactly a question's support, titled with its text, makes the question
    search + read + answer."""
    q = max(small.questions, key=lambda q: len(q.support))
    b1 = Navigator(indexed(Library.from_universe(small)), small).run(q)
    lib = Library.from_universe(small)
    idx = lib.add(q.text).id
    lib.link_many(idx, list(q.support)[:40])
    res = Navigator(indexed(lib), small).run(q)
    assert len(q.support) > 3 and b1.steps > 3
    assert res.steps == 3 and [a[0] for a in res.plan] == ["search", "read"]


def shows_a_way(nav: Navigator, q, shown: set[str]) -> bool:
    return any(goal <= shown for goal, _ in nav.goals(q))


def proving_page(nav: Navigator, query: str, last: int) -> int:
    """The page of ``query`` that proves a set whose last member it ranks at 0-based
    position ``last``, by docs/protocol.md §12.6 written out again: that member's page if
    the ranking ends there (a short page), else the next page, which shows no member."""
    page = last // nav.page_size + 1
    return page if len(nav.ranked(query)) < page * nav.page_size else page + 1


def proofs(nav: Navigator, q, plan, sets=None) -> list[bool]:
    """Per set of ``q`` (``sets``, :meth:`Navigator.sets` by default), whether ``plan``
    proves every member, by the rule of docs/protocol.md §12.6 written out again: a read
    whose links show every member, or, for the members a query ranks, the search page
    :func:`proving_page` gives."""
    states = stated_by(nav, q)
    out = []
    for fam in nav.sets(q) if sets is None else sets:
        proven: set[str] = set()
        for act in plan:
            if act[0] == "read":
                linked = {o for i in nav.read_shows(act[1], act[2])[1:]
                          for o in states.get(i, ())}
                if fam <= linked:
                    proven |= fam
            else:  # the members this query ranks, if this is the page past the last of them
                where = {o: i for i, nid in reversed(list(enumerate(nav.ranked(act[1]))))
                         for o in states.get(nid, ()) if o in fam}
                if where and proving_page(nav, act[1], max(where.values())) == act[2]:
                    proven |= set(where)
        out.append(proven == fam)
    return out


def proves_a_way(nav: Navigator, q, plan, shown: set[str]) -> bool:
    """Whether ``plan`` shows every origin of one way of answering and proves its sets."""
    return any(goal <= shown and all(proofs(nav, q, plan, sets))
               for goal, sets in nav.goals(q))


@pytest.mark.parametrize("arm", ["B1", "oracle", "b3"])
def test_every_answered_plan_proves_its_sets(small, arm):
    """A reader that does not know the support must see each set complete: every plan the
    navigator answers after holds, for each set of friends or children in the support, a
    read whose links show all of it or the search page just past its last member."""
    lib = libraries(small)[arm]
    env = probe_env(small, lib)
    nav = Navigator(env.library, small)
    sets = 0
    for q in small.questions:
        res = nav.run(q)
        if res.reason == SHOWN and any(s for _, s in nav.goals(q)):
            sets += 1
            _, shown = replay(env, nav, q, res.plan)
            assert proves_a_way(nav, q, res.plan, shown), (q.qid, res.plan)
    assert sets >= 10


def turned_in_order(nav: Navigator, plan) -> bool:
    """Each search of page p > 1 follows a search of page p - 1 of a query ranking alike."""
    turned: dict = {}
    for act in plan:
        if act[0] == "search":
            key = nav.query_key(act[1])
            if act[2] != turned.get(key, 0) + 1:
                return False
            turned[key] = act[2]
    return True


@pytest.mark.parametrize("arm", ["B1", "oracle", "b3"])
def test_pages_are_turned_in_order(small, tiny, arm):
    """A reader learns that a query's later pages hold something only from its earlier
    ones: neither the greedy nor the optimum opens a page before the one above it."""
    nav = Navigator(libraries(small)[arm], small)
    deep = 0
    for q in small.questions:
        plan = nav.run(q).plan
        assert turned_in_order(nav, plan), (q.qid, plan)
        deep += any(a[0] == "search" and a[2] > 1 for a in plan)
    if arm == "B1":  # indexes spare most paging
        assert deep >= 5
    nav = Navigator(libraries(tiny)[arm], tiny, m=6)
    for q in tiny.questions:
        opt = nav.optimum(q, max_states=20_000)
        if opt is not None:
            assert turned_in_order(nav, opt.plan), (q.qid, opt.plan)


def test_a_partial_index_proves_nothing(small):
    """A note linking all of a person's friends is read and proves the set; the same note
    missing one friend may show the others but proves nothing: the plan proves the set by a
    search instead, and is no shorter."""
    q = max((q for q in small.questions if q.template == "qc4_friends"),
            key=lambda q: len(q.support))
    assert len(q.support) >= 3

    def run(members):
        lib = Library.from_universe(small)
        idx = lib.add(q.text).id
        lib.link_many(idx, members)
        nav = Navigator(indexed(lib), small)
        return nav, nav.run(q)

    nav_all, full = run(list(q.support))
    nav_part, part = run(list(q.support)[1:])
    assert (full.steps, [a[0] for a in full.plan]) == (3, ["search", "read"])
    assert part.reason == SHOWN and part.steps >= full.steps
    assert all(proofs(nav_part, q, part.plan))
    idx = next(n.id for n in nav_part.library if n.text == q.text)
    assert not any(proofs(nav_part, q, [("read", idx, None)]))
    assert all(proofs(nav_all, q, [("read", idx, None)]))


def test_a_relation_stated_from_its_other_end_counts(small):
    """``C is a child of X.`` states the support fact ``X is the father of C.``: with the
    forward facts deleted the mirrors still show X's children, a read of an index of the
    mirrors proves them, and only deleting both loses the support."""
    q = max((q for q in small.questions if q.template == "qc4_children"),
            key=lambda q: len(q.support))
    assert len(q.support) >= 2
    nodes = {n.id: n.fact for n in small.nodes}
    mirrors = [n.id for n in small.nodes if n.fact.kind == "child_of" and any(
        (nodes[o].subject, nodes[o].object) == (n.fact.object, n.fact.subject)
        for o in q.support)]
    assert len(mirrors) == len(q.support)
    lib = Library.from_universe(small)
    idx = lib.add(q.text).id
    lib.link_many(idx, mirrors)
    for o in q.support:
        lib.delete(o)
    nav = Navigator(indexed(lib), small)
    res = nav.run(q)
    assert (res.reason, res.f1) == (SHOWN, 1.0) and res.steps <= 3
    assert all(proofs(nav, q, [("read", idx, None)]))
    lib2 = Library.from_universe(small)
    for o in q.support + tuple(mirrors):
        lib2.delete(o)
    assert Navigator(indexed(lib2), small).run(q).reason == SUPPORT_GONE


def test_edge_cases(tiny):
    qs = list(tiny.questions)
    qc5 = next(q for q in qs if not q.support)
    one = next(q for q in qs if q.category == "QC1")
    lib = indexed(Library.from_universe(tiny))
    nav = Navigator(lib, tiny)
    assert nav.run(qc5) == nav.run(qc5)
    assert (nav.run(qc5).steps, nav.run(qc5).f1, nav.run(qc5).reason) == (1, 1.0, NO_SUPPORT)
    gone = dataclasses.replace(one, support_status="unavailable")
    assert (nav.run(gone).steps, nav.run(gone).f1, nav.run(gone).reason) == (None, None,
                                                                             UNAVAILABLE)
    # support deleted: gone, the whole budget, F1 0
    lib2 = Library.from_universe(tiny)
    lib2.delete(one.support[0])
    res = Navigator(indexed(lib2), tiny, m=9).run(one)
    assert (res.steps, res.f1, res.reason) == (9, 0.0, SUPPORT_GONE)
    # an edited original carries its fact while its text still states it, and no longer
    # once it does not
    lib3 = Library.from_universe(tiny)
    lib3.edit(one.support[0], lib3[one.support[0]].text + " Really.")
    assert Navigator(indexed(lib3), tiny).run(one).reason == SHOWN
    lib3 = Library.from_universe(tiny)
    lib3.edit(one.support[0], "Nothing to see here.")
    assert Navigator(indexed(lib3), tiny).run(one).reason == SUPPORT_GONE
    # a merge survivor carries what it absorbed, and shows it
    lib4 = Library.from_universe(tiny)
    survivor = lib4.add(f"A note about {one.text}").id
    lib4.merge(one.support[0], survivor)
    res = Navigator(indexed(lib4), tiny).run(one)
    assert res.reason == SHOWN and res.f1 == 1.0
    # too small a budget: the answer needs its own step
    res = Navigator(lib, tiny, m=1).run(one)
    assert (res.steps, res.f1, res.reason) == (1, 0.0, BUDGET)


def test_stuck_when_no_query_reaches_the_support(tiny):
    """Support moved out of every vocabulary query's reach (a merge survivor with unrelated
    words nobody links to) leaves the navigator stuck, not answering."""
    one = next(q for q in tiny.questions if q.category == "QC1")
    lib = Library.from_universe(tiny)
    survivor = lib.add("zzz qqq").id
    lib.merge(one.support[0], survivor)
    res = Navigator(indexed(lib), tiny).run(one)
    assert (res.reason, res.f1, res.steps) == (STUCK, 0.0, 15)


def test_greedy_never_beats_the_exhaustive_optimum(tiny):
    """Tiny budget M = 5: the optimum over every plan is at most the greedy count, is
    feasible whenever the greedy is, and its plan replays through the env; on linked
    libraries it finds shorter plans than the greedy for some questions."""
    improved = 0
    for arm, lib in libraries(tiny).items():
        env = probe_env(tiny, lib, m=5)
        nav = Navigator(env.library, tiny, m=5)
        compared = 0
        for q in tiny.questions:
            g, o = nav.run(q), nav.optimum(q, max_states=20_000)
            if o is None:
                continue
            compared += 1
            assert o.steps <= g.steps
            improved += o.steps < g.steps
            if g.f1 == 1.0:
                assert o.f1 == 1.0
            if o.reason == SHOWN:
                steps, shown = replay(env, nav, q, o.plan)
                assert steps == o.steps and proves_a_way(nav, q, o.plan, shown)
        assert compared >= len(tiny.questions) - 2, arm
    assert improved >= 1


def test_the_same_library_gives_the_same_plans(small):
    a = Navigator(indexed(Library.from_universe(small)), small)
    b = Navigator(indexed(Library.from_universe(small)), small)
    assert [a.run(q) for q in small.questions] == [b.run(q) for q in small.questions]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_invariants_on_random_libraries(tiny, data):
    """Random authored notes, links and deletions: steps in [1, M], F1 in {0, 1}, F1 1
    exactly when the support was shown, and the optimum never above the greedy count."""
    lib = Library.from_universe(tiny)
    ids = [n.id for n in lib]
    for _ in range(data.draw(st.integers(0, 4))):
        words = data.draw(st.lists(st.sampled_from(
            [p.name for p in tiny.people] + ["friend", "job", "of", "city"]), min_size=1,
            max_size=3))
        nid = lib.add(" ".join(words) + ".").id
        targets = data.draw(st.lists(st.sampled_from(ids), min_size=1, max_size=12,
                                     unique=True))
        lib.link_many(nid, targets)
    for victim in data.draw(st.lists(st.sampled_from(ids), max_size=3, unique=True)):
        lib.delete(victim)
    nav = Navigator(indexed(lib), tiny, m=5)
    for q in tiny.questions[:8]:
        res = nav.run(q)
        assert 1 <= res.steps <= 5 and res.f1 in (0.0, 1.0)
        assert (res.f1 == 1.0) == (res.reason in (SHOWN, NO_SUPPORT))
        opt = nav.optimum(q, max_states=5_000)
        if opt is not None:
            assert opt.steps <= res.steps


def brute_force(nav: Navigator, q, k: int) -> int | None:
    """The fewest actions (at most ``k``) after which, for one way of answering
    (:meth:`Navigator.goals`), every origin was shown and every set proven, by trying every
    sequence of the navigator's actions: the next page of every query of the vocabulary
    (base queries and the names shown so far; a query's pages are turned in order) and
    every links page of every id shown so far. Written without the optimum's pruning, as its
    reference; the proof rule is written out again here from docs/protocol.md §12.6."""
    ways = [n for goal, sets in nav.goals(q)
            if (n := _brute_force(nav, q, set(goal), sets, k)) is not None]
    return min(ways, default=None)


def _brute_force(nav: Navigator, q, goal: set[str], sets, k: int) -> int | None:
    carriers = nav.carriers()
    need = set().union(*sets)

    states = stated_by(nav, q)

    def sup(ids):
        return {o for i in ids for o in states.get(i, ()) if o in goal}

    def proves_search(x, p):
        out = set()
        for fam in sets:
            where = {o: min(pos) for o in fam if (pos := [
                i for i, nid in enumerate(nav.ranked(x)) if o in states.get(nid, ())])}
            if where and proving_page(nav, x, max(where.values())) == p:
                out |= set(where)
        return out

    def proves_read(ids):
        linked = sup(ids[1:])
        return {o for fam in sets if fam <= linked for o in fam}

    def best(shown, names, got, proven, turned, left):
        if got == goal and need <= proven:
            return 0
        if left == 0:
            return None
        named = {p.name for o in q.support for p in nav._universe.people
                 if p.name in nav._universe.node(o).text}  # the people the support names
        queries = base_vocabulary(q, nav.words) + [
            x for n in sorted(names) for x in [n] + [f"{n} {w}" for w in nav.words.get(
                q.category, ()) if n in named]]
        # a query's pages are turned in order: only its next page can be searched
        options = [(nav.search_shows(x, p), proves_search(x, p), x, p) for x in queries
                   for p in [turned.get(x, 0) + 1] if p <= nav.max_page]
        options += [(ids, proves_read(ids), None, 0) for i in sorted(shown)
                    for p in range(1, nav.link_pages(i) + 1) for ids in [nav.read_shows(i, p)]]
        out = None
        for ids, proof, x, p in options:
            if x is None and set(ids) <= shown and proof <= proven:
                continue  # a read that shows nothing new; a page may lead to the next one
            if x is not None and not ids and proof <= proven:
                continue  # past the query's end
            new_names = names | {n for i in ids for n in nav.names_in(i)}
            new_turned = turned if x is None else {**turned, x: p}
            sub = best(shown | set(ids), new_names, got | sup(ids), proven | proof,
                       new_turned, left - 1)
            if sub is not None and (out is None or sub + 1 < out):
                out = sub + 1
        return out

    assert all(carriers.get(o) for o in goal)
    return best(set(), set(), set(), set(), {}, k)


def test_optimum_equals_brute_force_at_m_3(tiny):
    """At M = 3 (two actions, then the answer) the optimum is exactly what trying every
    sequence finds, including where the greedy runs out of budget."""
    nav = Navigator(libraries(tiny)["oracle"], tiny, m=3)
    checked = 0
    for q in tiny.questions:
        if not q.support or len(q.support) > 6:
            continue
        want = brute_force(nav, q, 2)
        got = nav.optimum(q)
        assert got is not None
        assert got.steps == (want + 1 if want is not None else 3), q.qid
        assert got.f1 == (1.0 if want is not None else 0.0)
        checked += 1
    assert checked >= 10


def test_a_set_is_proven_by_a_page_without_members(small):
    """BM25 interleaves members with other hits, so a page that still shows members proves
    nothing: the proof is the page after the last member's, or that page itself when the
    ranking ends on it (a short page)."""
    nav = Navigator(indexed(Library.from_universe(small)), small)
    checked = set()
    for q in small.questions:
        for fam in nav.sets(q):
            for query in base_vocabulary(q, nav.words):
                where = nav.positions(query)
                # a member is seen where its first statement (or mirror) ranks
                pos = [min(p) for o in fam
                       if (p := [where[n] for n in nav.carriers()[o] if n in where])]
                if not pos:
                    continue
                want = proving_page(nav, query, max(pos))
                short = want == max(pos) // nav.page_size + 1  # the last member's own page
                got = nav.closes(query, [fam])
                if want > nav.max_page:
                    assert got == {}
                    continue
                assert list(got) == [want]
                checked.add(short)
    assert checked == {True, False}


def value_index(u, lib: Library, kind: str, value: str) -> str:
    """Add a note linking every holder's statement of ``kind`` = ``value``; its id."""
    idx = lib.add(f"The {value} list.").id
    lib.link_many(idx, [n.id for n in u.nodes if n.fact.kind == kind
                        and n.fact.object == value])
    return idx


@pytest.fixture(scope="module")
def crowded():
    """Two cities for many people: a join's holders take pages to scan."""
    return generate(UniverseConfig(seed=2, n_people=600, n_cities=2, sizes=(60, 15, 10),
                                   eval_sizes=(4, 4)))


def test_a_join_scans_the_holders_of_one_value(crowded):
    """A join names nobody to look up: one way per value, each the support plus every holder
    of that value as a set to prove complete. On B1 the navigator pages through the value
    with the fewest holders; a note linking all of them makes the join cheaper and is read."""
    u = crowded
    joins = [q for q in u.questions if q.category in ("QC6", "QC10")]
    b1 = Navigator(indexed(Library.from_universe(u)), u)
    for q in joins:
        ways = b1.goals(q)
        assert len(ways) == len(q.keys) and all(frozenset(q.support) <= g for g, _ in ways)
        assert all(sets[-1] <= goal for goal, sets in ways)
    # the joins whose every value has more holders than two pages show
    wide = sorted(joins, key=lambda q: -min(len(s[-1]) for _, s in b1.goals(q)))[:3]
    assert min(len(s[-1]) for _, s in b1.goals(wide[-1])) > 2 * b1.page_size
    for q in wide:
        res = b1.run(q)
        assert res.reason == SHOWN and res.steps >= 4
        kind, value = min((k.split(":", 1) for k in q.keys),
                          key=lambda kv: len(b1.holders(*kv)))
        lib = Library.from_universe(u)
        idx = value_index(u, lib, kind, value)
        got = Navigator(indexed(lib), u).run(q)
        assert got.reason == SHOWN and got.steps < res.steps, (q.text, got.plan, res.plan)
        assert ("read", idx, None) in got.plan


def test_a_join_is_proven_by_reading_a_note_about_all_its_values(crowded):
    """A join names one person: a note about every value it names (``herbalist +
    kayaking.``) whose links show the answer's statements proves it at one read, the way
    the exam reader reads such notes first; a card of the answer showing the same
    statements proves nothing (a reader cannot know it is the card to read)."""
    u = crowded
    b1 = Navigator(indexed(Library.from_universe(u)), u)
    joins = [q for q in u.questions if q.category in ("QC6", "QC10")]
    costly = [q for q in joins if b1.run(q).steps >= 5][:3]
    assert costly
    for q in costly:
        values = [k.split(":", 1)[1] for k in q.keys]
        answer = [o for o in q.support
                  if u.node(o).fact.kind in ("job", "hobby", "city")
                  and u.node(o).fact.object in values]
        assert len(answer) == len(values)
        lib = Library.from_universe(u)
        note = lib.add(" + ".join(values) + ".").id
        lib.link_many(note, answer)
        nav = Navigator(indexed(lib), u)
        assert nav.joint(q) is not None and nav.joint(q).provers == {note}
        res = nav.run(q)
        assert res.reason == SHOWN and ("read", note, None) in res.plan
        assert res.steps < b1.run(q).steps, (q.text, res.plan)
        card = Library.from_universe(u)
        about = card.add(f"About {u.node(answer[0]).fact.subject}.").id
        card.link_many(about, answer)
        nav = Navigator(indexed(card), u)
        assert nav.joint(q) is None
        assert nav.run(q).steps >= b1.run(q).steps - 1  # a read for a name search at most


def test_friends_with_a_job_may_be_counted_from_the_jobs_holders(small):
    """``How many friends of X are coopers?``: the support holds every friend's job, but
    with X's friends and all coopers proven complete a reader needs no other friend's job;
    the navigator takes whichever way is cheaper."""
    q = max((q for q in small.questions if q.template == "qc8_friend_job"),
            key=lambda q: len(q.support))
    b1 = Navigator(indexed(Library.from_universe(small)), small)
    ways = b1.goals(q)
    assert len(ways) == 2 and ways[0][0] == frozenset(q.support)
    job = next(k[4:] for k in q.keys if k.startswith("job:"))
    holders = ways[1][1][-1]
    assert all(small.node(o).fact.object == job for o in holders)
    assert not any(small.node(o).fact.kind == "job" and small.node(o).fact.object != job
                   for o in ways[1][0])
    lib = Library.from_universe(small)
    friends = lib.add(f"Friends of {q.keys[1][7:]}.").id
    lib.link_many(friends, [o for o in q.support if small.node(o).fact.kind == "friend_of"])
    value_index(small, lib, "job", job)
    nav = Navigator(indexed(lib), small)
    res = nav.run(q)
    assert res.reason == SHOWN and res.steps < b1.run(q).steps
    assert res.steps <= 5  # search + read for each index, then the answer


def split_friends(u, q, parts: int = 2) -> Library:
    """B1 plus, for each person whose friends ``q``'s support holds, their friendships split
    into ``parts`` marked notes (``Friends of X (1/2).``)."""
    lib = Library.from_universe(u)
    friends: dict[str, list[str]] = defaultdict(list)
    for o in q.support:
        f = u.node(o).fact
        if f.kind == "friend_of":
            friends[f.subject].append(o)
    for pid, origins in friends.items():
        size = -(-len(origins) // parts)
        for i in range(parts):
            nid = lib.add(f"Friends of {u.person(pid).name} ({i + 1}/{parts}).", dedup=False).id
            lib.link_many(nid, origins[i * size:(i + 1) * size])
    return lib


@pytest.mark.parametrize("template", ["qc4_friends", "qc7_common_friend", "qc8_friend_job"])
def test_the_greedy_reads_split_indexes_as_the_optimum_does(small, template):
    """Parts prove their set only together, so one read of look-ahead never sees what the
    first part is worth: the greedy values a part by its share of reading its whole group,
    and the exhaustive optimum proves a group once all its parts are read. On indexes split
    in two, the greedy's count is the optimum's and it reads every part of a group it
    uses."""
    for q in [q for q in small.questions if q.template == template][:6]:
        nav = Navigator(indexed(split_friends(small, q)), small, m=40, page_size=2)
        groups = nav.part_groups()
        assert groups
        greedy, best = nav.run(q), nav.optimum(q, max_states=100_000)
        assert best is not None and greedy.f1 == best.f1 == 1.0
        assert greedy.steps == best.steps, (q.text, greedy.plan, best.plan)
        read = {a[1] for a in greedy.plan if a[0] == "read"}
        assert all(set(g) <= read or not set(g) & read for g in groups), greedy.plan


def test_parts_that_say_so_prove_their_set_together(small):
    """An index split into two marked parts (docs/examiner.md): reading both proves the set
    as one note linking it all would; a lone part 1 of 2 proves nothing."""
    q = max((q for q in small.questions if q.template == "qc4_friends"),
            key=lambda q: len(q.support))
    x = q.text.removeprefix("How many friends does ").removesuffix(" have?")
    half = len(q.support) // 2
    got = {}
    for arm, marks in {"both": ("(1/2)", "(2/2)"), "one": ("(1/2)",)}.items():
        lib = Library.from_universe(small)
        for i, mark in enumerate(marks):
            nid = lib.add(f"Friends of {x} {mark}.", dedup=False).id
            lib.link_many(nid, list(q.support[:half] if i == 0 else q.support[half:]))
        nav = Navigator(indexed(lib), small, m=40, page_size=2)  # paging is dear
        got[arm] = (nav.part_groups(), nav.run(q))
    assert len(got["both"][0]) == 1 and got["one"][0] == []
    both, one = got["both"][1], got["one"][1]
    assert both.f1 == one.f1 == 1.0
    reads = {a[1] for a in both.plan if a[0] == "read"}
    assert reads >= set(got["both"][0][0]) and both.steps < one.steps, (both, one)


@pytest.mark.parametrize("second", ["About {x}", "{x}"])
def test_two_split_indexes_of_one_key_are_two_groups(small, second):
    """``X (1/2)``/``(2/2)`` and ``About X (1/2)``/``(2/2)`` (or ``X (1/2)``/``(2/2)`` again)
    all name X: the parts of each index are the notes worded alike but for their numbers,
    and of those, the ones written one after another, so each pair proves the set, where
    four parts numbered 1, 1, 2, 2 used to prove nothing."""
    q = max((q for q in small.questions if q.template == "qc4_friends"),
            key=lambda q: len(q.support))
    x = q.text.removeprefix("How many friends does ").removesuffix(" have?")
    half = len(q.support) // 2
    lib = Library.from_universe(small)
    ids = {}
    for k, title in enumerate((x, second.format(x=x))):
        for i, mark in enumerate(("(1/2)", "(2/2)")):
            ids[k, i] = lib.add(f"{title} {mark}.", dedup=False).id
            lib.link_many(ids[k, i], list(q.support[:half] if i == 0 else q.support[half:]))
    nav = Navigator(indexed(lib), small, m=40, page_size=2)
    assert sorted(nav.part_groups()) == sorted([(ids[0, 0], ids[0, 1]),
                                                (ids[1, 0], ids[1, 1])])
    res = nav.run(q)
    b1 = Navigator(indexed(Library.from_universe(small)), small, m=40, page_size=2).run(q)
    assert res.f1 == 1.0 and res.steps < b1.steps, (res.plan, b1.plan)


@pytest.mark.parametrize("arm", ["B1", "oracle", "b3"])
def test_the_greedy_finds_the_same_proving_pages_as_closes(small, arm):
    """The greedy reads which pages prove a set from the places it finds as it pages a
    ranking; :meth:`Navigator.closes` (the optimum's) computes them from every carrier:
    the same pages, proving the same members, for every query of every way."""
    from kbgym.metrics.navigator import _Greedy

    nav = Navigator(libraries(small)[arm], small)
    compared = 0
    for q in small.questions:
        for goal, families in nav.goals(q):
            greedy = _Greedy(nav, q, goal, families)
            for entry in list(greedy.vocab):
                got = {p: pr for p, _, pr in greedy._rank(entry) if pr}
                assert got == nav.closes(entry.query, families), (q.qid, entry.query)
                compared += bool(got)
    assert compared > 20  # pages that prove something were compared


def test_navigating_leaves_the_collector_as_it_was(small):
    """A navigation pauses the cyclic collector (it allocates many small acyclic objects)
    and gives it back on, and off where it was off."""
    import gc

    nav = Navigator(indexed(Library.from_universe(small)), small)
    questions = list(small.questions)
    gc.enable()
    nav.run(questions[0])
    assert gc.isenabled()
    gc.disable()
    try:
        nav.run(questions[1])
        assert not gc.isenabled()
    finally:
        gc.enable()
