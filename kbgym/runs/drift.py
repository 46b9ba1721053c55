"""Source drift at run time: continuing a trained library on a drifted universe, and the drift
metrics (the people world's scripted repair pass is
:func:`kbgym.worlds.people.drift.repair_pass`).

Metrics (:func:`drift_report`), over exam rows on the drifted universe:

- F1 (score block) on the **drifted** questions (golds changed by the drift) and on the
  **unchanged** ones;
- **outdated answers**: answers to drifted questions that match an old gold (EM against the
  v1 golds) but not a new one: the reader used an outdated fact;
- from a training run on v2 (:func:`repair_summary`): **stale links** and **stale index
  notes** per iteration (``series.jsonl``, which carries them whenever staleness is on) and
  the **repair actions** spent, i.e. the successful backward edit actions of that run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from kbgym.errors import ConfigError
from kbgym.library.graph import Library
from kbgym.runs.logs import read_jsonl
from kbgym.scoring import score, score_block
from kbgym.library.drift import carry_library
from kbgym.types import Universe


def library_for(library: Library, header_hash: str | None, universe: Universe,
                typed_links: bool = False) -> Library:
    """``library`` ready for ``universe``: itself when built on it; carried over
    (:func:`carry_library`) when built on the universe it drifted from."""
    if header_hash in (None, universe.hash):
        return library
    drift = universe.meta.get("drift") or {}
    if header_hash == drift.get("parent_hash"):
        return carry_library(library, universe, typed_links)
    raise ConfigError(f"the library was built on universe {header_hash}, which is neither "
                      f"{universe.hash} nor the universe it drifted from")


def drift_report(universe: Universe, rows: Iterable[Mapping]) -> dict:
    drift = universe.meta.get("drift")
    if not drift:
        raise ConfigError("not a drifted universe (made by `kbgym drift`)")
    rows = list(rows)
    drifted = set(drift["questions"]["drifted"])
    old = drift["old_golds"]
    d_rows = [r for r in rows if r["qid"] in drifted]
    u_rows = [r for r in rows if r["qid"] not in drifted]
    outdated = 0
    for r in d_rows:
        q = universe.question(r["qid"])
        answer = r.get("answer") or ""
        if score(answer, tuple(old[r["qid"]]), False)[1] and not score(
                answer, q.golds, q.unanswerable)[1]:
            outdated += 1
    return {"drifted": score_block(d_rows), "unchanged": score_block(u_rows),
            "outdated_answers": outdated, "n_drifted": len(d_rows)}


def repair_summary(run_dir: str | Path) -> dict:
    run_dir = Path(run_dir)
    log = read_jsonl(run_dir / "train_log.jsonl")
    series = read_jsonl(run_dir / "series.jsonl")
    return {
        "repair_actions": sum(sum(r["edits"].values()) for r in log),
        "iterations": len(log),
        "stale_links": [[r["iteration"], r.get("stale_links")] for r in series],
        "stale_index_notes": [[r["iteration"], r.get("stale_index_notes")] for r in series],
    }
