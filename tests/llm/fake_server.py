"""A small OpenAI-compatible chat server on loopback, for tests and the probe benchmark.

``POST /v1/chat/completions`` answers with a chat completion whose one choice carries the
action a *responder* picked, rendered the way the request asks for it:

- tools offered and ``tool_choice`` names ``act`` (the single-tool mode) -> a real tool call
  ``act({"action": name, ...})``;
- tools offered (the multi-tool mode) -> a real tool call ``name({...})``; with
  ``text_unless_named=True`` (llama.cpp's quirk) the call comes back as message text instead
  unless ``tool_choice`` names a function;
- no tools -> message text holding ``{"name": ..., "arguments": ...}`` (fenced or bare).

Faults are queued (``server.faults.append(...)``) and consumed one per request, in arrival
order: a delay, a hang longer than the client's timeout, an HTTP status (429, 500, 400 ...),
a garbage body, or a fixed raw reply (wrong tool name, broken arguments, no call at all).
Every request body is kept in ``server.requests``. The default responder, :class:`ToyPolicy`,
is a deterministic function of the observation text, so sequential and concurrent runs agree.

Prompt caching (``cache=``, off by default) imitates a server that reuses the longest prefix
a new prompt shares with one of the last ``cache_slots`` prompts it saw (llama.cpp keeps one
per slot), counted in the server's toy tokens (4 characters each), rounded down to
``cache_block`` tokens and 0 under ``cache_min_tokens`` (OpenAI caches from 1024 tokens in
steps of 128). It reports the cached tokens the way the request's server would:

- ``usage``: OpenAI's ``usage.prompt_tokens_details.cached_tokens``;
- ``timings``: llama.cpp's ``timings`` block (``cache_n`` cached, ``prompt_n`` processed,
  ``predicted_n`` generated, and their milliseconds), with a plain ``usage``;
- ``both``: the two together, as recent llama.cpp servers do.

``prompt_ms_per_token`` adds a delay per *processed* (uncached) prompt token, so that a
cache-friendly prompt layout is also faster here, as it is on a real local server.

Run standalone (for the benchmark): ``python fake_server.py --latency 0.1`` prints
``PORT <n>`` and serves until killed.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

# -- what the responder returns ----------------------------------------------------------


@dataclass(frozen=True)
class Intent:
    """An action the model "wants": rendered as a tool call or text by the server."""

    name: str
    args: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Raw:
    """A reply sent as given: ``tool_calls`` [(name, arguments string)] and/or ``content``."""

    tool_calls: tuple = ()
    content: str | None = None


@dataclass(frozen=True)
class Fault:
    kind: str  # delay | hang | status | garbage | reply
    seconds: float = 0.0
    status: int = 0
    retry_after_ms: int | None = None
    message: str = ""
    reply: Raw | Intent | None = None

    @staticmethod
    def delay(seconds: float) -> "Fault":
        return Fault("delay", seconds=seconds)

    @staticmethod
    def hang(seconds: float) -> "Fault":
        return Fault("hang", seconds=seconds)

    @staticmethod
    def http(status: int, retry_after_ms: int | None = None, message: str = "") -> "Fault":
        return Fault("status", status=status, retry_after_ms=retry_after_ms, message=message)

    @staticmethod
    def garbage() -> "Fault":
        return Fault("garbage")

    @staticmethod
    def answer_with(reply: Raw | Intent) -> "Fault":
        return Fault("reply", reply=reply)


Responder = Callable[[dict], "Intent | Raw"]


# -- the default responder -----------------------------------------------------------------

_HIT = re.compile(r"^- (s\d+): (.*)$", re.MULTILINE)


def observation_of(body: dict) -> str:
    for m in reversed(body.get("messages", [])):
        if m.get("role") == "user":
            return str(m.get("content") or "")
    return ""


class ToyPolicy:
    """A deterministic toy model reading only the observation text.

    forward/probe: search the question, then answer the last word of the first hit.
    backward: add an index-like note, link it to the first hit of the forward search, done.
    In the fields mode (the system message lists the fields) it fills the fields to the same
    effect and the agent acts.
    """

    def __call__(self, body: dict) -> Intent | Raw:
        text = observation_of(body)
        lines = text.split("\n")
        head, question = lines[0], (lines[1] if len(lines) > 1 else "")
        recent = text.split("Recent actions (oldest first):", 1)[-1]
        system = system_of(body)
        if '"finished": false' in system or '"evidence": "' in system:
            return self.fields(text, head, question, recent, body)
        if "[phase 2" in head:
            if "-> added " not in recent and "duplicate of" not in recent:
                return Intent("add", {"text": f"Notes for the question: {question}"})
            if "- link(" not in recent:
                added = re.findall(r"-> added (s\d+)", recent) or \
                    re.findall(r"duplicate of (s\d+)", recent)
                hits = _HIT.findall(recent)
                target = next((h[0] for h in hits if h[0] != added[-1]), "s0001")
                return Intent("link", {"source": added[-1], "target": target})
            return Intent("done", {})
        if "- search(" not in recent:
            return Intent("search", {"query": question})
        hits = _HIT.findall(recent)
        word = hits[0][1].rstrip(".").split()[-1] if hits else "unknown"
        return Intent("answer", {"text": word})


    def fields(self, text: str, head: str, question: str, recent: str, body: dict) -> Raw:
        """The same policy in the fields mode: fills the fields and lets the agent act (under a
        schema, the answer is the first one it offers, as a constrained model's would be)."""
        hits = _HIT.findall(recent)
        if "[phase 2" in head:
            linked = "- link_many(" in recent
            return Raw(content=json.dumps({
                "key": question, "title": f"Notes for the question: {question}",
                "members": [h[0] for h in hits[:2]], "search": "", "finished": linked}))
        if "- search(" not in recent:
            return Raw(content=json.dumps({"target": question, "search": question}))
        word = hits[0][1].rstrip(".").split()[-1] if hits else "unknown"
        schema = (body.get("response_format") or {}).get("schema") or {}
        offered = schema.get("properties", {}).get("answer", {}).get("enum")
        if offered:
            word = next((a for a in offered if a != "not yet"), offered[0])
        return Raw(content=json.dumps({"evidence": hits[0][1] if hits else "", "target": "",
                                       "answer": word, "read": "", "search": ""}))


def system_of(body: dict) -> str:
    for m in body.get("messages", []):
        if m.get("role") == "system":
            return str(m.get("content") or "")
    return ""


class Script:
    """Replies taken in order (then ``then`` for the rest); for single-call tests."""

    def __init__(self, replies, then: Responder | None = None):
        self.replies = collections.deque(replies)
        self.then = then or ToyPolicy()

    def __call__(self, body: dict):
        return self.replies.popleft() if self.replies else self.then(body)


# -- rendering -------------------------------------------------------------------------------


def _tokens(text: str) -> int:
    return len(text) // 4 + 1


def prompt_text(body: dict) -> tuple[str, int]:
    """The prompt as the cache sees it (the offered tools, then each message in order) and
    the length of its tools part, which the toy usage does not count as prompt tokens."""
    tools = json.dumps(body.get("tools") or [], sort_keys=True)
    return tools + "".join(f"\x1e{m.get('role')}\x1f{m.get('content') or ''}"
                           for m in body.get("messages", [])), len(tools)


def common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


CACHE_MODES = ("off", "usage", "timings", "both")


def render(body: dict, reply: Intent | Raw, *, text_unless_named: bool,
           fenced: bool) -> dict:
    """The chat completion for ``reply`` as the request ``body`` asks for it."""
    tools = body.get("tools") or []
    names = [t.get("function", {}).get("name") for t in tools]
    choice = body.get("tool_choice")
    named = isinstance(choice, dict)
    calls: list[tuple[str, str]] = []
    content: str | None = None
    if isinstance(reply, Raw):
        calls, content = list(reply.tool_calls), reply.content
    elif tools and names == ["act"]:
        calls = [("act", json.dumps({"action": reply.name, **reply.args}))]
    elif tools and (named or not text_unless_named):
        calls = [(reply.name, json.dumps(reply.args))]
    else:
        obj = json.dumps({"name": reply.name, "arguments": reply.args})
        content = f"```json\n{obj}\n```" if fenced else obj
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(calls)]
    prompt = sum(_tokens(str(m.get("content") or "")) for m in body.get("messages", []))
    completion = _tokens((content or "") + "".join(n + a for n, a in calls))
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion},
    }


def stream_events(body: dict, out: dict) -> bytes:
    """The completion ``out`` as server-sent events (``"stream": true``): one chunk with the
    whole message as its delta, one with the finish reason, the usage when
    ``stream_options.include_usage`` asks for it, then ``[DONE]``."""
    choice = out["choices"][0]
    msg = choice["message"]
    delta: dict[str, Any] = {"role": "assistant", "content": msg.get("content") or ""}
    if msg.get("tool_calls"):
        delta["tool_calls"] = [dict(c, index=i) for i, c in enumerate(msg["tool_calls"])]
    base = {"id": out["id"], "object": "chat.completion.chunk", "created": 0,
            "model": out["model"]}
    chunks = [dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": None}]),
              dict(base, choices=[{"index": 0, "delta": {},
                                   "finish_reason": choice["finish_reason"]}])]
    if (body.get("stream_options") or {}).get("include_usage"):
        chunks.append(dict(base, choices=[], usage=out["usage"]))
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return text.encode()


# -- the server ------------------------------------------------------------------------------


class FakeServer:
    """``with FakeServer() as srv: srv.url`` -> ``http://127.0.0.1:PORT/v1``."""

    def __init__(self, responder: Responder | None = None, *, latency: float = 0.0,
                 text_unless_named: bool = False, fenced: bool = True,
                 host: str = "127.0.0.1", port: int = 0, keep_requests: bool = True,
                 cache: str = "off", cache_slots: int = 1, cache_min_tokens: int = 0,
                 cache_block: int = 1, prompt_ms_per_token: float = 0.0):
        if cache not in CACHE_MODES:
            raise ValueError(f"cache must be one of {', '.join(CACHE_MODES)}, not {cache!r}")
        self.responder = responder or ToyPolicy()
        self.cache = cache
        self.cache_slots = max(1, cache_slots)
        self.cache_min_tokens = cache_min_tokens
        self.cache_block = max(1, cache_block)
        self.prompt_ms_per_token = prompt_ms_per_token
        self.cached_prompts: collections.deque[str] = collections.deque(maxlen=self.cache_slots)
        self.cached_total = 0  # cached tokens reported so far (the tests' ground truth)
        self.latency = latency
        self.text_unless_named = text_unless_named
        self.fenced = fenced
        self.host, self.port = host, port
        self.keep_requests = keep_requests
        self.faults: collections.deque[Fault] = collections.deque()
        self.requests: list[dict] = []
        self.served: collections.Counter = collections.Counter()
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    # lifecycle
    def start(self) -> "FakeServer":
        ready = threading.Event()

        def run():
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            self._server = loop.run_until_complete(
                asyncio.start_server(self._handle, self.host, self.port, backlog=256))
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            loop.run_forever()
            self._server.close()
            loop.run_until_complete(self._server.wait_closed())
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.close()

        self._thread = threading.Thread(target=run, name="fake-openai", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the fake server did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop = self._thread = None

    def __enter__(self) -> "FakeServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def next_fault(self) -> Fault | None:
        with self._lock:
            return self.faults.popleft() if self.faults else None

    def chat_requests(self) -> list[dict]:
        return [r for r in self.requests if "messages" in r]

    def cached_tokens(self, body: dict) -> int:
        """The prompt tokens of ``body`` the cache holds now; then remember its prompt."""
        usage_in = sum(_tokens(str(m.get("content") or "")) for m in body.get("messages", []))
        text, n_tools = prompt_text(body)
        with self._lock:
            shared = max((common_prefix(text, p) for p in self.cached_prompts), default=0)
            self.cached_prompts.append(text)
        cached = min(max(0, shared - n_tools) // 4, usage_in)
        cached -= cached % self.cache_block
        return cached if cached >= self.cache_min_tokens else 0

    async def _prompt_cache(self, body: dict, out: dict) -> None:
        """Count the cached prompt tokens, wait for the processed ones, and report them."""
        usage = out["usage"]
        cached = self.cached_tokens(body) if self.cache != "off" else 0
        processed = usage["prompt_tokens"] - cached
        prompt_ms = processed * self.prompt_ms_per_token
        if prompt_ms:
            await asyncio.sleep(prompt_ms / 1000)
        if self.cache == "off":
            return
        self.cached_total += cached
        if self.cache in ("usage", "both"):
            usage["prompt_tokens_details"] = {"cached_tokens": cached}
        if self.cache in ("timings", "both"):
            n_out = usage["completion_tokens"]
            out["timings"] = {"cache_n": cached, "prompt_n": processed,
                              "prompt_ms": prompt_ms, "predicted_n": n_out,
                              "predicted_ms": float(n_out)}

    # HTTP
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                method, path, _ = line.decode("latin-1").split(" ", 2)
                headers = {}
                while True:
                    h = await reader.readline()
                    if h in (b"\r\n", b"\n", b""):
                        break
                    k, _, v = h.decode("latin-1").partition(":")
                    headers[k.strip().lower()] = v.strip()
                n = int(headers.get("content-length", "0") or 0)
                raw = await reader.readexactly(n) if n else b""
                status, extra, payload = await self._respond(method, path, raw)
                kind = extra.pop("content-type", "application/json")
                head = [f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}",
                        f"content-type: {kind}", f"content-length: {len(payload)}"]
                head += [f"{k}: {v}" for k, v in extra.items()]
                writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload)
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    break
        except (ConnectionError, asyncio.IncompleteReadError, ValueError,
                asyncio.CancelledError):
            pass
        finally:
            try:
                writer.close()
            except Exception:
                pass

    async def _respond(self, method: str, path: str, raw: bytes) -> tuple[int, dict, bytes]:
        path = path.split("?", 1)[0]
        if method == "GET" and path.endswith("/models"):
            return 200, {}, json.dumps({"object": "list", "data": [
                {"id": "fake", "object": "model", "created": 0, "owned_by": "tests"}]}).encode()
        if method != "POST" or not path.endswith("/chat/completions"):
            return 404, {}, b'{"error": {"message": "not found"}}'
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return 400, {}, b'{"error": {"message": "request body is not JSON"}}'
        if self.keep_requests:
            self.requests.append(body)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            fault = self.next_fault()
            if self.latency:
                await asyncio.sleep(self.latency)
            reply = None
            if fault is not None:
                self.served[fault.kind if fault.kind != "status" else str(fault.status)] += 1
                if fault.kind in ("delay", "hang"):
                    await asyncio.sleep(fault.seconds)
                elif fault.kind == "status":
                    extra = {"x-should-retry": "false"} if fault.status == 400 else {}
                    if fault.retry_after_ms is not None:
                        extra["retry-after-ms"] = str(fault.retry_after_ms)
                    msg = fault.message or f"injected {fault.status}"
                    return fault.status, extra, json.dumps(
                        {"error": {"message": msg, "type": "fake", "code": fault.status}}
                    ).encode()
                elif fault.kind == "garbage":
                    return 200, {}, b"<html>this is not json"
                elif fault.kind == "reply":
                    reply = fault.reply
            else:
                self.served["ok"] += 1
            if reply is None:
                reply = self.responder(body)
            out = render(body, reply, text_unless_named=self.text_unless_named,
                         fenced=self.fenced)
            if self.cache != "off" or self.prompt_ms_per_token:
                await self._prompt_cache(body, out)
            if body.get("stream"):
                return 200, {"content-type": "text/event-stream"}, stream_events(body, out)
            return 200, {}, json.dumps(out).encode()
        finally:
            self.in_flight -= 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--latency", type=float, default=0.0)
    p.add_argument("--text-unless-named", action="store_true")
    p.add_argument("--cache", choices=CACHE_MODES, default="off",
                   help="report cached prompt tokens in usage, timings or both")
    p.add_argument("--prompt-ms-per-token", type=float, default=0.0,
                   help="delay per processed (uncached) prompt token")
    args = p.parse_args(argv)
    srv = FakeServer(latency=args.latency, text_unless_named=args.text_unless_named,
                     port=args.port, keep_requests=False, cache=args.cache,
                     prompt_ms_per_token=args.prompt_ms_per_token).start()
    print(f"PORT {srv.port}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
