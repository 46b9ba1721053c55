"""A run folder verifies every file it keeps (docs/safety.md).

A training run's ``meta.json`` carries a manifest, ``files``: for each snapshot
(``kb_epoch_*``, ``kb_iter_*``, ``kb_start``), each log (trace, train_log, series, kb_stats,
test_log) the bytes and the sha256 it had when the manifest was written. meta.json is written
atomically and last, after every file it names, so a manifest never names a file not yet
whole. :func:`verify_run` checks a folder against it:

- a finished run (its meta.json has a ``verdict``) must hold exactly what the manifest names,
  byte for byte; any other snapshot is refused too (nothing may be slipped in);
- a run still training (no verdict) may have grown since: each log must *start with* the
  bytes recorded (its rows so far are the ones hashed), and snapshots written since are not
  yet named (readers then read what the chained logs prove).

Every refusal is one :class:`~kbgym.errors.ConfigError` line naming the file. The function
API is for every reader (report, view, replay, probe make, resume) and the benchmark's verify
step: ``manifest = verify_run(run_dir)``.
"""

from __future__ import annotations

import fnmatch
import hashlib
from pathlib import Path

from kbgym.errors import ConfigError
from kbgym.runs.lock import refuse_link

#: The files a run's manifest names when they exist.
SNAPSHOTS = ("kb_epoch_*.json", "kb_iter_*.json", "kb_start.json")
#: (timing.jsonl holds wall-clock seconds: it differs run to run, so it is not named, and
#: meta.json stays the same bytes for the same seed)
LOGS = ("trace.jsonl", "train_log.jsonl", "series.jsonl", "kb_stats.jsonl", "test_log.jsonl")
KEY = "files"
#: meta.json's hash of its own other fields (a byte flipped in meta.json is found too)
SELF = "meta_sha256"


def seal(meta: dict) -> dict:
    """``meta`` with :data:`SELF`, the sha256 of its canonical JSON without that field."""
    from kbgym.jsonio import canonical, sha256_hex

    body = {k: v for k, v in meta.items() if k != SELF}
    return {**body, SELF: "sha256:" + sha256_hex(canonical(body))}


def check_seal(meta: dict, path: Path) -> None:
    from kbgym.jsonio import canonical, sha256_hex

    if not isinstance(meta, dict) or SELF not in meta:
        return
    body = {k: v for k, v in meta.items() if k != SELF}
    if meta[SELF] != "sha256:" + sha256_hex(canonical(body)):
        raise ConfigError(f"{path}: its fields do not match the meta_sha256 it records - "
                          "meta.json was edited")


def _sha256(path: Path, limit: int | None = None) -> str:
    h = hashlib.sha256()
    left = limit
    with open(path, "rb") as fh:
        while left is None or left > 0:
            chunk = fh.read(1 << 20 if left is None else min(1 << 20, left))
            if not chunk:
                break
            h.update(chunk)
            if left is not None:
                left -= len(chunk)
    return "sha256:" + h.hexdigest()


def _kept(root: Path) -> list[Path]:
    out = []
    for p in sorted(root.iterdir()):
        if any(fnmatch.fnmatchcase(p.name, pat) for pat in (*SNAPSHOTS, *LOGS)):
            out.append(p)
    return out


def file_manifest(root: str | Path) -> dict[str, dict]:
    """{name: {"bytes", "sha256"}} of every snapshot and log in ``root`` now (the writer
    calls it just before writing meta.json)."""
    root = Path(root)
    out = {}
    for p in _kept(root):
        refuse_link(p)
        if p.is_file():
            out[p.name] = {"bytes": p.stat().st_size, "sha256": _sha256(p)}
    return out


def is_finished(meta: dict) -> bool:
    return isinstance(meta, dict) and "verdict" in meta


def verify_run(run_dir: str | Path, meta: dict | None = None, *, snapshots: bool = True
               ) -> dict[str, dict]:
    """Check ``run_dir`` against its meta.json's manifest; returns the manifest ({} for a run
    written before manifests, which the chained logs alone vouch for). ``snapshots=False``
    checks the logs only (``--resume`` rebuilds the snapshots, series and kb_stats from the
    trace instead of trusting them)."""
    d = Path(run_dir)
    if meta is None:
        from kbgym.files import read_run_meta

        meta = read_run_meta(d)
    check_seal(meta, d / "meta.json")
    files = meta.get(KEY) if isinstance(meta, dict) else None
    if files is None:
        return {}
    if not isinstance(files, dict) or not all(
            isinstance(v, dict) and isinstance(v.get("bytes"), int)
            and isinstance(v.get("sha256"), str) for v in files.values()):
        raise ConfigError(f"{d / 'meta.json'}: its files manifest is not {{name: {{bytes, "
                          "sha256}}}} - meta.json was edited")
    finished = is_finished(meta)
    derived = ("series.jsonl", "kb_stats.jsonl")
    for name, rec in sorted(files.items()):
        is_log = name in LOGS
        if not snapshots and (not is_log or name in derived):
            continue
        p = d / name
        if "/" in name or "\\" in name or name.startswith("."):
            raise ConfigError(f"{d / 'meta.json'}: names {name!r}, not a file of the run")
        refuse_link(p)
        if not p.is_file():
            raise ConfigError(f"{p}: missing or not a file, but meta.json records it "
                              f"({rec['bytes']} bytes) - the run folder was altered")
        size = p.stat().st_size
        grown_ok = is_log and not finished
        if is_log and size != rec["bytes"] and not grown_ok:
            from kbgym.runs.logs import read_lines

            read_lines(p)  # an edit that broke the chain is named by its row first
        if size < rec["bytes"] or (size != rec["bytes"] and not grown_ok):
            raise ConfigError(f"{p}: {size} bytes, meta.json records {rec['bytes']} - the file "
                              "was cut, emptied or replaced")
        if _sha256(p, rec["bytes"] if grown_ok else None) != rec["sha256"]:
            if is_log:
                from kbgym.runs.logs import read_lines

                read_lines(p)
            raise ConfigError(f"{p}: does not match the sha256 meta.json records - the file "
                              "was altered or replaced")
    if finished:
        check_signature(meta, d)  # with a key: a re-chained forgery is caught here
    if finished and snapshots:
        for p in _kept(d):
            if p.name not in files:
                refuse_link(p)
                raise ConfigError(f"{p}: not recorded in meta.json's manifest - it was added "
                                  "after the run finished")
    return files


# -- signing (optional): an HMAC over the manifest and the logs' chain heads ------------------
#: The environment variables a signing key is read from: the key itself, or a file holding it.
KEY_ENV, KEY_FILE_ENV = "KBGYM_SIGNING_KEY", "KBGYM_SIGNING_KEY_FILE"
SIGNATURE = "signature"


def signing_key() -> bytes | None:
    """The signing key: ``$KBGYM_SIGNING_KEY``, else the contents of the file named by
    ``$KBGYM_SIGNING_KEY_FILE`` (surrounding whitespace stripped), else None. An empty key or
    an unreadable file is a one-line ConfigError, never a silent unsigned run."""
    import os

    raw = os.environ.get(KEY_ENV)
    if raw is not None:
        key = raw.strip().encode("utf-8")
        source = f"${KEY_ENV}"
    else:
        path = os.environ.get(KEY_FILE_ENV)
        if path is None:
            return None
        refuse_link(path, "signing key file")
        try:
            key = Path(path).read_bytes().strip()
        except OSError as err:
            raise ConfigError(f"${KEY_FILE_ENV} {path}: cannot read it ({err.strerror})") from None
        source = f"${KEY_FILE_ENV} {path}"
    if len(key) < 16:
        raise ConfigError(f"{source}: a signing key needs at least 16 bytes")
    return key


def _signed_payload(meta: dict, root: Path) -> bytes:
    from kbgym.jsonio import canonical
    from kbgym.runs.logs import GENESIS, last_line, line_hash

    heads = {}
    for name in ("trace.jsonl", "train_log.jsonl", "test_log.jsonl"):
        p = root / name
        heads[name] = line_hash(last_line(p)) if p.is_file() else GENESIS
    return canonical({"run_id": meta.get("run_id"), "files": meta.get(KEY) or {},
                      "heads": heads}).encode("utf-8")


def sign(meta: dict, root: str | Path) -> dict:
    """``meta`` with an HMAC-SHA256 signature over its run id, its file manifest and the
    chain heads of its logs, when a signing key is set (else unchanged)."""
    import hashlib as _h
    import hmac

    key = signing_key()
    if key is None:
        return meta
    mac = hmac.new(key, _signed_payload(meta, Path(root)), _h.sha256).hexdigest()
    return {**meta, SIGNATURE: {"alg": "hmac-sha256", "key_id": _h.sha256(key).hexdigest()[:12],
                                "mac": mac}}


def check_signature(meta: dict, root: str | Path) -> bool | None:
    """With a signing key set: True when ``meta``'s signature verifies, else a one-line
    ConfigError (unsigned, another key, or altered and re-chained since it was signed).
    Without a key: None (nothing can be checked)."""
    import hashlib as _h
    import hmac

    key = signing_key()
    if key is None:
        return None
    root = Path(root)
    sig = meta.get(SIGNATURE) if isinstance(meta, dict) else None
    if not isinstance(sig, dict) or not isinstance(sig.get("mac"), str):
        raise ConfigError(f"{root / 'meta.json'}: not signed, and a signing key is set "
                          f"(${KEY_ENV}/${KEY_FILE_ENV}) - it cannot be verified")
    if sig.get("key_id") != _h.sha256(key).hexdigest()[:12]:
        raise ConfigError(f"{root / 'meta.json'}: signed with another key "
                          f"(key id {sig.get('key_id')})")
    want = hmac.new(key, _signed_payload(meta, root), _h.sha256).hexdigest()
    if not hmac.compare_digest(want, sig["mac"]):
        raise ConfigError(f"{root / 'meta.json'}: the signature does not match - the run's "
                          "files or logs were altered (and re-chained) after it was signed")
    return True
