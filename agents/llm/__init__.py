"""LLM agents for KBGym through the ``openai`` client (SPEC §9.5, §6.3).

- :mod:`agents.llm.client`: endpoint, key by variable name, sampling as sent, retries;
- :mod:`agents.llm.toolcalls`: the tool modes (tools, single, text) and reply reading;
- :mod:`agents.llm.agent`: :class:`LLMAgent` for the reader, forward, backward and trainer roles;
- :mod:`agents.llm.judge`: the dedup judge;
- :mod:`agents.llm.cost`: price tables, cost per correct answer, break-even;
- :mod:`agents.llm.factories`: the ``kbgym.agents`` entry points.
"""

from agents.llm.agent import LLMAgent, make_llm_agent
from agents.llm.judge import LLMJudge, make_judge

__all__ = ["LLMAgent", "LLMJudge", "make_judge", "make_llm_agent"]
