"""LLM agents for KBGym through the ``openai`` client (SPEC §9.5, §6.3).

- :mod:`kbgym_agents.llm.client`: endpoint, key by variable name, sampling as sent, retries;
- :mod:`kbgym_agents.llm.toolcalls`: the tool modes (tools, single, text) and reply reading;
- :mod:`kbgym_agents.llm.agent`: :class:`LLMAgent` for the reader, forward, backward and trainer roles;
- :mod:`kbgym_agents.llm.judge`: the dedup judge;
- :mod:`kbgym_agents.llm.cost`: price tables, cost per correct answer, break-even;
- :mod:`kbgym_agents.llm.factories`: the ``kbgym.agents`` entry points.
"""

from kbgym_agents.llm.agent import LLMAgent, make_llm_agent
from kbgym_agents.llm.judge import LLMJudge, make_judge

__all__ = ["LLMAgent", "LLMJudge", "make_judge", "make_llm_agent"]
