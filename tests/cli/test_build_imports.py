"""The build path stays light (issue 39): ``kbgym build`` imports neither gymnasium nor numpy
nor the environment, and ``import kbgym`` still registers the environment ids whether
gymnasium is imported before or after it."""

from __future__ import annotations

import json
import subprocess
import sys


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return out.stdout.strip().splitlines()[-1]


def test_build_imports_no_gymnasium_numpy_or_env(tmp_path):
    path = tmp_path / "u.json"
    got = json.loads(_run(
        "import json, sys\n"
        "from kbgym.cli import main\n"
        f"rc = main(['build', '--people', '30', '--out', {str(path)!r}, '--quiet'])\n"
        "print(json.dumps([rc, sorted(m for m in ('gymnasium', 'numpy', 'kbgym.env', "
        "'kbgym.worlds.corpus.documents', 'kbgym.worlds.phantomwiki.adapt', "
        "'kbgym.worlds.casebook.generate', 'kbgym.worlds.policies.generate', 'pydantic', "
        "'kbgym.protocol.results') "
        "if m in sys.modules)]))"))
    assert got == [0, []] and path.stat().st_size > 0


def test_a_lazy_world_package_exports_the_function_named_like_its_module():
    # the generator submodule imported first (as a world's drift does) must not hide the
    # package's generate function behind the module
    got = _run("import kbgym.worlds.casebook.drift, kbgym.worlds.policies.drift\n"
               "from kbgym.worlds.casebook import generate as c\n"
               "from kbgym.worlds.policies import generate as p, PolicyConfig\n"
               "print(callable(c), callable(p), c.__module__, p.__module__, PolicyConfig.__name__)")
    assert got == ("True True kbgym.worlds.casebook.generate kbgym.worlds.policies.generate "
                   "PolicyConfig")


def test_the_lazy_protocol_package_exports_every_name():
    # each exported name is its module's own object, imported on first use
    got = _run("import importlib, kbgym.protocol as P\n"
               "home = {n: m for m, ns in P._WHERE.items() for n in ns}\n"
               "bad = [n for n in P.__all__ if n not in ('errors', 'limits') and getattr(P, n) "
               "is not getattr(importlib.import_module('kbgym.protocol.' + home[n]), n)]\n"
               "print(bad, P.errors.__name__, P.limits.__name__)")
    assert got == "[] kbgym.protocol.errors kbgym.protocol.limits"


def test_import_kbgym_registers_the_ids_before_or_after_gymnasium():
    for order in ("import kbgym, gymnasium", "import gymnasium, kbgym"):
        got = _run(f"{order}\n"
                   "print(all(i in gymnasium.registry for i in (kbgym.ENV_ID, *kbgym.LEGACY_ENV_IDS)),"
                   " gymnasium.__loader__ is gymnasium.__spec__.loader)")
        assert got == "True True", order
