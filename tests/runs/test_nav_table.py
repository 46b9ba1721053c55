"""ρ_nav and the blind-spot line in the probe table: the same paired resamples as ρ, only
questions with a navigator figure, and arms examined before the navigator left out, not
faked."""

from __future__ import annotations

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

from kbgym.metrics.outcomes import bootstrap_indices, mean_diff_ci, rho_ci
from kbgym.runs.probe import BLIND_SPOT_NOTE, format_blind_spots, format_table, probe_table


def _probe(n: int) -> dict:
    return {"seed": 0, "splits": {"exact": [f"g{i:04d}" for i in range(1, n + 1)]}}


def _rows(steps, nav=None, nav_f1=None) -> list[dict]:
    out = []
    for i, s in enumerate(steps):
        r = {"qid": f"g{i + 1:04d}", "split": "exact", "steps": s, "f1": 1.0,
             "status": "answered"}
        if nav is not None:
            r["nav_steps"] = nav[i]
            r["nav_f1"] = None if nav[i] is None else (nav_f1[i] if nav_f1 else 1.0)
        out.append(r)
    return out


def _table(arms: dict, n: int, resamples: int = 2000) -> dict:
    return probe_table(arms, _probe(n), resamples=resamples)


def test_rho_nav_is_the_navigator_step_ratio_with_rhos_resamples():
    n = 30
    rng = np.random.default_rng(3)
    base_s, arm_s = rng.integers(4, 15, n).tolist(), rng.integers(2, 10, n).tolist()
    base_n, arm_n = rng.integers(3, 8, n).tolist(), rng.integers(2, 6, n).tolist()
    table = _table({"B1": _rows(base_s, base_n), "arm": _rows(arm_s, arm_n)}, n)
    cells = table["groups"]["exact"]["all"]
    c, b = cells["arm"], cells["B1"]
    assert b["rho_nav"] == 1.0 and b["rho_nav_ci"] == [1.0, 1.0]  # B1 = 1 by definition
    assert c["rho_nav"] == pytest.approx(sum(arm_n) / sum(base_n))
    idx = bootstrap_indices(0, "probe/bootstrap/exact", n, 2000)  # ρ's own matrix
    assert c["rho_nav_ci"] == pytest.approx(list(rho_ci(arm_n, base_n, idx)))
    assert c["ci"] == pytest.approx(list(rho_ci(arm_s, base_s, idx)))
    bs = c["blind_spot"]
    assert set(bs) == {"nav_saving", "nav_saving_ci", "reader_saving", "share", "flagged"}
    assert bs["nav_saving"] == pytest.approx((sum(base_n) - sum(arm_n)) / n)
    assert bs["nav_saving_ci"] == pytest.approx(list(mean_diff_ci(base_n, arm_n, idx)))
    assert bs["reader_saving"] == pytest.approx((sum(base_s) - sum(arm_s)) / n)
    assert bs["share"] == pytest.approx(bs["reader_saving"] / bs["nav_saving"])
    assert c["nav_f1"] == 1.0 and c["nav_steps"] == pytest.approx(sum(arm_n) / n)


def test_a_real_saving_the_reader_misses_is_flagged():
    n = 40
    miss = _table({"B1": _rows([8] * n, [5] * n), "arm": _rows([8] * n, [3] * n)}, n)
    c = miss["groups"]["exact"]["all"]["arm"]
    assert c["blind_spot"]["flagged"] and c["blind_spot"]["share"] == 0.0
    text = format_table(miss)
    assert "BLIND SPOT" in text and BLIND_SPOT_NOTE in text
    assert "not the curator" in BLIND_SPOT_NOTE
    # the reader takes more than half of the navigator's saving: no blind spot
    took = _table({"B1": _rows([8] * n, [5] * n), "arm": _rows([6] * n, [3] * n)}, n)
    t = took["groups"]["exact"]["all"]["arm"]["blind_spot"]
    assert t["share"] == pytest.approx(1.0) and not t["flagged"]
    assert "BLIND SPOT" not in format_table(took)
    # no navigator saving at all: nothing to capture, never flagged
    none = _table({"B1": _rows([8] * n, [5] * n), "arm": _rows([4] * n, [5] * n)}, n)
    z = none["groups"]["exact"]["all"]["arm"]["blind_spot"]
    assert z["share"] is None and not z["flagged"]


def _chained(rows: list[dict], unchained: list[int]) -> list[dict]:
    return [dict(r, nav_steps_unchained=u) for r, u in zip(rows, unchained)]


def test_a_library_relying_on_chains_the_reader_misses_is_flagged_whatever_its_share():
    """Chains (links between originals) the navigator needs and the reader does not follow:
    the reader takes 0.5 of the navigator's saving (not a blind spot by share alone), but
    falls short by 1.0 step per question where the chains save the navigator 1.5."""
    n = 40
    base = _rows([8] * n, [5] * n)
    arm = _chained(_rows([7] * n, [3] * n), [4] * 20 + [5] * 20)
    t = _table({"B1": base, "arm": arm}, n)["groups"]["exact"]["all"]["arm"]["blind_spot"]
    assert t["share"] == pytest.approx(0.5) and t["chain_saving"] == pytest.approx(1.5)
    lo, hi = t["chain_saving_ci"]
    assert 1.0 < lo <= 1.5 <= hi < 2.0
    assert t["chain_blind"] and t["flagged"]
    text = format_blind_spots(_table({"B1": base, "arm": arm}, n))
    assert "chains +1.50" in text and "BLIND SPOT (chains)" in text
    # the reader takes (nearly) all the navigator saves: the chains are no blind spot
    took = _chained(_rows([6] * n, [3] * n), [5] * n)
    t = _table({"B1": base, "arm": took}, n)["groups"]["exact"]["all"]["arm"]["blind_spot"]
    assert t["chain_saving"] == pytest.approx(2.0) and not t["chain_blind"]
    assert not t["flagged"]
    # chains the navigator does not need (no steps lost without them): not flagged either
    idle = _chained(_rows([7] * n, [3] * n), [3] * n)
    t = _table({"B1": base, "arm": idle}, n)["groups"]["exact"]["all"]["arm"]["blind_spot"]
    assert t["chain_saving"] == 0.0 and not t["chain_blind"] and not t["flagged"]
    # a library without chains has no chain keys at all
    plain = _table({"B1": base, "arm": _rows([7] * n, [3] * n)}, n)
    assert "chain_saving" not in plain["groups"]["exact"]["all"]["arm"]["blind_spot"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 15), st.integers(1, 15), st.integers(1, 15),
                          st.integers(1, 15), st.integers(0, 5)), min_size=2, max_size=25))
def test_chain_record_invariants(rows):
    """chain_saving is the mean of (steps cut − steps) per question, inside its CI;
    chain_blind is exactly its rule; a chain-blind arm is always flagged."""
    base_s, arm_s, base_n, arm_n, extra = (list(x) for x in zip(*rows))
    n = len(rows)
    arm = _chained(_rows(arm_s, arm_n), [a + e for a, e in zip(arm_n, extra)])
    b = _table({"B1": _rows(base_s, base_n), "arm": arm}, n, 300)[
        "groups"]["exact"]["all"]["arm"]["blind_spot"]
    lo, hi = b["chain_saving_ci"]
    assert b["chain_saving"] == pytest.approx(sum(extra) / n)
    assert lo - 1e-9 <= b["chain_saving"] <= hi + 1e-9
    assert b["chain_blind"] == (lo > 0 and b["nav_saving"] - b["reader_saving"]
                                > 0.5 * b["chain_saving"])
    assert b["flagged"] >= b["chain_blind"]


def test_support_loss_shows_as_a_navigator_f1_loss():
    n = 30
    table = _table({"B1": _rows([8] * n, [5] * n),
                    "arm": _rows([15] * n, [15] * n, [0.0] * 20 + [1.0] * 10)}, n)
    c = table["groups"]["exact"]["all"]["arm"]
    assert c["nav_f1"] == pytest.approx(1 / 3) and c["nav_f1_loss"]
    assert c["nav_f1_diff_ci"][1] < 0
    assert "F1↓" in format_table(table).splitlines()[2]


def test_questions_without_a_figure_are_left_out():
    n = 20
    nav_b = [5] * 10 + [None] * 10
    nav_a = [3] * 10 + [None] * 10
    table = _table({"B1": _rows([8] * n, nav_b), "arm": _rows([6] * n, nav_a)}, n)
    c = table["groups"]["exact"]["all"]["arm"]
    assert c["n_nav"] == 10 and c["rho_nav"] == pytest.approx(0.6)
    assert c["blind_spot"]["nav_saving"] == pytest.approx(2.0)
    assert c["blind_spot"]["nav_saving_ci"] == pytest.approx([2.0, 2.0])


def test_arms_examined_before_the_navigator_are_left_out_not_faked():
    n = 10
    old = _table({"B1": _rows([8] * n), "arm": _rows([5] * n)}, n)
    c = old["groups"]["exact"]["all"]["arm"]
    assert c["rho_nav"] is None and c["blind_spot"] is None and c["n_nav"] == 0
    text = format_table(old)
    assert "rho_nav" not in text and "blind spot" not in text  # as before the navigator
    mixed = _table({"B1": _rows([8] * n, [5] * n), "new": _rows([5] * n, [4] * n),
                    "old": _rows([5] * n)}, n)
    cells = mixed["groups"]["exact"]["all"]
    assert cells["new"]["rho_nav"] == pytest.approx(0.8) and cells["old"]["rho_nav"] is None
    lines = format_table(mixed).splitlines()
    assert "rho_nav" in lines[0]
    old_line = next(x for x in lines if x.startswith("exact") and " old " in x)
    assert old_line.split()[-3:] == ["-", "-", "-"]
    spots = format_blind_spots(mixed)
    assert " new " in spots and " old " not in spots


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 15), st.integers(1, 15), st.integers(1, 15),
                          st.integers(1, 15)), min_size=2, max_size=25))
def test_blind_spot_invariants(rows):
    base_s, arm_s, base_n, arm_n = (list(x) for x in zip(*rows))
    n = len(rows)
    table = _table({"B1": _rows(base_s, base_n), "arm": _rows(arm_s, arm_n)}, n, 300)
    b = table["groups"]["exact"]["all"]["arm"]["blind_spot"]
    lo, hi = b["nav_saving_ci"]
    assert lo <= hi
    assert b["flagged"] == (lo > 0 and b["share"] is not None and b["share"] < 0.5)
    assert (b["share"] is None) == (b["nav_saving"] <= 0)


def test_every_exam_row_carries_the_navigator_of_the_examined_library():
    """The examiner writes nav_steps / nav_f1 per row, from the frozen library it examined:
    a deleted support fact is a navigator F1 of 0 there; ``navigate=False`` leaves them out."""
    from kbgym.library.graph import Library
    from kbgym.library.search import make_backend
    from kbgym.metrics.navigator import Navigator
    from kbgym.plugins import make_agent
    from kbgym.runs.exam import examine
    from kbgym.worlds.people import UniverseConfig, generate

    u = generate(UniverseConfig(seed=3, n_people=24, n_cities=4, sizes=(20, 15, 10),
                                eval_sizes=(4, 4)))
    reader = make_agent("scripted-reader")
    lib = Library.from_universe(u)
    victim = next(q for q in u.split("test_in") if q.support)
    lib.delete(victim.support[0])
    rows = examine(u, lib, reader, split="test_in")
    ref = lib.copy(search=None, dedup=None)
    ref.attach_search(make_backend())
    ref.freeze()
    nav = Navigator(ref, u)
    for r in rows:
        want = nav.run(u.question(r["qid"]))
        assert (r["nav_steps"], r["nav_f1"]) == (want.steps, want.f1)
    assert next(r for r in rows if r["qid"] == victim.qid)["nav_f1"] == 0.0
    assert any(r["nav_f1"] == 1.0 for r in rows)
    bare = examine(u, lib, reader, split="test_in", navigate=False)
    assert all("nav_steps" not in r for r in bare)
    assert [{k: v for k, v in r.items() if not k.startswith("nav_")} for r in rows] == bare


def test_navigator_figures_are_cached_per_library_state(monkeypatch):
    """A library state examined again (another examiner, the same state) takes the navigator's
    figures from the cache, without navigating; an edited library is a new state, navigated
    afresh, and its figures are those of a fresh navigator on it."""
    from kbgym.library.graph import Library
    from kbgym.metrics.navigator import Navigator
    from kbgym.runs import exam as E
    from kbgym.worlds.people import UniverseConfig, generate

    u = generate(UniverseConfig(seed=5, n_people=24, n_cities=4, sizes=(20, 15, 10),
                                eval_sizes=(4, 4)))
    qs = [q for q in u.split("test_in") if q.support]
    lib = Library.from_universe(u)
    E._NAV_CACHE.clear()
    first = E.Examiner(u, qs, library=lib)
    want = [first.nav_figures(q) for q in qs]
    first.nav_figures(qs[0])["nav_steps"] = -1  # a caller's copy: the cache keeps its figures
    assert first.nav_figures(qs[0]) == want[0]
    calls = []
    real = Navigator.run
    monkeypatch.setattr(Navigator, "run", lambda self, q: calls.append(q) or real(self, q))
    again = E.Examiner(u, qs, library=lib)
    assert [again.nav_figures(q) for q in qs] == want and not calls
    lib.delete(qs[0].support[0])  # a new state: navigated again
    third = E.Examiner(u, qs, library=lib)
    got = third.nav_figures(qs[0])
    assert len(calls) == 1
    r = third.navigator.run(qs[0])
    assert got == {"nav_steps": r.steps, "nav_f1": r.f1}
    assert got["nav_f1"] == 0.0 and want[0]["nav_f1"] == 1.0


def test_the_same_content_built_again_takes_the_cached_figures(monkeypatch):
    """The cache is keyed by content: B1 built a second time (the prior arm's library) is not
    navigated again; the same content reached by other edits neither; other content is."""
    from kbgym.library.graph import Library
    from kbgym.metrics.navigator import Navigator
    from kbgym.runs import exam as E
    from kbgym.worlds.people import UniverseConfig, generate

    u = generate(UniverseConfig(seed=5, n_people=24, n_cities=4, sizes=(20, 15, 10),
                                eval_sizes=(4, 4)))
    qs = [q for q in u.split("test_in") if q.support]
    E._NAV_CACHE.clear()
    want = [E.Examiner(u, qs, library=Library.from_universe(u)).nav_figures(q) for q in qs]
    calls = []
    real = Navigator.run
    monkeypatch.setattr(Navigator, "run", lambda self, q: calls.append(q) or real(self, q))
    assert [E.Examiner(u, qs, library=Library.from_universe(u)).nav_figures(q)
            for q in qs] == want and not calls
    a, b = Library.from_universe(u), Library.from_universe(u)
    x, y = a.ids()[:2]
    a.link(x, y)
    b.link(x, y)
    b.unlink(x, y)
    b.link(x, y)  # same content as a, by another history
    got = E.Examiner(u, qs, library=a).nav_figures(qs[0])
    assert len(calls) == 2  # a link between two originals is a chain: navigated cut as well
    assert "nav_steps_unchained" in got
    assert E.Examiner(u, qs, library=b).nav_figures(qs[0]) == got
    assert len(calls) == 2


def test_a_curve_without_the_navigator_leaves_its_figures_out(tmp_path):
    """training_curve(navigate=False) (the demo's: nothing it shows reads them) gives the same
    curve as with the navigator, less nav_steps / nav_f1."""
    from kbgym.runs.demo import run_demo

    res = run_demo(tmp_path / "d", n_people=40, train_size=6, per_group=4, curve_every=3,
                   plots=False, say=lambda *a: None)
    import json

    curve = json.loads((tmp_path / "d" / "train" / "curve.json").read_text())
    assert curve["groups"] and all("nav_steps" not in g for g in curve["groups"].values())
    from kbgym.plugins import make_agent
    from kbgym.runs.gradient import training_curve

    probe = json.loads((tmp_path / "d" / "probe.json").read_text())
    full = training_curve(res["universe"], tmp_path / "d" / "train", make_agent("scripted-reader"),
                          probe, every=3)
    assert all("nav_steps" in g for g in full["groups"].values())
    for name, g in full["groups"].items():
        assert {k: v for k, v in g.items() if not k.startswith("nav_")} == curve["groups"][name]


def test_a_curve_examines_each_library_state_once_with_examined(tmp_path, monkeypatch):
    """training_curve(examined=...) (the demo's, a deterministic reader) examines no library
    state twice and none it was handed the rows of, and gives the same curve as examining
    every point."""
    import json

    from kbgym.library.graph import Library
    from kbgym.plugins import make_agent
    from kbgym.runs import gradient as G
    from kbgym.runs.demo import run_demo

    res = run_demo(tmp_path / "d", n_people=40, train_size=6, per_group=4, curve_every=2,
                   epochs=2, plots=False, say=lambda *a: None)
    u, run = res["universe"], tmp_path / "d" / "train"
    probe = json.loads((tmp_path / "d" / "probe.json").read_text())
    reader = make_agent("scripted-reader")
    full = G.training_curve(u, run, reader, probe, every=2, navigate=False)
    b1 = Library.from_universe(u)
    b1_rows = G.examine_probe(u, b1, reader, probe, navigate=False)
    labels = []
    real = G.examine_probe
    monkeypatch.setattr(G, "examine_probe",
                        lambda *a, **k: labels.append(k["label"]) or real(*a, **k))
    again = G.training_curve(u, run, reader, probe, every=2, navigate=False,
                             examined={G.exam_key(b1): b1_rows})
    assert again == full
    assert 0 not in labels  # the first state is B1, handed over
    # the states examined are the distinct ones after B1 (the curve's replayed libraries)
    keys, lib = [], Library.from_universe(u)
    trace = [r for r in G.read_jsonl(run / "trace.jsonl") if r.get("kind") == "train"]
    pos = 0
    for it in full["iterations"]:
        while pos < len(trace) and trace[pos]["iteration"] <= it:
            G.replay_rows(lib, [trace[pos]])
            pos += 1
        keys.append(G.exam_key(lib))
    assert len(labels) == len(set(keys) - {G.exam_key(b1)}) < len(full["iterations"])


def test_chains_are_navigated_cut_and_only_they_are_cut():
    """cut_chains removes exactly the links between two originals (the library itself is
    untouched); an exam of a library with chains carries nav_steps_unchained, the steps of
    a navigator on the cut fork, and a library without chains carries none. Here a chain
    from one of X's facts to every friend fact of X saves the navigator a step."""
    from kbgym.library.graph import Library
    from kbgym.library.search import make_backend
    from kbgym.metrics.navigator import Navigator, cut_chains
    from kbgym.plugins import make_agent
    from kbgym.runs.exam import examine
    from kbgym.worlds.people import UniverseConfig, generate

    u = generate(UniverseConfig(seed=3, n_people=24, n_cities=4, sizes=(20, 15, 10),
                                eval_sizes=(4, 4)))
    b1 = Library.from_universe(u)
    assert cut_chains(b1) == (b1, 0)
    friends: dict[str, list[str]] = {}
    for node in b1:
        f = u.node(node.id).fact
        if f.kind == "friend_of":
            friends.setdefault(f.subject, []).append(node.id)

    def chained(subject: str) -> tuple[Library, str]:
        lib = Library.from_universe(u)
        hub = next(n.id for n in lib if u.node(n.id).fact.subject == subject
                   and u.node(n.id).fact.kind != "friend_of")
        for m in friends[subject]:
            lib.link(hub, m)
        return lib, hub

    def saves(subject: str) -> bool:
        lib, _ = chained(subject)
        lib.attach_search(make_backend())
        cut = cut_chains(lib)[0]
        return any(Navigator(cut, u).run(q).steps > Navigator(lib, u).run(q).steps
                   for q in u.split("train"))

    subject = next(s for s in sorted(friends) if saves(s))
    lib, hub = chained(subject)
    members = friends[subject]
    note = lib.add("A note of my own.").id
    lib.link(note, members[0])
    cut, n = cut_chains(lib)
    assert n == len(members) and lib[hub].links == members  # the library keeps its chains
    assert cut[hub].links == [] and cut[note].links == [members[0]]
    reader = make_agent("scripted-reader")
    rows = examine(u, lib, reader, split="train")
    ref = cut.copy(search=None, dedup=None)
    ref.attach_search(make_backend())
    nav = Navigator(ref, u)
    assert rows and all(r["nav_steps_unchained"] == nav.run(u.question(r["qid"])).steps
                        for r in rows)
    assert any(r["nav_steps_unchained"] > r["nav_steps"] for r in rows)
    plain = examine(u, b1, reader, split="train")
    assert plain and all("nav_steps_unchained" not in r for r in plain)
