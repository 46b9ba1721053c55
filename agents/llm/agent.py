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
messages (in the ``text`` tool mode both get the same tool appendix too). ``skill_set="small"``
swaps in the short skills written for small models (``retrieval_small``, ``curation_small``).

Retrieval steps (probe, forward) pass through the guards of :mod:`kbgym_agents.llm.guards` in
every tool mode: only ``answer`` on the last step, no ``answer`` before anything was shown,
a repeated identical call asked again once with a one-line hint and then replaced by the
cheapest unseen step. Authored notes that name a key of the question and were never read are
offered to the model in one line after the observation (``offers``); the observation itself is
sent as given. In the ``fields`` mode (:mod:`kbgym_agents.llm.fields`) the model fills fields
and the agent picks the action; retrieval steps there are preceded by a few worked turns
(``demo``, ``agents/prompts/retrieval_fields_demo.md``: a fixed prefix, so a prompt cache
holds it). For a question asking along a relation chain ("the job of the spouse of X") the
fields mode also adds one line after the observation saying how far the shown notes follow the
chain and what to search next (``chain``, :mod:`kbgym_agents.llm.chain`), and offers as answers
only the values stated of the people at the chain's end.

A call that still fails after the SDK's retries, a reply without any call, and a step after
the per-question wall-clock cap all return ``None``, which the env answers with ``ERROR: no
action was given`` (``__noop__`` in the trace): the step is spent and the run goes on.
"""

from __future__ import annotations

import re
import time
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any

from kbgym_agents.llm.chain import chain_line
from kbgym_agents.llm.client import CallResult, ChatCaller
from kbgym_agents.llm.fields import (
    CURATOR_PROTOCOL,
    FIELDS_JSON,
    READER_PROTOCOL,
    CurationView,
    chain_state,
    curator_action,
    curator_schema,
    read_object,
    reader_action,
    reader_schema,
    response_format,
)
from kbgym_agents.llm.guards import (
    StepView,
    action_name,
    cheapest_unseen,
    last_step_answer,
    repeat_hint,
)
from kbgym_agents.llm.skills import SKILL_SETS, load_skill, load_turns, skill_digest
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
RETRIEVAL_PHASES = ("probe", "forward")
#: The text mode's line on the last step (the tools mode forces ``answer`` by name instead).
LAST_STEP_LINE = "This is your last action: reply with answer."
#: At most this many index offers are added after an observation.
MAX_OFFERS = 2
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
    how: dict = field(default_factory=dict)   # tool_call / act / text / fields / none -> count
    fields: dict = field(default_factory=dict)  # fields mode: how the action was chosen
    guards: dict = field(default_factory=dict)  # guard -> times it changed a decision
    mode: str = "tools"            # the tool mode in use (auto mode may move it on)
    switches: list = field(default_factory=list)  # [from, to, reason]

    def count(self, how: str, counter: str = "how") -> None:
        table = getattr(self, counter)
        table[how] = table.get(how, 0) + 1


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
                 prices: Any = None, skill_set: str = "full", guards: bool = True,
                 offers: bool = True, fields_json: str = "schema",
                 demo: str | None = "retrieval_fields_demo", first_search: bool | None = None,
                 chain: bool = True, _shared: tuple | None = None):
        if role not in ROLE_SKILLS:
            raise ConfigError(f"unknown role {role!r}; expected one of {', '.join(ROLE_SKILLS)}")
        if tool_mode not in TOOL_MODES:
            raise ConfigError(f"unknown tool mode {tool_mode!r}; expected one of "
                              f"{', '.join(TOOL_MODES)}")
        if skill_set not in SKILL_SETS:
            raise ConfigError(f"unknown skill set {skill_set!r}; expected one of "
                              f"{', '.join(SKILL_SETS)}")
        if fields_json not in FIELDS_JSON:
            raise ConfigError(f"unknown fields_json {fields_json!r}; expected one of "
                              f"{', '.join(FIELDS_JSON)}")
        self.caller = caller
        self.role = role
        names = dict(ROLE_SKILLS[role])
        if toolset == "evidence":  # the skills that also describe locate, expand and types
            names = {phase: f"{name}_evidence" for phase, name in names.items()}
        if skill_set == "small":
            names = {phase: f"{name}_small" for phase, name in names.items()}
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
        self.skill_set = skill_set
        self.guards = guards
        self.offers = offers
        self.fields_json = fields_json
        self.demo = demo
        self.chain = chain
        # the fields mode's first step is the agent's (its worked turns start after it)
        self.first_search = tool_mode == "fields" if first_search is None else first_search
        if demo:
            load_turns(demo)  # a missing or malformed file fails here, not at the first step
        if _shared is None:
            start = "tools" if tool_mode == "auto" else tool_mode
            _shared = (AgentStats(mode=start),)
        self._shared = _shared
        self.last_usage: tuple[int, int, int] = (0, 0, 0)
        self.last_reading: Reading | None = None
        self.last_fields: dict | None = None
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
                        skill_set=self.skill_set, guards=self.guards, offers=self.offers,
                        fields_json=self.fields_json, demo=self.demo,
                        first_search=self.first_search, chain=self.chain,
                        _shared=self._shared)

    def act(self, observation: Mapping, info: Mapping | None = None) -> Any:
        steps = self._decide(observation)
        result = None
        try:
            while True:
                request, messages = steps.send(result)
                result = self.caller.call(messages, deadline=self._deadline,
                                          **self._seeded(request.fields))
        except StopIteration as stop:
            return stop.value

    async def aact(self, observation: Mapping, info: Mapping | None = None) -> Any:
        steps = self._decide(observation)
        result = None
        try:
            while True:
                request, messages = steps.send(result)
                result = await self.caller.acall(messages, deadline=self._deadline,
                                                 **self._seeded(request.fields))
        except StopIteration as stop:
            return stop.value

    def _decide(self, observation: Mapping) -> Generator[tuple[Request, list[dict]],
                                                         CallResult, Any]:
        """One decision: yields each call to make (a mode switch or a re-ask makes another)
        and returns the action."""
        self._begin()
        view = (StepView.of(str(observation["text"]))
                if phase_name(observation["phase"]) in RETRIEVAL_PHASES else None)
        if (view is not None and self.first_search and view.nothing_shown
                and view.question and not view.searched):
            self.agent_stats.count("first_search", "guards")
            return cheapest_unseen(view)  # the question's own words: no call needed
        hint = None
        for _ in range(len(MODES) + 1):
            request, messages = self._prepare(observation, view, hint)
            result = yield request, messages
            done, action = self._finish(request, result, observation, view)
            if not done:
                continue
            if view is None or not self.guards or action is None:
                return action
            verdict, value = self._guard(action, view, observation, reasked=hint is not None)
            if verdict == "reask":
                hint = value
                continue
            return value
        return self._noop("no mode left")

    def _guard(self, action: Any, view: StepView, observation: Mapping,
               reasked: bool) -> tuple[str, Any]:
        """("act", the action to take) or ("reask", the hint line) for a retrieval step."""
        tools = self._tools(observation)
        name = action_name(action)
        if view.last_step and "answer" in tools:
            if name != "answer":
                self.agent_stats.count("last_step", "guards")
                return "act", last_step_answer()
            return "act", action
        if name == "answer" and view.nothing_shown:
            self.agent_stats.count("early_answer", "guards")
            return "act", cheapest_unseen(view)
        if view.is_repeat(action):
            if not reasked:
                self.agent_stats.count("reask", "guards")
                return "reask", repeat_hint(action)
            self.agent_stats.count("repeat_replaced", "guards")
            return "act", cheapest_unseen(view)
        return "act", action

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
        self.last_fields = None
        self.last_error = None
        self.agent_stats.steps += 1

    def system_message(self, phase: Any) -> str:
        """The skill text sent as the system message in ``phase`` (mode suffix excluded)."""
        name = phase_name(phase)
        if name not in self.skills:
            raise ConfigError(f"the {self.role} agent has no skill for the {name} phase; use "
                              f"a role that plays it ({', '.join(_roles_for(name))})")
        return self.skills[name]

    def _tools(self, observation: Mapping) -> tuple[str, ...]:
        return tuple(s["function"]["name"] for s in
                     phase_schemas(observation["phase"], self.toolset, self.typed_links))

    def _prepare(self, observation: Mapping, view: StepView | None = None,
                 hint: str | None = None) -> tuple[Request, list[dict]]:
        phase = observation["phase"]
        system = self.system_message(phase)
        schemas = phase_schemas(phase, self.toolset, self.typed_links)
        mode = self.agent_stats.mode
        last = view is not None and self.guards and view.last_step \
            and "answer" in self._tools(observation)
        if last and mode == "single":
            schemas = [s for s in schemas if s["function"]["name"] == "answer"]
        if mode == "fields":
            if view is not None:
                suffix, schema = READER_PROTOCOL, reader_schema(view, self.chain)
            else:
                suffix = CURATOR_PROTOCOL
                schema = curator_schema(CurationView.of(str(observation["text"])))
            request = build_request(mode, schemas, fields_suffix=suffix,
                                    response_format=response_format(schema, self.fields_json))
        else:
            request = build_request(mode, schemas, json_mode=self.json_mode,
                                    flat_single=self.flat_single)
            if last and mode == "tools":  # the same tools (a prompt cache keeps them), forced
                request = Request(mode, request.system_suffix, {
                    **request.fields,
                    "tool_choice": {"type": "function", "function": {"name": "answer"}}})
        user = str(observation["text"])
        extra = [LAST_STEP_LINE] if last and mode == "text" else []
        if view is not None and self.offers and not view.last_step:
            extra += [f"Offer: {nid} is an index note naming {key}; read {nid} to see every "
                      "note it links to." for nid, _, key in view.index_offers()[:MAX_OFFERS]]
        if view is not None and self.chain and mode == "fields" and not view.last_step \
                and not view.nothing_shown and (state := chain_state(view)) is not None:
            extra.append(chain_line(state))
        if hint:
            extra.append(hint)
        if extra:
            user += "\n\n" + "\n".join(extra)
        demo = list(load_turns(self.demo)) if (mode == "fields" and view is not None
                                                and self.demo) else []
        if demo and not self.chain:  # the worked turns as the agent would show them
            demo = [{**t, "content": _without_chain(t["content"])} for t in demo]
        messages = [{"role": "system", "content": system + request.system_suffix}, *demo,
                    {"role": "user", "content": user}]
        return request, messages

    def _finish(self, request: Request, result: CallResult, observation: Mapping | None = None,
                view: StepView | None = None) -> tuple[bool, Any]:
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
        if request.mode == "fields":
            return True, self._fields_action(message, observation, view)
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

    def _fields_action(self, message: Any, observation: Mapping | None,
                       view: StepView | None) -> Any:
        content = getattr(message, "content", None)
        if content is None and isinstance(message, Mapping):
            content = message.get("content")
        obj = read_object(content if isinstance(content, str) else None)
        if view is not None:
            decision = reader_action(obj, view, self.chain)
        else:
            decision = curator_action(obj, CurationView.of(str((observation or {})["text"])))
        stats = self.agent_stats
        stats.count("fields")
        stats.count(decision.how if obj is not None else "unreadable", "fields")
        self.last_reading = Reading(decision.action, "fields")
        self.last_fields = obj
        return decision.action

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
        if self.tool_mode == "fields":
            sent["fields_json"] = self.fields_json
        out = {
            "model": c.model, "role": self.role, "base_url_env": c.endpoint.base_url_env,
            "api_key_env": c.endpoint.api_key_env, "sampling": c.sampling.as_sent(),
            "request": sent, "toolset": self.toolset, "typed_links": self.typed_links,
            "max_retries": c.retry.max_retries, "timeout_s": c.retry.timeout_s,
            "question_timeout_s": self.question_timeout_s,
            "skill_set": self.skill_set, "guards": self.guards, "offers": self.offers,
            "first_search": self.first_search, "chain": self.chain,
            "demo": ({"name": self.demo, "digest": skill_digest(load_skill(self.demo))}
                     if self.demo and self.tool_mode == "fields" else None),
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
               "fields": dict(sorted(a.fields.items())),
               "guards": dict(sorted(a.guards.items())),
               "switches": [list(s) for s in a.switches]}
        if self.prices is not None:
            from kbgym_agents.llm.cost import PriceTable

            table = PriceTable.load(self.prices)
            model, t_in, t_out = self.caller.model, out["tokens_in"], out["tokens_out"]
            out["cost_usd"] = table.cost(model, t_in, t_out, out["tokens_cached"])
            out["cost_usd_no_cache"] = table.cost(model, t_in, t_out)
        return out


def _without_chain(text: str) -> str:
    """A worked user turn without its chain line (for an agent with ``chain`` off)."""
    return re.sub(r"\n\nChain: [^\n]*", "", text)


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
                   extra_body: Mapping[str, Any] | None = None, skill_set: str = "full",
                   guards: bool = True, offers: bool = True,
                   fields_json: str = "schema",
                   demo: str | None = "retrieval_fields_demo",
                   first_search: bool | None = None, chain: bool = True) -> LLMAgent:
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
                    question_timeout_s=question_timeout_s, prices=prices, skill_set=skill_set,
                    guards=guards, offers=offers, fields_json=fields_json, demo=demo,
                    first_search=first_search, chain=chain)
