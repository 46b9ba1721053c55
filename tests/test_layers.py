"""Layer contracts of the ``kbgym`` package (import-linter style, read from the AST): data flows
one way — protocol → universe → library → env → metrics/baselines/adapters → runs → sweeps and
services → cli — and no module imports a module that imports it back. Imports inside
functions count too: a lazy import is still a dependency."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Layer of each top-level part of kbgym; a module may import its own layer and lower ones.
LAYERS: dict[str, int] = {
    "kbgym.protocol": 0, "kbgym.errors": 0, "kbgym.seeding": 0, "kbgym.jsonio": 0,
    "kbgym.registry": 0, "kbgym.scoring": 0, "kbgym.bounds": 0, "kbgym.ranges": 0,
    "kbgym.collector": 0,
    "kbgym.safeload": 0,
    "kbgym._moved": 0,  # old import paths of moved modules (deprecated shims)
    "kbgym._lazy": 0,  # package attributes imported on first use
    "kbgym.shipped": 0,
    "kbgym.types": 1, "kbgym.keys": 1, "kbgym.answers": 1, "kbgym.universe": 1, "kbgym.config": 1,
    "kbgym.claims": 1,
    "kbgym.library": 2, "kbgym.files": 2,
    "kbgym.env": 3,
    "kbgym.metrics": 4, "kbgym.baselines": 4, "kbgym.plugins": 4,
    # the World interface and the registry; a world's folder: WORLD_FOLDER, WORLD_ROLES
    "kbgym.worlds": 1,
    # worlds whose parts lower layers import (the claim reader, the misinformation metric, the
    # B2-B4 extraction read the people grammar; the evidence baseline is the policies world's)
    "kbgym.worlds.people": 1, "kbgym.worlds.policies": 1, "kbgym.worlds.policies.graph": 4,
    "kbgym.worlds.casebook": 1,  # held low by choice: its pure parts import nothing above
    "kbgym.runs": 5, "kbgym.adapters": 5,
    "kbgym.sweep": 6, "kbgym.reproduce": 6, "kbgym.rl": 6, "kbgym.serve": 6, "kbgym.view": 6,
    "kbgym.integrations": 6, "kbgym.bench": 6,
    "kbgym.cli": 7,
}


def _modules() -> dict[str, Path]:
    out = {}
    for p in (ROOT / "kbgym").rglob("*.py"):
        mod = ".".join(p.relative_to(ROOT).with_suffix("").parts)
        out[mod.removesuffix(".__init__")] = p
    return out


def _imports(mod: str, path: Path, known: set[str]) -> set[str]:
    pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != mod and name != "kbgym":
                found.add(name)
    return found


#: A world's folder (``kbgym/worlds/<name>/``) needs no line here: it sits on the runs layer
#: (its generator or importer may use anything below: the library, the metrics, run files)
#: unless LAYERS places it lower, and its modules with these roles (by file name) sit on theirs:
#: ``world.py`` (the World object, which hands generic code the world's probe, drift and
#: generator; the registry loads it by name) and ``probe.py`` on the runs layer, ``cli.py``
#: (World.commands) on the command line's.
WORLD_FOLDER = 5
WORLD_ROLES = {"world": 5, "probe": 5, "cli": 7}
WORLD_FOLDERS = {p.name for p in (ROOT / "kbgym" / "worlds").iterdir()
                 if (p / "__init__.py").is_file()}


def _layer(mod: str) -> int | None:
    parts = mod.split(".")
    folder = len(parts) >= 3 and parts[:2] == ["kbgym", "worlds"] and parts[2] in WORLD_FOLDERS
    if folder and len(parts) == 4 and parts[3] in WORLD_ROLES:
        return WORLD_ROLES[parts[3]]
    if folder and not any(mod == p or mod.startswith(p + ".") for p in LAYERS
                          if p.startswith(f"kbgym.worlds.{parts[2]}")):
        return WORLD_FOLDER
    best = None
    for prefix, layer in LAYERS.items():
        if mod == prefix or mod.startswith(prefix + "."):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, layer)
    return None if best is None else best[1]


MODULES = _modules()
GRAPH = {m: _imports(m, p, set(MODULES)) for m, p in MODULES.items()}


def test_every_module_has_a_layer():
    assert [m for m in MODULES if m != "kbgym" and _layer(m) is None] == []


def test_no_module_imports_a_higher_layer():
    bad = sorted(f"{m} (layer {_layer(m)}) imports {t} (layer {_layer(t)})"
                 for m, targets in GRAPH.items() if m != "kbgym"
                 for t in targets if _layer(t) is not None and _layer(t) > _layer(m))
    assert bad == []


def test_the_protocol_imports_nothing_else_from_kbgym():
    bad = sorted(f"{m} imports {t}" for m, targets in GRAPH.items()
                 if m.startswith("kbgym.protocol") for t in targets
                 if not t.startswith("kbgym.protocol") and t != "kbgym._moved")
    assert bad == []


def test_kbgym_never_imports_the_agents():
    for path in MODULES.values():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            name = (node.module if isinstance(node, ast.ImportFrom) else
                    node.names[0].name if isinstance(node, ast.Import) else None)
            assert not (name or "").split(".")[0] in ("agents", "kbgym_agents"), path


@pytest.mark.parametrize("start", sorted(m for m in MODULES if m != "kbgym"))
def test_no_import_circle(start):
    """No module reaches itself through the imports of the modules it imports (``__init__``
    re-exports aside, which import their package's own modules by design)."""
    seen, stack = set(), [t for t in GRAPH[start] if not MODULES[t].name == "__init__.py"]
    while stack:
        m = stack.pop()
        assert m != start, f"{start} is on an import circle"
        if m in seen:
            continue
        seen.add(m)
        stack += [t for t in GRAPH[m] if not MODULES[t].name == "__init__.py"]
