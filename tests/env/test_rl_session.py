"""kbgym.rl against the contract of TRL's ``GRPOTrainer(environment_factory=...)``, duck-typed:
no TRL, no torch. The fake trainer below does what that trainer does with an environment
class: pool instances, ``reset(**row)``, expose public methods as tools (schemas from type
hints and docstrings), call them, and read ``get_reward()`` in the reward function."""

from __future__ import annotations

import functools
import inspect
import json
import re
import typing

import pytest

from kbgym.env import KBGymEnv
from kbgym.rl import KBGymSession, session_rows

CONFIG = {"reward": "both", "reward_k": 4, "reward_own": True}


def tool_methods(env) -> dict:
    """What the trainer exposes: public callables other than reset (TRL's rule)."""
    return {name: getattr(env, name) for name in dir(env)
            if not name.startswith("_") and name != "reset" and callable(getattr(env, name))}


def json_schema(fn) -> dict:
    """A function schema the way transformers' get_json_schema builds one: every parameter
    needs a type hint and an ``Args:`` entry; the first docstring line is the description."""
    doc = inspect.getdoc(fn)
    assert doc, f"{fn.__name__} has no docstring"
    hints = typing.get_type_hints(fn)
    args_block = doc.split("Args:")[1].split("Returns:")[0] if "Args:" in doc else ""
    documented = dict(re.findall(r"^\s*(\w+):\s*(.+)$", args_block, re.M))
    props = {}
    for name, p in inspect.signature(fn).parameters.items():
        assert name in hints, f"{fn.__name__}.{name} has no type hint"
        assert name in documented, f"{fn.__name__}.{name} is not described under Args:"
        props[name] = {"type": str(hints[name]), "description": documented[name]}
    assert "return" in hints
    return {"name": fn.__name__, "description": doc.splitlines()[0], "parameters": props}


class FakeGRPOTrainer:
    """The parts of the environment_factory loop the contract depends on."""

    def __init__(self, factory, rows, num_generations):
        self.factory, self.rows, self.g = factory, rows, num_generations
        self.pool: list = []

    def rollout_batch(self, batch_rows, policy) -> list[float]:
        n = len(batch_rows) * self.g
        while len(self.pool) < n:  # instances are created once and reused
            self.pool.append(self.factory())
        envs = self.pool[:n]
        for i, env in enumerate(envs):
            row = batch_rows[i // self.g]
            first = env.reset(**row)
            assert isinstance(first, str)
            tools = tool_methods(env)
            for name, kwargs in policy(first, i % self.g):
                out = tools[name](**kwargs)
                assert isinstance(out, str)
        return [env.get_reward() for env in envs]  # reward_func(environments=envs)


def scripted_policy(first: str, g: int, deletes: int = 0):
    """A fixed 'LLM' (the same for every generation g): search the question, answer, then add
    a note and optionally delete some notes, then done."""
    question = first.split("\n")[1]
    yield "search", {"query": question}
    yield "answer", {"text": "nobody"}
    yield "search", {"query": question, "page": 1}
    yield "add", {"text": f"Index: {question}"}
    if deletes:
        for k in range(deletes):
            yield "delete", {"id": f"s{k + 1:04d}"}
    yield "done", {}


@pytest.fixture()
def factory(small_universe):
    return functools.partial(KBGymSession, small_universe, CONFIG)


def test_tools_have_schemas_and_reset_is_not_a_tool(factory):
    env = factory()
    tools = tool_methods(env)
    assert {"search", "read", "answer", "add", "edit", "delete", "link", "link_many", "unlink",
            "done", "get_reward"} <= set(tools)
    assert "reset" not in tools
    schemas = [json_schema(fn) for name, fn in tools.items()]
    json.dumps(schemas)
    link_many = next(s for s in schemas if s["name"] == "link_many")
    assert link_many["parameters"]["targets"]["type"] == "list[str]"


def test_rows_name_training_questions_and_a_library(small_universe, tmp_path):
    rows = session_rows(small_universe, limit=5, repeat=2, libraries=["", str(tmp_path / "x")])
    assert len(rows) == 20
    assert {r["qid"] for r in rows} <= set(small_universe.splits["train"])
    assert all(r["prompt"][0]["role"] == "user" and r["qid"] in r["prompt"][0]["content"]
               for r in rows)
    assert {r["library"] for r in rows} == {"", str(tmp_path / "x")}
    with pytest.raises(ValueError, match="unknown split"):
        session_rows(small_universe, split="nope")


def test_group_rollouts_start_from_one_library_and_pooled_instances_restore(
        small_universe, factory):
    rows = session_rows(small_universe, limit=3)
    trainer = FakeGRPOTrainer(factory, rows, num_generations=2)
    r1 = trainer.rollout_batch(rows[:2], scripted_policy)
    # the G rollouts of one row took the same actions from the same start: same reward
    assert r1[0] == r1[1] and r1[2] == r1[3]
    # the pool is reused for the next batch, and reset restores everything: a fresh
    # instance on the same rows gives the same rewards
    r2 = trainer.rollout_batch(rows[:2], scripted_policy)
    assert r2 == r1 and len(trainer.pool) == 4
    fresh = FakeGRPOTrainer(factory, rows, num_generations=2).rollout_batch(rows[:2],
                                                                           scripted_policy)
    assert fresh == r1


def test_session_reward_equals_the_env_for_the_same_actions(small_universe, factory):
    qid = small_universe.splits["train"][2]
    s = factory()
    first = s.reset(qid=qid, library="", prompt=[{"role": "user", "content": "unrelated"}])
    env = KBGymEnv(small_universe, config=CONFIG)
    obs, _ = env.reset(options={"qid": qid})
    task = env.episode.memory.task  # the chat does not hold the task block: it comes first
    assert first == f"{task}\n\nRemaining actions this phase: 15."
    total = 0.0
    for name, kwargs in scripted_policy(first, 0, deletes=3):
        out = getattr(s, name)(**kwargs)
        obs, r, term, trunc, info = env.step({"action": name, **kwargs})
        total += r
        assert out.startswith(info["result"])
    assert s.get_reward() == pytest.approx(total)
    assert s.info["curation"]["reward"] < 0  # deleting notes cost the reader


def test_out_of_phase_tools_return_the_env_error(factory, small_universe):
    s = factory()
    assert s.search(query="x").startswith("ERROR")  # before reset: an error, not a raise
    s.reset(qid=small_universe.splits["train"][0])
    out = s.add(text="A note.")  # forward phase: add is not offered
    assert out.startswith("ERROR") and "add" in out
    s.answer(text="x")
    assert s.answer(text="again").startswith("ERROR")  # backward: no answer tool
    s.done()
    assert s.read(id="s0001") == "ERROR: episode is over - call reset()"


def test_get_reward_ends_an_unfinished_backward_phase(factory, small_universe):
    s = factory()
    s.reset(qid=small_universe.splits["train"][1])
    s.answer(text="x")
    s.delete(id=small_universe.question(small_universe.splits["train"][1]).support[0])
    reward = s.get_reward()
    assert "curation" in s.info and reward == pytest.approx(s.info["curation"]["reward"])
    assert s.get_reward() == reward  # idempotent


def test_rows_from_a_snapshot_library(small_universe, tmp_path, factory):
    env = KBGymEnv(small_universe)
    env.library.add("Snapshot marker note quokka.")
    path = tmp_path / "lib.json"
    env.snapshot(path)
    s = factory()
    s.reset(qid=small_universe.splits["train"][0], library=str(path))
    assert "quokka" in s.search(query="quokka")
    s.reset(qid=small_universe.splits["train"][0], library="")
    assert "quokka" not in s.search(query="quokka")


def test_the_chat_gets_only_what_it_does_not_hold(small_universe, factory):
    """TRL appends reset()'s text to the row's last user message and each tool's text as a
    tool message: nothing the chat already holds is repeated."""
    system = "You curate a library. (instruction text from an agents/ prompt file)"
    rows = session_rows(small_universe, limit=1, system_prompt=system)
    row = rows[0]
    assert [m["role"] for m in row["prompt"]] == ["system", "user"]
    assert row["prompt"][0]["content"] == system
    s = factory()
    first = s.reset(**row)
    assert first == "\n\nRemaining actions this phase: 15."  # the row holds the task block
    q = small_universe.question(row["qid"])
    out = s.search(query=q.text)
    assert out.startswith("page 1:\n- ") and "Recent actions" not in out
    assert "TRAIN QUESTION" not in out
    out = s.answer(text="nobody")
    result, task, budget = out.split("\n\n")
    assert result.startswith("submitted | your F1: ")
    assert task.startswith(f"TRAIN QUESTION {row['qid']} [phase 2: backward]")
    assert f'gold answer: "{q.golds[0]}"' in task and budget == "Remaining actions this phase: 30."
    assert "Recent actions" not in out
    assert s.done() == "phase complete"
    assert session_rows(small_universe, limit=1)[0]["prompt"][0]["role"] == "user"
