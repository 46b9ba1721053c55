"""Agents for KBGym, plugged in only through ``env.step``; ``kbgym`` never imports them.

- ``agents.base``: the ``Agent`` protocol and ``BaseAgent``;
- ``agents.scripted``: the scripted reader and curators (no language model).
"""

from agents.base import Agent, BaseAgent

__all__ = ["Agent", "BaseAgent"]
