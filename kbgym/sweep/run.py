"""One sweep run: universe → train → probe make → exams of B1, the trained arm and the
baseline arms → probe table, training curve and the run report.

The universe is generated from the spec's UniverseConfig fields and the seed, or, for a spec
``universe: {file: PATH, hash: H}``, read from an imported universe file (PhantomWiki, a
corpus; a relative PATH is relative to the sweep folder) that must have hash H. A spec with a
``runner: "module:function"`` is run by that function instead of the chain (called as
``function(spec, run_id, run_path, exit_stack)``, it writes ``result.json`` last like the
chain), so experiments of another shape share the executors, the run ids and resuming.

A run directory holds ``spec.json`` first and ``result.json`` last (atomic): a directory
without ``result.json`` is a failed or cut run and is started afresh. ``result.json`` holds
only what the spec determines, so it is the same bytes whichever executor ran it; wall-clock
seconds go to ``timing.json`` beside it.
"""

from __future__ import annotations

import json
import shutil
import signal
import sys
import threading
import time
import traceback
from contextlib import ExitStack, contextmanager
from pathlib import Path

from kbgym.errors import ConfigError
from kbgym.jsonio import write_canonical
from kbgym.library.graph import gc_frozen, gc_refreeze
from kbgym.sweep.grid import run_id

RESULT = "result.json"
ERROR = "error.json"
SCHEMA_VERSION = 1


class RunTimeout(BaseException):
    """A run went past its per-run time limit (it is redone by the next sweep).

    A ``BaseException``, like ``KeyboardInterrupt``: raised by the alarm wherever the run
    happens to be, it must pass every ``except Exception`` on its way out - the env's guard
    against agent-triggered bugs, a curator's retry loop - so the run stops where it is and
    nothing more is written to its trace."""


def transient_errors() -> tuple[type[BaseException], ...]:
    """Exceptions worth retrying as they are: a model endpoint that was briefly away (the
    OpenAI client's, when the ``llm`` extra is installed)."""
    try:
        import openai
    except ImportError:
        return (ConnectionError, TimeoutError)
    return (ConnectionError, TimeoutError, openai.APIConnectionError, openai.APITimeoutError,
            openai.RateLimitError, openai.InternalServerError)


def run_dir(out: str | Path, rid: str) -> Path:
    return Path(out) / "runs" / rid


def status(path: Path) -> str:
    """``done`` (result.json), ``timeout`` or ``failed`` (error.json), ``cut`` (started) or
    ``todo``."""
    if (path / RESULT).exists():
        return "done"
    if (path / ERROR).exists():
        try:
            recorded = json.loads((path / ERROR).read_text(encoding="utf-8")).get("status")
        except (OSError, ValueError, AttributeError):
            recorded = None
        return "timeout" if recorded == "timeout" else "failed"
    return "cut" if path.exists() else "todo"


_REFIRE_S = 0.001  # a lost alarm fires again this soon


@contextmanager
def _deadline(seconds: float | None):
    """Raise RunTimeout after ``seconds`` (SIGALRM; only in a process's main thread).

    Python cannot propagate an exception out of a gc callback, a ``__del__`` or a weakref
    callback: it hands it to ``sys.unraisablehook`` and goes on. An alarm that lands there
    would be lost and the run would finish past its limit, so while the deadline holds, a
    RunTimeout that reaches the hook fires the alarm again at once."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    def fire(signum, frame):
        raise RunTimeout(f"run exceeded its time limit of {seconds:g} s")

    def lost(unraisable) -> None:
        if isinstance(unraisable.exc_value, RunTimeout):
            signal.setitimer(signal.ITIMER_REAL, _REFIRE_S)
        else:
            hook(unraisable)

    hook = sys.unraisablehook
    old = signal.signal(signal.SIGALRM, fire)
    sys.unraisablehook = lost
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.unraisablehook = hook
        signal.signal(signal.SIGALRM, old)


class Stopwatch:
    """A run's ``timing.json``: wall seconds per stage, CPU seconds as ``cpu_<stage>``, and
    the run's wall ``total`` (timing stays out of ``result.json``, which is the spec's alone)."""

    def __init__(self) -> None:
        self.timing: dict[str, float] = {}
        self._start = self._wall = time.perf_counter()
        self._cpu = time.process_time()

    def lap(self, name: str) -> None:
        """Close stage ``name``: the time since the last lap (or the start)."""
        wall, cpu = time.perf_counter(), time.process_time()
        self.timing[name] = round(wall - self._wall, 6)
        self.timing[f"cpu_{name}"] = round(cpu - self._cpu, 6)
        self._wall, self._cpu = wall, cpu

    def write(self, run_path: Path) -> None:
        self.timing["total"] = round(time.perf_counter() - self._start, 6)
        write_canonical(run_path / "timing.json", self.timing)


def _make(agent: dict, seed: int):
    """The agent of an AgentSpec; ``seed`` is passed when the factory takes it."""
    from kbgym.plugins import make_agent

    return make_agent(agent["name"], offered={"seed": seed}, **agent["options"])


def _model(agent, name: str) -> str:
    return str((getattr(agent, "meta", None) or {}).get("model") or name)


def _tokens(rows: list[dict]) -> list[int]:
    """[in, out, cached] summed over log rows (cached is a part of in)."""
    from kbgym.metrics.costs import tokens_of

    return list(tokens_of(rows))


def execute(spec: dict, out: str | Path, *, timeout_s: float | None = None) -> dict:
    """Run ``spec`` under ``out/runs/<id>`` unless it is done; returns ``{id, status}``.

    A failure leaves ``error.json`` (and re-raises), so the next sweep redoes the run. A run
    past ``timeout_s`` stops where it is and ends as ``{id, status: "timeout", error}`` (with
    ``error.json`` marked ``"status": "timeout"``); it is redone by the next sweep too.
    """
    rid = run_id(spec)
    path = run_dir(out, rid)
    from kbgym.runs.outdir import check_folder

    check_folder(path, what="sweep run folder")  # never rmtree'd or written through a link
    if status(path) == "done":
        return {"id": rid, "status": "skipped"}
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    write_canonical(path / "spec.json", spec)
    try:
        # the timer stops before the stack unwinds: an alarm must not cut gc_frozen's exit
        with ExitStack() as stack, _deadline(timeout_s):
            runner_of(spec)(spec, rid, path, stack)
    except RunTimeout as err:
        write_canonical(path / ERROR, {"id": rid, "status": "timeout", "error": str(err)})
        return {"id": rid, "status": "timeout", "error": str(err)}
    except BaseException as err:
        write_canonical(path / ERROR, {
            "id": rid, "status": "failed", "error": f"{type(err).__name__}: {err}",
            "traceback": traceback.format_exc()})
        raise
    return {"id": rid, "status": "done"}


def runner_of(spec: dict):
    """The function that runs ``spec``: its ``runner`` (``module:function``) or the chain."""
    name = spec.get("runner")
    if name is None:
        return _run
    import importlib

    module, _, attr = str(name).partition(":")
    try:
        fn = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as err:
        raise ConfigError(f"cannot load runner {name!r}: {type(err).__name__}: {err}") from None
    if not callable(fn):
        raise ConfigError(f"runner {name!r} is not callable")
    return fn


def spec_universe(spec: dict, root: Path):
    """The run's universe: ``{file, hash}`` read (and checked), else generated."""
    uni = spec["universe"]
    if "file" in uni:
        from kbgym.env.env import load_universe

        p = Path(uni["file"])
        universe, _ = load_universe(p if p.is_absolute() else Path(root) / p)
        if uni.get("hash") not in (None, universe.hash):
            raise ConfigError(f"{uni['file']}: universe {universe.hash}, but the spec names "
                              f"{uni['hash']}")
        return universe
    from kbgym.worlds import universe_from_spec

    return universe_from_spec(uni, spec["seed"])


def _run(spec: dict, rid: str, path: Path, stack: ExitStack) -> None:
    from kbgym.baselines import build_baseline
    from kbgym.env.config import KBGymConfig
    from kbgym.library.graph import Library
    from kbgym.library.snapshot import load_snapshot
    from kbgym.runs.gradient import examine_probe, training_curve
    from kbgym.runs.probe import make_probe_from_run, probe_table
    from kbgym.runs.report import write_report
    from kbgym.runs.train import TrainConfig, train

    seed = spec["seed"]
    clock = Stopwatch()
    timing, lap = clock.timing, clock.lap
    universe = spec_universe(spec, path.parent.parent)
    env_cfg = KBGymConfig.make(**spec["env"])
    stack.enter_context(gc_frozen())  # the universe lives to the end: out of full GCs
    lap("build")

    tr = spec["train"]
    curator = _make(spec["curator"], seed)
    train_dir = path / "train"
    meta = train(universe, curator, train_dir, env_config=env_cfg,
                 config=TrainConfig.make(epochs=tr["epochs"], train_size=tr["train_size"],
                                         snapshot_every=tr["snapshot_every"]))
    lap("train")
    gc_refreeze()  # training's env and library are garbage now; frozen by this run's block,
    #                they would stay until the run ends

    pr = spec["probe"]
    probe = make_probe_from_run(universe, train_dir, per_group=pr["per_group"], seed=seed)
    write_canonical(path / "probe.json", probe)
    lap("probe_make")

    # one arm's library at a time: built (or loaded), examined, dropped
    def b1():
        return Library.from_universe(universe), None

    def trained():
        return load_snapshot(train_dir / f"kb_epoch_{tr['epochs']}.json")[0], None

    def baseline(b):
        return lambda: build_baseline(b["name"], universe, b["params"])

    makers = {"B1": b1, "trained": trained}
    for b in spec["baselines"]:
        makers[b["name"].upper() if b["name"] != "oracle" else "oracle"] = baseline(b)
    reader = _make(spec["reader"], seed)
    rows, builds, lib_stats = {}, {}, {}
    for arm, make in makers.items():
        t = time.perf_counter()
        lib, bmeta = make()
        timing[f"build_{arm}"] = round(time.perf_counter() - t, 6)
        lib_stats[arm] = {k: v for k, v in lib.stats().items()
                          if k in ("index_coverage", "n_nodes", "n_links", "authored_statements")}
        if bmeta is not None:
            llm = bmeta["llm"]
            builds[arm] = {"tokens": [llm["tokens_in"], llm["tokens_out"], 0] if llm else [0, 0, 0],
                           "nodes_added": bmeta["nodes_added"],
                           "links_added": bmeta["links_added"],
                           "index_coverage": lib_stats[arm]["index_coverage"]}
        gc_refreeze()  # the last exam's garbage goes; this library stays out of full GCs
        t = time.perf_counter()
        rows[arm] = examine_probe(universe, lib, reader, probe, env_cfg, label=arm,
                                  out=path / f"exam_{arm}", reader_name=spec["reader"]["name"],
                                  library_name=arm)
        timing[f"exam_{arm}"] = round(time.perf_counter() - t, 6)
        del lib
    gc_refreeze()
    lap("exams")
    table = probe_table(rows, probe, seed=seed, resamples=pr["resamples"], delta=pr["delta"],
                        m=env_cfg.m)
    write_canonical(path / "probe_table.json", table)
    lap("table")

    curve = None
    if spec["curve_every"]:
        curve = training_curve(universe, train_dir, reader, probe, every=spec["curve_every"],
                               env_config=env_cfg)
        write_canonical(train_dir / "curve.json", curve)
    lap("curve")

    report = write_report(train_dir, universe)
    lap("report")

    result = {
        "schema_version": SCHEMA_VERSION, "kind": "kbgym.sweep.result", "id": rid, "spec": spec,
        "universe": {"hash": universe.hash, "people": len(universe.people),
                     "notes": len(universe.nodes)},
        "train": {"run_id": meta["run_id"], "iterations": report["costs"]["train_iterations"],
                  "tokens": [*meta["tokens"]["train"],
                             (meta.get("tokens_cached") or {}).get("train", 0)],
                  "model": _model(curator, spec["curator"]["name"]),
                  "final_stats": report["kb_stats"][-1] if report["kb_stats"] else None},
        "reader": {"model": _model(reader, spec["reader"]["name"])},
        "probe": {"per_group": pr["per_group"], "seed": seed,
                  "groups": {g: len(v) for g, v in probe["splits"].items()}},
        "arms": list(makers),
        "libraries": lib_stats,
        "builds": builds,
        "exam": {arm: {"n": len(r), "tokens": _tokens(r),
                       "correct": sum(x["em"] for x in r)} for arm, r in rows.items()},
        "paired": paired_rows(rows, probe),
        "probe_table": table,
        "curve": curve,
        "structure": report["structure"],
        "misinformation": report.get("misinformation"),
        "coverage": {k: report["coverage"][k] for k in
                     ("points_per_distinct_question", "index_coverage_2hop",
                      "question_index_coverage")},
        "kb_size": report["kb_size"],
        "edge_classes": report["edge_classes"],
    }
    clock.write(path)
    write_canonical(path / RESULT, result)  # last: its presence means the run is done


def paired_rows(rows: dict[str, list[dict]], probe: dict, base: str = "B1") -> dict:
    """Per group: the probe gids in order and, per arm, steps / F1 / EM on those gids (what
    a pooled bootstrap across seeds resamples), and the ideal navigator's ``nav_steps`` /
    ``nav_f1`` when the arm's rows carry them (null where a question has no figure), with
    ``nav_steps_unchained`` when its library has chains."""
    from kbgym.runs.probe import unchained_steps

    out = {}
    for group, gids in probe["splits"].items():
        by_arm = {arm: {r["qid"]: r for r in rs if r["split"] == group}
                  for arm, rs in rows.items()}
        have = [g for g in gids if g in by_arm[base]]
        arms = {}
        for arm, by in by_arm.items():
            got = [by[g] for g in have]
            arms[arm] = {k: [r[k] for r in got] for k in ("steps", "f1", "em")}
            if all("nav_steps" in r for r in got):
                arms[arm].update({k: [r[k] for r in got] for k in ("nav_steps", "nav_f1")})
                if any("nav_steps_unchained" in r for r in got):
                    arms[arm]["nav_steps_unchained"] = [unchained_steps(r) for r in got]
        out[group] = {"gids": have, "arms": arms}
    return out


def read_result(path: Path) -> dict:
    return json.loads((path / RESULT).read_text(encoding="utf-8"))
