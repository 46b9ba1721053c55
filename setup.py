"""Package layout only (metadata lives in pyproject.toml).

The ``agents/`` folder installs as the import package ``kbgym_agents``: a top-level ``agents``
would collide with OpenAI's Agents SDK (``import agents``), which LLM-curator authors use.

A wheel also carries the files kbgym finds from any folder (:mod:`kbgym.shipped`): ``configs/``,
``examples/``, the documentation pages and the PhantomWiki generation of ``kbgym reproduce``,
copied into ``kbgym/_shipped/`` at build time (MANIFEST.in puts the same files in the sdist).
"""

import shutil
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

AGENTS = [("kbgym_agents" + p[len("agents"):]) for p in find_packages(include=["agents", "agents.*"])]

#: source folder in the repository -> folder under kbgym/_shipped/ in the wheel
SHIPPED = {"configs": "configs", "examples": "examples", "docs": "docs",
           "tests/adapters/data/phantomwiki_seed1": "phantomwiki_seed1"}


class BuildWithShippedFiles(build_py):
    """build_py, then copy the shipped folders into the built package (not in editable mode:
    an editable install finds them in the checkout)."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        here = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "kbgym" / "_shipped"
        for src, dst in SHIPPED.items():
            if (here / src).is_dir():
                shutil.copytree(here / src, target / dst, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(
    packages=find_packages(include=["kbgym", "kbgym.*"]) + AGENTS,
    package_dir={"kbgym_agents": "agents"},
    package_data={"kbgym_agents": ["prompts/*.md"], "kbgym": ["py.typed", "view/assets/*",
                                                 "bench/releases/*/*.json",
                                                 "bench/releases/*/*/*.json"]},
    cmdclass={"build_py": BuildWithShippedFiles},
)
