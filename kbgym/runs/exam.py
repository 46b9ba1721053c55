"""Examination, ``kbgym test`` (SPEC §9.3): a fixed reader answers questions on a frozen
library within M steps. Each question is one probe-mode episode."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kbgym.env.config import KBGymConfig
from kbgym.env.env import KBGymEnv
from kbgym.errors import ConfigError
from kbgym.files import read_json
from kbgym.library.graph import Library
from kbgym.metrics.consistency import consistency, evidence_set
from kbgym.runs.episode import AgentLike, run_episode
from kbgym.runs.recorder import RunRecorder, test_row
from kbgym.runs.logs import write_json
from kbgym.scoring import score_block
from kbgym.seeding import derive
from kbgym.universe.types import Question, Universe


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
            raise ConfigError(f"unknown split: {name}")
        qids = splits[name][:limit] if limit is not None else splits[name]
        out += [(name, questions[qid]) for qid in qids]
    return out


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
    files: Any = None,
    progress: Callable[[int, int, dict], None] | None = None,
    repeats: int = 1,
    seed: int = 0,
) -> list[dict]:
    """Examine ``library`` (frozen copy) with ``reader``; returns the test_log rows.

    With ``out``, rows are appended to ``test_log.jsonl`` and ``trace.jsonl`` there. With
    ``repeats`` R > 1 every question is examined R times (rows carry ``repeat``), the reader
    getting :func:`repeat_seed` through ``reset(seed=)`` when it takes one.
    """
    if questions is None:
        questions, splits = load_questions(universe, None)
    names = [split] if isinstance(split, str) else list(split)
    items = plan(select(questions, splits, names, limit), repeats, seed)
    env = KBGymEnv(universe, mode="probe", library=library, questions=list(questions.values()),
                   split="all", config=env_config or KBGymConfig())
    own = files is None and out is not None
    if own:
        from kbgym.runs.train import RunFiles

        files = RunFiles(Path(out))
    runner = env if files is None else RunRecorder(env, files, run_id)  # trace + test_log
    rows = []
    try:
        for i, (name, q, rep, rseed) in enumerate(items, start=1):
            if files is not None:
                runner.begin(epoch=label, split=name, repeat=rep)
            summary, trace, wall = run_episode(runner, reader, q.qid, rseed)
            summary = dict(summary, evidence=evidence_set(trace, env.library), repeat=rep)
            row = test_row(label, name, q, summary)
            rows.append(row)
            if files is not None:
                files.log("timing").write({"kind": "test", "epoch": label, "qid": q.qid,
                                           **({} if rep is None else {"repeat": rep}),
                                           "seconds": round(wall, 6)})
            if progress is not None:
                progress(i, len(items), row)
    finally:
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
    }
    if repeats > 1:
        meta.update(repeats=repeats, seed=seed,
                    consistency={name: consistency(r for r in rows if r["split"] == name)
                                 for name in splits})
    write_json(Path(out) / "test_meta.json", meta)
    return meta
