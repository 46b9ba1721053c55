"""``--agent module:factory`` imports from the current directory; non-agents are refused."""

from __future__ import annotations

import sys

import pytest

from kbgym.errors import ConfigError
from kbgym.plugins import make_agent


def test_module_factory_from_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / "kbgym_cwd_agents.py").write_text(
        "class A:\n    def act(self, obs, info):\n        return {'action': 'done'}\n"
        "    def reset(self):\n        pass\n\n"
        "from kbgym import agent_factory\n\n"
        "@agent_factory\ndef make(**opts):\n    return A()\n\n"
        "@agent_factory\ndef not_an_agent(**opts):\n    return 42\n\n"
        "def undeclared(**opts):\n    return A()\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    agent = make_agent("kbgym_cwd_agents:make", model="m")
    assert agent.act({}, {}) == {"action": "done"}
    with pytest.raises(ConfigError, match="not an agent"):
        make_agent("kbgym_cwd_agents:not_an_agent")
    with pytest.raises(ConfigError, match="cannot load agent 'kbgym_cwd_agents:missing'"):
        make_agent("kbgym_cwd_agents:missing")
    sys.modules.pop("kbgym_cwd_agents", None)
