"""An exception raised in the user's own agent: one line naming the user's file and line (the
innermost frame outside kbgym), exit status 1, and a run folder that ``--resume`` continues
once the bug is fixed. Errors inside kbgym keep their own message."""

from __future__ import annotations

import sys

import pytest

from kbgym.cli import main
from kbgym.runs.logs import read_jsonl

AGENT = """import kbgym


class Curator:
    def __init__(self):
        self.episodes = 0

    def reset(self):
        pass

    def act(self, observation, info=None):
        if observation["phase"] != 2:
            return {{"action": "answer", "text": "unknown"}}
        self.episodes += 1
        return {{"action": "done"}} if self.episodes < {crash_at} else self.broken()

    def broken(self):
        return {{"action": "done", "share": 1 / 0}}


@kbgym.agent_factory
def make():
    return Curator()
"""


@pytest.fixture
def curator(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KBGYM_DEBUG", raising=False)

    def write(crash_at: int) -> None:
        (tmp_path / "my_curator.py").write_text(AGENT.format(crash_at=crash_at))
        sys.modules.pop("my_curator", None)

    yield write
    sys.modules.pop("my_curator", None)


TRAIN = ["train", "--agent", "my_curator:make", "--epochs", "1", "--train-size", "6",
         "--quiet", "--out", "run"]


def test_a_crash_in_the_users_curator_names_its_file_and_line_and_resumes(tmp_path, curator,
                                                                            capsys):
    curator(crash_at=4)
    assert main(TRAIN) == 1
    err = capsys.readouterr().err.splitlines()
    line = AGENT.splitlines().index('        return {{"action": "done", "share": 1 / 0}}') + 1
    assert err[0] == ("kbgym train: error: your code raised ZeroDivisionError: division by zero "
                      f"at my_curator.py:{line} in broken (KBGYM_DEBUG=1 shows the traceback)")
    assert "rerun the same command with --resume" in err[1]
    assert len(read_jsonl(tmp_path / "run/train_log.jsonl")) == 3  # the finished iterations
    curator(crash_at=10**6)  # fixed
    assert main([*TRAIN, "--resume"]) == 0
    rows = read_jsonl(tmp_path / "run/train_log.jsonl")
    assert [r["iteration"] for r in rows] == list(range(1, 7))


def test_a_crash_in_the_users_factory_names_it_and_suggests_no_resume(tmp_path, curator, capsys):
    curator(crash_at=1)
    (tmp_path / "my_curator.py").write_text(
        "import kbgym\n\n\n@kbgym.agent_factory\ndef make():\n    return {}['missing']\n")
    assert main(TRAIN) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == ["kbgym train: error: your code raised KeyError: 'missing' at my_curator.py:6 "
                   "in make (KBGYM_DEBUG=1 shows the traceback)"]


def test_debug_shows_the_users_traceback(curator):
    curator(crash_at=1)
    import os

    os.environ["KBGYM_DEBUG"] = "1"
    try:
        with pytest.raises(ZeroDivisionError):
            main(TRAIN)
    finally:
        del os.environ["KBGYM_DEBUG"]
