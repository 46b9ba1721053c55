"""``kbgym --version`` prints the installed package's version: the one in its metadata, which
pyproject.toml reads from ``kbgym.__version__``."""

from __future__ import annotations

from importlib.metadata import version

import pytest

from kbgym.cli import main


def test_version_prints_the_installed_version_and_exits_0(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"kbgym {version('kbgym')} (Python 3."), out
