"""``kbgym serve``: KBGym as an OpenEnv server and evaluation service (the ``openenv`` extra).

    kbgym serve [--host 127.0.0.1] [--port 8000] [--universe u.json] [--reward both]
        [--library NAME=SNAPSHOT ...] [--train-splits train] [--max-sessions 8]
        [--idle-timeout 300]

Episodes go through OpenEnv's WebSocket session (``/ws``): one session per connection, its
KBGym environments built on its first reset and kept until it closes. A reset chooses:

- ``mode``: ``"train"`` (forward then backward phase; the backward task block shows the gold)
  or ``"probe"`` (an exam episode on a frozen copy of the library: search/read/answer, and no
  gold and no score is ever sent - the answer's result is ``submitted``, the reward None, the
  info without f1/em/status; the score goes to the server's exam book and ``--exam-log``, and
  a probe set's mean F1 is told once, to the session that answers its last question). A
  question is examined once per library (the library's state key: an edited library is
  another one); a second probe episode of it is refused;
- ``qid`` or ``split``: train episodes only on the splits the server opens to training
  (``--train-splits``, default ``train``), so a client cannot read a test question's gold;
  probe episodes on any split;
- ``library``: start from a fresh fork of a named library - ``B1`` (the universe's) or one
  given with ``--library NAME=SNAPSHOT`` - so the G rollouts of a GRPO group start from one
  state; without it the session keeps the library its last episode left (train episodes
  accumulate edits, as in the Gymnasium env).

The task API (``/kbgym/splits``, ``/kbgym/tasks``, ``/kbgym/task``, ...) lists questions
(qid, text, split; never golds). The server answers in OpenEnv's *production* mode: HTTP has
no ``/reset``, ``/step`` or ``/state`` (stateless requests would each build an environment and
lose it), and building a session costs nothing until its first reset. Frames that are not a
JSON object (binary frames, arrays, oversized or deeply nested text, integers past 4,300
digits) are answered with an error and the session lives on; a session idle for
``--idle-timeout`` seconds is told so and closed; a connection that has not sent its request
head within ``--handshake-timeout`` seconds is closed; a text frame that is not UTF-8 closes
its connection (1007) with one log line.

:class:`KBGymClient` is the typed client; OpenEnv's ``GenericEnvClient`` works as well::

    with KBGymClient(base_url="http://127.0.0.1:8000").sync() as env:
        r = env.reset(qid="q0001", mode="train", library="B1")
        r = env.step(KBGymAction(action="search", args={"query": "baker"}))

No Docker is needed. Nothing here is imported by the rest of kbgym.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Dict, Optional

from kbgym.errors import ConfigError

try:
    from openenv.core.client_types import StepResult
    from openenv.core.env_client import EnvClient
    from openenv.core.env_server.http_server import create_fastapi_app
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import (
        Action,
        EnvironmentMetadata,
        Observation,
        State,
        WSErrorCode,
        WSErrorResponse,
    )
except ImportError as _err:  # pragma: no cover - exercised where the extra is missing
    raise ConfigError("kbgym serve needs the openenv extra: pip install 'kbgym[openenv]' "
                      f"({_err})") from None
from pydantic import Field

from kbgym.env.config import KBGymConfig
from kbgym.env.env import KBGymEnv, load_universe
from kbgym.library.graph import Library

ENV_NAME = "kbgym"
MODES = ("train", "probe")


class KBGymAction(Action):
    """One KBGym action: the tool name and its arguments (as the env's JSON actions)."""

    action: str = Field(description="tool name: search, read, answer, add, edit, delete, "
                                    "link, link_many, unlink, done (locate/expand with the "
                                    "evidence toolset)")
    args: Dict[str, Any] = Field(default_factory=dict, description="the tool's arguments")


class KBGymObservation(Observation):
    """The env's observation (phase 0 probe / 1 forward / 2 backward, steps_left, text) and
    its info dict (JSON)."""

    phase: int = 0
    steps_left: int = 0
    text: str = ""
    info: Dict[str, Any] = Field(default_factory=dict)


class KBGymState(State):
    """Where the session's episode stands."""

    qid: Optional[str] = None
    mode: Optional[str] = None
    phase: Optional[str] = None
    library_version: int = 0
    n_notes: int = 0
    over: bool = False


@dataclass(frozen=True)
class ServerPolicy:
    """What clients may ask for. ``train_splits``: the splits whose questions train episodes
    may use (their golds are shown in the backward phase); ``probe_splits``: those open to
    probe episodes (None: every split). ``idle_timeout_s``: a session with no message for
    this long is closed (None: never). ``max_message_chars``: longer text frames are refused.
    """

    train_splits: tuple[str, ...] = ("train",)
    probe_splits: tuple[str, ...] | None = None
    idle_timeout_s: float | None = 300.0
    max_message_chars: int = 1 << 20
    exam_log: str | None = None  # a JSONL file the probe scores are appended to


#: What a probe episode's step info may tell the client: no f1, em, reward or status.
PROBE_INFO_KEYS = ("mode", "phase", "qid", "steps", "phase_steps", "steps_left", "action",
                   "action_valid", "action_error", "input", "result", "answered", "edits",
                   "library_version", "abandoned")
PROBE_SUMMARY_KEYS = ("qid", "answer", "answered_at", "steps", "cited", "abandoned")


def probe_safe_info(info: Mapping[str, Any]) -> dict:
    """A probe step's info without anything that scores the answer (f1, em, the summary's
    status): the exam service is not an answer oracle."""
    out = {k: info[k] for k in PROBE_INFO_KEYS if k in info}
    summary = info.get("episode_summary")
    if isinstance(summary, Mapping):
        out["episode_summary"] = {k: summary[k] for k in PROBE_SUMMARY_KEYS if k in summary}
    return out


class ExamBook:
    """The server's record of probe episodes: which question was examined on which library
    (each at most once: a second probe episode of it on the same library is refused), their
    scores (kept here and appended to the exam log, never sent with the answer), and the
    aggregate of a whole probe set, told once when its last question is answered."""

    def __init__(self, path: str | None, splits: Mapping[str, Sequence[str]]):
        self.path, self.splits = path, splits
        self.claimed: set[tuple[Any, str]] = set()
        self.scores: dict[tuple[Any, str], tuple[float, float]] = {}
        self.told: set[tuple[Any, str]] = set()
        self.lock = threading.Lock()

    def claim(self, library: Any, qid: str) -> bool:
        """Reserve ``qid`` on ``library`` for one probe episode; False when it was already."""
        with self.lock:
            if (library, qid) in self.claimed:
                return False
            self.claimed.add((library, qid))
            return True

    def open_questions(self, library: Any, split: str) -> list[str]:
        with self.lock:
            return [q for q in self.splits[split] if (library, q) not in self.claimed]

    def record(self, library: Any, name: str, qid: str, f1: float, em: float
               ) -> list[dict]:
        """Keep a score; the aggregates of probe sets this answer completes (each once)."""
        done = []
        with self.lock:
            self.scores[(library, qid)] = (f1, em)
            if self.path is not None:
                row = {"library": name, "library_key": repr(library), "qid": qid, "f1": f1,
                       "em": em}
                with open(self.path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(row, sort_keys=True) + "\n")
            for split, qids in self.splits.items():
                if qid not in qids or (library, split) in self.told:
                    continue
                got = [self.scores.get((library, q)) for q in qids]
                if all(g is not None for g in got):
                    self.told.add((library, split))
                    done.append({"split": split, "library": name, "questions": len(qids),
                                 "mean_f1": sum(g[0] for g in got) / len(got),
                                 "mean_em": sum(g[1] for g in got) / len(got)})
        return done


class Shared:
    """What every session of one server reads and never edits: the universe, the config, the
    named start libraries (B1 and ``--library`` snapshots, each indexed once) and the policy."""

    def __init__(self, universe: Any, config: KBGymConfig, libraries: Mapping[str, Any],
                 policy: ServerPolicy):
        from kbgym.library.search import make_backend
        from kbgym.library.snapshot import load_snapshot

        self.universe, _ = load_universe(universe)
        self.config, self.policy = config, policy
        splits = self.universe.splits
        for name in (*policy.train_splits, *(policy.probe_splits or ())):
            if name not in splits:
                raise ConfigError(f"unknown split {name!r} in the server policy; known: "
                                  f"{', '.join(splits)}")
        self.libraries: dict[str, Library] = {
            "B1": Library.from_universe(self.universe, typed_links=config.typed_links,
                                        search=make_backend(config.search_backend))}
        for name, source in libraries.items():
            if not isinstance(name, str) or not name or name == "B1":
                raise ConfigError(f"library names must be non-empty and not B1, got {name!r}")
            lib = source if isinstance(source, Library) else load_snapshot(
                source, search=make_backend(config.search_backend))[0]
            self.libraries[name] = lib
        for lib in self.libraries.values():
            lib.freeze()  # sessions fork these; nobody edits them
        self.qids = {qid for qids in splits.values() for qid in qids}
        self.lock = threading.Lock()  # sessions of one server build envs one at a time
        self.exams = ExamBook(policy.exam_log, {s: tuple(splits[s])
                                                for s in self.open_splits("probe")})

    def open_splits(self, mode: str) -> list[str]:
        if mode == "train":
            return list(self.policy.train_splits)
        return list(self.policy.probe_splits or self.universe.splits)

    def tasks(self, split: str) -> list[dict]:
        """The questions of ``split`` as task specs: qid, question text, split (no gold)."""
        if split not in self.universe.splits:  # OpenEnv would answer an IndexError with
            from fastapi import HTTPException  # "Invalid task index"

            raise HTTPException(400, f"unknown split {split!r}; known: "
                                     f"{', '.join(self.universe.splits)}")
        return [{"qid": qid, "question": self.universe.question(qid).text, "split": split}
                for qid in self.universe.splits[split]]


def _split_type(name: str) -> str:
    return "train" if name == "train" else "test" if name.startswith("test") else "validation"


class KBGymServerEnv(Environment):
    """One WebSocket session. Built empty (the HTTP task and metadata routes build one per
    request); its train-mode and probe-mode KBGym envs are made on the first reset that needs
    them and reused for every later episode of the session."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, shared: Shared):
        super().__init__()
        self.shared = shared
        self._envs: dict[str, KBGymEnv] = {}
        self._library: Library | None = None  # the library the next train episode edits
        self._library_name: str = "B1"  # the named library it was forked from
        self._mode: str | None = None
        self._episode_id: str | None = None
        self._probe_key: Any = None  # the examined library's state key (probe episodes)

    # -- episodes ----------------------------------------------------------------------------
    def _env(self, mode: str) -> KBGymEnv:
        env = self._envs.get(mode)
        if env is None:
            with self.shared.lock:
                env = KBGymEnv(self.shared.universe, mode=mode, library=Library(),
                               config=self.shared.config)
            self._envs[mode] = env
        return env

    def _refusal(self, message: str) -> KBGymObservation:
        self._mode = None  # a refused reset leaves no episode to step: the next step is refused
        return KBGymObservation(text=f"ERROR: {message}", done=True, reward=0.0,
                                info={"error": message})

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None,
              qid: Optional[str] = None, split: Optional[str] = None,
              mode: str = "train", library: Optional[str] = None,
              **_: Any) -> KBGymObservation:
        sh = self.shared
        if mode not in MODES:
            return self._refusal(f"mode must be 'train' or 'probe', got {mode!r}")
        open_splits = sh.open_splits(mode)
        if qid is not None:
            if not isinstance(qid, str) or qid not in sh.qids:
                return self._refusal(f"unknown qid {qid!r}")
            if not any(qid in sh.universe.splits[s] for s in open_splits):
                return self._refusal(f"qid {qid} is not open to {mode} episodes on this "
                                     f"server (its splits: {', '.join(open_splits)})")
        elif split is not None:
            if split not in open_splits:
                return self._refusal(f"split {split!r} is not open to {mode} episodes on "
                                     f"this server (open: {', '.join(open_splits)})")
        else:
            split = open_splits[0]
        if library is not None and (not isinstance(library, str)
                                    or library not in sh.libraries):
            return self._refusal(f"unknown library {library!r}; this server has "
                                 f"{', '.join(sh.libraries)}")
        if library is not None or self._library is None:
            self._library = sh.libraries[library or "B1"].fork()
            self._library_name = library or "B1"
        if mode == "probe":  # each question is examined once per library, then never again
            key = self._library.state_key()
            if qid is None:
                left = sh.exams.open_questions(key, split)
                if not left:
                    return self._refusal(f"every question of split {split!r} has been "
                                         "examined on this library")
                import random

                qid = random.Random(seed).choice(left)
            if not sh.exams.claim(key, qid):
                return self._refusal(f"question {qid} has already been examined on this "
                                     "library; a probe episode is scored once per library")
            self._probe_key = key
        options: dict[str, Any] = {"library": self._library}
        options.update({"qid": qid} if qid is not None else {"split": split})
        env = self._env(mode)
        other = self._envs.get("train" if mode == "probe" else "probe")
        if other is not None:
            other.close()  # one episode at a time per session
        try:
            obs, info = env.reset(seed=seed, options=options)
        except ValueError as err:  # e.g. an empty split: answered, not raised
            return self._refusal(str(err))
        self._mode, self._episode_id = mode, episode_id
        if mode == "probe":
            info = probe_safe_info(info)
        return KBGymObservation(phase=int(obs["phase"]), steps_left=int(obs["steps_left"]),
                                text=obs["text"], info=info, reward=None, done=False)

    def step(self, action: KBGymAction, timeout_s: Optional[float] = None,
             **_: Any) -> KBGymObservation:
        env = self._envs.get(self._mode) if self._mode else None
        if env is None or env.episode is None:
            return self._refusal("call reset() before step()")
        payload = {**action.args, "action": action.action}
        obs, reward, term, trunc, info = env.step(payload)
        done = bool(term or trunc)
        if self._mode == "probe":  # the score goes to the server's exam book, not the client
            summary = info.get("episode_summary")
            safe = probe_safe_info(info)
            if done and isinstance(summary, Mapping):
                sets = self.shared.exams.record(
                    self._probe_key, self._library_name, str(summary["qid"]),
                    float(summary.get("f1") or 0.0), float(summary.get("em") or 0.0))
                if sets:
                    safe["probe_sets"] = sets
            return KBGymObservation(phase=int(obs["phase"]), steps_left=int(obs["steps_left"]),
                                    text=obs["text"], info=safe, reward=None, done=done)
        return KBGymObservation(phase=int(obs["phase"]), steps_left=int(obs["steps_left"]),
                                text=obs["text"], info=info, reward=float(reward), done=done)

    @property
    def state(self) -> KBGymState:
        env = self._envs.get(self._mode) if self._mode else None
        ep = env.episode if env is not None else None
        lib = env.library if env is not None else self._library
        return KBGymState(episode_id=self._episode_id, step_count=ep.steps if ep else 0,
                          qid=ep.question.qid if ep else None, mode=self._mode,
                          phase=ep.phase if ep else None,
                          library_version=lib.version if lib is not None else 0,
                          n_notes=len(lib) if lib is not None else 0,
                          over=bool(ep and ep.over))

    def close(self) -> None:
        had = bool(self._envs) or self._library is not None
        for env in self._envs.values():
            env.close()
        self._envs.clear()
        self._library = None
        self._probe_key = None
        if had:
            release_memory()

    # -- the task API (no env is built) ------------------------------------------------------
    def get_metadata(self) -> EnvironmentMetadata:
        import kbgym

        return EnvironmentMetadata(
            name=ENV_NAME, version=kbgym.__version__,
            description="KBGym: agents train a knowledge base of one-sentence notes; train "
                        "episodes (answer, then curate with the gold shown) and probe "
                        "episodes (examination, no gold).")

    def list_splits(self) -> list[dict]:
        return [{"name": s, "type": _split_type(s), "train": s in self.shared.open_splits("train")}
                for s in self.shared.universe.splits]

    def list_tasks(self, split: str) -> list[dict]:
        return self.shared.tasks(split)

    def num_tasks(self, split: str) -> int:
        return len(self.shared.tasks(split))

    def get_task(self, split: str, index: int) -> dict:
        tasks = self.shared.tasks(split)
        if not 0 <= index < len(tasks):
            raise IndexError(index)
        return tasks[index]

    def get_task_range(self, split: str, start: Optional[int] = None,
                       stop: Optional[int] = None) -> list[dict]:
        return self.shared.tasks(split)[start:stop]


_TRIM = None


def release_memory() -> None:
    """After a session's environments are dropped: collect the cycles they leave (an env and
    its episode refer to each other) and hand freed heap pages back to the OS (glibc's
    ``malloc_trim``), so the server's RSS returns to its baseline between waves of sessions
    instead of creeping up."""
    import gc

    global _TRIM
    gc.collect(1)  # the young generations, where a closed session's cycles are: milliseconds
    if _TRIM is None:
        try:
            import ctypes

            _TRIM = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _TRIM = False
    if _TRIM:
        _TRIM(0)


class KBGymClient(EnvClient[KBGymAction, KBGymObservation, KBGymState]):
    """The OpenEnv client for a ``kbgym serve`` server (one session per client)."""

    def _step_payload(self, action: KBGymAction) -> Dict[str, Any]:
        return action.model_dump(exclude={"metadata"})

    def _parse_result(self, payload: Dict[str, Any]) -> StepResult[KBGymObservation]:
        obs = dict(payload.get("observation", {}))
        obs.pop("metadata", None)
        return StepResult(observation=KBGymObservation(**obs, reward=payload.get("reward"),
                                                       done=payload.get("done", False)),
                          reward=payload.get("reward"), done=payload.get("done", False),
                          metadata=payload.get("metadata"))

    def _parse_state(self, payload: Dict[str, Any]) -> KBGymState:
        return KBGymState(**payload)


# -- the WebSocket guard ---------------------------------------------------------------------
def _error_frame(message: str, code: WSErrorCode) -> str:
    return WSErrorResponse(data={"message": message, "code": code}).model_dump_json()


class FrameGuard:
    """ASGI middleware in front of OpenEnv's ``/ws`` loop: a frame that loop would die on (a
    binary frame, JSON that is not an object, text beyond ``max_chars``, JSON nested deeper than
    ``MAX_DEPTH``: OpenEnv's loop dies decoding past Python's recursion limit, or serializing the
    validation error that echoes a value nested past pydantic's depth limit) is answered with an
    error frame here and never reaches it; a session with no frame for ``idle_s`` seconds is
    told so, closed, and its environment released."""

    MAX_DEPTH = 64  # a KBGym message nests 4 levels

    def __init__(self, app: Any, idle_s: float | None, max_chars: int):
        self.app, self.idle_s, self.max_chars = app, idle_s, max_chars

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        closed = False

        async def guarded_send(message):
            nonlocal closed
            if closed:  # after the guard closed the socket, the loop's last words are dropped
                return
            try:
                await send(message)
            except Exception as err:  # the client went away mid-reply: nothing to tell it
                if not _is_disconnect(err):
                    raise
                closed = True

        async def guarded_receive():
            nonlocal closed
            while True:
                try:
                    message = await asyncio.wait_for(receive(), self.idle_s)
                except asyncio.TimeoutError:
                    await send({"type": "websocket.send", "text": _error_frame(
                        f"session closed after {self.idle_s:g} s without a message",
                        WSErrorCode.SESSION_ERROR)})
                    await send({"type": "websocket.close", "code": 1000})
                    closed = True
                    return {"type": "websocket.disconnect", "code": 1000}
                if message["type"] != "websocket.receive":
                    return message
                problem = self._problem(message)
                if problem is None:
                    return message
                await send({"type": "websocket.send", "text": _error_frame(
                    problem, WSErrorCode.INVALID_JSON)})

        return await self.app(scope, guarded_receive, guarded_send)

    def _problem(self, message: dict) -> str | None:
        text = message.get("text")
        if text is None:
            return "binary frames are not accepted: send a JSON object as text"
        if len(text) > self.max_chars:
            return f"message too long ({len(text)} characters; at most {self.max_chars})"
        try:
            data = json.loads(text)
        except ValueError as err:  # not JSON, or an integer past Python's 4,300 digits
            return f"invalid JSON: {str(err).splitlines()[0][:200]}"
        except RecursionError:
            data = None
        else:
            if not isinstance(data, dict):
                return ("a message must be a JSON object with a type, not "
                        f"{type(data).__name__}")
            if not _nested_within(data, self.MAX_DEPTH):
                data = None
        if data is None:
            return f"JSON nested too deeply (at most {self.MAX_DEPTH} levels)"
        return None


def _is_disconnect(err: BaseException) -> bool:
    """Whether sending failed because the client is gone (uvicorn's ClientDisconnected, a
    reset socket), which is the client's doing and no server error."""
    return isinstance(err, (ConnectionError, OSError)) or type(err).__name__ in (
        "ClientDisconnected", "WebSocketDisconnect", "WebSocketDisconnected")


def _nested_within(data: Any, limit: int) -> bool:
    """Whether parsed JSON nests at most ``limit`` containers deep (iterative: no recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > limit:
                return False
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, depth + 1) for v in items if isinstance(v, (dict, list)))
    return True


def make_app(universe: Any = None, config: KBGymConfig | Mapping | None = None,
             max_sessions: int = 8, *, libraries: Mapping[str, Any] | None = None,
             policy: ServerPolicy | None = None):
    """The ASGI app: OpenEnv's FastAPI app (production mode) over KBGym sessions, behind the
    frame guard."""
    cfg = config if isinstance(config, KBGymConfig) else KBGymConfig(**dict(config or {}))
    policy = policy or ServerPolicy()
    shared = Shared(universe, cfg, libraries or {}, policy)

    def factory() -> KBGymServerEnv:
        return KBGymServerEnv(shared)

    app = create_fastapi_app(factory, KBGymAction, KBGymObservation,
                             max_concurrent_envs=max_sessions, env_name=ENV_NAME,
                             state_cls=KBGymState, mode="production")
    app.state.kbgym = shared
    return FrameGuard(app, policy.idle_timeout_s, policy.max_message_chars)


#: Seconds a connection may take to send its request (or WebSocket handshake) in full; one
#: that opens and sends nothing, or half a request, is closed then.
HANDSHAKE_TIMEOUT_S = 10.0


def handshake_limited(timeout_s: float = HANDSHAKE_TIMEOUT_S):
    """uvicorn's h11 protocol with a deadline for the request head: a half-open connection
    (a TCP connection that never completes its request or upgrade) is closed after
    ``timeout_s`` instead of being held for ever. Once a request has arrived, uvicorn's own
    keep-alive timeout, the WebSocket pings and the idle timeout take over."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HandshakeLimited(H11Protocol):
        def connection_made(self, transport):  # type: ignore[override]
            super().connection_made(transport)
            self._kbgym_deadline = self.loop.call_later(timeout_s, self._kbgym_expire)

        def _kbgym_expire(self) -> None:
            transport = self.transport
            if transport.is_closing() or transport.get_protocol() is not self:
                return  # closed, or upgraded to a WebSocket
            if self.cycle is None:  # no complete request head in time
                transport.close()

        def connection_lost(self, exc):  # type: ignore[override]
            self._kbgym_deadline.cancel()
            super().connection_lost(exc)

    return HandshakeLimited


def serve(host: str = "127.0.0.1", port: int = 8000, universe: Any = None,
          config: Mapping | None = None, max_sessions: int = 8, *,
          libraries: Mapping[str, Any] | None = None, policy: ServerPolicy | None = None,
          handshake_timeout_s: float = HANDSHAKE_TIMEOUT_S) -> None:
    import uvicorn

    app = make_app(universe, config, max_sessions, libraries=libraries, policy=policy)
    uvicorn.Server(server_config(app, host, port, handshake_timeout_s)).run()


def server_config(app: Any, host: str, port: int,
                  handshake_timeout_s: float = HANDSHAKE_TIMEOUT_S):
    """uvicorn's config for ``kbgym serve``: warnings only, the request-head deadline
    (:func:`handshake_limited`), WebSocket pings every 20 s, and a client's non-UTF-8 frame
    logged in one line (:class:`OneLineClientErrors`)."""
    import logging

    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                            http=handshake_limited(handshake_timeout_s),
                            ws_ping_interval=20.0, ws_ping_timeout=20.0)
    logging.getLogger("uvicorn.error").addFilter(OneLineClientErrors())
    return config


class OneLineClientErrors:
    """A log filter: a client's bad bytes (a text frame that is not UTF-8) are one warning
    line, not an ERROR with the server's traceback."""

    def filter(self, record) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, UnicodeDecodeError):
            import logging

            record.exc_info, record.exc_text, record.args = None, None, ()
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.msg = ("a client sent a text frame that is not UTF-8; its connection was "
                          "closed (1007)")
        return True


def parse_libraries(items: Sequence[str]) -> dict[str, str]:
    """``NAME=SNAPSHOT`` arguments as {name: path}."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise ConfigError(f"--library takes NAME=SNAPSHOT, got {item!r}")
        if name in out or name == "B1":
            raise ConfigError(f"--library {name!r}: names must be unique and not B1")
        out[name] = path
    return out
