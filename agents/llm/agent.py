"""The OpenAI tool-calling agent (SPEC §9.5) for KBGym's three roles.

Each step is one stateless chat call: the system message is the phase's skill, the user
message is ``obs["text"]``; the phase's tools are offered and the first tool call is the
action. Roles differ only in their skills per phase:

========== ==================================== ===========================
role        phases                              skills
========== ==================================== ===========================
reader      probe (0), forward (1)              RETRIEVAL
forward     forward (1)                         RETRIEVAL
backward    backward (2)                        CURATION
trainer     forward (1) and backward (2)        RETRIEVAL, then CURATION
========== ==================================== ===========================

RETRIEVAL is one file, so the reader and the forward curator send byte-identical system
messages (in the ``text`` tool mode both get the same tool appendix too).

A call that still fails after the SDK's retries, a reply without any call, and a step after
the per-question wall-clock cap all return ``None``, which the env answers with ``ERROR: no
action was given`` (``__noop__`` in the trace): the step is spent and the run goes on.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kbgym_agents.llm.client import CallResult, ChatCaller
from kbgym_agents.llm.skills import load_skill, skill_digest
from kbgym_agents.llm.toolcalls import (
    MODES,
    Reading,
    Request,
    build_request,
    phase_name,
    phase_schemas,
    read_reply,
)
from kbgym.errors import ConfigError

ROLE_SKILLS: dict[str, dict[str, str]] = {
    "reader": {"probe": "retrieval", "forward": "retrieval"},
    "forward": {"forward": "retrieval"},
    "backward": {"backward": "curation"},
    "trainer": {"forward": "retrieval", "backward": "curation"},
}
TOOL_MODES: tuple[str, ...] = (*MODES, "auto")
#: auto mode: the next mode to try when the server refuses a request or answers in text.
_FALLBACK = {"tools": "single", "single": "text"}
#: a 400 that names these is a refusal of the tool mode (not, say, a context overflow)
_REFUSAL = re.compile(r"tool|function|parallel_tool_calls|response_format", re.IGNORECASE)


@dataclass
class AgentStats:
    """Decision counters shared by an agent and its spawns (the API counters live in the
    caller's :class:`~kbgym_agents.llm.client.CallStats`)."""

    steps: int = 0
    noops: int = 0                 # steps answered with None
    how: dict = field(default_factory=dict)   # tool_call / act / text / none -> count
    mode: str = "tools"            # the tool mode in use (auto mode may move it on)
    switches: list = field(default_factory=list)  # [from, to, reason]

    def count(self, how: str) -> None:
        self.how[how] = self.how.get(how, 0) + 1


class LLMAgent:
    """An OpenAI-compatible chat model acting through KBGym's tools.

    ``act(obs, info)`` / ``await aact(obs, info)`` return an action for ``env.step`` or None;
    ``last_usage`` holds (tokens in, tokens out, cached tokens in) of the latest decision,
    the cached ones being the part of the prompt the server read from its prefix cache (a
    part of tokens in, 0 when the server does not say); ``meta`` is the
    record for ``meta.json``; ``stats`` the counters; ``spawn()`` a per-question view for
    concurrent exams sharing the client, settings and counters.
    """

    def __init__(self, caller: ChatCaller, role: str = "trainer", *,
                 skills: Mapping[str, str] | None = None, tool_mode: str = "auto",
                 toolset: str = "paper", typed_links: bool = False, json_mode: bool = False,
                 flat_single: bool = False, question_timeout_s: float | None = None,
                 prices: Any = None, _shared: tuple | None = None):
        if role not in ROLE_SKILLS:
            raise ConfigError(f"unknown role {role!r}; expected one of {', '.join(ROLE_SKILLS)}")
        if tool_mode not in TOOL_MODES:
            raise ConfigError(f"unknown tool mode {tool_mode!r}; expected one of "
                              f"{', '.join(TOOL_MODES)}")
        self.caller = caller
        self.role = role
        names = dict(ROLE_SKILLS[role])
        if toolset == "evidence":  # the skills that also describe locate, expand and types
            names = {phase: f"{name}_evidence" for phase, name in names.items()}
        names.update(skills or {})
        self.skill_names = names
        self.skills = {phase: load_skill(name) for phase, name in names.items()}
        self.tool_mode = tool_mode
        self.toolset = toolset
        self.typed_links = typed_links
        self.json_mode = json_mode
        self.flat_single = flat_single
        self.question_timeout_s = question_timeout_s
        self.prices = prices
        if _shared is None:
            start = "tools" if tool_mode == "auto" else tool_mode
            _shared = (AgentStats(mode=start),)
        self._shared = _shared
        self.last_usage: tuple[int, int, int] = (0, 0, 0)
        self.last_reading: Reading | None = None
        self.last_error: str | None = None
        self._deadline: float | None = None
        self.tokens_in = 0
        self.tokens_out = 0
        self.tokens_cached = 0

    # -- the runner's interface --------------------------------------------------------
    @property
    def agent_stats(self) -> AgentStats:
        return self._shared[0]

    def reset(self, seed: int | None = None) -> None:
        """A new question: restart the wall-clock cap and the usage of the latest step.

        ``seed`` (repeated exams, ``kbgym test --repeats``) is sent as the request's sampling
        ``seed`` for this question, in place of the configured one; None keeps that."""
        self._seed = seed
        self.last_usage = (0, 0, 0)
        self.last_reading = None
        self.last_error = None
        self._deadline = (time.monotonic() + self.question_timeout_s
                          if self.question_timeout_s else None)

    def spawn(self) -> "LLMAgent":
        """An independent per-question agent sharing the caller, settings and counters."""
        return LLMAgent(self.caller, self.role, skills=self.skill_names,
                        tool_mode=self.tool_mode, toolset=self.toolset,
                        typed_links=self.typed_links, json_mode=self.json_mode,
                        flat_single=self.flat_single,
                        question_timeout_s=self.question_timeout_s, prices=self.prices,
                        _shared=self._shared)

    def act(self, observation: Mapping, info: Mapping | None = None) -> Any:
        self._begin()
        for _ in range(len(MODES)):
            request, messages = self._prepare(observation)
            result = self.caller.call(messages, deadline=self._deadline,
                                      **self._seeded(request.fields))
            done, action = self._finish(request, result)
            if done:
                return action
        return self._noop("no mode left")

    async def aact(self, observation: Mapping, info: Mapping | None = None) -> Any:
        self._begin()
        for _ in range(len(MODES)):
            request, messages = self._prepare(observation)
            result = await self.caller.acall(messages, deadline=self._deadline,
                                             **self._seeded(request.fields))
            done, action = self._finish(request, result)
            if done:
                return action
        return self._noop("no mode left")

    def _seeded(self, fields: Mapping[str, Any]) -> Mapping[str, Any]:
        seed = getattr(self, "_seed", None)
        return fields if seed is None else {**fields, "seed": seed}

    def close(self) -> None:
        self.caller.close()

    async def aclose(self) -> None:
        await self.caller.aclose()

    # -- one decision ------------------------------------------------------------------
    def _begin(self) -> None:
        self.last_usage = (0, 0, 0)
        self.last_reading = None
        self.last_error = None
        self.agent_stats.steps += 1

    def system_message(self, phase: Any) -> str:
        """The skill text sent as the system message in ``phase`` (mode suffix excluded)."""
        name = phase_name(phase)
        if name not in self.skills:
            raise ConfigError(f"the {self.role} agent has no skill for the {name} phase; use "
                              f"a role that plays it ({', '.join(_roles_for(name))})")
        return self.skills[name]

    def _prepare(self, observation: Mapping) -> tuple[Request, list[dict]]:
        phase = observation["phase"]
        system = self.system_message(phase)
        schemas = phase_schemas(phase, self.toolset, self.typed_links)
        request = build_request(self.agent_stats.mode, schemas, json_mode=self.json_mode,
                                flat_single=self.flat_single)
        messages = [{"role": "system", "content": system + request.system_suffix},
                    {"role": "user", "content": str(observation["text"])}]
        return request, messages

    def _finish(self, request: Request, result: CallResult) -> tuple[bool, Any]:
        t_in, t_out, cached = self.last_usage
        self.last_usage = (t_in + result.tokens_in, t_out + result.tokens_out,
                           cached + result.tokens_cached)
        self.tokens_in += result.tokens_in
        self.tokens_out += result.tokens_out
        self.tokens_cached += result.tokens_cached
        stats = self.agent_stats
        if not result.ok:
            self.last_error = result.error
            if (result.error == "bad_request" and self.tool_mode == "auto"
                    and request.mode in _FALLBACK and stats.mode == request.mode
                    and _REFUSAL.search(result.detail)):
                self._switch(request.mode, "refused: " + result.detail[:120])
                return False, None  # the same step, asked again in the next mode
            return True, self._noop(result.error)
        message = result.completion.choices[0].message
        reading = read_reply(message)
        self.last_reading = reading
        stats.count(reading.how)
        if (reading.how in ("text", "none") and self.tool_mode == "auto"
                and request.mode in _FALLBACK and stats.mode == request.mode):
            # the server does not return tool calls in this mode: use the next one from now
            # on; a reply with no call at all is asked again at once, in the next mode
            self._switch(request.mode, "the call came back as text" if reading.how == "text"
                         else "the reply held no call")
            if reading.how == "none":
                return False, None
        if reading.how == "none":
            return True, self._noop("no call")
        return True, reading.action

    def _switch(self, mode: str, reason: str) -> None:
        stats = self.agent_stats
        stats.mode = _FALLBACK[mode]
        stats.switches.append([mode, stats.mode, reason])

    def _noop(self, why: str) -> None:
        self.agent_stats.noops += 1
        self.last_error = self.last_error or why
        return None

    # -- records -----------------------------------------------------------------------
    @property
    def meta(self) -> dict:
        """``meta.json``'s agent record: model, where the endpoint came from, the sampling as
        sent, the tool mode and its fixed request fields, and the skills' digests."""
        c = self.caller
        sent: dict[str, Any] = {"tool_mode": self.tool_mode}
        if self.tool_mode in ("auto", "tools"):
            sent.update(tool_choice="required", parallel_tool_calls=False)
        elif self.tool_mode == "single":
            sent.update(tool_choice={"type": "function", "function": {"name": "act"}},
                        parallel_tool_calls=False)
        if self.tool_mode == "text" and self.json_mode:
            sent["response_format"] = {"type": "json_object"}
        out = {
            "model": c.model, "role": self.role, "base_url_env": c.endpoint.base_url_env,
            "api_key_env": c.endpoint.api_key_env, "sampling": c.sampling.as_sent(),
            "request": sent, "toolset": self.toolset, "typed_links": self.typed_links,
            "max_retries": c.retry.max_retries, "timeout_s": c.retry.timeout_s,
            "question_timeout_s": self.question_timeout_s,
            "skills": {phase: {"name": name, "digest": skill_digest(self.skills[phase])}
                       for phase, name in sorted(self.skill_names.items())},
        }
        if c.extra_body:
            out["extra_body"] = dict(c.extra_body)
        return out

    @property
    def stats(self) -> dict:
        """Run counters: API calls, retries, failures by kind, decisions by how they were
        read, no-ops, the tool mode in use and its switches, tokens (cached ones too), and,
        when priced, the cost with the cache discount (``cost_usd``) and without it
        (``cost_usd_no_cache``)."""
        a = self.agent_stats
        out = {**self.caller.stats.as_dict(), "steps": a.steps, "noops": a.noops,
               "decisions": dict(sorted(a.how.items())), "mode": a.mode,
               "switches": [list(s) for s in a.switches]}
        if self.prices is not None:
            from kbgym_agents.llm.cost import PriceTable

            table = PriceTable.load(self.prices)
            model, t_in, t_out = self.caller.model, out["tokens_in"], out["tokens_out"]
            out["cost_usd"] = table.cost(model, t_in, t_out, out["tokens_cached"])
            out["cost_usd_no_cache"] = table.cost(model, t_in, t_out)
        return out


def _roles_for(phase: str) -> list[str]:
    return [r for r, s in ROLE_SKILLS.items() if phase in s]


def make_llm_agent(role: str, *, model: str, base_url: str | None = None,
                   api_key_env: str | None = None, tool_mode: str = "auto",
                   reasoning: bool | None = None, max_completion_tokens: int | None = None,
                   max_tokens: int | None = None, reasoning_effort: str | None = None,
                   temperature: float | None = None, top_p: float | None = None,
                   seed: int | None = None, max_retries: int = 5, timeout_s: float = 120.0,
                   backoff_initial_s: float | None = None, backoff_max_s: float | None = None,
                   question_timeout_s: float | None = None, toolset: str = "paper",
                   typed_links: bool = False, json_mode: bool = False, flat_single: bool = False,
                   skills: Mapping[str, str] | None = None, prices: Any = None,
                   extra_body: Mapping[str, Any] | None = None) -> LLMAgent:
    """Build an agent for ``role`` (reader, forward, backward, trainer).

    Reasoning models (gpt-5*, o1/o3/o4*) get the paper's settings unless told otherwise:
    max_completion_tokens 12000 and reasoning_effort "low", never a temperature. Other models
    get max_completion_tokens 1024 unless ``max_tokens`` is given (llama.cpp reads that one).
    """
    from kbgym_agents.llm.client import RetryPolicy, make_sampling, resolve_endpoint

    sampling = make_sampling(
        model, reasoning=reasoning, max_completion_tokens=max_completion_tokens,
        max_tokens=max_tokens, reasoning_effort=reasoning_effort, temperature=temperature,
        top_p=top_p, seed=seed,
        defaults={"reasoning": {"max_completion_tokens": 12000, "reasoning_effort": "low"},
                  "chat": {"max_completion_tokens": 1024}})
    retry = RetryPolicy(max_retries=max_retries, timeout_s=timeout_s,
                        backoff_initial_s=backoff_initial_s, backoff_max_s=backoff_max_s)
    caller = ChatCaller(model, resolve_endpoint(base_url, api_key_env), sampling, retry,
                        extra_body=extra_body)
    return LLMAgent(caller, role, skills=skills, tool_mode=tool_mode, toolset=toolset,
                    typed_links=typed_links, json_mode=json_mode, flat_single=flat_single,
                    question_timeout_s=question_timeout_s, prices=prices)
