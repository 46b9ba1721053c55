"""The LLM dedup judge (SPEC §6.3): ``judge(a, b) -> bool`` for ``KBGymEnv(judge=...)``.

It asks whether two sentences state the same fact. The user message is ``1. {a}\\n2. {b}``
and the verdict is yes iff the lower-cased reply starts with ``yes``. Reasoning models get
max_completion_tokens 500 and reasoning_effort "minimal".

An API error (after the SDK's retries) is counted here (``errors``) and, by default, raised
as :class:`JudgeError`, so that the env's dedup guard counts it in ``judge_errors`` and treats
it as "not a duplicate". With ``on_error="false"`` the judge itself answers False instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kbgym_agents.llm.client import ChatCaller, RetryPolicy, make_sampling, resolve_endpoint
from kbgym_agents.llm.skills import load_skill, skill_digest
from kbgym.errors import ConfigError, KBGymError
from kbgym.library.dedup import judge_user_message, judge_verdict


class JudgeError(KBGymError):
    """The judge's API call failed after its retries (counts as not a duplicate)."""


class LLMJudge:
    """Counters: ``calls``, ``yes``, ``errors``, ``tokens_in``, ``tokens_out``,
    ``tokens_cached``; ``meta`` is the dict for meta.json's ``dedup`` block (judge_model,
    judge_tokens, judge_tokens_cached, judge_api_errors)."""

    def __init__(self, caller: ChatCaller, *, system: str | None = None,
                 on_error: str = "raise"):
        if on_error not in ("raise", "false"):
            raise ConfigError(f"on_error must be 'raise' or 'false', not {on_error!r}")
        self.caller = caller
        self.system = load_skill("judge") if system is None else system
        self.on_error = on_error
        self.calls = 0
        self.yes = 0
        self.errors = 0
        self.tokens_in = 0
        self.tokens_out = 0
        self.tokens_cached = 0
        self.last_reply: str | None = None

    def messages(self, a: str, b: str) -> list[dict]:
        return [{"role": "system", "content": self.system},
                {"role": "user", "content": judge_user_message(a, b)}]

    def __call__(self, a: str, b: str) -> bool:
        self.calls += 1
        result = self.caller.call(self.messages(a, b))
        return self._verdict(result)

    async def acall(self, a: str, b: str) -> bool:
        self.calls += 1
        result = await self.caller.acall(self.messages(a, b))
        return self._verdict(result)

    def _verdict(self, result) -> bool:
        self.tokens_in += result.tokens_in
        self.tokens_out += result.tokens_out
        self.tokens_cached += result.tokens_cached
        if not result.ok:
            self.errors += 1
            self.last_reply = None
            if self.on_error == "raise":
                raise JudgeError(f"judge call failed: {result.error} ({result.detail})")
            return False
        content = result.completion.choices[0].message.content
        self.last_reply = content if isinstance(content, str) else None
        verdict = judge_verdict(self.last_reply)
        self.yes += verdict
        return verdict

    @property
    def meta(self) -> dict:
        return {"judge_model": self.caller.model,
                "judge_sampling": self.caller.sampling.as_sent(),
                "judge_prompt": skill_digest(self.system),
                "judge_tokens": [self.tokens_in, self.tokens_out],
                "judge_tokens_cached": self.tokens_cached,
                "judge_api_errors": self.errors}

    @property
    def meta_view(self) -> Mapping:
        """:attr:`meta` as a live mapping: read again on every access, so a runner that
        spreads it into meta.json when it writes (``train(judge_meta=judge.meta_view)``)
        records the final token counts."""
        return _LiveMeta(self)

    @property
    def stats(self) -> dict:
        return {"calls": self.calls, "yes": self.yes, "errors": self.errors,
                "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                "tokens_cached": self.tokens_cached}


class _LiveMeta(Mapping):
    def __init__(self, judge: LLMJudge):
        self._judge = judge

    def __getitem__(self, key: str) -> Any:
        return self._judge.meta[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._judge.meta)

    def __len__(self) -> int:
        return len(self._judge.meta)


def make_judge(*, model: str, base_url: str | None = None, api_key_env: str | None = None,
               reasoning: bool | None = None, max_completion_tokens: int | None = None,
               max_tokens: int | None = None, reasoning_effort: str | None = None,
               temperature: float | None = None, max_retries: int = 5,
               timeout_s: float = 60.0, backoff_initial_s: float | None = None,
               backoff_max_s: float | None = None, on_error: str = "raise",
               system: str | None = None, **_: Any) -> LLMJudge:
    sampling = make_sampling(
        model, reasoning=reasoning, max_completion_tokens=max_completion_tokens,
        max_tokens=max_tokens, reasoning_effort=reasoning_effort, temperature=temperature,
        defaults={"reasoning": {"max_completion_tokens": 500, "reasoning_effort": "minimal"},
                  "chat": {"max_completion_tokens": 16}})
    retry = RetryPolicy(max_retries=max_retries, timeout_s=timeout_s,
                        backoff_initial_s=backoff_initial_s, backoff_max_s=backoff_max_s)
    caller = ChatCaller(model, resolve_endpoint(base_url, api_key_env), sampling, retry)
    return LLMJudge(caller, system=system, on_error=on_error)
