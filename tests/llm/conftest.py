"""Fixtures for the LLM-agent tests: a fake OpenAI-compatible server on loopback, a small
universe, and agents wired to the server with short timeouts and backoff."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from fake_server import FakeServer  # noqa: E402

from kbgym.worlds.people import UniverseConfig, generate  # noqa: E402

try:  # the OpenAI client is the ``llm`` extra; a core install skips these tests
    import openai  # noqa: F401
    HAVE_OPENAI = True
except ImportError:
    HAVE_OPENAI = False


def pytest_collection_modifyitems(config, items):
    if HAVE_OPENAI:
        return
    skip = pytest.mark.skip(reason="needs the llm extra (openai): pip install 'kbgym[llm]'")
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def universe():
    return generate(UniverseConfig(n_people=60, n_cities=8, sizes=(40, 30, 20),
                                   eval_sizes=(10, 6)))


@pytest.fixture
def server():
    with FakeServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def _no_endpoint_env(monkeypatch):
    """Tests never reach a real endpoint by accident."""
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "KBGYM_LLM_TOOL_MODE", "KBGYM_LLM_MODEL",
                "KBGYM_LLM_MAX_TOKENS", "KBGYM_LLM_QUESTION_TIMEOUT", "KBGYM_LLM_TIMEOUT",
                "KBGYM_LLM_MAX_RETRIES", "KBGYM_LLM_SKILLS", "KBGYM_LLM_FIELDS_JSON"):
        monkeypatch.delenv(var, raising=False)

