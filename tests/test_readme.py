"""The README's promises: its example runs, and .ci/run calls the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_custom_curator_example_runs(capsys):
    block = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    assert len(block.strip().splitlines()) <= 15
    exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "'authored_statements': 10" in out


def test_ci_runs_the_readme_test_command():
    assert "make test" in README
    assert "make test" in (ROOT / ".ci/run").read_text()


def test_custom_curator_example_does_not_duplicate_its_notes(capsys):
    """Two epochs over the same ten questions: still ten notes, each with its links."""
    block = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    scope: dict = {}
    exec(compile(block, "README.md", "exec"), scope)
    lib = scope["env"].library
    authored = [n for n in lib.nodes() if n.is_authored]
    assert len(authored) == 10 and len({n.text for n in authored}) == 10
    assert all(n.links for n in authored)
