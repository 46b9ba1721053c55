"""Examination, ``kbgym test`` (SPEC §9.3): a fixed reader answers questions on a frozen
library within M steps. Each question is one probe-mode episode."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from kbgym.env.config import KBGymConfig
from kbgym.env.env import KBGymEnv
from kbgym.errors import ConfigError
from kbgym.files import read_json
from kbgym.library.graph import Library
from kbgym.metrics.consistency import consistency, evidence_set, stated_consistency
from kbgym.metrics.navigator import Navigator
from kbgym.runs.episode import AgentLike, arun_episode, run_episode
from kbgym.runs.logs import RunDir, write_json
from kbgym.runs.rows import test_row, trace_row
from kbgym.runs.verdict import exam_verdict
from kbgym.scoring import score_block
from kbgym.seeding import derive
from kbgym.types import Question, Universe


def load_questions(universe: Universe, source: str | Path | None) -> tuple[dict[str, Question],
                                                                           dict[str, list[str]]]:
    """Questions and splits from the universe (source None) or from a probe file."""
    if source is None:
        return ({q.qid: q for q in universe.questions},
                {k: list(v) for k, v in universe.splits.items()})
    data = read_json(source, "questions")
    if not isinstance(data, dict) or data.get("kind") != "kbgym.probe":
        kind = data.get("kind") if isinstance(data, dict) else type(data).__name__
        raise ConfigError(f"{source}: expected a kbgym.probe file, got {kind!r}")
    if data.get("universe_hash") not in (None, universe.hash):
        raise ConfigError(f"{source}: made for universe {data['universe_hash']}, "
                          f"not {universe.hash}")
    items, splits = data.get("questions"), data.get("splits")
    if not isinstance(items, list) or not isinstance(splits, dict):
        raise ConfigError(f"{source}: a probe file needs a questions list and a splits object")
    try:
        qs = {q["qid"]: Question.from_json(q) for q in items}
    except Exception as err:
        raise ConfigError(f"{source}: malformed question ({type(err).__name__}: "
                          f"{str(err)[:80]})") from None
    for name, gids in splits.items():
        if not isinstance(gids, list) or not all(isinstance(g, str) and g in qs for g in gids):
            raise ConfigError(f"{source}: split {name!r} must list qids of its questions")
    return qs, {k: list(v) for k, v in splits.items()}


def repeat_seed(seed: int, repeat: int, qid: str) -> int:
    """The seed repeat ``repeat`` of question ``qid`` hands the reader (31 bits, so any
    sampling API takes it): independent of question order, so sequential and concurrent
    exams agree."""
    return derive(seed, f"exam/repeat/{repeat}/{qid}") % 2**31


def plan(items: list[tuple[str, Question]], repeats: int, seed: int
         ) -> list[tuple[str, Question, int | None, int | None]]:
    """(split, question, repeat, reader seed) per episode: every question once per repeat,
    repeat by repeat. A single run (repeats 1) passes no repeat and no seed, as before."""
    if repeats < 1:
        raise ConfigError(f"repeats must be at least 1, got {repeats}")
    if repeats == 1:
        return [(name, q, None, None) for name, q in items]
    return [(name, q, r, repeat_seed(seed, r, q.qid)) for r in range(repeats)
            for name, q in items]


def select(questions: dict[str, Question], splits: dict[str, list[str]], names: Sequence[str],
           limit: int | None = None) -> list[tuple[str, Question]]:
    """(split, question) pairs for the named splits, in split then draw order."""
    out = []
    for name in names:
        if name not in splits:
            raise ConfigError(f"unknown split: {name} (known: {', '.join(splits)})")
        qids = splits[name][:limit] if limit is not None else splits[name]
        out += [(name, questions[qid]) for qid in qids]
    return out


#: The ideal navigator's figures, per (universe, library content (``Library.digest``) and
#: pending re-indexing, search backend, budget and paging, question): the same content
#: examined again (concurrent examiners, repeats, the same state in a probe and a curve, B1
#: built again for another arm) reuses them instead of navigating again. Least recently used
#: entries go first beyond NAV_CACHE_SIZE.
NAV_CACHE_SIZE = 20_000
_NAV_CACHE: OrderedDict[tuple, dict[str, int | float | None]] = OrderedDict()


class Examiner:
    """The one way KBGym examines (SPEC §9.3): a fixed reader answers questions on a frozen
    library, one probe-mode episode each, and each episode becomes one test_log row built in
    one place (:meth:`row`, with its evidence set). ``kbgym test`` (sequential and
    concurrent), the probe, the training curve and the curation reward all go through it.

    ``library`` is examined as a frozen copy (SPEC §16.1); :meth:`viewing` instead examines a
    live library in place, read-only and uncopied, with its search index as it stands (the
    curation reward's before/after pools). ``search_backend`` lets several examiners share
    one read-only index (concurrent exams), ``navigator`` one ideal navigator.

    Every row also carries the ideal navigator's figures for its question on the examined
    library (``nav_steps``, ``nav_f1``; docs/protocol.md §12.6); ``navigate=False`` leaves
    them out (to time an exam without them).
    """

    def __init__(self, universe: Universe, questions: Mapping[str, Question] | Sequence[Question],
                 config: KBGymConfig | None = None, *, library: Library | None = None,
                 search_backend: Any = None, navigator: Navigator | None = None,
                 navigate: bool = True):
        qs = list(questions.values()) if isinstance(questions, Mapping) else list(questions)
        self.env = KBGymEnv(universe, mode="probe",
                            library=library if library is not None else Library(),
                            questions=qs, split="all", config=config or KBGymConfig(),
                            search_backend=search_backend)
        self.navigate = navigate
        self._navigator = navigator

    @property
    def library(self) -> Library:
        return self.env.library

    @property
    def navigator(self) -> Navigator:
        """The ideal navigator of the examined library, at the exam's budget and paging
        (built on first use; it caches each query's ranking, the library being frozen)."""
        if self._navigator is None:
            cfg = self.env.config
            self._navigator = Navigator(self.env.library, self.env.universe, m=cfg.m,
                                        page_size=cfg.page_size, max_page=cfg.max_page)
        return self._navigator

    def run(self, reader: AgentLike, qid: str, seed: int | None = None
            ) -> tuple[dict, list[dict], float]:
        """One question: (episode summary, step rows, wall seconds)."""
        return run_episode(self.env, reader, qid, seed)

    async def arun(self, reader: Any, qid: str, seed: int | None = None
                   ) -> tuple[dict, list[dict], float]:
        """:meth:`run` with ``await reader.aact``."""
        return await arun_episode(self.env, reader, qid, seed)

    def row(self, label: Any, split: str, q: Question, summary: dict, trace: list[dict],
            repeat: int | None = None) -> dict:
        """The test_log row of one examined question (with the navigator's figures)."""
        summary = dict(summary, evidence=evidence_set(trace, self.env.library), repeat=repeat)
        if self.navigate:
            summary.update(self.nav_figures(q))
        return test_row(label, split, q, summary)

    def nav_figures(self, q: Question) -> dict[str, int | float | None]:
        """The ideal navigator's figures for ``q`` on the examined library: ``nav_steps``,
        ``nav_f1`` and, when the library has chains (links between original notes),
        ``nav_steps_unchained``, its steps with them cut (:func:`kbgym.metrics.navigator.cut_chains`).
        From the cache when this library state was navigated before (see
        :data:`NAV_CACHE_SIZE`)."""
        lib, cfg = self.env.library, self.env.config
        # (keyed by content: the same notes loaded or built again navigate alike; the
        # pending re-indexing, if any, is part of what the search shows)
        key = (self.env.universe.hash, lib.digest(), tuple(lib.dirty),
               type(lib.search_backend).__name__, cfg.m, cfg.page_size, cfg.max_page,
               q.text, q.support, q.keys, q.support_status)
        hit = _NAV_CACHE.get(key)
        if hit is None:
            nav = self.navigator.run(q)
            hit = {"nav_steps": nav.steps, "nav_f1": nav.f1}
            unchained = self.navigator.unchained
            if unchained is not None:
                hit["nav_steps_unchained"] = unchained.run(q).steps
            _NAV_CACHE[key] = hit
            if len(_NAV_CACHE) > NAV_CACHE_SIZE:
                _NAV_CACHE.popitem(last=False)
        else:
            with suppress(KeyError):  # (dropped meanwhile by a concurrent examiner)
                _NAV_CACHE.move_to_end(key)
        return dict(hit)  # a copy: the cached figures stay as navigated

    @contextmanager
    def viewing(self, library: Library) -> Iterator[Library]:
        """Examine ``library`` itself for the duration: frozen (any mutation raises), not
        copied, then restored and released."""
        env, was = self.env, library.frozen
        env.library, library.frozen = library, True
        self._navigator = None
        try:
            yield library
        finally:
            library.frozen = was
            env.library = None  # hold no reference to the examined library
            self._navigator = None

    def close(self) -> None:
        self.env.close()


def write_episode(files: RunDir, run_id: str | None, label: Any, split: str,
                  repeat: int | None, row: dict, trace: list[dict], wall: float) -> None:
    """One examined question's rows: its trace, its test_log row and its timing row."""
    extra = {} if repeat is None else {"repeat": repeat}
    ctx = {"epoch": label, "iteration": None, "split": split, **extra}
    for r in trace:
        files.log("trace").write(trace_row(run_id, "test", ctx, r))
    files.log("test_log").write({"run_id": run_id, **row})
    files.log("timing").write({"kind": "test", "epoch": label, "qid": row["qid"], **extra,
                               "seconds": round(wall, 6)})


def examine(
    universe: Universe,
    library: Library,
    reader: AgentLike,
    env_config: KBGymConfig | None = None,
    *,
    split: str | Sequence[str] = "test_in",
    questions: dict[str, Question] | None = None,
    splits: dict[str, list[str]] | None = None,
    label: Any = None,
    limit: int | None = None,
    out: str | Path | None = None,
    run_id: str | None = None,
    files: RunDir | None = None,
    progress: Callable[[int, int, dict], None] | None = None,
    repeats: int = 1,
    seed: int = 0,
    navigate: bool = True,
) -> list[dict]:
    """Examine ``library`` (frozen copy) with ``reader``, one question after another; returns
    the test_log rows (with the ideal navigator's figures unless ``navigate`` is False).

    With ``out`` (or an open ``files``), rows are appended to ``test_log.jsonl``,
    ``trace.jsonl`` and ``timing.jsonl`` there. With ``repeats`` R > 1 every question is
    examined R times (rows carry ``repeat``), the reader getting :func:`repeat_seed` through
    ``reset(seed=)`` when it takes one.
    """
    if questions is None:
        questions, splits = load_questions(universe, None)
    names = [split] if isinstance(split, str) else list(split)
    items = plan(select(questions, splits, names, limit), repeats, seed)
    examiner = Examiner(universe, questions, env_config, library=library, navigate=navigate)
    own = files is None and out is not None
    if own:
        files = RunDir(Path(out))
    rows = []
    try:
        for i, (name, q, rep, rseed) in enumerate(items, start=1):
            summary, trace, wall = examiner.run(reader, q.qid, rseed)
            row = examiner.row(label, name, q, summary, trace, rep)
            rows.append(row)
            if files is not None:
                write_episode(files, run_id, label, name, rep, row, trace, wall)
            if progress is not None:
                progress(i, len(items), row)
    finally:
        examiner.close()
        if own:
            files.close()
    return rows


def write_test_meta(out: str | Path, *, library: str, questions: str | None, splits: list[str],
                    label: Any, model: str, m: int, limit: int | None, rows: list[dict],
                    repeats: int = 1, seed: int | None = None, **extra: Any) -> dict:
    """test_meta.json; ``extra`` adds fields (e.g. the probe file's hash, the reader)."""
    meta = {**extra,
        "schema_version": 1, "library": library, "questions": questions, "splits": splits,
        "epoch": label, "model": model, "m": m, "limit": limit, "n_questions": len(rows),
        "tokens": [sum(r["tokens_in"] for r in rows), sum(r["tokens_out"] for r in rows)],
        "tokens_cached": sum(r.get("tokens_cached", 0) for r in rows),
        "score": score_block(rows),
        "verdict": exam_verdict(rows),
    }
    if repeats > 1:
        meta.update(repeats=repeats, seed=seed,
                    consistency={name: consistency(r for r in rows if r["split"] == name)
                                 for name in splits})
        if any(r.get("cited") for r in rows):  # stated citations: undefined, not 1, when empty
            meta["cited_consistency"] = {
                name: dict(zip(("jaccard", "defined", "undefined"), stated_consistency(
                    [r for r in rows if r["split"] == name]))) for name in splits}
    write_json(Path(out) / "test_meta.json", meta)
    return meta
