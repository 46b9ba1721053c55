"""OpenAI-compatible chat calls for KBGym's LLM agents (SPEC §9.5).

This module owns everything about talking to an endpoint and nothing about KBGym:

- :func:`resolve_endpoint`: the base URL (``base_url`` or ``$OPENAI_BASE_URL``) and the API
  key, read from the environment variable *named* by ``api_key_env`` (never passed by value);
- :class:`Sampling`: the sampling settings, reduced to exactly what is sent (no temperature
  for reasoning models, no reasoning effort for the others), which is what ``meta.json``
  records;
- :class:`RetryPolicy`: our limits for the SDK's own retry loop (``max_retries``, the request
  timeout, and optionally the backoff delays);
- :class:`ChatCaller`: one chat completion, sync or async, that never raises for an API
  failure: it returns a :class:`CallResult` holding either the completion or the error kind,
  and keeps call, retry, error and token counters in a shared :class:`CallStats`;
- :func:`usage_of`: prompt, completion and cached prompt tokens of a completion, from its
  ``usage`` (OpenAI's ``prompt_tokens_details.cached_tokens``) or llama.cpp's ``timings``.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from kbgym.errors import ConfigError

#: Model-name prefixes of reasoning models (no temperature; max_completion_tokens, effort).
REASONING_PREFIXES: tuple[str, ...] = ("o1", "o3", "o4", "gpt-5")
BASE_URL_ENV = "OPENAI_BASE_URL"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
#: The key sent to a keyless local server when the named variable is unset.
LOCAL_PLACEHOLDER_KEY = "sk-no-key-required"
LOCAL_HOSTS = ("127.", "localhost", "[::1]", "0.0.0.0")


def is_reasoning_model(model: str) -> bool:
    """True for o1/o3/o4/gpt-5 style names (a ``provider/`` prefix is ignored)."""
    name = model.rsplit("/", 1)[-1].lower()
    return name.startswith(REASONING_PREFIXES)


# -- endpoint ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Endpoint:
    """Where calls go. ``api_key`` is never written to any log or repr."""

    base_url: str | None
    base_url_env: str | None  # the variable the URL came from (None: given, or SDK default)
    api_key_env: str
    api_key: str = field(repr=False)

    @property
    def is_local(self) -> bool:
        return _is_local(self.base_url)


def _is_local(url: str | None) -> bool:
    if not url:
        return False
    rest = url.split("://", 1)[-1]
    return rest.startswith(LOCAL_HOSTS)


def resolve_endpoint(base_url: str | None = None, api_key_env: str | None = None,
                     environ: Mapping[str, str] | None = None) -> Endpoint:
    """The endpoint from ``base_url`` or ``$OPENAI_BASE_URL``, the key from ``$api_key_env``.

    A loopback endpoint works without a key (a placeholder is sent); any other endpoint needs
    the named variable to be set.
    """
    env = os.environ if environ is None else environ
    key_env = api_key_env or DEFAULT_KEY_ENV
    url_env = None
    if not base_url:
        base_url = env.get(BASE_URL_ENV) or None
        url_env = BASE_URL_ENV if base_url else None
    key = env.get(key_env)
    if not key:
        if base_url is not None and _is_local(base_url):
            key = LOCAL_PLACEHOLDER_KEY
        else:
            where = base_url or "the default OpenAI endpoint"
            raise ConfigError(f"no API key: set the environment variable {key_env} for {where} "
                              f"(or name another one with --api-key-env)")
    return Endpoint(base_url, url_env, key_env, key)


# -- sampling ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Sampling:
    """Sampling settings; :meth:`as_sent` is exactly what goes into the request."""

    max_completion_tokens: int | None = None
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None

    def as_sent(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


def make_sampling(model: str, *, reasoning: bool | None = None,
                  max_completion_tokens: int | None = None, max_tokens: int | None = None,
                  reasoning_effort: str | None = None, temperature: float | None = None,
                  top_p: float | None = None, seed: int | None = None,
                  defaults: Mapping[str, Any] | None = None) -> Sampling:
    """The settings to send for ``model``.

    Reasoning models (auto-detected from the name unless ``reasoning`` says) never get
    temperature or top_p; the others never get reasoning_effort. ``defaults`` fill what was not
    given, per kind: ``{"reasoning": {...}, "chat": {...}}``.
    """
    reasoning = is_reasoning_model(model) if reasoning is None else bool(reasoning)
    given = {"max_completion_tokens": max_completion_tokens, "max_tokens": max_tokens,
             "reasoning_effort": reasoning_effort, "temperature": temperature,
             "top_p": top_p, "seed": seed}
    kind = "reasoning" if reasoning else "chat"
    for k, v in ((defaults or {}).get(kind) or {}).items():
        if given.get(k) is None and not (k == "max_completion_tokens" and max_tokens is not None):
            given[k] = v
    if reasoning:
        given["temperature"] = given["top_p"] = None
    else:
        given["reasoning_effort"] = None
    return Sampling(**given)


# -- retries -----------------------------------------------------------------------------


@dataclass(frozen=True)
class RetryPolicy:
    """Limits for the SDK's retry loop (timeouts, 408/409/429/5xx and connection errors).

    ``backoff_initial_s``/``backoff_max_s`` None keep the SDK's own delays (0.5 s doubling to
    8 s, with jitter); set them to bound the waits (tests and local servers use small ones).
    A server's ``Retry-After`` is honoured up to ``backoff_max_s``.
    """

    max_retries: int = 5
    timeout_s: float = 120.0
    backoff_initial_s: float | None = None
    backoff_max_s: float | None = None


@dataclass
class CallStats:
    """Counters shared by every caller of one agent (and its concurrent spawns)."""

    calls: int = 0           # chat calls started (one per agent decision)
    ok: int = 0              # calls that returned a completion
    retries: int = 0         # SDK retries taken (sum over calls)
    errors: dict = field(default_factory=dict)  # kind -> calls that failed after retries
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = 0   # prompt tokens (part of tokens_in) the server read from its cache

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    @property
    def failed(self) -> int:
        return sum(self.errors.values())

    def as_dict(self) -> dict:
        return {"calls": self.calls, "ok": self.ok, "retries": self.retries,
                "failed": self.failed, "errors": dict(sorted(self.errors.items())),
                "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                "tokens_cached": self.tokens_cached}


def _with_policy(base: type, policy: RetryPolicy, stats: CallStats) -> type:
    """A subclass of the SDK client whose retry delays follow ``policy`` and are counted.

    Only the delay computation is replaced; when and how often to retry stays the SDK's.
    """

    class Client(base):  # type: ignore[misc, valid-type]
        def _calculate_retry_timeout(self, remaining_retries, options, response_headers=None):
            stats.retries += 1
            if policy.backoff_initial_s is None:
                return super()._calculate_retry_timeout(remaining_retries, options,
                                                        response_headers)
            cap = policy.backoff_max_s if policy.backoff_max_s is not None else 8.0
            try:
                after = self._parse_retry_after_header(response_headers)
            except Exception:  # a private helper of the SDK: tolerate its absence
                after = None
            if after is not None and math.isfinite(after) and after > 0:
                return min(after, cap)
            n = max(0, options.get_max_retries(self.max_retries) - remaining_retries)
            return min(policy.backoff_initial_s * (2.0 ** min(n, 30)), cap)

    Client.__name__ = Client.__qualname__ = f"KBGym{base.__name__}"
    return Client


# -- calls -------------------------------------------------------------------------------


@dataclass
class CallResult:
    """A completion, or the kind of failure (``timeout``, ``rate_limit``, ``server``,
    ``connection``, ``bad_request``, ``bad_response``, ``other``, ``capped``)."""

    completion: Any = None
    error: str | None = None
    detail: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    tokens_cached: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None


def require_openai() -> None:
    """The OpenAI client is an extra: a one-line error naming it when it is missing."""
    try:
        import openai  # noqa: F401
    except ImportError:
        raise ConfigError("LLM agents need the OpenAI client: pip install 'kbgym[llm]'") \
            from None


def error_kind(err: BaseException) -> str:
    """Classify an SDK exception (after its retries) for the counters."""
    import openai

    if isinstance(err, openai.APITimeoutError):
        return "timeout"
    if isinstance(err, openai.APIConnectionError):
        return "connection"
    if isinstance(err, openai.RateLimitError):
        return "rate_limit"
    if isinstance(err, openai.BadRequestError):
        return "bad_request"
    if isinstance(err, openai.APIStatusError):
        return "server" if err.status_code >= 500 else f"http_{err.status_code}"
    if isinstance(err, (openai.APIResponseValidationError, ValueError, TypeError,
                        AttributeError, KeyError)):
        return "bad_response"
    return "other"


def _count(value: Any) -> int | None:
    """A token count as reported, or None when it is missing or not a count (a server's bad
    value never fails a call)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if value != value or value < 0 or value == float("inf"):
        return None
    return int(value)


def _field(obj: Any, key: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def usage_of(completion: Any) -> tuple[int, int, int]:
    """(prompt tokens, completion tokens, cached prompt tokens) of a completion.

    The cached count is the part of the prompt the server did not have to process again:
    ``usage.prompt_tokens_details.cached_tokens`` when the server reports it (OpenAI, recent
    llama.cpp), else llama.cpp's ``timings.cache_n`` (``prompt_n`` is the part it did
    process, so ``prompt_n + cache_n`` stands in for a missing ``usage.prompt_tokens``).
    Missing or malformed values count as 0, and the cached count never exceeds the prompt.
    """
    usage = _field(completion, "usage")
    timings = _field(completion, "timings")  # an extra field the SDK keeps as a dict
    if not isinstance(timings, Mapping):
        timings = None
    t_in = _count(_field(usage, "prompt_tokens"))
    t_out = _count(_field(usage, "completion_tokens"))
    cached = _count(_field(_field(usage, "prompt_tokens_details"), "cached_tokens"))
    if timings is not None:
        cache_n, prompt_n = _count(timings.get("cache_n")), _count(timings.get("prompt_n"))
        if cached is None:
            cached = cache_n
        if not t_in and prompt_n is not None:
            t_in = prompt_n + (cache_n or 0)
        if not t_out:
            t_out = _count(timings.get("predicted_n"))
    t_in, t_out, cached = t_in or 0, t_out or 0, cached or 0
    return t_in, t_out, min(cached, t_in)


class ChatCaller:
    """Chat completions against one endpoint with one model and one sampling.

    ``call``/``acall`` take the messages and any extra request fields (tools, tool_choice,
    response_format) and return a :class:`CallResult`; they never raise for API failures.
    The sync and async SDK clients are made on first use and share the counters.
    """

    def __init__(self, model: str, endpoint: Endpoint, sampling: Sampling | None = None,
                 retry: RetryPolicy | None = None, stats: CallStats | None = None,
                 extra_body: Mapping[str, Any] | None = None):
        if not model:
            raise ConfigError("an LLM agent needs a model name (--model)")
        require_openai()
        self.model = model
        self.endpoint = endpoint
        self.sampling = sampling or Sampling()
        self.retry = retry or RetryPolicy()
        self.stats = stats or CallStats()
        self.extra_body = dict(extra_body) if extra_body else None
        self._sync = None
        self._async = None

    # clients ---------------------------------------------------------------------------
    def _client_kwargs(self) -> dict:
        return {"api_key": self.endpoint.api_key, "base_url": self.endpoint.base_url,
                "max_retries": self.retry.max_retries, "timeout": self.retry.timeout_s}

    @property
    def client(self):
        if self._sync is None:
            import openai

            self._sync = _with_policy(openai.OpenAI, self.retry, self.stats)(
                **self._client_kwargs())
        return self._sync

    @property
    def aclient(self):
        if self._async is None:
            import openai

            self._async = _with_policy(openai.AsyncOpenAI, self.retry, self.stats)(
                **self._client_kwargs())
        return self._async

    def fork(self) -> "ChatCaller":
        """A caller with the same settings and counters but its own SDK clients (for another
        event loop or thread)."""
        return ChatCaller(self.model, self.endpoint, self.sampling, self.retry, self.stats,
                          self.extra_body)

    def close(self) -> None:
        if self._sync is not None:
            self._sync.close()
            self._sync = None

    async def aclose(self) -> None:
        if self._async is not None:
            await self._async.close()
            self._async = None

    # requests --------------------------------------------------------------------------
    def request(self, messages: list[dict], **fields: Any) -> dict:
        """The JSON body as sent: model, messages, the sampling, then ``fields`` (tools,
        tool_choice, parallel_tool_calls, response_format) and any configured extra body."""
        body = {"model": self.model, "messages": messages, **self.sampling.as_sent()}
        body.update({k: v for k, v in fields.items() if v is not None})
        if self.extra_body:
            body.update(self.extra_body)
        return body

    # The body goes through the SDK's raw ``post`` (its documented way to send a request it
    # has no typed helper for) rather than ``chat.completions.create``: retries, timeouts,
    # error classes and response parsing are the SDK's own, but the body is sent as built
    # here, skipping ``create``'s recursive transform of the messages and tool schemas, which
    # costs several milliseconds per call and dominates a concurrent exam's CPU time.
    _PATH = "/chat/completions"

    def _timeout(self, deadline: float | None) -> float | None:
        if deadline is None:
            return None
        return max(0.001, min(self.retry.timeout_s, deadline - time.monotonic()))

    def _done(self, completion: Any, t0: float) -> CallResult:
        t_in, t_out, cached = usage_of(completion)
        self.stats.ok += 1
        self.stats.tokens_in += t_in
        self.stats.tokens_out += t_out
        self.stats.tokens_cached += cached
        return CallResult(completion, None, "", t_in, t_out, time.monotonic() - t0, cached)

    def _failed(self, err: BaseException, t0: float) -> CallResult:
        kind = error_kind(err)
        self.stats.error(kind)
        return CallResult(None, kind, f"{type(err).__name__}: {err}"[:300], 0, 0,
                          time.monotonic() - t0)

    def _capped(self) -> CallResult:
        self.stats.error("capped")
        return CallResult(None, "capped", "the per-question wall-clock cap was reached")

    def call(self, messages: list[dict], *, deadline: float | None = None,
             **fields: Any) -> CallResult:
        if deadline is not None and time.monotonic() >= deadline:
            return self._capped()
        self.stats.calls += 1
        t0 = time.monotonic()
        body = self.request(messages, **fields)
        timeout = self._timeout(deadline)
        try:
            from openai.types.chat import ChatCompletion

            completion = self.client.post(self._PATH, cast_to=ChatCompletion, body=body,
                                          options=_options(timeout))
            _check_completion(completion)
        except Exception as err:  # every failure becomes a counted CallResult
            return self._failed(err, t0)
        return self._done(completion, t0)

    async def acall(self, messages: list[dict], *, deadline: float | None = None,
                    **fields: Any) -> CallResult:
        if deadline is not None and time.monotonic() >= deadline:
            return self._capped()
        self.stats.calls += 1
        t0 = time.monotonic()
        body = self.request(messages, **fields)
        timeout = self._timeout(deadline)
        try:
            from openai.types.chat import ChatCompletion

            completion = await self.aclient.post(self._PATH, cast_to=ChatCompletion, body=body,
                                                 options=_options(timeout))
            _check_completion(completion)
        except Exception as err:
            return self._failed(err, t0)
        return self._done(completion, t0)


def _options(timeout: float | None) -> dict:
    return {} if timeout is None else {"timeout": timeout}


def _check_completion(completion: Any) -> None:
    """A 200 whose body is not a chat completion (a proxy page, garbage) is a bad response."""
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise ValueError("the response has no choices")
    if getattr(choices[0], "message", None) is None:
        raise ValueError("the response's first choice has no message")
