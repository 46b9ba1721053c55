"""Links and special files are never written through: RunRecorder on a linked folder, a
JSONL log that is a link, a linked lock file, a FIFO in place of a log."""

from __future__ import annotations

import os

import pytest

from kbgym.env import KBGymEnv
from kbgym.errors import ConfigError
from kbgym.runs.lock import run_lock
from kbgym.runs.logs import JsonlLog
from kbgym.runs.recorder import RunRecorder
from kbgym.worlds.people import UniverseConfig, generate

U = generate(UniverseConfig(n_people=60, n_cities=8, sizes=(20, 10, 10), eval_sizes=(4, 4)))


def test_run_recorder_refuses_a_linked_folder(tmp_path):
    target = tmp_path / "finished"
    target.mkdir()
    (target / "trace.jsonl").write_text("")
    (tmp_path / "link").symlink_to(target, target_is_directory=True)
    with pytest.raises(ConfigError, match="symbolic link"):
        RunRecorder(KBGymEnv(U, mode="train"), tmp_path / "link")
    with pytest.raises(ConfigError, match="symbolic link"):
        RunRecorder(KBGymEnv(U, mode="train"), tmp_path / "link", overwrite=True)
    assert sorted(p.name for p in target.iterdir()) == ["trace.jsonl"]


def test_a_log_that_is_a_link_is_never_appended_to(tmp_path):
    victim = tmp_path / "victim.jsonl"
    victim.write_text("")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "trace.jsonl").symlink_to(victim)
    with pytest.raises(ConfigError, match="symbolic link"):
        JsonlLog(tmp_path / "run" / "trace.jsonl").write({"a": 1})
    assert victim.read_text() == ""


def test_a_linked_lock_or_a_fifo_log_is_refused(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    (tmp_path / "elsewhere").write_text("keep")
    (d / ".kbgym.lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ConfigError, match="symbolic link"):
        with run_lock(d):
            pass
    assert (tmp_path / "elsewhere").read_text() == "keep"
    os.mkfifo(tmp_path / "fifo.jsonl")
    with pytest.raises(ConfigError, match="special file"):
        JsonlLog(tmp_path / "fifo.jsonl").write({"a": 1})
