"""The README's promises, checked by running them: the loop prints what the README shows, the
custom curator builds clean relation indexes (and, in the slow suite, the probe stars it),
every relative link resolves, the page stays a first page, and .ci/run runs `make test`."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from kbgym.worlds.people.facts import parse_fact

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYTHON = re.findall(r"```python\n(.*?)```", README, re.S)
LOOP, CURATOR = PYTHON[0], PYTHON[1]


def run_block(block: str) -> tuple[str, dict]:
    scope: dict = {"__name__": "__readme__"}
    out = io.StringIO()
    with redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), scope)
    return out.getvalue(), scope


def test_the_readme_is_a_first_page():
    assert len(README.splitlines()) <= 250
    assert "https://arxiv.org/html/2608.21829" in README  # the paper, named and linked
    assert len(LOOP.strip().splitlines()) <= 15


def test_the_loop_prints_what_the_readme_shows():
    shown = re.search(r"```python\n" + re.escape(LOOP) + r"```\n.*?```text\n(.*?)```",
                      README, re.S).group(1)
    out, _ = run_block(LOOP)
    assert out == shown


def test_the_custom_curator_builds_clean_relation_indexes(tmp_path, monkeypatch):
    """Every note it writes is an index whose links all state a member of the relation its
    title names, and a second question about a person extends that person's index."""
    monkeypatch.chdir(tmp_path)
    _, scope = run_block(CURATOR)
    titles = {t.split("{}")[0]: kind for kind, t in scope["TITLE"].items()}
    lib = scope["env"].library
    authored = [n for n in lib.nodes() if n.is_authored]
    assert len(authored) >= 100 and len({n.text for n in authored}) == len(authored)
    for note in authored:
        prefix = next(p for p in titles if note.text.startswith(p))
        name = note.text[len(prefix):].rstrip(".")
        assert note.links, note.text
        for target in note.links:
            fact = parse_fact(lib.get(target).text)
            assert fact is not None and fact.kind == titles[prefix] and fact.obj == name
    assert (tmp_path / "runs/mine/kb_epoch_1.json").exists()


@pytest.mark.slow
def test_the_probe_stars_the_custom_curator(tmp_path, monkeypatch, capsys):
    """The README's four examination commands, as written: exact, share2 and share1 starred
    (ρ CI below 1, no F1 loss), share0 not."""
    from kbgym.cli import main

    monkeypatch.chdir(tmp_path)
    run_block(CURATOR)
    commands = re.search(r"```\n(kbgym probe make.*?)```", README, re.S).group(1)
    for line in commands.strip().splitlines():
        assert main(line.split()[1:] + ["--out", "table.json"] * line.startswith(
            "kbgym probe table")) == 0, line
    import json

    groups = json.loads((tmp_path / "table.json").read_text())["groups"]
    stars = {g: groups[g]["all"]["mine"]["star"] for g in ("exact", "share2", "share1", "share0")}
    assert stars == {"exact": True, "share2": True, "share1": True, "share0": False}


def test_every_relative_link_in_the_readme_resolves():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if not target.startswith(("http://", "https://")):
            assert (ROOT / target).exists(), target


def test_ci_runs_the_readme_test_command():
    assert "make test" in README
    assert "make test" in (ROOT / ".ci/run").read_text()
