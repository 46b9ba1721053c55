"""Generic code never names a world (issue 33): outside ``kbgym/worlds/<name>/`` no module
imports a world's folder or compares against a world's name; it asks the universe's world
(``kbgym.worlds.world_of``) instead. Read from the AST, lazy imports included."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORLDS_DIR = ROOT / "kbgym" / "worlds"
WORLD_NAMES = frozenset(p.name for p in WORLDS_DIR.iterdir()
                        if p.is_dir() and (p / "__init__.py").is_file())
#: The deprecated import paths of before the move (kbgym/_moved.py): they name the new
#: homes of what moved, as strings, for one release.
SHIMS = {"kbgym/universe/__init__.py", "kbgym/adapters/__init__.py",
         "kbgym/protocol/__init__.py"}
#: Generic modules that still name a world, each with what is left to do. The test fails when
#: a module joins this list AND when one leaves it without the list being shortened.
KNOWN: dict[str, str] = {
    "kbgym/metrics/misinformation.py": "checks claims against the people world's truth "
                                       "(questions, relations, statements)",
    "kbgym/claims/__init__.py": "re-exports the people world's Fact and people_vocabulary "
                                "(the vocabulary itself comes through World.vocabulary)",
    "kbgym/claims/reader.py": "reads facts in the people grammar (§3 sentences, question "
                              "forms), which PhantomWiki shares: a world-supplied grammar "
                              "would let it read the other worlds",
}


def _world_folder(rel: str) -> bool:
    parts = Path(rel).parts
    return len(parts) > 3 and parts[:2] == ("kbgym", "worlds") and parts[2] in WORLD_NAMES


def _names_a_world(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        mods: list[str] = []
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            mods = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for m in mods:
            parts = m.split(".")
            if parts[:2] == ["kbgym", "worlds"] and len(parts) > 2 and parts[2] in WORLD_NAMES:
                found.append(f"imports {m}")
                break
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                consts = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                for c in consts:
                    if isinstance(c, ast.Constant) and c.value in WORLD_NAMES:
                        found.append(f"compares with {c.value!r} (line {node.lineno})")
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) \
                in ("world", "family"):
            for a in node.args:
                if isinstance(a, ast.Constant) and a.value in WORLD_NAMES:
                    found.append(f"looks up world {a.value!r} (line {node.lineno})")
    return found


def offenders() -> dict[str, list[str]]:
    out = {}
    for path in sorted((ROOT / "kbgym").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if _world_folder(rel) or rel in SHIMS:
            continue
        hits = _names_a_world(ast.parse(path.read_text(encoding="utf-8")))
        if hits:
            out[rel] = hits
    return out


def test_the_world_folders_are_found():
    assert {"people", "policies", "phantomwiki", "corpus"} <= WORLD_NAMES


def test_no_generic_module_names_a_world():
    found = offenders()
    new = {m: hits for m, hits in found.items() if m not in KNOWN}
    assert new == {}, "generic code names a world; ask kbgym.worlds.world_of(universe) instead"
    cleaned = sorted(set(KNOWN) - set(found))
    assert cleaned == [], f"no longer names a world: remove from KNOWN: {cleaned}"


def test_the_check_sees_a_world_name():
    tree = ast.parse("from kbgym.worlds.people.facts import parse_fact\n"
                     "if u.meta['source'] in ('phantomwiki', 'x'): pass\n"
                     "w = world('policies')\n")
    assert len(_names_a_world(tree)) == 3
