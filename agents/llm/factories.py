"""Entry-point factories (group ``kbgym.agents``): ``openai-trainer``, ``openai-reader``,
``openai-forward``, ``openai-backward`` and ``openai-judge``.

Each is called with keyword options: model, base_url, api_key_env (the *name* of the key's
environment variable) and any of :func:`kbgym_agents.llm.agent.make_llm_agent`'s settings. Options
the runners pass to every agent but LLM agents do not use (``seed``) are accepted and
ignored: a seed is sent to the model only as ``sampling_seed``.
"""

from __future__ import annotations

import os
from typing import Any

from kbgym import agent_factory
from kbgym_agents.llm.agent import LLMAgent, make_llm_agent
from kbgym_agents.llm.judge import LLMJudge, make_judge
from kbgym.errors import ConfigError

#: Environment variables read when an option is not given (so `kbgym train --agent
#: openai-trainer` can be steered without new CLI flags).
ENV_OPTIONS = {
    "tool_mode": "KBGYM_LLM_TOOL_MODE",
    "max_tokens": "KBGYM_LLM_MAX_TOKENS",
    "question_timeout_s": "KBGYM_LLM_QUESTION_TIMEOUT",
    "timeout_s": "KBGYM_LLM_TIMEOUT",
    "max_retries": "KBGYM_LLM_MAX_RETRIES",
    "skill_set": "KBGYM_LLM_SKILLS",
    "fields_json": "KBGYM_LLM_FIELDS_JSON",
}
_NUMERIC = {"max_tokens": int, "question_timeout_s": float, "timeout_s": float,
            "max_retries": int}


def _options(opts: dict[str, Any]) -> dict[str, Any]:
    opts = dict(opts)
    opts.pop("seed", None)
    if "sampling_seed" in opts:
        opts["seed"] = opts.pop("sampling_seed")
    for key, var in ENV_OPTIONS.items():
        if opts.get(key) is None and os.environ.get(var):
            raw = os.environ[var]
            try:
                opts[key] = _NUMERIC[key](raw) if key in _NUMERIC else raw
            except ValueError:
                raise ConfigError(f"${var} must be a number, got {raw!r}") from None
    model = opts.pop("model", None) or os.environ.get("KBGYM_LLM_MODEL")
    if not model:
        raise ConfigError("LLM agents need a model: pass --model (or set KBGYM_LLM_MODEL)")
    opts["model"] = model
    return opts


@agent_factory
def trainer(**opts: Any) -> LLMAgent:
    """The curator: RETRIEVAL in forward, CURATION in backward."""
    return make_llm_agent("trainer", **_options(opts))


@agent_factory
def reader(**opts: Any) -> LLMAgent:
    """The examined reader: RETRIEVAL in probe (and forward)."""
    return make_llm_agent("reader", **_options(opts))


@agent_factory
def forward(**opts: Any) -> LLMAgent:
    return make_llm_agent("forward", **_options(opts))


@agent_factory
def backward(**opts: Any) -> LLMAgent:
    return make_llm_agent("backward", **_options(opts))


@agent_factory
def judge(**opts: Any) -> LLMJudge:
    """The §6.3 dedup judge, ``judge(a, b) -> bool``."""
    opts = _options(opts)
    for key in ("tool_mode", "question_timeout_s", "skill_set", "fields_json"):
        opts.pop(key, None)
    return make_judge(**opts)
