"""``kbgym check --world NAME``: Gymnasium's check_env on that world's default universe."""

from __future__ import annotations

import pytest

from kbgym.cli import main


def test_check_runs_on_another_world(capsys):
    assert main(["check", "--world", "policies"]) == 0
    out = capsys.readouterr().out
    assert "check_env train (policies): ok" in out and "check_env probe (policies): ok" in out


def test_an_unknown_world_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["check", "--world", "atlantis"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
