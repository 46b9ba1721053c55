"""Package layout only (metadata lives in pyproject.toml).

The ``agents/`` folder installs as the import package ``kbgym_agents``: a top-level ``agents``
would collide with OpenAI's Agents SDK (``import agents``), which LLM-curator authors use.
"""

from setuptools import find_packages, setup

AGENTS = [("kbgym_agents" + p[len("agents"):]) for p in find_packages(include=["agents", "agents.*"])]

setup(
    packages=find_packages(include=["kbgym", "kbgym.*"]) + AGENTS,
    package_dir={"kbgym_agents": "agents"},
    package_data={"kbgym_agents": ["prompts/*.md"], "kbgym": ["py.typed", "view/assets/*"]},
)
