"""Refuse to compare what is not comparable: ``probe table`` arms (SPEC §13.7 — every arm on
the same probe, with the same reader, at the same budget; the ``prior`` arm, which reads
nothing, only needs the same probe) and ``test --out`` directories.

The checks read what the exams recorded: each arm directory's ``test_log.jsonl`` rows and its
``test_meta.json`` (budget ``m``, reader ``model``, the probe's hash), which every exam writes
(``kbgym test --out``, the demo's and a sweep's exams); a folder without one, or one that does
not record those fields, is refused rather than trusted. Every refusal is a one-line
:class:`~kbgym.errors.ConfigError` naming the arm and the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from kbgym.errors import ConfigError
from kbgym.runs.logs import read_jsonl

#: test_meta.json fields that must agree across the arms of one table.
SAME_ACROSS_ARMS = ("m", "model", "questions_hash")
#: The reader name of the prior arm, which is exempt from the same-reader/budget check.
PRIOR_READER = "prior"


def load_probe_file(path: str | Path) -> dict:
    """A probe.json, checked for the fields the table needs (one-line errors)."""
    from kbgym.safeload import read_data

    path = Path(path)
    try:
        data = read_data(path, "probe", yaml=False, object_only=True)
    except ConfigError as err:
        raise ConfigError(f"--probe {err}") from None
    if not isinstance(data, dict) or data.get("kind") != "kbgym.probe":
        raise ConfigError(f"--probe {path}: not a kbgym.probe file")
    splits = data.get("splits")
    qs = data.get("questions")
    if not isinstance(splits, dict) or not all(
            isinstance(v, list) and all(isinstance(g, str) for g in v) for v in splits.values()):
        raise ConfigError(f"--probe {path}: splits must map group names to lists of ids")
    if not isinstance(qs, list) or not all(isinstance(q, dict) and isinstance(q.get("qid"), str)
                                           for q in qs):
        raise ConfigError(f"--probe {path}: questions must be a list of question objects")
    return data


def arm_dirs(specs: Iterable[str]) -> dict[str, Path]:
    """``NAME=DIR`` pairs, each DIR an existing exam output directory."""
    out: dict[str, Path] = {}
    for spec in specs:
        name, _, path = spec.partition("=")
        if not name or not path:
            raise ConfigError(f"--arm takes NAME=DIR (a test output directory), got {spec!r}")
        if name in out:
            raise ConfigError(f"--arm {name} is given twice")
        d = Path(path)
        if not d.is_dir():
            raise ConfigError(f"--arm {name}: no such directory {path}")
        if not (d / "test_log.jsonl").is_file():
            raise ConfigError(f"--arm {name}: {path} has no test_log.jsonl - examine it first "
                              "with kbgym test --out")
        out[name] = d
    return out


def _meta(d: Path) -> dict | None:
    from kbgym.safeload import read_data

    path = d / "test_meta.json"
    if not path.exists():
        return None
    try:
        meta = read_data(path, "test_meta.json", yaml=False)
    except ConfigError as err:
        raise ConfigError(f"{err} (not a readable test_meta.json)") from None
    if not isinstance(meta, dict):
        raise ConfigError(f"{path}: not a test_meta.json object")
    return meta


def check_probe_arms(probe_path: str | Path, specs: Iterable[str], base: str = "B1") -> None:
    """Raise a one-line ConfigError unless the arms can share one ρ table: every arm holds
    one examination of this probe (rows of one label, every row a probe question in its
    group), and the arms agree on budget, reader and probe where their exams recorded them."""
    from kbgym.runs.gradient import probe_hash as hash_of

    probe = load_probe_file(probe_path)
    probe_hash = hash_of(probe)
    dirs = arm_dirs(specs)
    if base not in dirs:
        raise ConfigError(f"--base {base}: no --arm of that name (arms: {', '.join(dirs)})")
    group_of = {g: name for name, gids in probe["splits"].items() for g in gids}
    seen: dict[str, tuple[str, Any]] = {}
    for name, d in dirs.items():
        rows = read_jsonl(d / "test_log.jsonl")
        if not rows:
            raise ConfigError(f"--arm {name}: {d}/test_log.jsonl has no rows")
        for i, r in enumerate(rows, start=1):
            if not all(isinstance(r.get(k), t) for k, t in
                       (("qid", str), ("split", str), ("steps", int), ("f1", (int, float)),
                        ("status", str))):
                raise ConfigError(f"--arm {name}: {d}/test_log.jsonl row {i} lacks qid, split, "
                                  "steps, f1 or status")
            if group_of.get(r["qid"]) is None or r["qid"] not in probe["splits"].get(r["split"],
                                                                                    ()):
                raise ConfigError(f"--arm {name}: row {i} ({r['qid']} in {r['split']}) is not a "
                                  f"question of {probe_path} - was it examined on another probe?")
        labels = sorted({json.dumps(r.get("epoch")) for r in rows})
        if len(labels) > 1:
            raise ConfigError(f"--arm {name}: {d} holds several examinations (labels "
                              f"{', '.join(labels)}); give each its own --out")
        keys = [(r["split"], r["qid"], r.get("repeat")) for r in rows]  # --repeats: R rows
        if len(set(keys)) != len(keys):
            raise ConfigError(f"--arm {name}: {d} holds a question twice - two examinations "
                              "were appended into one directory")
        meta = _meta(d)
        if meta is None:
            raise ConfigError(f"--arm {name}: {d} has no test_meta.json (the exam's reader, "
                              "budget and probe), so it cannot be compared - examine it again "
                              "with kbgym test --out")
        values = {"m": meta.get("m"), "model": meta.get("model"),
                  "questions_hash": meta.get("questions_hash")}
        missing = [k for k, v in values.items() if v is None]
        if missing:
            raise ConfigError(f"--arm {name}: {d}/test_meta.json records no {missing[0]}, so "
                              "it cannot be compared - examine it again with kbgym test --out")
        if values["questions_hash"] not in (None, probe_hash):
            raise ConfigError(f"--arm {name}: examined on another probe file "
                              f"({values['questions_hash']}, not {probe_hash})")
        # the prior arm (kbgym test --reader prior) reads nothing and answers in one step: it
        # is the reference for what guessing earns, so its reader and budget are not compared
        prior = PRIOR_READER in (meta.get("reader"), meta.get("model"))
        for field in SAME_ACROSS_ARMS:
            v = values[field]
            if v is None or (prior and field in ("m", "model")):
                continue
            if field in seen and seen[field][1] != v:
                other, ov = seen[field]
                what = {"m": "budgets", "model": "readers", "questions_hash": "probes"}[field]
                raise ConfigError(f"arms examined with different {what}: {other} has {field}="
                                  f"{ov!r}, {name} has {field}={v!r}")
            seen.setdefault(field, (name, v))


def check_exam_out(out: str | Path | None, identity: Mapping[str, Any], *,
                   overwrite: bool = False, locked: bool = False) -> None:
    """``kbgym test --out DIR`` must not mix examinations: refuse a directory that already
    holds one (a test_meta.json, or what kbgym wrote) unless ``overwrite``, and always a
    training run's own folder (its trace and logs are the run's; an exam of it goes in a
    folder of its own), a link or a special file. Reads only (``locked``: the caller holds
    the folder's lock). ``identity`` is the new exam's (kept for callers' messages)."""
    from kbgym.runs.lock import check_unlocked
    from kbgym.runs.outdir import check_folder, check_out

    if out is None:
        return
    d = Path(out)
    check_folder(d)
    if d.exists() and not d.is_dir():
        raise ConfigError(f"--out {out}: exists and is not a directory")
    if not locked:
        check_unlocked(d)
    if any((d / name).exists() for name in ("meta.json", "train_log.jsonl", "kb_stats.jsonl")):
        raise ConfigError(f"--out {out}: is a training run's folder; an exam goes in a folder "
                          f"of its own (e.g. {Path(out) / 'exam'})")
    check_out(d, what="an examination", flags="--overwrite to replace it, or choose an "
              "empty folder", overwrite=overwrite, locked=True)
