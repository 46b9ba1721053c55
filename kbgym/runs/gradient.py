"""Examining arms on a probe file, the rho table, and the training-time curve (SPEC §13)."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping
from pathlib import Path

from kbgym.env.config import KBGymConfig
from kbgym.library.graph import Library
from kbgym.runs.episode import AgentLike
from kbgym.runs.exam import examine
from kbgym.runs.logs import read_jsonl
from kbgym.runs.probe import GROUPS
from kbgym.runs.replay import replay_rows
from kbgym.types import Question, Universe


def probe_questions(probe: Mapping) -> tuple[dict[str, Question], dict[str, list[str]]]:
    qs = {q["qid"]: Question.from_json(q) for q in probe["questions"]}
    return qs, {k: list(v) for k, v in probe["splits"].items()}


def probe_hash(probe: Mapping) -> str:
    """The identity of a probe: the content hash of its canonical JSON (the sha256 of a
    probe.json as kbgym writes it), recorded in every exam's test_meta.json."""
    from kbgym.jsonio import content_hash

    return content_hash(probe)


def examine_probe(universe: Universe, library: Library, reader: AgentLike, probe: Mapping,
                  env_config: KBGymConfig | None = None, label=None, out=None, *,
                  reader_name: str | None = None, library_name: str | None = None,
                  navigate: bool = True) -> list[dict]:
    """Examine ``library`` on the probe's groups. With ``out``, the exam folder gets its
    test_log, trace and test_meta.json: the reader (``reader_name``, the plugin name, or the
    reader's model), the budget and the probe's hash, which ``probe table`` compares."""
    from kbgym.runs.exam import write_test_meta

    qs, splits = probe_questions(probe)
    names = [g for g in GROUPS if g in splits]
    names += [g for g in splits if g not in names]  # a PW or corpus probe's own groups
    rows = examine(universe, library, reader, env_config, split=names, questions=qs,
                   splits=splits, label=label, out=out, navigate=navigate)
    if out is not None:
        cfg = env_config or KBGymConfig()
        model = (getattr(reader, "meta", None) or {}).get("model") or reader_name \
            or type(reader).__name__
        write_test_meta(out, library=library_name or str(label), questions=None, splits=names,
                        label=label, model=model, m=cfg.m, limit=None, rows=rows,
                        questions_hash=probe_hash(probe), reader=reader_name or model,
                        universe_hash=universe.hash)
    return rows


def group_means(rows: list[dict]) -> dict[str, dict]:
    """Per group: n, mean steps and F1, and the ideal navigator's mean steps and F1 (over
    the questions with a figure) when the rows carry them."""
    out = {}
    for g in GROUPS:
        rs = [r for r in rows if r["split"] == g]
        if rs:
            out[g] = {"n": len(rs), "mean_steps": statistics.fmean(r["steps"] for r in rs),
                      "f1": statistics.fmean(r["f1"] for r in rs)}
            nav = [r for r in rs if r.get("nav_steps") is not None]
            if nav and all("nav_steps" in r for r in rs):
                out[g].update(nav_steps=statistics.fmean(r["nav_steps"] for r in nav),
                              nav_f1=statistics.fmean(r["nav_f1"] for r in nav))
    return out


def exam_key(library: Library) -> tuple:
    """What an exam of ``library`` depends on besides the reader, the questions and the
    config: its content (``Library.digest``) and the re-indexing still pending."""
    return library.digest(), tuple(library.dirty)


def training_curve(universe: Universe, run_dir: str | Path, reader: AgentLike, probe: Mapping,
                   every: int = 20, env_config: KBGymConfig | None = None,
                   progress: Callable[[int], None] | None = None, navigate: bool = True,
                   examined: Mapping[tuple, list[dict]] | None = None) -> dict:
    """Replay to iterations 0, every, 2·every, … (and the last) and examine each state: per
    group the mean steps and F1 at each point, and the ideal navigator's (``nav_steps``,
    ``nav_f1``) unless ``navigate`` is False (for a curve whose reader shows no navigator
    figure: the navigator is most of an exam's cost).

    With ``examined`` (for a deterministic reader: the same library state gives the same
    rows), a state whose :func:`exam_key` was examined before is not examined again and its
    rows are reused: a curator that stops changing the library leaves the last points alike.
    ``examined`` maps :func:`exam_key` of libraries to rows this ``reader`` already made on
    this probe and config (the demo's B1 and trained library: the curve's first and last
    states); their navigator figures count only with ``navigate``."""
    run_dir = Path(run_dir)
    trace = read_jsonl(run_dir / "trace.jsonl")
    last = len(read_jsonl(run_dir / "train_log.jsonl"))
    points = list(range(0, last + 1, every))
    if points[-1] != last:
        points.append(last)
    lib = Library.from_universe(universe)
    train_rows = [r for r in trace if r.get("kind") == "train"]
    pos, curve = 0, {"iterations": points, "groups": {}}
    seen = dict(examined) if examined is not None else None  # state -> its exam's rows
    for it in points:
        while pos < len(train_rows) and train_rows[pos]["iteration"] <= it:
            replay_rows(lib, [train_rows[pos]])
            pos += 1
        state = exam_key(lib) if seen is not None else None
        rows = seen.get(state) if seen is not None else None
        if rows is None or (navigate and any("nav_steps" not in r for r in rows)):
            rows = examine_probe(universe, lib, reader, probe, env_config, label=it,
                                 navigate=navigate)
            if seen is not None:
                seen[state] = rows
        elif not navigate:
            rows = [{k: v for k, v in r.items() if k not in ("nav_steps", "nav_f1")}
                    for r in rows]
        means = group_means(rows)
        for g, m in means.items():
            slot = curve["groups"].setdefault(g, {"mean_steps": [], "f1": [], "n": m["n"]})
            for key in ("mean_steps", "f1", "nav_steps", "nav_f1"):
                if key in m:
                    slot.setdefault(key, []).append(m[key])
        if progress is not None:
            progress(it)
    return curve
