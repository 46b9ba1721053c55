"""`kbgym sweep`: stable run ids, per-run result files, resume after a kill, identical results
from every executor, and the seed-aggregated report."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbgym import agent_factory
from kbgym.cli import main
from kbgym.runs.plots import plotting_available
from kbgym.errors import ConfigError
from kbgym.sweep import Options, plan, run_all, sweep
from kbgym.sweep.aggregate import (
    between_seeds,
    build_sweep_report,
    costs,
    gate,
    load_prices,
    render_markdown,
)
from kbgym.sweep.grid import expand, is_llm, load_grid, run_id
from kbgym.sweep.run import RESULT, run_dir, status

ROOT = Path(__file__).resolve().parents[2]
TINY = """\
seeds: [0, 1]
universes: [{n_people: 60, n_cities: 8, sizes: [30, 10, 10], eval_sizes: [4, 4]}]
curators: [scripted-index]
train: {epochs: 1, train_size: 16, snapshot_every: 8}
probe: {per_group: 5, resamples: 500}
baselines: [b3]
curve_every: 8
"""


def write_grid(tmp: Path, text: str = TINY) -> Path:
    p = tmp / "grid.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def results_bytes(out: Path) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in sorted((out / "runs").glob(f"*/{RESULT}"))}


def deterministic(rep: dict) -> dict:
    return {k: v for k, v in rep.items() if k not in ("seconds", "_written")}


@pytest.fixture(autouse=True)
def no_frozen_leftovers():
    """Every run closes its frozen-heap block, whatever happened to it."""
    from kbgym.library import graph

    yield
    assert graph._frozen_depth == 0


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    # Slow (~6 s on CI): two whole runs of the tiny grid, once for the module; the resume and
    # executor tests below compare their own sweeps to these bytes.
    tmp = tmp_path_factory.mktemp("serial")
    grid = write_grid(tmp)
    res = sweep(grid, tmp / "out", executor="serial")
    return tmp, grid, res


# -- the grid ------------------------------------------------------------------------------------
def test_ids_are_stable_and_follow_the_spec(tmp_path):
    grid = write_grid(tmp_path)
    a = [run_id(s) for s in expand(load_grid(grid))]
    reordered = write_grid(tmp_path, "\n".join(reversed(TINY.strip().splitlines())) + "\n")
    assert [run_id(s) for s in expand(load_grid(reordered))] == a  # key order does not count
    assert len(a) == 2 and len(set(a)) == 2
    more = write_grid(tmp_path, TINY.replace("per_group: 5", "per_group: 6"))
    assert set(run_id(s) for s in expand(load_grid(more))).isdisjoint(a)


def test_grid_crosses_every_dimension(tmp_path):
    grid = write_grid(tmp_path, TINY.replace("curators: [scripted-index]",
                                             "curators: [scripted-index, {name: scripted-noop}]")
                      + "envs: [{}, {m: 10}]\n")
    specs = expand(load_grid(grid))
    assert len(specs) == 2 * 2 * 2
    assert {(s["seed"], s["curator"]["name"], s["env"].get("m")) for s in specs} == {
        (seed, c, m) for seed in (0, 1) for c in ("scripted-index", "scripted-noop")
        for m in (None, 10)}


def test_universe_from_a_config_file(tmp_path):
    grid = write_grid(tmp_path, TINY.replace(
        "universes: [{n_people: 60, n_cities: 8, sizes: [30, 10, 10], eval_sizes: [4, 4]}]",
        f"universes: [{ROOT / 'configs' / 'small.yaml'}]"))
    spec = expand(load_grid(grid))[0]
    assert spec["universe"]["n_people"] == 60 and "seed" not in spec["universe"]


@pytest.mark.parametrize("text, needle", [
    (TINY + "colour: red\n", "colour: unknown key"),
    (TINY.replace("seeds: [0, 1]", "seeds: [1, 1]"), "seeds must be distinct"),
    (TINY.replace("n_people: 60", "n_people: 2"), "n_people: must be at least 6"),
    (TINY.replace("baselines: [b3]", "baselines: [b9]"), "unknown baseline 'b9'"),
    (TINY + "envs: [{m: 0}]\n", "envs[0]: env: m"),
    (TINY.replace("curators: [scripted-index]", "curators: [no-such-curator]"),
     "unknown agent 'no-such-curator'"),
    ("seeds: [0\n", "not valid YAML"),
    ("- 1\n", "expected a mapping"),
])
def test_bad_grids_are_one_line_errors(tmp_path, capsys, text, needle):
    grid = write_grid(tmp_path, text)
    with pytest.raises(ConfigError, match=None) as err:
        expand(load_grid(grid))
    assert needle in str(err.value) and "\n" not in str(err.value)
    assert main(["sweep", str(grid), "--out", str(tmp_path / "o")]) == 2
    line = capsys.readouterr().err.strip()
    assert needle in line and "\n" not in line and not (tmp_path / "o").exists()


def exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as err:  # argparse refuses a flag value with exit status 2
        return err.code


@pytest.mark.parametrize("argv, needle", [
    (["--jobs", "0"], "--jobs: must be between 1"),
    (["--timeout", "-1"], "--timeout: must be between"),
    (["--retries", "-1"], "--retries: must be between 0"),
    (["--address", "auto"], "--address applies to the ray executor only"),
    (["--prices", "p.yaml"], "belong to 'kbgym sweep report'"),
])
def test_bad_flags_are_one_line_errors(tmp_path, capsys, argv, needle):
    grid = write_grid(tmp_path)
    assert exit_code(["sweep", str(grid), "--out", str(tmp_path / "o"), *argv]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("opts, needle", [
    (Options(jobs=0), "--jobs must be at least 1"), (Options(retries=-1), "--retries must be"),
    (Options(timeout_s=0), "--timeout must be positive"),
])
def test_bad_options_from_python_are_one_line_errors(tmp_path, opts, needle):
    with pytest.raises(ConfigError, match=needle):
        sweep(write_grid(tmp_path), tmp_path / "o", executor="serial", options=opts)
    assert not (tmp_path / "o").exists()


def test_llm_runs_are_recognised():
    spec = {"curator": {"name": "scripted-index", "options": {}},
            "reader": {"name": "openai-reader", "options": {}}}
    assert is_llm(spec)
    spec["reader"]["name"] = "scripted-reader"
    assert not is_llm(spec)


# -- runs, resume, executors ---------------------------------------------------------------------
def test_serial_sweep_writes_one_directory_per_run(serial):
    tmp, grid, res = serial
    out = tmp / "out"
    assert [r["status"] for r in res] == ["done", "done"]
    for r in res:
        d = run_dir(out, r["id"])
        result = json.loads((d / RESULT).read_text())
        assert result["id"] == r["id"] == run_id(json.loads((d / "spec.json").read_text()))
        assert result["arms"] == ["B1", "trained", "B3"]
        assert (d / "timing.json").exists() and (d / "train" / "report.md").exists()
        assert "seconds" not in json.dumps(result)  # wall time stays out of result.json


def test_rerun_skips_finished_and_redoes_failed_or_cut(serial, tmp_path):
    # slow: the two runs (one cut, one failed) really run again, or the bytes prove nothing
    tmp, grid, _ = serial
    import shutil

    out = tmp_path / "out"
    shutil.copytree(tmp / "out", out)
    before = results_bytes(out)
    ids = sorted(before)
    (run_dir(out, ids[0]) / RESULT).unlink()  # cut
    (run_dir(out, ids[1]) / RESULT).unlink()  # failed
    (run_dir(out, ids[1]) / "error.json").write_text("{}")
    assert sorted(r["status"] for r in plan(grid, out)) == ["cut", "failed"]
    res = sweep(grid, out, executor="serial")
    assert [r["status"] for r in res] == ["done", "done"]
    assert results_bytes(out) == before
    assert not (run_dir(out, ids[1]) / "error.json").exists()
    assert [r["status"] for r in sweep(grid, out, executor="serial")] == ["skipped", "skipped"]


def test_process_executor_gives_the_serial_results(serial, tmp_path):
    # slow: the grid's two runs again, in a two-worker process pool
    tmp, grid, _ = serial
    res = sweep(grid, tmp_path / "out", executor="process", options=Options(jobs=2))
    assert [r["status"] for r in res] == ["done", "done"]
    assert results_bytes(tmp_path / "out") == results_bytes(tmp / "out")


def test_a_failing_run_is_recorded_and_the_sweep_goes_on(tmp_path, monkeypatch):
    (tmp_path / "kbgym_failing_agents.py").write_text(
        "import kbgym\n\n@kbgym.agent_factory\ndef make(needed):\n    return needed\n")
    monkeypatch.chdir(tmp_path)
    grid = write_grid(tmp_path, TINY.replace(
        "curators: [scripted-index]", "curators: [scripted-noop, kbgym_failing_agents:make]")
                      .replace("seeds: [0, 1]", "seeds: [0]"))
    res = sweep(grid, tmp_path / "out", executor="serial")  # make() lacks its argument
    assert [r["status"] for r in res] == ["done", "failed"]
    bad = run_dir(tmp_path / "out", res[1]["id"])
    assert "cannot be built" in json.loads((bad / "error.json").read_text())["error"]
    assert main(["sweep", str(grid), "--out", str(tmp_path / "out"), "--executor", "serial",
                 "--quiet"]) == 1


def test_timeout_fails_the_run_and_a_rerun_finishes_it(tmp_path):
    grid = write_grid(tmp_path, TINY.replace("seeds: [0, 1]", "seeds: [0]"))
    res = run_all(expand(load_grid(grid)), tmp_path / "out", "serial",
                  Options(timeout_s=0.01))
    assert res[0]["status"] == "timeout" and "time limit" in res[0]["error"]
    assert status(run_dir(tmp_path / "out", res[0]["id"])) == "timeout"
    assert run_all(expand(load_grid(grid)), tmp_path / "out", "serial")[0]["status"] == "done"


def test_a_timeout_inside_an_env_step_stops_the_run_and_leaves_the_trace_alone(tmp_path,
                                                                                monkeypatch):
    """The alarm fires while the env executes an action: the env's guard against
    agent-triggered bugs must not swallow it (no 'internal error (RunTimeout)' step), the
    run ends as a timeout, and the trace holds only the steps that completed."""
    import kbgym.sweep.run as sweep_run
    from kbgym.env.env import KBGymEnv

    real = KBGymEnv._execute
    calls = {"n": 0}

    def execute(self, ep, act):
        calls["n"] += 1
        if calls["n"] == 4:
            raise sweep_run.RunTimeout("run exceeded its time limit of 1 s")
        return real(self, ep, act)

    monkeypatch.setattr(KBGymEnv, "_execute", execute)
    grid = write_grid(tmp_path, TINY.replace("seeds: [0, 1]", "seeds: [0]"))
    res = run_all(expand(load_grid(grid)), tmp_path / "out", "serial", Options())
    assert res[0]["status"] == "timeout"
    path = run_dir(tmp_path / "out", res[0]["id"])
    assert not (path / RESULT).exists() and status(path) == "timeout"
    rows = [json.loads(x) for x in (path / "train" / "trace.jsonl").read_text().splitlines()]
    assert len(rows) == 3 and not any("RunTimeout" in r["result"] for r in rows)


def test_killed_driver_resumes_to_the_uninterrupted_aggregate(serial, tmp_path):
    # slow: a real `kbgym sweep` process, SIGKILLed after one run, then the resume
    tmp, grid, _ = serial
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "kbgym.cli", "sweep", str(grid), "--out",
                             str(out), "--executor", "serial", "--quiet"], env=env,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while not list(out.glob(f"runs/*/{RESULT}")) and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    first = results_bytes(out)
    assert len(first) == 1  # killed mid-way: one run finished, the other cut
    res = sweep(grid, out, executor="serial")
    assert sorted(r["status"] for r in res) == ["done", "skipped"]
    assert results_bytes(out) == results_bytes(tmp / "out")
    assert deterministic(build_sweep_report(out)) == deterministic(build_sweep_report(tmp / "out"))


def test_dry_run_lists_runs_and_status(serial, capsys):
    tmp, grid, res = serial
    assert main(["sweep", str(grid), "--out", str(tmp / "out"), "--dry-run"]) == 0
    text = capsys.readouterr().out
    for r in res:
        assert f"{r['id']}  done" in text
    assert "2 runs, 2 done, 0 to run" in text


# -- the report ----------------------------------------------------------------------------------
def test_report_pools_seeds_and_matches_each_run(serial, tmp_path):
    tmp, grid, res = serial
    rep = build_sweep_report(tmp / "out")
    (cell,) = rep["cells"]
    assert cell["seeds"] == [0, 1] and set(cell["arms"]) == {"trained", "B3"}
    results = [json.loads((run_dir(tmp / "out", r["id"]) / RESULT).read_text()) for r in res]
    for g, s in cell["arms"]["trained"].items():
        table = [r["probe_table"]["groups"][g]["all"] for r in results]
        rhos = [t["trained"]["rho"] for t in table]
        assert s["rho_mean"]["mean"] == pytest.approx(sum(rhos) / 2)
        steps = [sum(r["paired"][g]["arms"][a]["steps"]) for r in results
                 for a in ("trained", "B1")]
        assert s["rho_pooled"] == pytest.approx((steps[0] + steps[2]) / (steps[1] + steps[3]))
        assert s["rho_pooled_ci"][0] <= s["rho_pooled"] <= s["rho_pooled_ci"][1]
        assert s["n"] == sum(t["trained"]["n"] for t in table)
        assert s["star"] == gate(s["rho_pooled_ci"][1], s["f1_diff_pooled_ci"][1], 0.0)[0]
    assert cell["structure"]["precision"]["mean"] is not None
    assert cell["curve"]["iterations"] == [0, 8, 16]


def test_one_seed_pooled_ci_is_the_runs_own_ci(serial, tmp_path):
    """Pooling one seed resamples with the run's own matrix: the probe table's CI back."""
    tmp, grid, res = serial
    import shutil

    out = tmp_path / "one"
    shutil.copytree(run_dir(tmp / "out", res[0]["id"]), run_dir(out, res[0]["id"]))
    result = json.loads((run_dir(out, res[0]["id"]) / RESULT).read_text())
    (cell,) = build_sweep_report(out)["cells"]
    for g, s in cell["arms"]["trained"].items():
        t = result["probe_table"]["groups"][g]["all"]["trained"]
        assert s["rho_pooled"] == pytest.approx(t["rho"])
        assert s["rho_pooled_ci"] == pytest.approx(t["ci"])
        assert s["rho_mean"]["ci"] is None  # one seed: no between-seed interval
        assert s["f1_diff_pooled_ci"] == pytest.approx(t["f1_diff_ci"])
        assert (s["star"], s["f1_loss"]) == (t["star"], t["f1_loss"])


def test_report_pools_the_navigator_like_rho(serial, tmp_path):
    """Pooled ρ_nav is the ratio of the paired navigator step sums; one seed gives back the
    run's own ρ_nav CI and blind spot; results made before the navigator leave it out."""
    import shutil

    tmp, grid, res = serial
    results = [json.loads((run_dir(tmp / "out", r["id"]) / RESULT).read_text()) for r in res]
    (cell,) = build_sweep_report(tmp / "out")["cells"]
    for g, s in cell["arms"]["trained"].items():
        nav = [sum(r["paired"][g]["arms"][a]["nav_steps"]) for r in results
               for a in ("trained", "B1")]
        assert s["rho_nav_pooled"] == pytest.approx((nav[0] + nav[2]) / (nav[1] + nav[3]))
        assert s["rho_nav_pooled_ci"][0] <= s["rho_nav_pooled"] <= s["rho_nav_pooled_ci"][1]
        assert set(s["blind_spot"]) == {"nav_saving", "nav_saving_ci", "reader_saving", "share",
                                        "flagged"}
    out = tmp_path / "one"
    shutil.copytree(run_dir(tmp / "out", res[0]["id"]), run_dir(out, res[0]["id"]))
    (one,) = build_sweep_report(out)["cells"]
    for g, s in one["arms"]["trained"].items():
        t = results[0]["probe_table"]["groups"][g]["all"]["trained"]
        assert s["rho_nav_pooled"] == pytest.approx(t["rho_nav"])
        assert s["rho_nav_pooled_ci"] == pytest.approx(t["rho_nav_ci"])
        assert s["blind_spot"]["nav_saving_ci"] == pytest.approx(
            t["blind_spot"]["nav_saving_ci"])
        assert s["blind_spot"]["flagged"] == t["blind_spot"]["flagged"]
    path = run_dir(out, res[0]["id"]) / RESULT
    old = json.loads(path.read_text())
    for group in old["paired"].values():
        for arm in group["arms"].values():
            arm.pop("nav_steps"), arm.pop("nav_f1")
    path.write_text(json.dumps(old))
    (before,) = build_sweep_report(out)["cells"]
    for s in before["arms"]["trained"].values():
        assert s["rho_nav_pooled"] is None and s["blind_spot"] is None
    assert "ρ_nav" not in render_markdown(build_sweep_report(out))


def test_report_pools_the_chain_figures_like_the_probe_table(serial, tmp_path):
    """An arm whose rows carry nav_steps_unchained pools its chain saving over seeds like the
    navigator's saving; arms without it carry no chain keys."""
    import shutil

    tmp, grid, res = serial
    out = tmp_path / "chained"
    for r in res:
        shutil.copytree(run_dir(tmp / "out", r["id"]), run_dir(out, r["id"]))
    extra = {}
    for r in res:
        path = run_dir(out, r["id"]) / RESULT
        result = json.loads(path.read_text())
        for g, group in result["paired"].items():
            arm = group["arms"]["trained"]
            arm["nav_steps_unchained"] = [None if x is None else x + 2 for x in arm["nav_steps"]]
            extra.setdefault(g, []).append(sum(x is not None for x in arm["nav_steps"]))
        path.write_text(json.dumps(result))
    (cell,) = build_sweep_report(out)["cells"]
    for g, s in cell["arms"]["trained"].items():
        b = s["blind_spot"]
        if not sum(extra[g]):
            continue
        assert b["chain_saving"] == pytest.approx(2.0) and b["chain_saving_ci"] == \
            pytest.approx([2.0, 2.0])
        assert b["chain_blind"] == (b["nav_saving"] - b["reader_saving"] > 1.0)
        assert b["flagged"] >= b["chain_blind"]
    (plain,) = build_sweep_report(tmp / "out")["cells"]
    assert all("chain_saving" not in s["blind_spot"]
               for s in plain["arms"]["trained"].values())


def test_report_command_writes_files(serial, capsys):
    tmp, _, _ = serial
    assert main(["sweep", "report", str(tmp / "out"), "--quiet"]) == 0
    pngs = ("gradient.png", "learning_curve.png") if plotting_available() else ()
    for name in ("report.json", "report.md", *pngs):
        assert (tmp / "out" / name).stat().st_size > 0
    md = (tmp / "out" / "report.md").read_text()
    assert "| trained | exact |" in md and "between-seed CI" in md
    assert "pooled ρ_nav" in md and "Blind spots" in md
    assert main(["sweep", "report", str(tmp / "nowhere")]) == 2
    assert "not a sweep folder" in capsys.readouterr().err


def test_costs_with_a_price_table(tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text('{"gpt-x": {"in": 1.0, "cached_in": 0.5, "out": 2.0}}')
    table = load_prices(prices)

    def result(train, b1, tr):
        return {"arms": ["B1", "trained"], "builds": {},
                "train": {"tokens": train, "model": "gpt-x"}, "reader": {"model": "gpt-x"},
                "exam": {"B1": {"n": 10, "tokens": b1, "correct": 5},
                         "trained": {"n": 10, "tokens": tr, "correct": 8}}}

    c = costs([result([1_000_000, 0, 0], [100_000, 0, 0], [50_000, 0, 0])], table)
    assert c["train_money"]["mean"] == pytest.approx(1.0)
    assert c["arms"]["trained"]["money_per_correct"]["mean"] == pytest.approx(0.05 / 8)
    # training 1e6 tokens; each question saves 5,000 tokens
    assert c["break_even_questions_tokens"]["mean"] == pytest.approx(200)
    assert c["break_even_questions_money"]["mean"] == pytest.approx(200)
    # cached prompt tokens are cheaper: half of B1's exam prompt read from the cache
    c = costs([result([1_000_000, 0, 0], [100_000, 0, 50_000], [50_000, 0, 0])], table)
    assert c["arms"]["B1"]["money_per_correct"]["mean"] == pytest.approx(0.075 / 5)
    prices.write_text('{"gpt-x": {"in": -1, "out": 2}}')
    with pytest.raises(ConfigError, match="non-negative"):
        load_prices(prices)
    assert costs([result([1, 0, 0], [1, 0, 0], [1, 0, 0])], None).get("train_money") is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.1, 3.0), min_size=1, max_size=12))
def test_between_seed_interval_holds_the_mean(xs):
    b = between_seeds(xs)
    assert b["k"] == len(xs)
    if len(xs) > 1:
        assert b["ci"][0] <= b["mean"] + 1e-12 and b["mean"] <= b["ci"][1] + 1e-12
    else:
        assert b["ci"] is None


@given(st.floats(0, 2), st.floats(-1, 1), st.floats(0, 0.5))
def test_gate_is_formula_one(rho_hi, f1_hi, delta):
    star, loss = gate(rho_hi, f1_hi, delta)
    assert loss == (f1_hi < -delta)
    assert star == (rho_hi < 1 and not loss)
    assert gate(None, f1_hi, delta) == gate(rho_hi, None, delta) == (False, False)


# -- ray (optional extra) ---------------------------------------------------------------------------
@pytest.mark.slow
def test_ray_executor_gives_the_serial_results(serial, tmp_path, monkeypatch):
    pytest.importorskip("ray")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    tmp, grid, _ = serial
    res = sweep(grid, tmp_path / "out", executor="ray",
                options=Options(jobs=2, llm_slots=1, address="local"))
    assert [r["status"] for r in res] == ["done", "done"]
    assert results_bytes(tmp_path / "out") == results_bytes(tmp / "out")
    import ray

    assert not ray.is_initialized()  # shut down in finally


def test_ray_start_sizes_a_local_instance_but_not_a_cluster(monkeypatch):
    from kbgym.sweep.executors import ray_init_kwargs

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    local = ray_init_kwargs(Options(jobs=3, llm_slots=2))
    assert local["num_cpus"] == 3 and local["resources"] == {"llm": 2.0}
    assert local["include_dashboard"] is False and local["address"] == "local"
    assert local["_node_ip_address"] == "127.0.0.1"  # a local instance binds loopback only
    attach = ray_init_kwargs(Options(jobs=3, llm_slots=2, address="10.0.0.5:6379"))
    assert attach["address"] == "10.0.0.5:6379"
    assert "num_cpus" not in attach and "resources" not in attach


def test_ray_address_defaults_to_the_environment_then_local(monkeypatch):
    from kbgym.sweep.executors import ray_init_kwargs

    monkeypatch.setenv("RAY_ADDRESS", "head.example:6379")
    assert ray_init_kwargs(Options())["address"] == "head.example:6379"
    assert "num_cpus" not in ray_init_kwargs(Options())
    # an explicit --address local still starts a private instance
    assert ray_init_kwargs(Options(address="local"))["num_cpus"] >= 1
    monkeypatch.delenv("RAY_ADDRESS")
    assert ray_init_kwargs(Options())["address"] == "local"


def test_llm_slots_cap_concurrent_llm_runs_in_the_process_pool(serial, tmp_path, monkeypatch):
    import kbgym.sweep.executors as ex

    # slow: both runs in the process pool, one after the other (what the cap is)
    tmp, grid, _ = serial
    monkeypatch.setattr(ex, "is_llm", lambda spec: True)  # every run "calls a model"
    out = tmp_path / "out"
    res = sweep(grid, out, executor="process", options=Options(jobs=2, llm_slots=1))
    assert [r["status"] for r in res] == ["done", "done"]
    spans = sorted(((run_dir(out, r["id"]) / "spec.json").stat().st_mtime,
                    (run_dir(out, r["id"]) / RESULT).stat().st_mtime) for r in res)
    assert spans[0][1] <= spans[1][0]  # one after the other, never both at once
    assert results_bytes(out) == results_bytes(tmp / "out")


def test_a_crashed_worker_is_replaced_and_its_run_retried(tmp_path, monkeypatch):
    """A worker that dies (here: os._exit on the first try) breaks the stdlib pool; the
    sweep makes a new pool and runs it again."""
    import types

    marker = tmp_path / "crashed-once"

    def factory(**opts):
        if not marker.exists():
            marker.write_text("x")
            os._exit(3)
        from kbgym_agents.scripted.factories import noop_trainer

        return noop_trainer()

    mod = types.ModuleType("_kbgym_crash_once")
    mod.factory = agent_factory(factory)
    monkeypatch.setitem(sys.modules, "_kbgym_crash_once", mod)  # forked workers inherit it
    grid = write_grid(tmp_path, TINY.replace("curators: [scripted-index]",
                                             "curators: [_kbgym_crash_once:factory]")
                      .replace("seeds: [0, 1]", "seeds: [0]"))
    res = sweep(grid, tmp_path / "out", executor="process", options=Options(jobs=1))
    assert marker.exists() and [r["status"] for r in res] == ["done"]
    marker.unlink()
    res = sweep(grid, tmp_path / "out2", executor="process", options=Options(jobs=1, retries=0))
    assert [r["status"] for r in res] == ["failed"] and "BrokenProcessPool" in res[0]["error"]


def test_a_ray_address_nothing_answers_on_is_a_one_line_error(monkeypatch):
    """Ray would retry an unreachable address for minutes, printing connection warnings;
    the sweep refuses it at once, naming where the address came from."""
    from kbgym.sweep.executors import check_ray_reachable

    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")
    with pytest.raises(ConfigError) as err:
        check_ray_reachable(Options())
    assert "no Ray cluster answers at 127.0.0.1:1 (from $RAY_ADDRESS)" in str(err.value)
    assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match=r"from --address"):
        check_ray_reachable(Options(address="127.0.0.1:1"))
    for bad in ("not an address", "http://", "head:99999", "head"):
        with pytest.raises(ConfigError, match="is not a Ray address"):
            check_ray_reachable(Options(address=bad))
    check_ray_reachable(Options(address="local"))  # nothing to reach: started here
    check_ray_reachable(Options(address="auto"))  # Ray finds it (or says so in one line)
    monkeypatch.delenv("RAY_ADDRESS")
    check_ray_reachable(Options())


@pytest.mark.slow
def test_a_bogus_ray_address_stops_the_sweep_in_one_line(tmp_path, capsys, monkeypatch):
    pytest.importorskip("ray")
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")
    grid = write_grid(tmp_path)
    assert exit_code(["sweep", str(grid), "--out", str(tmp_path / "o"), "--executor", "ray"]) == 2
    err = capsys.readouterr().err
    assert "no Ray cluster answers at 127.0.0.1:1" in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


def _descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo.extend(children.get(pid, []))
    return found


def _listening_addresses(pids: set[int]) -> list[str]:
    """The local addresses (hex, as /proc/net shows them) of TCP sockets in LISTEN that
    ``pids`` hold."""
    inodes = set()
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(fd)
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    found = []
    for name in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{name}").read_text().splitlines()[1:]:
            f = line.split()
            if f[3] == "0A" and f[9] in inodes:
                found.append(f[1].rsplit(":", 1)[0])
    return found


LOOPBACK = {"0100007F", "0000000000000000FFFF00000100007F", "00000000000000000000000001000000"}


@pytest.mark.slow
def test_a_local_ray_instance_listens_on_loopback_only(tmp_path, monkeypatch):
    """Every TCP listener of the local instance (GCS, raylet, workers, agents) is on
    127.0.0.1, and Ray's switch is restored when the sweep ends."""
    pytest.importorskip("ray")
    if not Path("/proc/net/tcp").exists():
        pytest.skip("reads /proc/net (Linux)")
    import kbgym.sweep.executors as ex

    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.delenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", raising=False)
    seen: dict = {}
    real = ex._ray_sweep

    def probe(ray, specs, out, opts, report):
        res = real(ray, specs, out, opts, report)  # workers are up now
        seen["nodes"] = {n["NodeManagerAddress"] for n in ray.nodes()}
        seen["listening"] = _listening_addresses(_descendants(os.getpid()))
        return res

    monkeypatch.setattr(ex, "_ray_sweep", probe)
    grid = write_grid(tmp_path, TINY.replace("seeds: [0, 1]", "seeds: [0]"))
    res = run_all(expand(load_grid(grid)), tmp_path / "out", "ray", Options(jobs=1))
    assert [r["status"] for r in res] == ["done"]
    assert seen["nodes"] == {"127.0.0.1"}
    assert seen["listening"] and set(seen["listening"]) <= LOOPBACK, seen["listening"]
    assert "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER" not in os.environ
    from ray._private import ray_constants

    assert ray_constants.ENABLE_RAY_CLUSTER is True


@pytest.mark.slow
def test_ray_timeout_marks_the_run_timeout(tmp_path, monkeypatch):
    pytest.importorskip("ray")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    grid = write_grid(tmp_path, TINY.replace("seeds: [0, 1]", "seeds: [0]"))
    res = run_all(expand(load_grid(grid)), tmp_path / "out", "ray",
                  Options(jobs=1, timeout_s=0.05))
    assert res[0]["status"] == "timeout" and "time limit" in res[0]["error"]
    assert status(run_dir(tmp_path / "out", res[0]["id"])) == "timeout"


def test_another_grid_into_a_finished_sweep_folder_is_refused(serial, tmp_path, capsys):
    """Its runs would be pooled with the first grid's by ``sweep report``; the same grid
    resumes (every run skipped) and sweep.json is unchanged."""
    tmp, grid, _ = serial
    before = (tmp / "out" / "sweep.json").read_bytes()
    other = write_grid(tmp_path, TINY.replace("seeds: [0, 1]", "seeds: [7]"))
    rc = main(["sweep", str(other), "--out", str(tmp / "out"), "--executor", "serial",
               "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "another sweep" in err[0]
    assert (tmp / "out" / "sweep.json").read_bytes() == before
    assert len(list((tmp / "out" / "runs").iterdir())) == 2  # none of the other grid's
    assert [r["status"] for r in sweep(grid, tmp / "out", executor="serial")] == [
        "skipped", "skipped"]
