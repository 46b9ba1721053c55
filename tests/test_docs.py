"""The documentation's promises: the custom-curator tutorial's command-line agent trains and
builds clean indexes, and every relative link between the pages resolves to a file."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from kbgym.worlds.people.facts import parse_fact

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
TUTORIAL = (DOCS / "tutorials/custom-curator.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_tutorials_cli_agent_trains_and_builds_clean_indexes(tmp_path, monkeypatch):
    from kbgym.cli import main
    from kbgym.library.snapshot import load_snapshot

    code = re.search(r"```python\n# relation_index.py\n(.*?)```", TUTORIAL, re.S).group(1)
    (tmp_path / "relation_index.py").write_text(code)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "relation_index", raising=False)
    assert main(["train", "--agent", "relation_index:make", "--epochs", "1", "--train-size",
                 "30", "--out", "run", "--quiet"]) == 0
    lib, _ = load_snapshot(tmp_path / "run/kb_epoch_1.json")
    authored = [n for n in lib.nodes() if n.is_authored]
    assert authored and len({n.text for n in authored}) == len(authored)
    kinds = {"Friends of ": "friend_of", "Children of ": "child_of", "Spouse of ": "married"}
    for note in authored:
        prefix = next(p for p in kinds if note.text.startswith(p))
        for target in note.links:
            fact = parse_fact(lib.get(target).text)
            assert fact.kind == kinds[prefix] and fact.obj == note.text[len(prefix):-1]


def test_every_relative_link_between_pages_resolves():
    pages = sorted(DOCS.rglob("*.md"))
    assert len(pages) > 10
    broken = []
    for page in pages:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if not re.match(r"[a-z]+:", target) and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, broken


def test_ci_builds_the_wheel_and_the_site():
    run = (ROOT / ".ci/run").read_text(encoding="utf-8")
    assert "bash .ci/wheel_check" in run and "make docs" in run
    check = (ROOT / ".ci/wheel_check").read_text(encoding="utf-8")
    for step in ("-m build", "build --config small", "demo", 'mkdir "$work/empty"'):
        assert step in check, step
    assert "mkdocs build --strict" in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_the_site_hooks_generate_the_cli_reference_and_the_home_page():
    import importlib.util

    import pytest

    pytest.importorskip("mkdocs")  # the docs extra
    spec = importlib.util.spec_from_file_location("mkdocs_hooks",
                                                  ROOT / "scripts/docs/mkdocs_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    from kbgym.cli import COMMANDS

    ref = hooks.cli_reference()
    for name in COMMANDS:
        name = "import" if name == "corpus" else name
        assert f"`kbgym {name}`" in ref, name
    assert "usage: kbgym probe table" in ref and "--version" in ref
    home = hooks.readme_as_index()
    assert "](docs/" not in home and "](getting-started.md" in home


def test_every_python_block_of_the_tutorials_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ran = 0
    for page in sorted((DOCS / "tutorials").glob("*.md")):
        for i, block in enumerate(re.findall(r"```python\n(.*?)```", page.read_text("utf-8"),
                                             re.S)):
            if block in README:  # the README's own blocks run in tests/test_readme.py
                continue
            (tmp_path / f"{page.stem}-{i}").mkdir()
            monkeypatch.chdir(tmp_path / f"{page.stem}-{i}")
            exec(compile(block, f"{page.name} block {i + 1}", "exec"), {"__name__": "__doc__"})
            ran += 1
    assert ran >= 2
