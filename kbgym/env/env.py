"""``KBGymEnv``: the forward/backward training protocol and the probe exam (SPEC §9, §16).

The environment owns the hidden truth (golds, support, node provenance) and shows agents only
``obs["text"]``. Every action value is answered with a result string; nothing an agent sends
raises. Exceptions are reserved for API misuse (stepping before reset, an unknown qid).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict
import weakref

import gymnasium as gym
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from kbgym.env.actions import (
    EDIT_ACTIONS,
    EVIDENCE_TOOLS,
    InvalidAction,
    canonical_args,
    parse_action,
    phase_tools,
    precheck,
    tool_schemas,
)
from kbgym.env.config import KBGymConfig
from kbgym.env.memory import LAYOUTS, Memory, max_obs_chars
from kbgym.env.reward import AnswerReward, RewardFn, as_reward
from kbgym.env.spaces import KBActionSpace, Unicode
from kbgym.errors import ResetNeeded
from kbgym.library import apply, evidence
from kbgym.library.dedup import DedupGuard
from kbgym.library.graph import Library
from kbgym.library.search import SearchBackend, make_backend
from kbgym.library.snapshot import write_snapshot
from kbgym.protocol import tasks
from kbgym.protocol.errors import EPISODE_OVER, ERR_NO_ACTION, err_internal, is_error
from kbgym.protocol.limits import ANSWER_SHOWN, PHASE_CODES, READ_LINKS_PER_PAGE, Mode, Phase, Status
from kbgym.protocol.results import PHASE_COMPLETE, format_submitted
from kbgym.scoring import score
from kbgym.types import Question, Universe

PHASE_CODE = PHASE_CODES
MAX_TEXT = 2**24

_DEFAULT_UNIVERSE: dict[str, Universe] = {}


def dedup_counters(library: Library) -> dict:
    """The dedup guard's judge_calls / judge_errors / duplicates (zeros when off)."""
    if library.dedup is None:
        return {"judge_calls": 0, "judge_errors": 0, "duplicates": 0}
    return library.dedup.counters()


def judge_calls(library: Library) -> int:
    return dedup_counters(library)["judge_calls"]


def default_universe() -> Universe:
    """The default (paper) universe: the default world's, generated once per process."""
    if "u" not in _DEFAULT_UNIVERSE:
        from kbgym.worlds import default_world

        w = default_world()
        _DEFAULT_UNIVERSE["u"] = w.generate(w.config({}))
    return _DEFAULT_UNIVERSE["u"]


def load_universe(source: Universe | str | Path | None) -> tuple[Universe, str | None]:
    """A Universe from a Universe, a universe.json path, or None (the default)."""
    if source is None:
        return default_universe(), None
    if isinstance(source, Universe):
        return source, None
    from kbgym.files import load_universe_file

    return load_universe_file(source), str(Path(source))


class StepInfo(TypedDict, total=False):
    """``info`` of ``reset`` and ``step`` (docs/protocol.md §16): deterministic, strict JSON,
    never a gold, a support set or a hidden field (``privileged`` only with
    ``privileged_info=True``)."""

    mode: str
    phase: str
    qid: str
    steps: int
    phase_steps: int
    steps_left: int
    action: str | None
    action_valid: bool | None
    action_error: str | None
    input: Any
    result: str
    f1: float | None
    em: float | None
    answered: bool
    edits: dict[str, int]
    library_version: int
    metrics: dict
    privileged: dict
    episode_summary: dict  # info["episode"] is left to Gymnasium's RecordEpisodeStatistics
    curation: dict
    abandoned: dict


@dataclass
class Episode:
    """One question's episode: the mutable protocol state the env keeps between steps."""

    question: Question
    phase: Phase
    memory: Memory
    steps: int = 0
    phase_steps: int = 0
    p1_steps: int = 0
    answer: str | None = None
    f1: float | None = None
    em: float | None = None
    answered_at: int = 0  # the phase step of the answer; 0: not answered
    cites: list[str] | None = None  # the note ids the answer stated it rests on
    edits: Counter = field(default_factory=Counter)
    terminated: bool = False
    truncated: bool = False
    regens: int = 0
    start_merges: int = 0
    start_judge_calls: int = 0
    curation_before: dict | None = None  # the reward pool's score at the start (reward.py)

    @property
    def over(self) -> bool:
        return self.terminated or self.truncated


class KBGymEnv(gym.Env):
    """Train a knowledge base one question at a time, or examine a frozen one.

    ## Modes
    - ``mode="train"``: one episode is one training iteration. Forward (search/read/answer,
      budget ``n1``) ends with ``answer`` or an exhausted budget; the next observation reveals
      the gold in the backward task block. Backward (search/read/add/edit/delete/link/
      link_many/unlink/done, budget ``n2``) ends with ``done`` (terminated) or the budget
      (truncated). The library persists across resets.
    - ``mode="probe"``: the library is a frozen copy; search/read/answer within ``m`` steps.

    ## Observation
    ``Dict(phase=Discrete(3), steps_left=Discrete(max(n1,n2,m)+1), text=Unicode)`` with phase
    0 = probe, 1 = forward, 2 = backward and ``text`` the SPEC §10 memory rendering: task
    block, history, then the counter line (``obs_layout="counter_first"``, the first layout,
    is what the old id ``kbgym/KBGym-v0`` makes). ``len(text) <= env.max_obs_chars()``.

    ## Action
    Any input ``kbgym.parse_action`` accepts: an Action, a dict, a JSON string or an OpenAI
    tool call. Invalid input is answered with an ``ERROR: ...`` result and costs a step. A bug
    of the environment itself while executing an action is answered with ``ERROR: internal
    error (...)`` too, so it never escapes to the agent's loop; ``strict=True`` re-raises it
    instead, for tests and conformance suites that must see it.

    ## Reward
    A reward object (``kbgym.env.reward.RewardFn``) given as ``reward_fn``, or the one
    ``config.reward`` names: ``"answer"`` (default): F1 on the ``answer`` step, 0.0 otherwise.
    ``"curation"``: 0.0 on every step except the one that ends the backward phase, which gets
    ΔS of a frozen reader on a pool of training questions (``kbgym.runs.curation``; details
    in ``info["curation"]``). ``"both"``: the sum. ``reward_fn`` may also be a plain function
    ``(action_name, f1_or_None) -> float``.

    ## Forks
    ``env.fork_library()`` is a copy-on-write fork of the library (search index included; about
    a millisecond at 10^6 notes) and ``reset(options={"library": fork_or_snapshot})`` starts
    from it, so that G rollouts of one question start from one state;
    ``library.absorb_fork(best)`` takes a rollout's edits back into the library.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4,
                "autoreset_mode": AutoresetMode.DISABLED}

    def __init__(
        self,
        universe: Universe | str | Path | None = None,
        *,
        mode: str = "train",
        library: Library | None = None,
        questions: Sequence[Question] | Mapping | str | Path | None = None,
        split: str | None = None,
        config: KBGymConfig | Mapping | None = None,
        judge: Callable[[str, str], bool] | None = None,
        search_backend: SearchBackend | str | None = None,
        render_mode: str | None = None,
        privileged_info: bool = False,
        reward_fn: RewardFn | Callable[[str, float | None], float] | None = None,
        obs_layout: str = "counter_last",
        strict: bool = False,
    ):
        if mode not in tuple(Mode):
            raise ValueError(f"mode must be 'train' or 'probe', got {mode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if config is None:
            config = KBGymConfig()
        elif isinstance(config, Mapping):
            config = KBGymConfig.make(**config)
        self.config: KBGymConfig = config
        self.mode = Mode(mode)
        self.render_mode = render_mode
        self.privileged_info = privileged_info
        if obs_layout not in LAYOUTS:
            raise ValueError(f"obs_layout must be one of {', '.join(LAYOUTS)}, got {obs_layout!r}")
        self.obs_layout = obs_layout
        self.strict = bool(strict)  # re-raise internal errors (tests), not answer ERROR
        self.universe, self.universe_path = load_universe(universe)

        self._questions, self._splits = self._load_questions(questions)
        self.split = split if split is not None else ("train" if mode == "train" else "test_in")
        if self.split not in self._splits:
            raise ValueError(f"unknown split {self.split!r}; known: {', '.join(self._splits)}")

        self.library: Library = self._prepare_library(library, judge, search_backend)
        self._judge = judge  # for libraries given to reset(options={"library": ...})
        self.reward_fn: RewardFn = (as_reward(reward_fn) if reward_fn is not None
                                    else self._configured_reward())

        top = max(config.n1, config.n2, config.m)
        self.observation_space = spaces.Dict({
            "phase": spaces.Discrete(3),
            "steps_left": spaces.Discrete(top + 1),
            "text": Unicode(max_length=MAX_TEXT),
        })
        tools = phase_tools("backward") + phase_tools("forward", config.toolset)
        self.action_space = KBActionSpace(
            tools=tuple(dict.fromkeys(tools)), typed_links=config.typed_links,
            next_id_fn=_NextId(self),
        )
        self._episode: Episode | None = None
        self._last_obs_text = ""

    def max_obs_chars(self) -> int:
        """The documented bound on ``len(obs["text"])`` for every action sequence: the longest
        task block this env can show plus ``memory_k`` clipped memory lines and the counter."""
        qs = self._questions.values()
        longest = max((len(q.qid) + len(q.text) + max(map(len, q.golds), default=0)
                       for q in qs), default=0)
        task = longest + ANSWER_SHOWN + len(tasks.INSTRUCTION) + 400
        return max_obs_chars(self.config.memory_k, task)

    def _configured_reward(self) -> RewardFn:
        """The reward ``config.reward`` names: the answer's F1, or a registered one
        (:mod:`kbgym.registry`; ``import kbgym`` registers the curation reward)."""
        name = self.config.reward
        if name == "answer":
            return AnswerReward()
        from kbgym.registry import reward_factory, reward_names

        factory = reward_factory(name)
        if factory is None:
            raise ValueError(f"no reward named {name!r} is registered; known: answer, "
                             f"{', '.join(reward_names())}")
        return as_reward(factory(self))

    def fork_library(self) -> Library:
        """An independent copy of the library (search index included) to pass as
        ``reset(options={"library": fork})``, e.g. to start G rollouts from one state."""
        return self.library.fork()

    def _use_library(self, source: Library | Mapping | str | Path) -> None:
        """Make ``source`` this env's library: a Library is used as is (the env edits it; in
        probe mode a frozen copy), a snapshot object or path is loaded. The env's caps and
        dedup guard apply; a library without a search index gets the configured one."""
        cfg = self.config
        if isinstance(source, Library):
            lib = source.copy() if self.mode == "probe" else source
        elif isinstance(source, (Mapping, str, Path)):
            from kbgym.library.snapshot import load_snapshot, load_snapshot_object

            if isinstance(source, Mapping):
                lib, _ = load_snapshot_object(dict(source), refresh=cfg.refresh)
            else:
                lib, _ = load_snapshot(source, refresh=cfg.refresh)
        else:
            raise ValueError("options['library'] must be a Library (e.g. env.fork_library()), "
                             f"a snapshot object or a snapshot path, not {type(source).__name__}")
        if lib.search_backend is None:
            lib.attach_search(make_backend(cfg.search_backend), refresh=cfg.refresh)
        self._watch_drift(lib)
        lib.max_text_chars = cfg.max_text_chars
        lib.link_batch_max = cfg.link_batch_max
        if self._judge is not None and lib.dedup is None:
            lib.dedup = DedupGuard(self._judge, threshold=cfg.dedup_threshold)
        if self.mode == "probe":
            lib.freeze()
        self.library = lib

    def _next_id(self) -> int:
        return self.library.next_id

    def _watch_drift(self, lib: Library) -> None:
        """On a drifted universe, let ``lib`` notice stale links by hash (a reset's library,
        a fork or a loaded snapshot alike)."""
        drift = self.universe.meta.get("drift")
        if drift and not lib.track_hashes:
            lib.enable_staleness({old: new for new, old in drift["supersedes"].items()})

    def _prepare_library(self, library: Library | None, judge, search_backend) -> Library:
        """The episode library: B1 or the given one (a frozen copy in probe mode), with the
        configured search backend, dedup guard and text cap."""
        cfg = self.config
        # a given library's own index serves when it is the configured kind (no rebuild)
        have = library.search_backend if library is not None else None
        reuse = have is not None and (search_backend is None or isinstance(search_backend, str)) \
            and getattr(have, "name", None) == (search_backend or cfg.search_backend)
        if library is None:
            lib = Library.from_universe(self.universe, typed_links=cfg.typed_links)
        elif self.mode == "probe":  # a copy-on-write fork: costs nothing until it differs
            lib = library.copy(dedup=None) if reuse else library.copy(search=None, dedup=None)
        else:
            lib = library
        self._watch_drift(lib)
        lib.max_text_chars = cfg.max_text_chars
        lib.link_batch_max = cfg.link_batch_max
        lib.dedup = DedupGuard(judge, threshold=cfg.dedup_threshold) if judge else None
        if reuse:
            lib.set_refresh(cfg.refresh)
        else:
            if search_backend is None or isinstance(search_backend, str):
                search_backend = make_backend(search_backend or cfg.search_backend)
            lib.attach_search(search_backend, refresh=cfg.refresh)
        if self.mode == "probe":
            lib.freeze()
        return lib

    # -- questions ---------------------------------------------------------------------
    def _load_questions(self, questions) -> tuple[dict[str, Question], dict[str, list[str]]]:
        u = self.universe
        if questions is None:
            qs = {q.qid: q for q in u.questions}
            splits = {k: list(v) for k, v in u.splits.items()}
        else:
            if isinstance(questions, (str, Path)):
                import json

                questions = json.loads(Path(questions).read_text(encoding="utf-8"))
            if isinstance(questions, Mapping):  # a probe file
                items = [Question.from_json(q) for q in questions["questions"]]
                splits = {k: list(v) for k, v in questions.get("splits", {}).items()}
            else:
                items = list(questions)
                splits = {}
            qs = {q.qid: q for q in items}
            splits.setdefault("all", list(qs))
        if self.mode == "train" and "train" in splits and self.config.train_size is not None:
            splits["train"] = splits["train"][: self.config.train_size]
        return qs, splits

    @property
    def questions(self) -> dict[str, Question]:
        return dict(self._questions)

    def question(self, qid: str) -> Question:
        """The question ``qid`` of this env (``KeyError`` if unknown)."""
        return self._questions[qid]

    def split_qids(self, name: str) -> list[str]:
        """The qids of a split (train is cut to ``train_size``); ``KeyError`` naming the known
        splits if unknown."""
        if name not in self._splits:
            raise KeyError(f"unknown split {name!r}; known: {', '.join(self._splits)}")
        return list(self._splits[name])

    # -- gymnasium API -----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = dict(options or {})
        abandoned = None
        if self._episode is not None and not self._episode.over:
            abandoned = self._end_episode(self._episode, abandoned=True)

        if "qid" in options:
            qid = options["qid"]
            if qid not in self._questions:
                raise ValueError(f"unknown qid {qid!r}")
        else:
            split = options.get("split", self.split)
            if split not in self._splits:
                raise ValueError(f"unknown split {split!r}; known: {', '.join(self._splits)}")
            pool = self._splits[split]
            if not pool:
                raise ValueError(f"split {split!r} has no questions")
            qid = pool[int(self.np_random.integers(len(pool)))]
        q = self._questions[qid]
        if "library" in options:  # after the qid checks: a bad qid changes nothing
            self._use_library(options["library"])

        memory = Memory(self.config.memory_k, collapse_repeats=self.config.collapse_repeats,
                        layout=self.obs_layout)
        if self.mode == "train":
            memory.set_task(tasks.format_forward(q.qid, q.text))
            phase = Phase.FORWARD
        else:
            memory.set_task(tasks.format_probe(q.qid, q.text))
            phase = Phase.PROBE
        ep = Episode(q, phase, memory, start_merges=self.library.merges,
                     start_judge_calls=judge_calls(self.library))
        self._episode = ep
        self.reward_fn.episode_start(self, ep)
        info = self._info(ep, None, "", with_metrics=True)
        if abandoned is not None:
            info["abandoned"] = abandoned
        return self._obs(ep), info

    def step(self, action: Any):
        ep = self._episode
        if ep is None:
            raise ResetNeeded("call reset() before step()")
        if ep.over:
            obs = {"phase": PHASE_CODE[ep.phase], "steps_left": 0, "text": EPISODE_OVER}
            info = self._info(ep, None, EPISODE_OVER)
            return obs, 0.0, ep.terminated, ep.truncated, info

        act = parse_action(action, allowed=phase_tools(ep.phase, self.config.toolset),
                           typed_links=self.config.typed_links)  # never raises
        try:
            result = self._execute(ep, act)
        except Exception as err:  # a bug must not escape to the agent's loop
            if self.strict:  # unless a test asked to see it
                raise
            result = err_internal(type(err).__name__)
        ep.steps += 1
        ep.phase_steps += 1
        try:
            ep.memory.push(act, result)
        except Exception:  # e.g. a repr that raised only now
            ep.memory.push(f"?(<{type(action).__name__}>)", result)

        name = act.name if act.valid else None
        answered = name == "answer"
        reward = self.reward_fn.step(self, ep, name, answered)

        phase_ended = self._advance(ep, answered, name == "done")
        info = self._info(ep, act, result, with_metrics=phase_ended)
        if ep.over:
            info["episode_summary"] = self._end_episode(ep, abandoned=False)
            reward += self.reward_fn.episode_end(self, ep, info)
        return self._obs(ep), float(reward), ep.terminated, ep.truncated, info

    def _execute(self, ep: Episode, act) -> str:
        if isinstance(act, InvalidAction):
            return act.error
        cfg = self.config
        err = precheck(act, max_page=cfg.max_page, link_batch_max=cfg.link_batch_max)
        if err is not None:
            return err
        name, args = act.name, canonical_args(act)
        if name == "search":
            return apply.search_result(self.library, args["query"], args["page"],
                                       page_size=cfg.page_size, max_page=cfg.max_page)
        if name == "read":
            return apply.read_result(self.library, args["id"], args.get("links_page"),
                                     links_per_page=READ_LINKS_PER_PAGE)
        if name == "answer":
            q = ep.question
            ep.answer = args["text"]
            ep.cites = args.get("cites")
            ep.f1, ep.em = score(ep.answer, q.golds, q.unanswerable)
            ep.answered_at = ep.phase_steps + 1
            return format_submitted(None if ep.phase == "probe" else ep.f1)
        if name == "done":
            return PHASE_COMPLETE
        if name in EVIDENCE_TOOLS:
            return evidence.run(self.library, name, args)
        result = apply.apply_edit(self.library, name, args)
        if not is_error(result):
            ep.edits[name] += 1
        return result

    def _advance(self, ep: Episode, answered: bool, done: bool) -> bool:
        """Move the protocol on after a step; True when a phase or the episode ended."""
        cfg = self.config
        if ep.phase == "forward":
            if answered or ep.phase_steps >= cfg.n1:
                if not answered:
                    ep.f1, ep.em = 0.0, 0.0
                q = ep.question
                ep.p1_steps, ep.phase, ep.phase_steps = ep.phase_steps, Phase.BACKWARD, 0
                ep.memory.set_task(tasks.format_backward(q.qid, q.text, ep.answer, q.golds[0],
                                                         ep.f1 or 0.0))
                return True
            return False
        if ep.phase == "backward":
            ep.terminated = done
            ep.truncated = not done and ep.phase_steps >= cfg.n2
            return ep.over
        # probe
        ep.terminated = answered
        ep.truncated = not answered and ep.phase_steps >= cfg.m
        if ep.truncated:
            ep.f1, ep.em = 0.0, 0.0
        return ep.over

    def _end_episode(self, ep: Episode, abandoned: bool) -> dict:
        """End-of-iteration work (refresh in iteration mode) and the episode's summary."""
        if self.mode == "train":
            ep.regens = self.library.refresh()
        if self.mode == Mode.PROBE:
            status = (Status.UNANSWERED if ep.answer is None
                      else Status.ANSWERED if ep.em == 1.0 else Status.WRONG)
        else:
            status = Status.ABANDONED if abandoned else (
                Status.ANSWERED if ep.answer is not None else Status.UNANSWERED)
        p2 = ep.phase_steps if ep.phase == "backward" else 0
        p1 = ep.p1_steps if ep.phase == "backward" else ep.phase_steps
        return {
            "qid": ep.question.qid, "template": ep.question.template,
            "category": ep.question.category, "answer": ep.answer,
            "f1": ep.f1 if ep.f1 is not None else 0.0, "em": ep.em if ep.em is not None else 0.0,
            "answered_at": ep.answered_at, "steps": ep.steps, "p1_steps": p1, "p2_steps": p2,
            "edits": {k: ep.edits.get(k, 0) for k in EDIT_ACTIONS}, "regens": ep.regens,
            "merges": self.library.merges - ep.start_merges,
            "judge_calls": judge_calls(self.library) - ep.start_judge_calls,
            "abandoned": abandoned, "status": status, "cited": ep.cites,
        }

    # -- observation and info ----------------------------------------------------------
    def _budget(self, ep: Episode) -> int:
        cfg = self.config
        phase = ep.phase
        return cfg.n1 if phase == "forward" else cfg.n2 if phase == "backward" else cfg.m

    def _steps_left(self, ep: Episode) -> int:
        """The phase budget minus the steps used in this phase (SPEC §10), also once the
        episode has ended early."""
        return max(0, self._budget(ep) - ep.phase_steps)

    def _obs(self, ep: Episode) -> dict:
        text = ep.memory.render(self._steps_left(ep))
        self._last_obs_text = text
        return {"phase": PHASE_CODE[ep.phase], "steps_left": self._steps_left(ep), "text": text}

    def _info(self, ep: Episode, act, result: str, with_metrics: bool = False) -> StepInfo:
        info: StepInfo = {
            "mode": self.mode.value, "phase": ep.phase.value, "qid": ep.question.qid,
            "steps": ep.steps, "phase_steps": ep.phase_steps, "steps_left": self._steps_left(ep),
            "action": None, "action_valid": None, "action_error": None, "input": {},
            "result": result,
            "f1": ep.f1, "em": ep.em, "answered": ep.answer is not None,
            "edits": {k: ep.edits.get(k, 0) for k in EDIT_ACTIONS},
            "library_version": self.library.version,
        }
        if result == EPISODE_OVER:
            info["action_error"] = EPISODE_OVER
        if act is not None:
            if isinstance(act, InvalidAction):
                info["action"] = "__noop__" if act.error == ERR_NO_ACTION \
                    else "__invalid__"
                info["action_valid"] = False
                info["input"] = {"given": _given_text(act.args)}
            else:
                info["action"] = act.name
                info["input"] = canonical_args(act)
                info["action_valid"] = not is_error(result)
            if is_error(result):
                info["action_error"] = result
        if with_metrics:
            info["metrics"] = self.library.stats()
        if self.privileged_info:
            info["privileged"] = {"golds": list(ep.question.golds),
                                  "support": list(ep.question.support)}
        return info

    # -- helpers -----------------------------------------------------------------------
    @property
    def episode(self) -> Episode | None:
        """The current episode's state (for recorders and tests; agents must not read it)."""
        return self._episode

    def tool_schemas(self, phase: str | None = None) -> list[dict]:
        """OpenAI function definitions of the tools of ``phase`` (default: the current one)."""
        if phase is None:
            phase = self._episode.phase if self._episode else (
                "forward" if self.mode == "train" else "probe")
        return tool_schemas(phase_tools(phase, self.config.toolset),
                            typed_links=self.config.typed_links)

    def snapshot(self, path: str | Path, label: str = "snapshot") -> str:
        """Write the library as a §15.2 snapshot; returns its content hash."""
        return write_snapshot(path, self.library, label,
                              universe={"path": self.universe_path, "hash": self.universe.hash})

    def render(self):
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        if self.render_mode == "ansi":
            return self._last_obs_text
        print(self._last_obs_text)
        return None

    def close(self):
        self._episode = None


class _NextId:
    """The env's next note number for its action space, through a weak reference (no env <->
    space cycle: a dropped env is freed without the cycle collector); pickles with its env.
    A space that outlives its env, or is copied without it, keeps the last number."""

    def __init__(self, env: KBGymEnv):
        self.__setstate__({"env": env, "last": 1})

    def __call__(self) -> int:
        env = self._env()
        if env is not None:
            self._last = env._next_id()
        return self._last

    def __getstate__(self) -> dict:
        return {"env": self._env(), "last": self._last}

    def __setstate__(self, state: dict) -> None:
        env = state["env"]
        self._env = weakref.ref(env) if env is not None else lambda: None
        self._last = state["last"]


def _given_text(value: Any) -> str:
    """What an unreadable action gave, as text: its compact JSON with sorted keys (finite
    numbers only), else its repr cut to 200 characters. Agents give anything; a text keeps
    ``info["input"]`` of one shape for Gymnasium's vector envs, which merge infos key by key
    into typed arrays."""
    import json

    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False)
    except Exception:
        try:
            return repr(value)[:200]
        except Exception:
            return f"<{type(value).__name__}>"
