"""KBGym as an outside user meets it: Gymnasium's own entry points, wrappers and checker, the
README's curator example recorded with RunRecorder and read back by the CLI, the import names
the install provides, and memory across many envs. Everything runs from a folder that is not
the repository."""

from __future__ import annotations

import gc
import re
import subprocess
import sys
import weakref
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import RecordEpisodeStatistics

import kbgym  # noqa: F401  (registers kbgym/KBGym-v1)
from kbgym.cli import main
from kbgym.env import KBGymEnv

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")

FRESH = """
import importlib.util, sys
import gymnasium as gym
assert "kbgym" not in sys.modules
env = gym.make("kbgym:kbgym/KBGym-v1", mode="probe")
obs, info = env.reset(seed=0)
assert obs["text"].startswith("QUESTION "), obs["text"][:40]
env.close()
from kbgym_agents.scripted.reader import ScriptedReader
spec = importlib.util.find_spec("agents")  # OpenAI's Agents SDK's name: never kbgym's
assert spec is None or not str(spec.origin).startswith(sys.argv[1]), spec
print("ok", type(env.unwrapped).__name__, ScriptedReader.__name__)
"""


def test_a_fresh_interpreter_makes_the_env_from_the_module_qualified_id(tmp_path):
    out = subprocess.run([sys.executable, "-c", FRESH, str(ROOT)], capture_output=True,
                         text=True, cwd=tmp_path, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok KBGymEnv ScriptedReader"


def test_the_plain_id_after_import_kbgym():
    env = gym.make("kbgym/KBGym-v1")
    assert type(env.unwrapped) is KBGymEnv and env.spec.id == "kbgym/KBGym-v1"
    env.close()


def answer_then_done(obs):
    return ({"action": "answer", "text": "unknown"} if obs["phase"] == 1
            else {"action": "done"} if obs["phase"] == 2 else {"action": "answer", "text": "x"})


def search_forever(obs):
    return {"action": "search", "query": "city"}


@pytest.mark.parametrize("mode, policy, ends", [
    ("train", answer_then_done, "terminated"), ("train", search_forever, "truncated"),
    ("probe", answer_then_done, "terminated"), ("probe", search_forever, "truncated")])
def test_record_episode_statistics_sees_whole_episodes(mode, policy, ends):
    env = RecordEpisodeStatistics(gym.make("kbgym/KBGym-v1", mode=mode))
    for seed in range(2):
        obs, _ = env.reset(seed=seed)
        n, total = 0, 0.0
        while True:
            obs, r, term, trunc, info = env.step(policy(obs))
            n, total = n + 1, total + r
            if term or trunc:
                break
        assert (term, trunc) == ((True, False) if ends == "terminated" else (False, True))
        assert set(info["episode"]) == {"r", "l", "t"}  # Gymnasium's, not KBGym's
        assert info["episode"]["l"] == n and info["episode"]["r"] == pytest.approx(total)
        assert info["episode_summary"]["steps"] == n
    env.close()


ANSWER, DONE = {"action": "answer", "text": "x"}, {"action": "done"}
SEARCH = {"action": "search", "query": "a"}


def run_vector(vector, plans, steps, **make):
    """Step a 2-env vector env under Gymnasium's RecordEpisodeStatistics through ``steps``
    steps, env i following ``plans[i]`` from each of its resets; the lengths it records."""
    venv = gym.wrappers.vector.RecordEpisodeStatistics(
        vector([lambda: gym.make("kbgym/KBGym-v1", **make) for _ in range(2)]))
    obs, _ = venv.reset(seed=0)
    pos, resetting, lengths = [0, 0], [False, False], {0: [], 1: []}
    try:
        for _ in range(steps):
            # NEXT_STEP autoreset: the step after an end resets that env, ignoring its action
            acts = tuple(DONE if resetting[i] else plans[i][pos[i]] for i in range(2))
            for i in range(2):
                pos[i] = 0 if resetting[i] else pos[i] + 1
            obs, r, term, trunc, info = venv.step(acts)
            done = term | trunc
            resetting = [bool(d) for d in done]
            if done.any():
                assert (info["_episode"] == done).all()
                assert (info["_episode_summary"] == done).all()
                for i in np.flatnonzero(done):
                    lengths[int(i)].append(int(info["episode"]["l"][i]))
                    assert info["episode_summary"]["steps"][i] == info["episode"]["l"][i]
            else:
                assert "episode" not in info
    finally:
        venv.close()
    return lengths


@pytest.mark.parametrize("vector", [gym.vector.SyncVectorEnv, gym.vector.AsyncVectorEnv])
def test_vector_envs_autoreset_through_natural_episode_ends(vector):
    """Both envs end each episode together (answer, done), Gymnasium resets them on the next
    step, and RecordEpisodeStatistics writes info["episode"] beside KBGym's summary."""
    plans = [[ANSWER, DONE], [ANSWER, DONE]]
    assert run_vector(vector, plans, 9) == {0: [2, 2, 2], 1: [2, 2, 2]}


@pytest.mark.parametrize("case", ["reset_beside_a_step", "unreadable_beside_valid",
                                  "answered_beside_unanswered"])
def test_vector_envs_whose_envs_are_at_different_points(case):
    if case == "reset_beside_a_step":  # env 0 ends after 2 steps, env 1 after 4
        run_vector(gym.vector.SyncVectorEnv,
                   [[ANSWER, DONE], [SEARCH, ANSWER, SEARCH, DONE]], 6)
    elif case == "unreadable_beside_valid":
        run_vector(gym.vector.SyncVectorEnv, [["not an action"] * 3, [SEARCH] * 3], 2)
    else:  # both end at step 2; env 1's forward budget of 1 ran out without an answer
        run_vector(gym.vector.SyncVectorEnv, [[ANSWER, DONE], [SEARCH, DONE]], 2,
                   config={"n1": 1})


@pytest.mark.parametrize("mode", ["train", "probe"])
def test_gymnasium_env_checker_passes(mode):
    check_env(gym.make("kbgym/KBGym-v1", mode=mode).unwrapped, skip_render_check=True)


def test_the_readme_curator_recorded_is_a_run_the_cli_reads(tmp_path, monkeypatch, capsys):
    block = next(b for b in re.findall(r"```python\n(.*?)```", README, re.S)
                 if 'RunRecorder(KBGymEnv(mode="train"), "runs/mine")' in b)
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md", "exec"), {})
    run = tmp_path / "runs" / "mine"
    assert (run / "meta.json").exists() and (run / "kb_epoch_1.json").exists()
    assert main(["probe", "make", "--run", str(run), "--out", "probe.json"]) == 0
    assert main(["replay", "--run", str(run), "--all-epochs"]) == 0
    assert "epoch 1: ok" in capsys.readouterr().out
    assert main(["report", "--run", str(run)]) == 0
    assert (run / "report.md").exists() and (tmp_path / "probe.json").exists()


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    pytest.skip("needs /proc/self/status")


def _one_env(seed: int) -> None:
    env = gym.make("kbgym/KBGym-v1")
    env.reset(seed=seed)
    env.step({"action": "answer", "text": "x"})
    env.step({"action": "add", "text": f"note {seed}"})
    env.step({"action": "done"})
    env.close()


def test_making_and_closing_fifty_envs_does_not_grow_memory():
    # Slow (~14 s on CI): default-size envs, so a leaked library (MBs) shows against the 15 MB
    # bound; a full collection after each keeps the RSS reading steady.
    for i in range(10):
        _one_env(i)
        gc.collect()
    base = _rss_mb()
    for i in range(10, 50):
        _one_env(i)
        gc.collect()
    assert _rss_mb() - base < 15, (base, _rss_mb())


def test_a_closed_env_is_freed_without_the_cycle_collector():
    gc.disable()
    try:
        env = gym.make("kbgym/KBGym-v1")
        env.reset(seed=0)
        env.close()
        ref = weakref.ref(env.unwrapped.library)
        del env
        assert ref() is None
    finally:
        gc.enable()


JUNK = ["not an action", {"action": "search", "query": 5}, {"action": "read", "id": ["x"]}, 42,
        None, {"action": "search", "query": "x", "page": "two"}, {"action": "answer", "text": "x"},
        {"action": "done"}, {"action": "search", "query": "x", "page": 2}]


@pytest.mark.parametrize("mode, config", [("train", {}), ("probe", {}),
                                          ("train", {"n1": 3, "n2": 3})])
def test_vector_envs_take_any_mix_of_actions(mode, config):
    """Sampled and hostile actions side by side in a vector env under Gymnasium's
    RecordEpisodeStatistics: infos keep one shape per key, so the merge never fails."""
    rng = np.random.default_rng(0)
    venv = gym.wrappers.vector.RecordEpisodeStatistics(gym.vector.SyncVectorEnv(
        [lambda: gym.make("kbgym/KBGym-v1", mode=mode, config=config) for _ in range(3)]))
    space = venv.unwrapped.envs[0].unwrapped.action_space
    space.seed(0)
    venv.reset(seed=1)
    ends = 0
    try:
        for _ in range(120):
            acts = tuple(space.sample() if rng.random() < 0.5 else JUNK[rng.integers(len(JUNK))]
                         for _ in range(3))
            _, _, term, trunc, info = venv.step(acts)
            ends += int((term | trunc).sum())
            assert info["_input"].all() and isinstance(info["input"], dict)
    finally:
        venv.close()
    assert ends > 0
