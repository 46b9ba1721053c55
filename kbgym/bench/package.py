"""The result package of ``kbgym bench run`` (docs/bench.md): its layout, its manifest and its
hash.

::

    PACKAGE/
      package.json            release {id, hash}, size, budgets, curator, seeds (readers,
                              probe and universe hashes, where each library is)
      seeds/<seed>/train/     the training run (kbgym train's folder: meta.json, trace.jsonl,
                              train_log.jsonl, kb_epoch_*.json, ...) - agent curators only
      seeds/<seed>/library.json   the final library of a baseline (or B1)
      seeds/<seed>/exams/<arm>-m<M>/   each exam: test_log.jsonl, trace.jsonl, test_meta.json
      seeds/<seed>/timing.json     wall seconds (not verifiable; reported)
      prices.json             the price table, when one was given
      scores.json             per seed and pooled (kbgym.bench.scores)
      manifest.json           sha256 of every other file; written last (the package is done)

The **package hash** is the content hash of the manifest's file map without the wall-clock
files (so producing a deterministic curator's package again gives the same hash): what a
leaderboard entry records. The manifest still lists the wall-clock files, so an edit to them
is refused too.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from kbgym.errors import ConfigError
from kbgym.jsonio import content_hash, write_canonical

KIND = "kbgym.bench.package"
SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
#: Files no manifest lists: the writer lock and temp files of an interrupted write.
UNLISTED = (".kbgym.lock",)
#: Files whose content verify cannot recompute (wall-clock times): listed, not recomputed.
VOLATILE = ("timing.json", "timing.jsonl")


def seed_dir(root: Path, seed: str) -> Path:
    return Path(root) / "seeds" / seed


def exam_dir(root: Path, seed: str, arm: str, m: int) -> Path:
    return seed_dir(root, seed) / "exams" / f"{arm}-m{m}"


def _listed(p: Path) -> bool:
    return p.is_file() and p.name not in UNLISTED and not p.name.endswith(".tmp")


def file_map(root: str | Path) -> dict[str, str]:
    """sha256 of every file of the package but the manifest, by relative path."""
    root = Path(root)
    return {p.relative_to(root).as_posix(): "sha256:" + hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if _listed(p) and p != root / MANIFEST}


def package_digest(files: dict[str, str]) -> str:
    """The package hash: the content hash of the file map without the wall-clock files, so
    that a deterministic curator's package, produced again, has the same hash."""
    return content_hash({k: v for k, v in files.items()
                         if k.rsplit("/", 1)[-1] not in VOLATILE})


def write_manifest(root: str | Path) -> str:
    """Write manifest.json (last); returns the package hash."""
    files = file_map(root)
    digest = package_digest(files)
    write_canonical(Path(root) / MANIFEST, {"schema_version": SCHEMA_VERSION,
                                            "kind": "kbgym.bench.manifest", "files": files,
                                            "package_hash": digest})
    return digest


def read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{what}: {path.name} is missing") from None
    except (OSError, ValueError) as err:
        raise ConfigError(f"{what}: {path.name} is not readable JSON ({err})") from None


def read_package(root: str | Path) -> dict:
    """package.json of a bench package (one-line ConfigError when it is not one)."""
    root = Path(root)
    if not root.is_dir():
        raise ConfigError(f"{root}: not a folder (a bench package is one)")
    data = read_json(root / "package.json", str(root))
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise ConfigError(f"{root}/package.json: not a {KIND} file")
    return data


def package_hash(root: str | Path) -> str:
    """The hash the package's manifest records (ConfigError when it has none: unfinished)."""
    manifest = read_json(Path(root) / MANIFEST, str(root))
    return manifest["package_hash"]
