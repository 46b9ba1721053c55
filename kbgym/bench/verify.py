"""``kbgym bench verify``: check a result package without calling any model.

In order, each refusal one line naming what differs:

0. **Examiner**: this KBGym's examiner reproduces the release's fingerprints on its
   reference libraries (:func:`kbgym.bench.release.check_examiner`); a release made before
   examiner pinning is refused in one line.
1. **Release**: the package names a release this KBGym has (shipped, or given) with the
   same hash; its package.json must be exactly what ``bench run`` writes for that release,
   size and curator (budgets, readers, probe hashes, universe hashes, train sizes); a reduced
   run's ``seed_subset`` must be a proper subset of the release's seeds, and only those are
   checked.
2. **Manifest**: every file is listed with its sha256, none missing, none added.
3. **Libraries**: an agent's training run is replayed from its trace through the
   environment's replay (the run folder's own manifest in meta.json, the trace's chain and
   its anchors in train_log checked first, its budgets and slice against the release), and every snapshot it holds must be
   byte-identical to the replayed library; the train_log's tokens must be the trace's. A
   baseline is rebuilt; B1 is the universe's notes.
4. **Exams**: every exam is re-run with the pinned reader on the release's probe at its
   budget; test_log, trace and test_meta must be byte-identical, and B1's must match the
   release's reader fingerprint.
5. **Scores**: scores.json is recomputed from the re-run exams and the replayed libraries and
   must be equal.

Wall-clock files (timing.json, timing.jsonl) are covered by the manifest only.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import kbgym
from kbgym.bench import package as P
from kbgym.bench import scores as S
from kbgym.bench.release import Release, exam_config, load_release
from kbgym.bench.run import (compute_scores, curator_spec, new_package, package_seeds,
                             seed_subset)
from kbgym.errors import ConfigError
from kbgym.jsonio import canonical, content_hash


class VerifyError(ConfigError):
    """A package refused: the message names what differs."""


def first_key_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The first key path where two JSON values differ, with both values (shortened)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                return f"{path}/{k}: only in the {'package' if k in a else 'recomputation'}"
            d = first_key_difference(a[k], b[k], f"{path}/{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items in the package, {len(b)} recomputed"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_key_difference(x, y, f"{path}/{i}")
            if d:
                return d
        return None
    if a != b or type(a) is not type(b):
        return f"{path or '/'}: package {str(a)[:60]!r}, recomputed {str(b)[:60]!r}"
    return None


def check_release(pkg: Mapping, release: Release, priced: bool) -> None:
    rel = pkg.get("release") or {}
    if rel.get("id") != release.id:
        raise VerifyError(f"release: the package is of {rel.get('id')!r}, not {release.id}")
    if rel.get("hash") != release.hash:
        raise VerifyError(f"release hash differs: the package records {rel.get('hash')}, "
                          f"release {release.id} is {release.hash}")
    if pkg.get("size") not in release.data["sizes"]:
        raise VerifyError(f"size: release {release.id} has no size {pkg.get('size')!r}")
    cur = pkg.get("curator") or {}
    if not isinstance(cur, dict) or "name" not in cur:
        raise VerifyError("package.json: no curator")
    spec = curator_spec(cur["name"] if cur.get("kind") != "b1" else "B1",
                        cur.get("options") if cur.get("kind") == "agent" else None)
    subset = pkg.get("seed_subset")
    if subset is not None:  # a reduced run: a proper subset of the release's seeds, in order
        try:
            ok = seed_subset(release, subset) == subset
        except ConfigError:
            ok = False
        if not ok:
            raise VerifyError(f"seed_subset: {str(subset)[:120]} is not a proper subset of "
                              f"release {release.id}'s seeds in its order "
                              f"({', '.join(release.seed_names)})")
    want = new_package(release, pkg["size"], spec, {} if priced else None, subset)
    for key, what in (("budgets", "budgets"), ("epochs", "epochs"), ("bootstrap", "bootstrap")):
        if pkg.get(key) != want[key]:
            raise VerifyError(f"{what} differ: the package has {pkg.get(key)}, release "
                              f"{release.id} pins {want[key]}")
    got_seeds = pkg.get("seeds") or {}
    if sorted(got_seeds) != sorted(want["seeds"]):
        raise VerifyError(f"seeds differ: the package has {', '.join(sorted(got_seeds))}, the "
                          f"release {', '.join(sorted(want['seeds']))}")
    for name, w in want["seeds"].items():
        g = got_seeds[name]
        for key, what in (("reader", "reader"), ("probe_hash", "probe"),
                          ("universe_hash", "universe"), ("train_size", "train slice"),
                          ("library", "library path"), ("train", "training run path"),
                          ("curator", "curator")):
            if g.get(key) != w[key]:
                raise VerifyError(f"seed {name}: {what} differs: the package has "
                                  f"{g.get(key)!r}, release {release.id} pins {w[key]!r}")
    if "rescored_from" in pkg:  # a package rescored from an older release (bench rescore)
        frm = pkg["rescored_from"]
        if not (isinstance(frm, dict) and isinstance(frm.get("package_hash"), str)
                and (frm.get("release") or {}).get("id") not in (None, release.id)):
            raise VerifyError("package.json: rescored_from must name the package hash and the "
                              "older release it was rescored from")
        want = {**want, "rescored_from": frm}
    d = first_key_difference(pkg, want)
    if d:
        raise VerifyError(f"package.json differs from what bench run writes: {d}")


def check_manifest(root: Path) -> str:
    manifest = P.read_json(root / P.MANIFEST, str(root))
    listed = manifest.get("files") or {}
    have = P.file_map(root)
    for name in sorted(set(listed) | set(have)):
        if name not in have:
            raise VerifyError(f"{name}: listed in the manifest but missing")
        if name not in listed:
            raise VerifyError(f"{name}: not in the manifest (a file was added)")
        if listed[name] != have[name]:
            raise VerifyError(f"{name}: differs from the sha256 the manifest records")
    digest = P.package_digest(listed)
    if manifest.get("package_hash") != digest:
        raise VerifyError(f"{P.MANIFEST}: records package hash {manifest.get('package_hash')}, "
                          f"its file list hashes to {digest}")
    return digest


def snapshot_bytes(library, label: str, universe_hash: str) -> bytes:
    from kbgym.library.snapshot import snapshot_object

    return canonical(snapshot_object(library, label, {"path": None, "hash": universe_hash})
                     ).encode("utf-8")


def compare_snapshot(path: Path, rebuilt, label: str, universe_hash: str, what: str) -> None:
    if not path.is_file():
        raise VerifyError(f"{what}: {path.name} is missing")
    if path.read_bytes() == snapshot_bytes(rebuilt, label, universe_hash):
        return
    from kbgym.library.snapshot import load_snapshot
    from kbgym.runs.replay import first_difference

    try:
        stored, _ = load_snapshot(path)
    except Exception as err:  # a snapshot edited without its content hash
        raise VerifyError(f"{what}: {path.name} is not the rebuilt library "
                          f"({type(err).__name__}: {str(err)[:100]})") from None
    diff = first_difference(rebuilt, stored) or "labels or headers differ"
    shown = diff if len(diff) <= 200 else diff[:197] + "..."
    raise VerifyError(f"{what}: {path.name} is not byte-identical to the rebuilt library "
                      f"({shown})")


def check_training(release: Release, pkg: Mapping, name: str, root: Path):
    """Replay seed ``name``'s training run; every snapshot byte-checked. Returns the final
    library and the train_log rows."""
    from kbgym.files import read_run_meta
    from kbgym.library.graph import Library
    from kbgym.runs.logs import read_jsonl, verify_trace
    from kbgym.runs.manifest import verify_run
    from kbgym.runs.replay import replay_rows

    u = release.universe(name)
    tdir = root / pkg["seeds"][name]["train"]
    what = f"seed {name} training run"
    try:
        meta = read_run_meta(tdir)
        verify_run(tdir, meta)  # the run folder's own manifest (kbgym.runs.manifest)
        rows = verify_trace(tdir)
        log = read_jsonl(tdir / "train_log.jsonl")
        stats = read_jsonl(tdir / "kb_stats.jsonl")
    except ConfigError as err:
        raise VerifyError(f"{what}: {err}") from None
    b = release.budgets
    want = {"n1": b["n1"], "n2": b["n2"], "m": b["m"], "epochs": release.data["train"]["epochs"],
            "train_size": pkg["seeds"][name]["train_size"]}
    cfg = exam_config(b, b["m"])  # the environment bench run trains in
    want.update(k=cfg.memory_k, typed_links=cfg.typed_links, toolset=cfg.toolset,
                search={"backend": cfg.search_backend, "refresh": cfg.refresh,
                        "page_size": cfg.page_size, "max_page": cfg.max_page})
    if (meta.get("dedup") or {}).get("enabled"):
        raise VerifyError(f"{what}: meta.json records dedup with a judge; bench runs train "
                          "without one")
    for key, value in want.items():
        if meta.get(key) != value:
            raise VerifyError(f"{what}: meta.json {key} is {meta.get(key)!r}, the release pins "
                              f"{value!r}")
    if (meta.get("universe") or {}).get("hash") != u.hash:
        raise VerifyError(f"{what}: trained on universe {(meta.get('universe') or {}).get('hash')}"
                          f", the release's is {u.hash}")
    n = want["epochs"] * want["train_size"]
    if len(log) != n or [r.get("iteration") for r in log] != list(range(1, n + 1)):
        raise VerifyError(f"{what}: train_log.jsonl has {len(log)} iterations, the release's "
                          f"slice and epochs make {n}")
    by_it: dict[Any, list[int]] = {}
    for r in rows:
        if r.get("kind") == "train":
            t = by_it.setdefault(r.get("iteration"), [0, 0, 0])
            for i, k in enumerate(("tokens_in", "tokens_out", "tokens_cached")):
                t[i] += int(r.get(k) or 0)
    for r in log:
        got = [int(r.get(k) or 0) for k in ("tokens_in", "tokens_out", "tokens_cached")]
        if got != by_it.get(r["iteration"], [0, 0, 0]):
            raise VerifyError(f"{what}: train_log iteration {r['iteration']} records tokens "
                              f"{got}, its trace steps sum to {by_it.get(r['iteration'], [0, 0, 0])}")
    epoch_end = {s["epoch"]: s["train_iterations"] for s in stats}
    if sorted(epoch_end) != list(range(want["epochs"] + 1)):
        raise VerifyError(f"{what}: kb_stats.jsonl records epochs {sorted(epoch_end)}")
    lib = Library.from_universe(u, typed_links=bool(meta.get("typed_links")))
    train_rows = [r for r in rows if r.get("kind") == "train"]
    done = 0
    try:
        for epoch in range(want["epochs"] + 1):
            upto = epoch_end[epoch]
            replay_rows(lib, [r for r in train_rows if done < r["iteration"] <= upto])
            done = upto
            compare_snapshot(tdir / f"kb_epoch_{epoch}.json", lib, f"epoch {epoch}", u.hash, what)
    except VerifyError:
        raise
    except Exception as err:  # a trace row replay refuses (ReplayMismatchError, ConfigError)
        raise VerifyError(f"{what}: replay of trace.jsonl failed: {str(err)[:200]}") from None
    extra = sorted(p.name for p in tdir.glob("kb_*.json")
                   if p.name not in {f"kb_epoch_{e}.json" for e in epoch_end})
    if extra:
        raise VerifyError(f"{what}: {extra[0]} is not a snapshot bench run writes")
    return lib, log


def check_built(release: Release, pkg: Mapping, name: str, root: Path):
    from kbgym.library.graph import Library

    u = release.universe(name)
    cur = pkg["curator"]
    if cur["kind"] == "b1":
        lib = Library.from_universe(u)
    else:
        from kbgym.baselines import build_baseline

        lib, _ = build_baseline(cur["name"], u, {})
    compare_snapshot(root / pkg["seeds"][name]["library"], lib, cur["name"], u.hash,
                     f"seed {name} library")
    return lib


def check_exam(release: Release, pkg: Mapping, name: str, arm: str, m: int, lib, root: Path,
               tmp: Path) -> list[dict]:
    """Re-run one exam and compare it with the package's; returns the rows."""
    from kbgym.plugins import make_agent
    from kbgym.runs.gradient import examine_probe
    from kbgym.runs.logs import read_jsonl

    d = P.exam_dir(root, name, arm, m)
    what = f"seed {name} exam {arm} at m = {m}"
    meta = P.read_json(d / "test_meta.json", what)
    size = pkg["size"]
    for key, want, label in (("questions_hash", release.sized(name, size)["probe_hash"], "probe"),
                             ("reader", release.reader(name), "reader"), ("m", m, "budget m"),
                             ("universe_hash", release.universe(name).hash, "universe")):
        if meta.get(key) != want:
            raise VerifyError(f"{what}: {label} differs: test_meta.json has {meta.get(key)!r}, "
                              f"the release pins {want!r}")
    out = tmp / f"{name}-{arm}-{m}"
    examine_probe(release.universe(name), lib, make_agent(release.reader(name)),
                  release.probe(name, size), exam_config(release.budgets, m), label=arm,
                  out=out, reader_name=release.reader(name), library_name=arm)
    rows = read_jsonl(out / "test_log.jsonl")
    if arm == "B1":
        got = content_hash([S.exam_row(r) for r in rows])
        if got != release.sized(name, size)["b1_exams"][str(m)]:
            raise VerifyError(f"{what}: this KBGym's exam (reader {release.reader(name)} and "
                              f"ideal navigator) is not the release's (its B1 exam hashes to "
                              f"{got})")
    for fname in ("test_log.jsonl", "trace.jsonl", "test_meta.json"):
        if not (d / fname).is_file() or not (out / fname).is_file():
            if (d / fname).is_file() != (out / fname).is_file():  # no questions: no log
                raise VerifyError(f"{what}: {fname} is "
                                  f"{'missing' if (out / fname).is_file() else 'extra'}")
            continue
        if (d / fname).read_bytes() != (out / fname).read_bytes():
            detail = ""
            if fname == "test_log.jsonl":
                try:
                    theirs = read_jsonl(d / fname)
                    diff = first_key_difference(theirs, rows)
                    detail = f" ({diff})" if diff else ""
                except ConfigError as err:
                    detail = f" ({str(err)[:120]})"
            raise VerifyError(f"{what}: {fname} differs from the re-run exam{detail}")
    return rows


def verify_package(root: str | Path, release: Release | str | Path | None = None,
                   progress=None) -> dict:
    """Verify the package at ``root`` (see the module docstring); returns {package_hash,
    release, seconds, headline} or raises :class:`VerifyError`."""
    t0 = time.perf_counter()
    root = Path(root)
    say = progress or (lambda text: None)
    pkg = P.read_package(root)
    if not isinstance(release, Release):
        rid = release if release is not None else (pkg.get("release") or {}).get("id")
        try:
            release = load_release(rid)
        except ConfigError as err:
            raise VerifyError(f"release: {err}") from None
    priced = bool(pkg.get("priced"))
    from kbgym.bench.release import check_examiner

    check_examiner(release, pkg.get("seed_subset"))  # else every exam would differ
    check_release(pkg, release, priced)
    digest = check_manifest(root)
    prices = P.read_json(root / "prices.json", str(root)) if priced else None
    libraries, logs, exams = {}, {}, {}
    with tempfile.TemporaryDirectory() as tmpname:
        tmp = Path(tmpname)
        for name in package_seeds(release, pkg):
            say(f"{name}: rebuilding the library")
            if pkg["curator"]["kind"] == "agent":
                libraries[name], logs[name] = check_training(release, pkg, name, root)
            else:
                libraries[name], logs[name] = check_built(release, pkg, name, root), None
            from kbgym.library.graph import Library

            b1 = Library.from_universe(release.universe(name))
            exams[name] = {arm: {} for arm in S.ARMS}
            for m in release.exam_budgets:
                say(f"{name}: re-running the exams at m = {m}")
                exams[name]["B1"][m] = check_exam(release, pkg, name, "B1", m, b1, root, tmp)
                exams[name]["curator"][m] = check_exam(release, pkg, name, "curator", m,
                                                       libraries[name], root, tmp)
    say("recomputing the scores")
    scores = compute_scores(release, pkg, libraries, logs, exams, prices)
    stored = P.read_json(root / "scores.json", str(root))
    diff = first_key_difference(stored, scores)
    if diff:
        hint = ""
        if "/library/" in diff or "false_" in diff:
            hint = (f" (a library metric: tampered, or this KBGym {kbgym.__version__} computes "
                    f"it differently from the {pkg.get('kbgym_version')} that made the package)")
        raise VerifyError(f"scores.json differs from the recomputed scores: {diff}{hint}")
    return {"package_hash": digest, "release": release.id, "size": pkg["size"],
            "seeds": pkg.get("seed_subset"), "curator": pkg["curator"],
            "headline": scores["headline"],
            "seconds": round(time.perf_counter() - t0, 3)}
