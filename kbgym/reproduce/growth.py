"""The coverage-growth experiment (the paper's "coverage grows linearly with distinct
questions and stops on repeats; a hundred questions cover a quarter of the corpus; four times
the questions closes the gap to the unsupervised baseline").

One sweep run per seed (:func:`run_growth`, a ``runner`` of :mod:`kbgym.sweep.run`) trains
the curator on two schedules of equal length over a universe whose train split is large
(``configs/coverage.yaml``: 600 questions):

- ``distinct``: one epoch over the first N questions of a shuffled train split, so iteration
  n has seen n distinct questions (the library after n iterations is the library trained on n
  questions; the sizes 50/100/200/400/600 are read off one run);
- ``repeat``: the first ``distinct`` questions for ``epochs`` epochs (100 × 6 = 600
  iterations), so everything after the first epoch is a repeat.

It records ``index_coverage`` and the links at every iteration of both, rebuilds the library
at each examined point from the trace (byte-exact replay), and examines B1, B3 and every such
library on one fixed held-out question set (the ``test_in`` and ``test_out`` splits) at each
budget (the env's M and the tight one), with the ideal navigator. :func:`summarize` turns the
seeds' results into the figures the reproduction table reads.
"""

from __future__ import annotations

import statistics
from contextlib import ExitStack
from pathlib import Path

from kbgym.jsonio import write_canonical
from kbgym.runs.logs import read_jsonl
from kbgym.sweep.aggregate import between_seeds
from kbgym.sweep.run import RESULT, Stopwatch, spec_universe

RUNNER = "kbgym.reproduce.growth:run_growth"
KIND = "kbgym.reproduce.growth"


# -- the run ------------------------------------------------------------------------------------
def held_out(universe, spec: dict) -> list[str]:
    """The held-out qids: the named splits in order, the first ``limit`` of each."""
    limit = spec.get("limit")
    out = []
    for name in spec["splits"]:
        qids = list(universe.splits.get(name, []))
        out += qids[:limit] if limit is not None else qids
    return out


def _series(train_dir: Path) -> dict:
    """index_coverage, links and distinct questions seen, per iteration (0 = untrained)."""
    series = [r for r in read_jsonl(train_dir / "series.jsonl")]
    seen, distinct = set(), {0: 0}
    for r in read_jsonl(train_dir / "train_log.jsonl"):
        seen.add(r["qid"])
        distinct[r["iteration"]] = len(seen)
    return {"iterations": [r["iteration"] for r in series],
            "distinct": [distinct.get(r["iteration"]) for r in series],
            "index_coverage": [r["index_coverage"] for r in series],
            "n_links": [r["n_links"] for r in series]}


def _exam(universe, lib, reader, env_cfg, budgets: list[int], qids: list[str]) -> dict:
    """Per budget: steps, F1 and the navigator's steps and F1 on ``qids``, in that order."""
    from kbgym.runs.exam import examine

    questions = {q: universe.question(q) for q in qids}
    out = {}
    for m in budgets:
        rows = examine(universe, lib, reader, env_cfg.model_copy(update={"m": m}),
                       split="held_out", questions=questions, splits={"held_out": qids})
        out[str(m)] = {k: [r.get(k) for r in rows] for k in ("steps", "f1", "nav_steps",
                                                             "nav_f1")}
    return out


def _state(lib, exam: dict, **where) -> dict:
    s = lib.stats()
    return {**where, "index_coverage": s["index_coverage"], "n_links": s["n_links"],
            "authored_statements": s["authored_statements"], "exam": exam}


def run_growth(spec: dict, rid: str, path: Path, stack: ExitStack) -> None:
    """One seed of the growth experiment (see the module docstring); ``result.json`` last."""
    from kbgym.baselines import build_baseline
    from kbgym.env.config import KBGymConfig
    from kbgym.library.graph import Library, gc_frozen, gc_refreeze
    from kbgym.runs.replay import replay_rows
    from kbgym.runs.train import TrainConfig, train
    from kbgym.sweep.run import _make

    seed = spec["seed"]
    clock = Stopwatch()
    lap = clock.lap
    universe = spec_universe(spec, path.parent.parent)
    env_cfg = KBGymConfig.make(**spec["env"])
    stack.enter_context(gc_frozen())
    qids = held_out(universe, spec["held_out"])
    budgets = list(spec["budgets"])
    reader = _make(spec["reader"], seed)
    lap("build")

    states = {"B1": _state(Library.from_universe(universe),
                           _exam(universe, Library.from_universe(universe), reader, env_cfg,
                                 budgets, qids), schedule=None, iteration=0, distinct=0)}
    for b in spec["baselines"]:
        lib, _ = build_baseline(b, universe)
        states[b.upper()] = _state(lib, _exam(universe, lib, reader, env_cfg, budgets, qids),
                                   schedule=None, iteration=None, distinct=None)
        del lib
        gc_refreeze()
    lap("baselines")

    sizes = sorted(spec["sizes"])
    rep = spec["repeat"]
    schedules = {"distinct": (1, sizes[-1], sizes),
                 "repeat": (rep["epochs"], rep["distinct"],
                            sorted({rep["distinct"], rep["distinct"] * rep["epochs"]}))}
    series = {}
    for name, (epochs, n, points) in schedules.items():
        d = path / f"train_{name}"
        train(universe, _make(spec["curator"], seed), d, env_config=env_cfg,
              config=TrainConfig.make(epochs=epochs, train_size=n,
                                      snapshot_every=max(1, epochs * n)))
        lap(f"train_{name}")
        gc_refreeze()
        series[name] = _series(d)
        trace = [r for r in read_jsonl(d / "trace.jsonl") if r.get("kind") == "train"]
        lib, pos = Library.from_universe(universe), 0
        for it in points:  # one replay, examined at each point on the way
            while pos < len(trace) and trace[pos]["iteration"] <= it:
                replay_rows(lib, [trace[pos]])
                pos += 1
            k = series[name]["iterations"].index(it)
            states[f"{name}@{it}"] = _state(lib, _exam(universe, lib, reader, env_cfg, budgets,
                                                        qids),
                                            schedule=name, iteration=it,
                                            distinct=series[name]["distinct"][k])
            gc_refreeze()
        lap(f"exams_{name}")

    result = {"schema_version": 1, "kind": KIND, "id": rid, "spec": spec,
              "universe": {"hash": universe.hash, "people": len(universe.people),
                           "notes": len(universe.nodes)},
              "held_out": qids, "budgets": budgets, "series": series, "states": states}
    clock.write(path)
    write_canonical(path / RESULT, result)


# -- over seeds ----------------------------------------------------------------------------------
def _mean(xs: list) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.fmean(xs) if xs else None


def exam_means(state: dict, m: int) -> dict:
    """Mean steps and F1, and the navigator's mean steps over the questions it has a figure
    for, of one state at budget ``m``."""
    e = state["exam"][str(m)]
    return {"steps": _mean(e["steps"]), "f1": _mean(e["f1"]),
            "nav_steps": _mean(e["nav_steps"])}


def _paired_nav(state: dict, base: dict, m: int) -> float | None:
    """Σ nav steps(state) / Σ nav steps(base) over questions with a figure on both."""
    a, b = state["exam"][str(m)]["nav_steps"], base["exam"][str(m)]["nav_steps"]
    pairs = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
    den = sum(y for _, y in pairs)
    return sum(x for x, _ in pairs) / den if den else None


def coverage_at(series: dict, iteration: int) -> float | None:
    its = series["iterations"]
    return series["index_coverage"][its.index(iteration)] if iteration in its else None


def per_seed(result: dict, base_size: int, tight: int, m: int) -> dict:
    """One seed's figures: coverage per size, per state and budget the mean steps, F1, ρ and
    ρ_nav against B1 and the steps saved; the linearity, repeat and gap figures."""
    states = result["states"]
    b1 = states["B1"]
    out: dict = {"states": {}}
    for name, st in states.items():
        row = {"index_coverage": st["index_coverage"], "n_links": st["n_links"],
               "distinct": st["distinct"], "iteration": st["iteration"]}
        for budget in result["budgets"]:
            e, e0 = exam_means(st, budget), exam_means(b1, budget)
            row[str(budget)] = {
                **e, "rho": e["steps"] / e0["steps"] if e0["steps"] else None,
                "saved": e0["steps"] - e["steps"], "f1_gain": e["f1"] - e0["f1"],
                "rho_nav": _paired_nav(st, b1, budget)}
        out["states"][name] = row
    d, r = result["series"]["distinct"], result["series"]["repeat"]
    sizes = sorted(result["spec"]["sizes"])
    cov = {n: coverage_at(d, n) for n in sizes}
    out["coverage"] = cov
    c0 = coverage_at(d, 0) or 0.0
    base = cov.get(base_size)
    four = cov.get(4 * base_size)
    out["points_per_question_base"] = (100 * (base - c0) / base_size
                                       if base is not None else None)
    out["linearity_4x"] = ((four - c0) / (4 * (base - c0))
                           if four is not None and base and base > c0 else None)
    # repeats: coverage gained per repeated iteration over coverage gained per new question
    rep = result["spec"]["repeat"]
    n, total = rep["distinct"], rep["distinct"] * rep["epochs"]
    first, last = coverage_at(r, n), coverage_at(r, total)
    r0 = coverage_at(r, 0) or 0.0
    new_rate = (first - r0) / n if first is not None else None
    out["repeat_gain_per_iteration"] = ((last - first) / (total - n)
                                        if first is not None and last is not None and total > n
                                        else None)
    out["repeat_ratio"] = (out["repeat_gain_per_iteration"] / new_rate
                           if new_rate and out["repeat_gain_per_iteration"] is not None
                           else None)
    # the gap to B3 on the held-out questions
    gap = {}
    b3 = out["states"].get("B3")
    for budget, key in ((m, "saved"), (tight, "f1_gain")):
        if b3 is None or str(budget) not in b3:
            continue
        ref = b3[str(budget)][key]
        gap[key] = {s: (out["states"][f"distinct@{s}"][str(budget)][key] / ref
                        if ref and ref > 0 else None) for s in sizes}
    out["gap"] = gap
    return out


def first_match(sizes: list[int], trained: dict[int, float | None], ref: float | None
                ) -> int | None:
    """The smallest size whose mean figure reaches ``ref`` (None if none does)."""
    if ref is None:
        return None
    for s in sizes:
        if trained.get(s) is not None and trained[s] >= ref:
            return s
    return None


def summarize(results: list[dict], *, base_size: int, tight: int, m: int) -> dict | None:
    """The growth figures over seeds: means with between-seed 95% t-intervals."""
    if not results:
        return None
    seeds = [per_seed(r, base_size, tight, m) for r in sorted(results,
                                                              key=lambda r: r["spec"]["seed"])]
    sizes = sorted(results[0]["spec"]["sizes"])
    names = list(seeds[0]["states"])

    def agg(get):
        return between_seeds([get(s) for s in seeds])

    def state_stat(name, budget, key):
        return agg(lambda s: (s["states"].get(name) or {}).get(str(budget), {}).get(key))

    states = {}
    for name in names:
        st = {"index_coverage": agg(lambda s, n=name: s["states"][n]["index_coverage"]),
              "n_links": agg(lambda s, n=name: s["states"][n]["n_links"]),
              "distinct": seeds[0]["states"][name]["distinct"],
              "iteration": seeds[0]["states"][name]["iteration"]}
        for budget in results[0]["budgets"]:
            st[str(budget)] = {k: state_stat(name, budget, k)
                               for k in ("steps", "f1", "nav_steps", "rho", "saved", "f1_gain",
                                         "rho_nav")}
        states[name] = st
    saved = {s: states[f"distinct@{s}"][str(m)]["saved"]["mean"] for s in sizes}
    f1 = {s: states[f"distinct@{s}"][str(tight)]["f1"]["mean"] for s in sizes}
    b3 = states.get("B3")
    # coverage curves: mean and band over seeds at every iteration of each schedule
    curves = {}
    for sched in ("distinct", "repeat"):
        per = [r["series"][sched] for r in results]
        its = per[0]["iterations"]
        curves[sched] = {"iterations": its, "distinct": per[0]["distinct"],
                         "index_coverage": [between_seeds([coverage_at(p, it) for p in per])
                                            for it in its]}
    return {
        "seeds": [r["spec"]["seed"] for r in results], "sizes": sizes, "base_size": base_size,
        "budgets": {"m": m, "tight": tight}, "n_held_out": len(results[0]["held_out"]),
        "coverage": [agg(lambda x, s=s: x["coverage"][s]) for s in sizes],
        "points_per_question_base": agg(lambda x: x["points_per_question_base"]),
        "linearity_4x": agg(lambda x: x["linearity_4x"]),
        "repeat_gain_per_iteration": agg(lambda x: x["repeat_gain_per_iteration"]),
        "repeat_ratio": agg(lambda x: x["repeat_ratio"]),
        "gap_saved": [agg(lambda x, s=s: x["gap"].get("saved", {}).get(s)) for s in sizes],
        "gap_f1": [agg(lambda x, s=s: x["gap"].get("f1_gain", {}).get(s)) for s in sizes],
        "match_saved": first_match(sizes, saved, b3[str(m)]["saved"]["mean"] if b3 else None),
        "match_f1": first_match(sizes, f1, b3[str(tight)]["f1"]["mean"] if b3 else None),
        "states": states, "curves": curves,
    }
