"""A curator written with the published parser runs the same under both observation layouts,
and a curator that silently does nothing is told so (kbgym.runs.verdict)."""

from __future__ import annotations

import warnings

import gymnasium as gym
import pytest

import kbgym
from kbgym import agent_factory
from kbgym.cli import main
from kbgym.protocol import parse_edit, parse_observation, parse_search
from kbgym.runs.recorder import RunRecorder, VerdictWarning
from kbgym.runs.train import TrainConfig, train
from kbgym.runs.verdict import train_verdict, verdict_line
from kbgym.worlds.people import UniverseConfig, generate


class ProtocolCurator:
    """Searches the question, answers "unknown", then indexes what the search showed —
    reading everything with kbgym.protocol, never with its own patterns."""

    def reset(self):
        self.page = None

    def act(self, observation, info):
        obs = parse_observation(observation)
        last = obs.history[-1] if obs.history else None
        if obs.phase == "forward":
            if last is None:
                return {"action": "search", "query": obs.question}
            self.page = parse_search(last.result)
            return {"action": "answer", "text": "unknown"}
        if last is not None and last.name == "add":
            src = parse_edit(last.result).ids[0]
            return {"action": "link_many", "source": src,
                    "targets": [h.id for h in self.page.hits]}
        if last is not None and last.name == "link_many":
            return {"action": "done"}
        return {"action": "add", "text": f"Notes for: {obs.task.question} ({obs.task.gold})"}


class OldLayoutCurator(ProtocolCurator):
    """The user of the issue: splits the task block at "Remaining actions", as the first
    layout allowed, so under the current one it never finds its question's page."""

    def act(self, observation, info):
        text = observation["text"]
        if "Recent actions" in text.split("Remaining actions", 1)[0]:
            return {"action": "search", "query": "x"}  # it cannot read this layout
        return super().act(observation, info)


@pytest.fixture(scope="module")
def u():
    return generate(UniverseConfig(seed=4, n_people=60))


def _play(env, agent, qids):
    trace = []
    for qid in qids:
        obs, info = env.reset(options={"qid": qid})
        agent.reset()
        done = False
        while not done:
            obs, _, term, trunc, info = env.step(agent.act(obs, info))
            trace.append((info["action"], info["input"], info["result"]))
            done = term or trunc
    return trace, env.unwrapped.library.snapshot()


def test_a_protocol_curator_runs_the_same_under_v0_and_v1(u):
    qids = u.splits["train"][:6]
    runs = {}
    for env_id in ("kbgym/KBGym-v1", "kbgym/KBGym-v0"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # v0 is deprecated, on purpose
            env = gym.make(env_id, universe=u, mode="train")
        runs[env_id] = _play(env, ProtocolCurator(), qids)
    assert runs["kbgym/KBGym-v1"] == runs["kbgym/KBGym-v0"]
    trace, snap = runs["kbgym/KBGym-v1"]
    assert sum(name == "link_many" for name, _, _ in trace) == len(qids)
    assert sum(n["origin"] is None for n in snap["nodes"]) == len(qids)


def test_a_curator_that_does_nothing_is_told_so(u, tmp_path, capsys):
    out = tmp_path / "idle"
    meta = train(u, OldLayoutCurator(), out, config=TrainConfig(epochs=1, train_size=4))
    v = meta["verdict"]
    assert not v["ok"] and v["edits"] == 0 and v["forward_exhausted"] == 4
    assert "0 edits in 4 iterations" in verdict_line(v)
    assert "4 of 4 forward phases ran out of steps" in verdict_line(v)
    # the command line prints it after the run summary
    main(["train", "--universe", str(_write(u, tmp_path)), "--agent",
          "tests.protocol.test_layouts_and_verdict:old_layout", "--epochs", "1",
          "--train-size", "3", "--out", str(tmp_path / "cli")])
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1].startswith("verdict: this curator did nothing useful: 0 edits in 3")


def test_a_working_curator_gets_no_verdict_line(u, tmp_path):
    meta = train(u, ProtocolCurator(), tmp_path / "ok", config=TrainConfig(epochs=1,
                                                                          train_size=4))
    assert meta["verdict"]["ok"] and meta["verdict"]["edits"] == 8
    assert verdict_line(meta["verdict"]) is None


def test_most_actions_invalid_names_the_most_common_error():
    rows = [{"edits": {"add": 1}, "answer": "x"}]
    trace = [{"valid": False, "result": "ERROR: unknown action fly"}] * 3 + [{"valid": True}]
    v = train_verdict(rows, trace)
    assert v["problems"] == ["3 of 4 actions were invalid"]
    assert v["most_common_error"] == {"error": "ERROR: unknown action fly", "count": 3}


def test_the_recorder_warns_when_a_hand_driven_loop_did_nothing(u, tmp_path):
    env = RunRecorder(kbgym.KBGymEnv(u, mode="train"), tmp_path / "rec")
    agent = OldLayoutCurator()
    with pytest.warns(VerdictWarning, match="0 edits in 2 iterations"):
        _play(env, agent, u.splits["train"][:2])
        env.close()
    assert env.verdict["forward_exhausted"] == 2


@agent_factory
def old_layout(**_):
    return OldLayoutCurator()


def _write(u, tmp_path):
    path = tmp_path / "u.json"
    path.write_text(u.dumps(), encoding="utf-8")
    return path
