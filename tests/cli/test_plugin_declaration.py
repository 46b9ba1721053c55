"""An agent spec is a registered plugin or a declared ``module:factory``; anything else is
refused by name before anything runs, and validating a grid imports and calls nothing."""

from __future__ import annotations

import sys

import pytest

from kbgym import agent_factory
from kbgym.cli import main
from kbgym.errors import ConfigError
from kbgym.plugins import check_spec, load_factory, make_agent, resolve

GRID = ("seeds: [0]\nuniverses: [{{n_people: 60, n_cities: 8, sizes: [30, 10, 10], "
        "eval_sizes: [6, 4]}}]\ntrain: {{epochs: 1, train_size: 4}}\n"
        "probe: {{per_group: 2, resamples: 200}}\ncurators: [{curator}]\n")

#: a module with a side effect on import, a declared factory with a side effect on call, and
#: an undeclared function
USER = ("import pathlib\n"
        "import kbgym\n"
        "pathlib.Path('imported.txt').write_text('x')\n\n"
        "@kbgym.agent_factory\n"
        "def make(path='called.txt', seed=0):\n"
        "    pathlib.Path(path).write_text('x')\n"
        "    from kbgym_agents.scripted.factories import noop_trainer\n"
        "    return noop_trainer()\n\n"
        "def undeclared(path='called.txt'):\n"
        "    pathlib.Path(path).write_text('x')\n\n"
        "class Sub(kbgym.agent_factory(type('Base', (), {}))):\n"
        "    pass\n")


@pytest.fixture
def user_dir(tmp_path, monkeypatch):
    (tmp_path / "kbgym_user_agents.py").write_text(USER)
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    sys.modules.pop("kbgym_user_agents", None)


@pytest.mark.parametrize("spec", ["builtins:exit", "os:system", "shutil:rmtree",
                                  "subprocess:run", "os:_exit", "kbgym.plugins:make_agent",
                                  "json:dumps"])
def test_callables_that_are_not_declared_are_refused_by_name(spec):
    with pytest.raises(ConfigError) as err:
        resolve(spec)
    line = str(err.value)
    assert spec in line and "\n" not in line
    assert "not an agent factory" in line or "cannot load agent" in line
    with pytest.raises(ConfigError):
        make_agent(spec)


def test_cli_agent_builtins_exit_is_refused(tmp_path, capsys):
    rc = main(["train", "--agent", "builtins:exit", "--out", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "builtins:exit" in err[0]
    assert not (tmp_path / "o").exists()


def test_resolving_reads_source_and_imports_nothing(user_dir):
    found = check_spec("kbgym_user_agents:make", {"path": "x"})
    assert found.options == ("path", "seed") and not found.plugin
    assert "kbgym_user_agents" not in sys.modules
    assert not (user_dir / "imported.txt").exists()
    with pytest.raises(ConfigError, match="has no option 'colour'"):
        check_spec("kbgym_user_agents:make", {"colour": 1})
    with pytest.raises(ConfigError, match="kbgym_user_agents:undeclared.*not an agent factory"):
        check_spec("kbgym_user_agents:undeclared", {})
    with pytest.raises(ConfigError, match="defines no 'missing'"):
        check_spec("kbgym_user_agents:missing", {})
    assert "kbgym_user_agents" not in sys.modules
    assert not any(user_dir.glob("*.txt"))


def test_a_declared_factory_loads_and_its_subclass_does_not(user_dir):
    assert callable(load_factory("kbgym_user_agents:make"))
    assert (user_dir / "imported.txt").exists()
    with pytest.raises(ConfigError, match="not an agent factory"):
        load_factory("kbgym_user_agents:Sub")
    with pytest.raises(ConfigError, match="not an agent factory"):
        load_factory("kbgym_user_agents:undeclared")  # read from the loaded module now


def test_registered_plugins_resolve_with_their_options():
    assert resolve("scripted-random").plugin and resolve("scripted-random").options == ("seed",)
    with pytest.raises(ConfigError, match="has no option 'model'"):
        check_spec("scripted-random", {"model": "m"})
    with pytest.raises(ConfigError, match="unknown agent 'nope'"):
        resolve("nope")


def test_every_shipped_factory_is_declared():
    from kbgym_agents.zoo.curators import ZOO

    for spec in ZOO.values():
        assert load_factory(spec)
    for spec in ("kbgym_agents.scripted.pw:index_trainer", "kbgym_agents.scripted.pw:reader",
                 "kbgym_agents.llm.factories:trainer"):
        assert resolve(spec) and load_factory(spec)


@pytest.mark.parametrize("curator, needle", [
    ("{name: 'os:system', options: {command: 'touch pwned.txt'}}", "os:system"),
    ("{name: 'shutil:rmtree', options: {path: 'victim'}}", "shutil:rmtree"),
    ("{name: 'kbgym_user_agents:undeclared', options: {path: 'called.txt'}}", "undeclared"),
    ("'builtins:exit'", "builtins:exit"),
])
def test_sweep_dry_run_refuses_undeclared_callables_and_runs_nothing(user_dir, capsys,
                                                                     curator, needle):
    (user_dir / "victim").mkdir()
    (user_dir / "grid.yaml").write_text(GRID.format(curator=curator))
    rc = main(["sweep", "grid.yaml", "--out", "out", "--dry-run"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and needle in err[0]
    assert (user_dir / "victim").is_dir() and not any(user_dir.glob("*.txt"))
    assert not (user_dir / "out").exists() and "kbgym_user_agents" not in sys.modules


def test_sweep_dry_run_of_a_declared_factory_imports_and_calls_nothing(user_dir, capsys):
    (user_dir / "grid.yaml").write_text(GRID.format(
        curator="{name: 'kbgym_user_agents:make', options: {path: 'called.txt'}}"))
    assert main(["sweep", "grid.yaml", "--out", "out", "--dry-run"]) == 0
    assert not any(user_dir.glob("*.txt")) and "kbgym_user_agents" not in sys.modules
    (user_dir / "grid.yaml").write_text(GRID.format(
        curator="{name: 'kbgym_user_agents:make', options: {colour: red}}"))
    assert main(["sweep", "grid.yaml", "--out", "out", "--dry-run"]) == 2
    assert "has no option 'colour'" in capsys.readouterr().err


def test_decorator_marks_functions_and_classes():
    @agent_factory
    def f():
        return None

    assert f.__kbgym_agent_factory__ is True
