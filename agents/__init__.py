"""Agents for KBGym, plugged in only through ``env.step``; ``kbgym`` never imports them.

- ``kbgym_agents.base``: the ``Agent`` protocol and ``BaseAgent``;
- ``kbgym_agents.scripted``: the scripted reader and curators (no language model).
"""

from kbgym_agents.base import Agent, BaseAgent

__all__ = ["Agent", "BaseAgent"]
