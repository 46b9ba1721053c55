"""The sweep's generic extensions: a spec naming its own ``runner``, a universe read from a
file with its hash, and ``sweep_specs`` for specs built by code."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from pathlib import Path

import pytest

from kbgym.jsonio import write_canonical
from kbgym.sweep import run_all, sweep_specs
from kbgym.sweep.grid import GridConfig, expand, run_id
from kbgym.sweep.run import RESULT, execute, run_dir, spec_universe, status

CALLS: list[str] = []


@pytest.fixture(scope="module")
def small_universe():
    from kbgym.worlds.people import UniverseConfig, generate

    return generate(UniverseConfig(n_people=60, n_cities=8, sizes=(40, 30, 20),
                                   eval_sizes=(10, 6)))


def toy_runner(spec: dict, rid: str, path: Path, stack: ExitStack) -> None:
    """A runner of another shape: squares its number, result.json last."""
    CALLS.append(rid)
    if spec["x"] < 0:
        raise ValueError("negative x")
    write_canonical(path / RESULT, {"id": rid, "spec": spec, "square": spec["x"] ** 2})


def toy(x: int) -> dict:
    return {"runner": f"{__name__}:toy_runner", "seed": 0, "x": x}


def test_runner_runs_resumes_and_fails_cleanly(tmp_path):
    CALLS.clear()
    specs = [toy(2), toy(3), toy(-1)]
    res = sweep_specs(specs, tmp_path, executor="serial")
    assert [r["status"] for r in res] == ["done", "done", "failed"]
    assert "negative x" in res[2]["error"]
    out = json.loads((run_dir(tmp_path, run_id(toy(3))) / RESULT).read_text())
    assert out["square"] == 9
    listed = json.loads((tmp_path / "sweep.json").read_text())
    assert listed["grid"] is None
    assert [r["id"] for r in listed["runs"]] == [run_id(s) for s in specs]
    CALLS.clear()
    res = run_all(specs, tmp_path, "serial")  # finished runs are skipped, the failed one redone
    assert [r["status"] for r in res] == ["skipped", "skipped", "failed"]
    assert CALLS == [run_id(toy(-1))]


def test_unknown_runner_is_a_failed_run(tmp_path):
    spec = {"runner": "kbgym_no_such_module:fn", "seed": 0}
    res, = run_all([spec], tmp_path, "serial")
    assert res["status"] == "failed" and "cannot load runner" in res["error"]


def test_universe_file_with_its_hash(tmp_path, small_universe):
    (tmp_path / "u.json").write_text(small_universe.dumps(), encoding="utf-8")
    spec = {"seed": 3, "universe": {"file": "u.json", "hash": small_universe.hash}}
    assert spec_universe(spec, tmp_path).hash == small_universe.hash  # relative to the folder
    spec["universe"]["file"] = str(tmp_path / "u.json")
    assert spec_universe(spec, Path("/nowhere")).hash == small_universe.hash
    spec["universe"]["hash"] = "sha256:" + "0" * 64
    with pytest.raises(Exception, match="spec names"):
        spec_universe(spec, tmp_path)


def test_chain_on_a_universe_file(tmp_path, small_universe):
    """The whole chain runs on an imported universe file (as the PhantomWiki arm does)."""
    (tmp_path / "u.json").write_text(small_universe.dumps(), encoding="utf-8")
    spec, = expand(GridConfig.model_validate({
        "seeds": [0], "curators": ["scripted-index"],
        "train": {"epochs": 1, "train_size": 6, "snapshot_every": 6},
        "probe": {"per_group": 3, "resamples": 200}, "curve_every": 0}))
    spec["universe"] = {"file": "u.json", "hash": small_universe.hash}
    res, = sweep_specs([spec], tmp_path, executor="serial")
    assert res["status"] == "done"
    result = json.loads((run_dir(tmp_path, res["id"]) / RESULT).read_text())
    assert result["universe"]["hash"] == small_universe.hash
    assert set(result["arms"]) == {"B1", "trained"}


class _SlowFinalizer:
    """Its ``__del__`` outlasts a short deadline, so the alarm fires inside it, where Python
    swallows exceptions."""

    def __del__(self) -> None:
        end = time.perf_counter() + 0.2
        while time.perf_counter() < end:
            pass


def finalizer_runner(spec: dict, rid: str, path: Path, stack: ExitStack) -> None:
    """Runs a finalizer past the deadline, then keeps working for two seconds."""
    obj = _SlowFinalizer()
    del obj
    end = time.perf_counter() + 2.0
    while time.perf_counter() < end:
        time.sleep(0.001)
    write_canonical(path / RESULT, {"id": rid, "spec": spec})


def test_an_alarm_swallowed_by_a_finalizer_still_stops_the_run(tmp_path):
    """An alarm that lands in a ``__del__`` (or a gc callback) is lost to Python's unraisable
    hook; the deadline fires again, so the run ends as a timeout, with no result."""
    spec = {"runner": f"{__name__}:finalizer_runner", "seed": 0}
    res = execute(spec, tmp_path, timeout_s=0.05)
    assert res["status"] == "timeout" and "time limit" in res["error"]
    path = run_dir(tmp_path, run_id(spec))
    assert status(path) == "timeout" and not (path / RESULT).exists()
