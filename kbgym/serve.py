"""``kbgym serve``: KBGym as an OpenEnv server (the optional ``openenv`` extra, openenv 0.10).

    kbgym serve [--host 127.0.0.1] [--port 8000] [--universe u.json] [--reward both]
        [--max-sessions 8]

The app is OpenEnv's ``create_app`` over :class:`KBGymServerEnv`, with typed models:
:class:`KBGymAction` (``action`` = a tool name, ``args`` = its arguments), :class:`KBGymObservation`
(``phase``, ``steps_left``, ``text`` and the env's JSON ``info``; ``reward`` and ``done`` as
OpenEnv defines them) and :class:`KBGymState`. OpenEnv's HTTP ``/step`` is stateless (a fresh
env per request), so episodes go through its WebSocket session (``/ws``): one KBGym env per
connection, many connections at once. :class:`KBGymClient` is the matching client::

    with KBGymClient(base_url="http://127.0.0.1:8000").sync() as env:
        r = env.reset(qid="q0001")
        r = env.step(KBGymAction(action="search", args={"query": "baker"}))

No Docker is needed. Nothing here is imported by the rest of kbgym.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Dict, Optional

from kbgym.errors import ConfigError

try:
    from openenv.core.client_types import StepResult
    from openenv.core.env_client import EnvClient
    from openenv.core.env_server.http_server import create_app
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import Action, Observation, State
except ImportError as _err:  # pragma: no cover - exercised where the extra is missing
    raise ConfigError("kbgym serve needs the openenv extra: pip install 'kbgym[openenv]' "
                      f"({_err})") from None
from pydantic import Field

from kbgym.env.config import KBGymConfig
from kbgym.env.env import KBGymEnv, load_universe


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
    phase: Optional[str] = None
    library_version: int = 0
    n_notes: int = 0
    over: bool = False


class KBGymServerEnv(Environment):
    """One WebSocket session: a KBGym env of its own (its own B1 library)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, universe: Any = None, config: KBGymConfig | Mapping | None = None,
                 mode: str = "train"):
        super().__init__()
        self.env = KBGymEnv(universe, mode=mode, config=config)
        self._episode_id: str | None = None

    def _observation(self, obs: dict, reward: float | None, done: bool,
                     info: dict) -> KBGymObservation:
        return KBGymObservation(phase=int(obs["phase"]), steps_left=int(obs["steps_left"]),
                                text=obs["text"], info=info, reward=reward, done=done)

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None,
              qid: Optional[str] = None, split: Optional[str] = None,
              **_: Any) -> KBGymObservation:
        options = {k: v for k, v in (("qid", qid), ("split", split)) if v is not None}
        try:
            obs, info = self.env.reset(seed=seed, options=options)
        except ValueError as err:  # an unknown qid or split: answered, not raised
            return KBGymObservation(text=f"ERROR: {err}", done=True, reward=0.0,
                                    info={"error": str(err)})
        self._episode_id = episode_id
        return self._observation(obs, None, False, info)

    def step(self, action: KBGymAction, timeout_s: Optional[float] = None,
             **_: Any) -> KBGymObservation:
        if self.env.episode is None:
            return KBGymObservation(text="ERROR: call reset() before step()", done=True,
                                    reward=0.0, info={"error": "reset needed"})
        payload = {**action.args, "action": action.action}
        obs, reward, term, trunc, info = self.env.step(payload)
        return self._observation(obs, float(reward), bool(term or trunc), info)

    @property
    def state(self) -> KBGymState:
        ep = self.env.episode
        return KBGymState(episode_id=self._episode_id, step_count=ep.steps if ep else 0,
                          qid=ep.question.qid if ep else None, phase=ep.phase if ep else None,
                          library_version=self.env.library.version,
                          n_notes=len(self.env.library), over=bool(ep and ep.over))


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


def make_app(universe: Any = None, config: KBGymConfig | Mapping | None = None,
             max_sessions: int = 8):
    """The FastAPI app: OpenEnv's ``create_app`` over KBGym sessions."""
    u, _ = load_universe(universe)  # loaded once, shared read-only by every session
    cfg = config if isinstance(config, KBGymConfig) else KBGymConfig(**dict(config or {}))
    lock = threading.Lock()

    def factory() -> KBGymServerEnv:
        with lock:  # sessions are built one at a time (the env's lazy singletons)
            return KBGymServerEnv(u, cfg)

    return create_app(factory, KBGymAction, KBGymObservation, env_name="kbgym",
                      max_concurrent_envs=max_sessions, state_cls=KBGymState)


def serve(host: str = "127.0.0.1", port: int = 8000, universe: Any = None,
          config: Mapping | None = None, max_sessions: int = 8) -> None:
    import uvicorn

    uvicorn.run(make_app(universe, config, max_sessions), host=host, port=port,
                log_level="warning")
