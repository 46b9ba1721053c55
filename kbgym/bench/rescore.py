"""``kbgym bench rescore``: a package of an older release, rescored into a newer one whose
examiner changed (docs/bench.md, "Versioning").

The new release must hold the same universes, train slices, probes, budgets, epochs and
bootstrap as the package records (refused otherwise, naming what differs). The curation is
not redone and no model or curator code is called: every training trace is replayed through
the environment and each rebuilt snapshot must be byte-identical to the package's (a
baseline is rebuilt; B1 is the universe's notes), exactly as ``bench verify`` does. Then
every exam is re-run with this KBGym's examiner and every score recomputed, into a new
package of the new release that keeps the curator, model, training runs (their traces and
token counts) and curation wall time, and records ``rescored_from``: the old package's hash,
release and KBGym version. ``bench verify`` verifies it like any package of the release.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import kbgym
from kbgym.bench import package as P
from kbgym.bench import scores as S
from kbgym.bench.release import Release, check_examiner
from kbgym.bench.run import (check_reader, compute_scores, curator_spec, new_package,
                             package_seeds, run_exam, seed_subset)
from kbgym.bench.verify import (VerifyError, check_built, check_manifest, check_training,
                                first_key_difference)
from kbgym.errors import ConfigError
from kbgym.jsonio import write_canonical

#: package.json keys a rescore rewrites (everything else must be what the new release pins).
REWRITTEN = ("release", "kbgym_version", "rescored_from", "size_note")


def check_compatible(pkg: dict, release: Release) -> dict:
    """The new package.json for ``pkg`` under ``release``; a one-line refusal naming what
    differs when the release does not hold the package's universes, slices, probes or
    budgets."""
    old = (pkg.get("release") or {}).get("id")
    head = f"cannot rescore a package of {old} into {release.id}"
    if old == release.id:
        raise ConfigError(f"{head}: it is already of that release (verify it instead)")
    size = pkg.get("size")
    if size not in release.data["sizes"]:
        raise ConfigError(f"{head}: the release has no size {size!r}")
    cur = pkg.get("curator") or {}
    if not isinstance(cur, dict) or "name" not in cur:
        raise ConfigError(f"{head}: package.json names no curator")
    spec = curator_spec(cur["name"] if cur.get("kind") != "b1" else "B1",
                        cur.get("options") if cur.get("kind") == "agent" else None)
    subset = pkg.get("seed_subset")
    if subset is not None:
        try:
            ok = seed_subset(release, subset) == subset
        except ConfigError:
            ok = False
        if not ok:
            raise ConfigError(f"{head}: its seeds {str(subset)[:120]} are not a subset of the "
                              f"release's ({', '.join(release.seed_names)})")
    have = pkg.get("seeds") or {}
    names = subset if subset is not None else release.seed_names
    if sorted(have) != sorted(names):
        raise ConfigError(f"{head}: the package has seeds {', '.join(sorted(have))}, the "
                          f"release {', '.join(release.seed_names)}")
    want = new_package(release, size, spec, {} if pkg.get("priced") else None, subset)
    for key in ("budgets", "epochs", "bootstrap"):
        if pkg.get(key) != want[key]:
            raise ConfigError(f"{head}: {key} differ (package {pkg.get(key)}, release "
                              f"{want[key]})")
    for name, w in want["seeds"].items():
        for key, what in (("universe_hash", "universe"), ("train_size", "train slice"),
                          ("probe_hash", "probe"), ("reader", "reader"),
                          ("library", "library path"), ("train", "training run path"),
                          ("curator", "curator")):
            if have[name].get(key) != w[key]:
                raise ConfigError(f"{head}: seed {name}'s {what} differs (package "
                                  f"{have[name].get(key)!r}, release {w[key]!r})")
    strip = lambda d: {k: v for k, v in d.items() if k not in REWRITTEN}  # noqa: E731
    d = first_key_difference(strip(pkg), strip(want))
    if d:
        raise ConfigError(f"{head}: package.json differs from what the release's bench run "
                          f"writes: {d}")
    return want


def rescore_package(src: str | Path, release: Release, out: str | Path,
                    progress: Callable[[str], None] | None = None) -> dict:
    """Rescore the package ``src`` into ``release`` as the new package ``out``; returns
    {package_hash, rescored_from, headline, seconds}."""
    t0 = time.perf_counter()
    src, root = Path(src), Path(out)
    say = progress or (lambda text: None)
    pkg = P.read_package(src)
    new = check_compatible(pkg, release)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise ConfigError(f"--out {root}: not empty; a rescored package is written into an "
                          "empty folder")
    check_examiner(release, pkg.get("seed_subset"))
    try:
        digest = check_manifest(src)
    except VerifyError as err:
        raise VerifyError(f"{src}: {err}") from None
    new["rescored_from"] = {"package_hash": digest, "release": dict(pkg["release"]),
                            "kbgym_version": pkg.get("kbgym_version")}
    libraries, logs = {}, {}
    for name in package_seeds(release, pkg):
        say(f"{name}: replaying the curation")
        if pkg["curator"]["kind"] == "agent":
            libraries[name], logs[name] = check_training(release, pkg, name, src)
        else:
            libraries[name], logs[name] = check_built(release, pkg, name, src), None
    root.mkdir(parents=True, exist_ok=True)
    write_canonical(root / "package.json", new)
    if pkg.get("priced"):
        shutil.copyfile(src / "prices.json", root / "prices.json")
    prices = P.read_json(root / "prices.json", str(root)) if pkg.get("priced") else None
    exams: dict = {}
    for name in package_seeds(release, pkg):
        sdir, odir = P.seed_dir(root, name), P.seed_dir(src, name)
        sdir.mkdir(parents=True)
        if pkg["seeds"][name]["train"]:
            shutil.copytree(src / pkg["seeds"][name]["train"], root / new["seeds"][name]["train"])
        else:
            shutil.copyfile(src / pkg["seeds"][name]["library"],
                            root / new["seeds"][name]["library"])
        from kbgym.library.graph import Library

        b1 = Library.from_universe(release.universe(name))
        exams[name] = {arm: {} for arm in S.ARMS}
        t1 = time.perf_counter()
        for m in release.exam_budgets:
            say(f"{name}: exams at m = {m}")
            exams[name]["B1"][m] = run_exam(release, name, new["size"], b1, "B1", m, root)
            check_reader(release, name, new["size"], m, exams[name]["B1"][m])
            exams[name]["curator"][m] = run_exam(release, name, new["size"], libraries[name],
                                                 "curator", m, root)
        before = P.read_json(odir / "timing.json", name) if (odir / "timing.json").exists() \
            else {}
        write_canonical(sdir / "timing.json", {
            "curate_s": before.get("curate_s", 0), "sessions": before.get("sessions", 0),
            "exams_s": round(time.perf_counter() - t1, 3), "rescored": True})
    say("recomputing the scores")
    scores = compute_scores(release, new, libraries, logs, exams, prices)
    write_canonical(root / "scores.json", scores)
    digest_new = P.write_manifest(root)
    return {"package_hash": digest_new, "rescored_from": new["rescored_from"],
            "headline": scores["headline"], "kbgym_version": kbgym.__version__,
            "seconds": round(time.perf_counter() - t0, 3)}
