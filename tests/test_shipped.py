"""``kbgym.shipped``: the configs, example corpus and PhantomWiki fixture are found from any
folder, a user's own file wins over a shipped one, and an unknown name lists the shipped ones.
(.ci/wheel_check does the same from a wheel installed outside the repository.)"""

from __future__ import annotations

import pytest

from kbgym import shipped
from kbgym.cli import main
from kbgym.config import load_config
from kbgym.errors import ConfigError


def test_a_shipped_config_is_found_by_name_or_by_its_configs_path_from_any_folder(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert "small" in shipped.config_names() and "sweep_demo" in shipped.config_names()
    by_name, by_path = load_config("small"), load_config("configs/small.yaml")
    assert by_name.model_dump() == by_path.model_dump() and by_name.universe.n_people == 60


def test_a_users_own_file_wins_over_the_shipped_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs/small.yaml").write_text("universe: {n_people: 7}\n")
    assert load_config("configs/small.yaml").universe.n_people == 7


def test_an_unknown_config_name_lists_the_shipped_ones(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"smal: no such file.*shipped: .*small"):
        load_config("smal")
    assert main(["build", "--config", "smal", "--out", "u.json"]) == 2
    assert "not a shipped config" in capsys.readouterr().err
    assert not (tmp_path / "u.json").exists()


def test_the_example_corpus_imports_from_an_empty_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["import", "corpus", "--docs", "examples/corpus/docs", "--questions",
                 "examples/corpus/questions.jsonl", "--out", "c.json"]) == 0
    assert "documents=5" in capsys.readouterr().out and (tmp_path / "c.json").exists()


def test_the_reproduction_finds_its_phantomwiki_generation():
    from kbgym.reproduce.settings import PW_FIXTURE

    assert (PW_FIXTURE / "articles.json").is_file() and (PW_FIXTURE / "questions.json").is_file()
