"""One conformance suite over every registered world (issue 33), as Gymnasium runs one over
every registered id: the shipped worlds, any installed through the ``kbgym.worlds`` entry
points, and the tiny test world (tiny_world.py), which gets all of it by registering.

Each world is checked on a small universe: generation (or import) is deterministic; its
independent gold check (where it has one) passes and catches a planted wrong gold;
Gymnasium's check_env passes in train and probe mode; a scripted training run replays byte
for byte; its probe has the world's groups, drawn from the universe and the run; the world's
scripted reader and curator run end to end; the navigator answers; the world's code keeps the
layer contract. Seconds per world.
"""

from __future__ import annotations

import ast
import dataclasses
import warnings
from pathlib import Path

import pytest

import small_worlds as S
import tiny_world
from kbgym.worlds import World, register, unregister, world, worlds

ROOT = Path(__file__).resolve().parents[2]

register(tiny_world.WORLD)  # the one line a new world needs (a shipped one: its folder)


def _small(name: str, tmp: Path):
    """A small universe of world ``name``: the helpers of small_worlds.py for the shipped
    worlds, else the world's generator with small overrides it accepts."""
    maker = getattr(S, name, None)
    if maker is not None:
        return maker(tmp) if name == "corpus" else maker()
    w = world(name)
    if not w.generated:
        pytest.skip(f"{name}: an imported world with no small universe in small_worlds.py")
    return w.generate(w.config({}, seed=0))


NAMES = sorted(worlds())
_CACHE: dict = {}


def _load(name: str, path: Path):
    import importlib.util
    import sys

    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


def _people_golds(u) -> list[str]:
    """tests/universe/oracle.py: golds re-derived from the people table and the text."""
    oracle = _load("_kbgym_tests_universe_oracle", ROOT / "tests" / "universe" / "oracle.py")
    orc, bad = oracle.Oracle(u), []
    for q in u.questions:
        try:
            golds = orc.evaluate(q.template, q.text)[0]
        except oracle.OracleError:
            golds = None
        if tuple(q.golds) != golds:
            bad.append(q.qid)
    return bad


def _policy_golds(u) -> list[str]:
    """tests/worlds/test_policy_golds.py: golds recomputed from the ledger rows."""
    mod = _load("_kbgym_tests_policy_golds", ROOT / "tests" / "worlds" / "test_policy_golds.py")
    ch = mod.Checker(u)
    return [q.qid for q in u.questions if q.golds[0] != mod.expected(ch, q)[0]]


def _casebook_golds(u) -> list[str]:
    """scripts/experiments/casebook_gold_check.py: golds from ledger rows and paragraph text."""
    mod = _load("_kbgym_casebook_gold_check",
                ROOT / "scripts" / "experiments" / "casebook_gold_check.py")
    return sorted({line.split()[0].rstrip(":,") for line in mod.check(u)[2]})


#: The independent gold checks the shipped worlds keep beside their code (a world may also
#: carry one, World.check_golds); imported worlds take their golds from the source.
GOLD_CHECKS = {"people": _people_golds, "policies": _policy_golds, "casebook": _casebook_golds}


@pytest.fixture(params=NAMES)
def case(request, tmp_path_factory):
    name = request.param
    if name not in _CACHE:
        _CACHE[name] = _small(name, tmp_path_factory.mktemp(name))
    return world(name), _CACHE[name]


@pytest.fixture
def trained_run(case, tmp_path_factory):
    """A scripted training run of a few questions (the world's own curator)."""
    from kbgym.plugins import make_agent
    from kbgym.runs.train import TrainConfig, train

    w, u = case
    key = ("run", w.name)
    if key not in _CACHE:
        out = tmp_path_factory.mktemp(f"run-{w.name}")
        train(u, make_agent(w.curator, offered={"seed": 0}), out,
              config=TrainConfig(epochs=1, train_size=min(6, len(u.splits["train"])),
                                 snapshot_every=3))
        _CACHE[key] = out
    return _CACHE[key]


def test_the_registry_holds_every_world_once_with_one_default():
    assert {"people", "policies", "phantomwiki", "corpus", tiny_world.NAME} <= set(NAMES)
    assert [w.name for w in worlds().values() if w.default] == ["people"]
    for name, w in worlds().items():
        assert isinstance(w, World) and w.name == name and w.description


def test_the_universe_knows_its_world(case):
    from kbgym.worlds import world_of

    w, u = case
    assert world_of(u) is w


def test_generation_or_import_is_deterministic(case, tmp_path):
    w, u = case
    again = _small(w.name, tmp_path)
    assert again.hash == u.hash and again.dumps() == u.dumps()
    import json

    from kbgym.types import Universe

    assert Universe.from_json(json.loads(u.dumps())).hash == u.hash


def test_the_independent_gold_check_passes_and_catches_a_wrong_gold(case):
    w, u = case
    check = w.check_golds if w.check_golds(u) is not None else GOLD_CHECKS.get(w.name)
    if check is None:
        pytest.skip(f"{w.name}: no independent gold check (an import: golds from the source)")
    assert check(u) == []
    q = u.questions[0]
    planted = dataclasses.replace(q, golds=("not the gold",))
    wrong = dataclasses.replace(u, questions=(planted, *u.questions[1:]), _cache={})
    assert check(wrong) == [q.qid]


@pytest.mark.parametrize("mode", ["train", "probe"])
def test_check_env(case, mode):
    from gymnasium.utils.env_checker import check_env

    from kbgym.env import KBGymEnv

    w, u = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium's own notes on the observation space
        check_env(KBGymEnv(u, mode=mode, strict=True), skip_render_check=True)


def test_a_training_run_replays_byte_for_byte(case, trained_run):
    from kbgym.runs.replay import verify_all_epochs

    w, u = case
    assert set(verify_all_epochs(trained_run, u).values()) == {None}


def test_the_probe_has_the_worlds_groups(case, trained_run):
    from kbgym.runs.probe import make_probe_from_run

    w, u = case
    probe = make_probe_from_run(u, trained_run, per_group=4, seed=1)
    assert probe == make_probe_from_run(u, trained_run, per_group=4, seed=1)
    assert probe["kind"] == "kbgym.probe" and probe["universe_hash"] == u.hash
    assert "exact" in probe["splits"] and len(probe["splits"]) >= 2
    gids = [g for ids in probe["splits"].values() for g in ids]
    assert gids == ["g%04d" % (i + 1) for i in range(len(probe["questions"]))]
    from kbgym.runs.logs import read_jsonl

    trained = {r["qid"] for r in read_jsonl(trained_run / "train_log.jsonl")}
    for q in probe["questions"]:
        if q["qid"] in probe["splits"]["exact"]:
            assert q["source_qid"] in trained  # exact: copies of trained questions
        assert q["text"] and q["golds"] is not None


def test_the_scripted_reader_and_curator_run_end_to_end(case, trained_run):
    from kbgym.library.snapshot import load_snapshot
    from kbgym.plugins import make_agent
    from kbgym.runs.exam import examine

    w, u = case
    library, _ = load_snapshot(trained_run / "kb_epoch_1.json")
    split = "test_in" if u.splits.get("test_in") else "train"
    rows = examine(u, library, make_agent(w.reader), split=split, limit=3)
    assert [r["qid"] for r in rows] == list(u.splits[split][:3])
    assert all(0.0 <= r["f1"] <= 1.0 and r["steps"] >= 1 for r in rows)


def test_the_scripted_agents_raise_no_internal_error(case, trained_run):
    """The same agents on a strict env (internal errors re-raised, not answered ERROR): a
    training episode of the curator and an exam of the reader."""
    from kbgym.env import KBGymEnv
    from kbgym.library.snapshot import load_snapshot
    from kbgym.plugins import make_agent
    from kbgym.runs.episode import run_episode

    w, u = case
    qid = u.splits["train"][0]
    summary, rows, _ = run_episode(KBGymEnv(u, strict=True),
                                   make_agent(w.curator, offered={"seed": 0}), qid)
    assert rows and summary["qid"] == qid
    library, _ = load_snapshot(trained_run / "kb_epoch_1.json")
    exam = KBGymEnv(u, mode="probe", library=library, strict=True,
                    questions=list(u.questions), split="all")
    for q in u.questions[:3]:
        summary, rows, _ = run_episode(exam, make_agent(w.reader), q.qid)
        assert rows and 0.0 <= summary["f1"] <= 1.0


def test_the_navigator_answers_on_the_full_library(case):
    from kbgym.env import KBGymEnv
    from kbgym.env.config import KBGymConfig
    from kbgym.library.graph import Library
    from kbgym.metrics.navigator import SHOWN, UNAVAILABLE, Navigator

    w, u = case
    env = KBGymEnv(u, mode="probe", library=Library.from_universe(u),
                   questions=list(u.questions), split="all", config=KBGymConfig())
    nav = Navigator(env.library, u)
    questions = [q for q in u.questions if not q.unanswerable][:8]
    known = [q for q in questions if q.support and q.support_status != "unavailable"]
    for q in questions:
        r = nav.run(q)
        if q in known:
            assert r.reason in {SHOWN, "budget", "stuck"}, (q.qid, r)
            assert r.reason != SHOWN or 1 <= r.steps <= nav.m
        else:  # support unknown (an imported source without it): no figure
            assert r.reason == UNAVAILABLE and r.steps is None
    assert not known or any(nav.run(q).reason == SHOWN for q in known)


def test_the_world_keeps_the_layer_contract(case):
    """Its World lives in a module that imports nothing above the runs layer (no command
    line, no sweep), and generic code imports nothing of it (tests/worlds/
    test_no_world_names.py, tests/test_layers.py)."""
    import inspect

    w, _ = case
    source = Path(inspect.getfile(type(w)))
    above = ("kbgym.cli", "kbgym.sweep", "kbgym.reproduce", "kbgym.serve", "kbgym.view",
             "kbgym.bench", "kbgym.rl")
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        mod = (node.module if isinstance(node, ast.ImportFrom) else
               node.names[0].name if isinstance(node, ast.Import) else None)
        assert not (mod or "").startswith(above), f"{source} imports {mod}"


def test_a_registered_world_can_leave():
    class Gone(type(tiny_world.WORLD)):
        name = "gone"

    register(Gone())
    assert world("gone").name == "gone"
    unregister("gone")
    with pytest.raises(Exception, match="unknown world 'gone'"):
        world("gone")
