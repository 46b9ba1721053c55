"""``kbgym bench run``: a curator through every seed of a release, into a result package
(:mod:`kbgym.bench.package`).

Per seed: the curator's library is made (an agent trains with ``kbgym train``'s driver on the
seed's train slice for the release's epochs and budgets; a baseline is built; B1 is the
universe's notes), then B1 and that library are examined on the seed's probe at both exam
budgets with the seed's pinned reader, and B1's exam is checked against the release's
fingerprint of the reader. Then the scores (:mod:`kbgym.bench.scores`) and, last, the
manifest.

Resumable: a killed run continues with ``resume=True`` - training resumes from its trace
(``kbgym train --resume``), finished exams (those with ``test_meta.json``) are kept, an
unfinished one is redone.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import kbgym
from kbgym.bench import package as P
from kbgym.bench import scores as S
from kbgym.bench.release import Release, exam_config
from kbgym.errors import ConfigError
from kbgym.jsonio import content_hash, write_canonical

#: Curators that are not agents: B1 (no curation) and the unsupervised baselines.
BASELINES = ("b2", "b3", "b4", "oracle")
#: The curator spec meaning "each seed's own scripted curator" (the release names it).
SCRIPTED = "scripted"
#: Snapshots during training: only the epochs' (kb_iter files would only fatten packages).
NO_ITER_SNAPSHOTS = 10**6


def curator_spec(spec: str, options: Mapping[str, Any] | None = None) -> dict:
    """``B1``, a baseline (``b2``, ``b3``, ``b4``, ``oracle``), ``scripted`` (each seed's
    scripted curator, as the release names it) or an agent (plugin name or module:factory,
    with its endpoint options)."""
    options = dict(options or {})
    key = spec.strip().lower()
    if key in ("b1", *BASELINES):
        if options:
            raise ConfigError(f"--curator {spec}: a baseline takes no endpoint flags "
                              f"({', '.join(sorted(options))})")
        return {"kind": "b1" if key == "b1" else "baseline", "name": key.upper()
                if key != "oracle" else key}
    if not spec.strip():
        raise ConfigError("--curator: give B1, b2, b3, b4, oracle, scripted or an agent")
    return {"kind": "agent", "name": spec.strip(), "options": options}


def seed_curator(curator: Mapping, release: Release, seed: str) -> str:
    """The agent plugin that curates ``seed``."""
    return release.seed(seed)["curator"] if curator["name"] == SCRIPTED else curator["name"]


def identity(curator: Mapping) -> dict:
    """The curator as a package records it: where it is served is not part of it."""
    opts = {k: v for k, v in (curator.get("options") or {}).items()
            if k not in ("base_url", "api_key_env")}
    return {**{k: v for k, v in curator.items() if k != "options"}, "options": opts}


def library_file(curator: Mapping, epochs: int) -> str:
    """The final library of a seed, relative to its folder."""
    return f"train/kb_epoch_{epochs}.json" if curator["kind"] == "agent" else "library.json"


def seed_subset(release: Release, seeds) -> list[str] | None:
    """The seeds a reduced run covers, in the release's order (None: every seed).

    ``seeds``: None, or seed names (a list, or one comma-separated string). Naming every seed
    is the whole release (None); an unknown or repeated name is refused in one line."""
    if seeds is None:
        return None
    names = seeds.split(",") if isinstance(seeds, str) else seeds
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise ConfigError(f"seeds: expected a list of seed names, got {seeds!r}"[:200])
    names = [n.strip() for n in names]
    if not names or not all(names):
        raise ConfigError("--seeds: give seed names separated by commas, e.g. "
                          f"{','.join(release.seed_names[:2])}")
    for n in names:
        release.seed(n)  # an unknown name: one line listing the release's seeds
    if len(set(names)) != len(names):
        raise ConfigError(f"--seeds {','.join(names)}: a seed is named twice")
    chosen = [n for n in release.seed_names if n in names]
    return None if len(chosen) == len(release.seed_names) else chosen


def package_seeds(release: Release, pkg: Mapping) -> list[str]:
    """The seeds a package covers: its ``seed_subset`` (a reduced run), else the release's."""
    return list(pkg.get("seed_subset") or release.seed_names)


def new_package(release: Release, size: str, curator: Mapping, prices: Mapping | None,
                seeds: list[str] | None = None) -> dict:
    """package.json of a run; ``seeds`` (from :func:`seed_subset`) marks a reduced run: only
    those seeds, recorded as ``seed_subset`` (absent for a run of the whole release)."""
    out = {}
    if seeds is not None:
        out["seed_subset"] = list(seeds)
    seeds_ = {}
    for name in (seeds if seeds is not None else release.seed_names):
        z = release.sized(name, size)
        seeds_[name] = {
            "reader": release.reader(name), "universe_hash": release.seed(name)["universe"]["hash"],
            "train_size": z["train_size"], "probe_hash": z["probe_hash"],
            "library": f"seeds/{name}/" + library_file(curator, release.data["train"]["epochs"]),
            "train": f"seeds/{name}/train" if curator["kind"] == "agent" else None,
            "curator": (seed_curator(curator, release, name) if curator["kind"] == "agent"
                        else curator["name"]),
        }
    return {"schema_version": P.SCHEMA_VERSION, "kind": P.KIND,
            "release": {"id": release.id, "hash": release.hash}, "size": size,
            "size_note": release.data["sizes"][size].get("description", ""),
            "budgets": dict(release.budgets), "epochs": release.data["train"]["epochs"],
            "bootstrap": dict(release.data["bootstrap"]), "curator": identity(curator),
            "priced": prices is not None, "kbgym_version": kbgym.__version__, "seeds": seeds_,
            **out}


def check_out(out: Path, resume: bool) -> dict | None:
    """The package already in ``out`` when resuming (None for a fresh run); one-line
    refusals for a taken folder without ``resume`` and ``resume`` of no package."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out}: exists and is not a folder")
    taken = out.is_dir() and any(out.iterdir())
    if not resume:
        if taken:
            raise ConfigError(f"--out {out} is not empty; pass --resume to continue the bench "
                              "run there, or choose an empty folder")
        return None
    if not taken:
        return None
    return P.read_package(out)


def make_library(curator: Mapping, release: Release, seed: str, size: str, root: Path,
                 options: Mapping[str, Any]):
    """The curator's final library of ``seed`` (trained, built or B1), written into the
    package, and the training run's train_log (None when no agent trained)."""
    from kbgym.library.graph import Library
    from kbgym.library.snapshot import load_snapshot, write_snapshot
    from kbgym.runs.logs import read_jsonl

    u = release.universe(seed)
    sdir = P.seed_dir(root, seed)
    epochs = release.data["train"]["epochs"]
    if curator["kind"] != "agent":
        path = sdir / "library.json"
        if not path.exists():
            if curator["kind"] == "b1":
                lib = Library.from_universe(u)
            else:
                from kbgym.baselines import build_baseline

                lib, _ = build_baseline(curator["name"], u, {})
            write_snapshot(path, lib, curator["name"], {"path": None, "hash": u.hash})
        return load_snapshot(path)[0], None
    from kbgym.plugins import make_agent
    from kbgym.runs.train import TrainConfig, train

    name = seed_curator(curator, release, seed)
    agent = make_agent(name, **dict(options))
    tdir = sdir / "train"
    train(u, agent, tdir, env_config=exam_config(release.budgets, release.budgets["m"]),
          config=TrainConfig.make(epochs=epochs, train_size=release.sized(seed, size)["train_size"],
                                  snapshot_every=NO_ITER_SNAPSHOTS),
          resume=(tdir / "meta.json").exists(),
          agent_spec={"name": name, "options": identity(curator)["options"]})
    return load_snapshot(tdir / f"kb_epoch_{epochs}.json")[0], read_jsonl(tdir / "train_log.jsonl")


def run_exam(release: Release, seed: str, size: str, lib, arm: str, m: int, root: Path
             ) -> list[dict]:
    """Exam ``arm`` of ``seed`` at budget ``m`` (kept when already finished); its rows."""
    from kbgym.plugins import make_agent
    from kbgym.runs.gradient import examine_probe
    from kbgym.runs.logs import read_jsonl

    d = P.exam_dir(root, seed, arm, m)
    if not (d / "test_meta.json").exists():
        shutil.rmtree(d, ignore_errors=True)
        reader = release.reader(seed)
        examine_probe(release.universe(seed), lib, make_agent(reader),
                      release.probe(seed, size), exam_config(release.budgets, m), label=arm,
                      out=d, reader_name=reader, library_name=arm)
    return read_jsonl(d / "test_log.jsonl")


def check_reader(release: Release, seed: str, size: str, m: int, b1_rows: list[dict]) -> None:
    """B1's exam must be the release's: else this KBGym's reader is not the pinned one."""
    got = content_hash([S.exam_row(r) for r in b1_rows])
    want = release.sized(seed, size)["b1_exams"][str(m)]
    if got != want:
        raise ConfigError(f"seed {seed}: the reader {release.reader(seed)} examines B1 at m = "
                          f"{m} differently from release {release.id} (exam hash {got}, the "
                          f"release pins {want}) - this KBGym's exam (its reader or ideal "
                          "navigator) is not the release's; a new release id is needed")


def compute_scores(release: Release, pkg: Mapping, libraries: Mapping, train_logs: Mapping,
                   exams: Mapping, prices: Mapping | None) -> dict:
    """scores.json from the package's exams, libraries and train logs (run and verify)."""
    size, budgets, boot = pkg["size"], release.exam_budgets, release.data["bootstrap"]
    names = package_seeds(release, pkg)
    seeds = {}
    for name in names:
        u = release.universe(name)
        seeds[name] = S.seed_scores(exams[name], release.probe(name, size), budgets, boot,
                                    S.library_metrics(libraries[name], u), train_logs[name])
    scores = {"seeds": seeds,
              "pooled": S.pooled_scores(exams, {n: release.probe(n, size)
                                                for n in names}, budgets, boot)}
    head = S.headline(scores, release.budgets)
    model = (pkg["curator"].get("options") or {}).get("model")
    head["usd"] = S.usd(head["curation_tokens"], model, prices)
    scores["headline"] = head
    return scores


def run_bench(release: Release, curator: Mapping, out: str | Path, *, size: str = "full",
              options: Mapping[str, Any] | None = None, prices: Mapping | None = None,
              resume: bool = False, progress: Callable[[str], None] | None = None,
              seeds=None) -> dict:
    """Run ``curator`` through ``release`` into the package folder ``out``; returns
    scores.json's headline and the package hash. ``seeds`` (names) makes a reduced run of
    only those seeds, marked in the package (:func:`new_package`)."""
    from kbgym.runs.lock import run_lock

    from kbgym.bench.release import check_examiner

    release.check_size(size)
    subset = seed_subset(release, seeds)
    check_examiner(release, subset)  # before anything is written
    root = Path(out)
    old = check_out(root, resume)
    pkg = new_package(release, size, curator, prices, subset)
    if old is not None:
        if old != pkg:
            raise ConfigError(f"cannot resume {root}: it holds a bench package of another "
                              "release, size, curator, seed subset or price table; choose "
                              "another --out")
        if (root / P.MANIFEST).exists():
            return {"headline": P.read_json(root / "scores.json", str(root))["headline"],
                    "package_hash": P.package_hash(root), "resumed": "complete"}
    root.mkdir(parents=True, exist_ok=True)
    with run_lock(root):
        write_canonical(root / "package.json", pkg)
        if prices is not None:
            write_canonical(root / "prices.json", dict(prices))
        libraries, train_logs, exams = {}, {}, {}
        say = progress or (lambda text: None)
        for name in package_seeds(release, pkg):
            say(f"{name}: curating")
            t0 = time.perf_counter()
            lib, log = make_library(curator, release, name, size, root, options or {})
            t1 = time.perf_counter()
            libraries[name], train_logs[name] = lib, log
            exams[name] = {arm: {} for arm in S.ARMS}
            b1 = None
            for m in release.exam_budgets:
                say(f"{name}: exams at m = {m}")
                if b1 is None:
                    from kbgym.library.graph import Library

                    b1 = Library.from_universe(release.universe(name))
                exams[name]["B1"][m] = run_exam(release, name, size, b1, "B1", m, root)
                check_reader(release, name, size, m, exams[name]["B1"][m])
                exams[name]["curator"][m] = run_exam(release, name, size, lib, "curator", m,
                                                     root)
            t2 = time.perf_counter()
            tfile = P.seed_dir(root, name) / "timing.json"
            before = P.read_json(tfile, name) if tfile.exists() else {}
            write_canonical(tfile, {"curate_s": round(before.get("curate_s", 0) + t1 - t0, 3),
                                    "exams_s": round(before.get("exams_s", 0) + t2 - t1, 3),
                                    "sessions": before.get("sessions", 0) + 1})
        scores = compute_scores(release, pkg, libraries, train_logs, exams, prices)
        write_canonical(root / "scores.json", scores)
        digest = P.write_manifest(root)
    return {"headline": scores["headline"], "package_hash": digest}
