"""With a signing key (``$KBGYM_SIGNING_KEY`` or a file named by ``$KBGYM_SIGNING_KEY_FILE``) a
finished run's meta.json carries an HMAC over its manifest and its logs' chain heads: a forger
who edits a row, re-chains every log and rewrites the manifest passes every unkeyed check and
is caught by a verifier with the key."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from kbgym.cli import main
from kbgym.errors import ConfigError
from kbgym.runs.logs import GENESIS, chained, line_hash, read_jsonl, verify_trace
from kbgym.runs.manifest import file_manifest, seal, verify_run
from kbgym.runs.train import TrainConfig, train
from kbgym.worlds.people import UniverseConfig, generate

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import toy_agents  # noqa: E402

U = generate(UniverseConfig(n_people=60, n_cities=8, sizes=(40, 30, 20), eval_sizes=(10, 6)))
CFG = TrainConfig(epochs=1, train_size=4, snapshot_every=2)
KEY = "correct horse battery staple 38"


@pytest.fixture(scope="module")
def signed(tmp_path_factory):
    out = tmp_path_factory.mktemp("sig") / "run"
    mp = pytest.MonkeyPatch()
    mp.setenv("KBGYM_SIGNING_KEY", KEY)
    try:
        train(U, toy_agents.ToyTrainer(), out, config=CFG)
    finally:
        mp.undo()
    return out


def forge(run: Path, d: Path) -> None:
    """Set every train_log f1 to 0.5, re-chain train_log, rewrite the manifest: what an unkeyed
    chain cannot catch."""
    shutil.copytree(run, d)
    rows = [{**r, "f1": 0.5} for r in read_jsonl(d / "train_log.jsonl")]
    (d / "train_log.jsonl").write_text(chained(rows, GENESIS)[0], encoding="utf-8")
    meta = json.loads((d / "meta.json").read_text())
    meta["files"] = file_manifest(d)
    (d / "meta.json").write_text(json.dumps(seal(meta)))  # the forger re-seals it too


def test_a_signed_run_verifies_with_its_key(signed, monkeypatch):
    meta = json.loads((signed / "meta.json").read_text())
    assert meta["signature"]["alg"] == "hmac-sha256" and len(meta["signature"]["mac"]) == 64
    monkeypatch.setenv("KBGYM_SIGNING_KEY", KEY)
    assert verify_run(signed)


def test_a_rechained_forgery_passes_unkeyed_checks_and_fails_with_the_key(signed, tmp_path,
                                                                          monkeypatch):
    d = tmp_path / "forged"
    forge(signed, d)
    assert (d / "train_log.jsonl").read_bytes() != (signed / "train_log.jsonl").read_bytes()
    monkeypatch.delenv("KBGYM_SIGNING_KEY", raising=False)
    verify_trace(d)
    verify_run(d)  # the unkeyed chain and manifest cannot tell: the docs say so
    monkeypatch.setenv("KBGYM_SIGNING_KEY", KEY)
    with pytest.raises(ConfigError, match="signature does not match"):
        verify_run(d)
    key_file = tmp_path / "key"
    key_file.write_text(KEY + "\n")
    monkeypatch.delenv("KBGYM_SIGNING_KEY")
    monkeypatch.setenv("KBGYM_SIGNING_KEY_FILE", str(key_file))
    with pytest.raises(ConfigError, match="signature does not match"):
        verify_run(d)
    u = tmp_path / "u.json"
    u.write_text(U.dumps())
    for cmd in (["report", "--run", str(d), "--universe", str(u)],
                ["replay", "--run", str(d), "--universe", str(u)]):
        assert main(cmd) == 2


def test_another_key_an_unsigned_run_and_a_short_key_are_refused(signed, tmp_path,
                                                                 monkeypatch):
    monkeypatch.setenv("KBGYM_SIGNING_KEY", "another key of enough length")
    with pytest.raises(ConfigError, match="another key"):
        verify_run(signed)
    d = tmp_path / "unsigned"
    shutil.copytree(signed, d)
    meta = json.loads((d / "meta.json").read_text())
    del meta["signature"]
    (d / "meta.json").write_text(json.dumps(seal(meta)))
    with pytest.raises(ConfigError, match="not signed"):
        verify_run(d)
    monkeypatch.setenv("KBGYM_SIGNING_KEY", "short")
    with pytest.raises(ConfigError, match="at least 16 bytes"):
        verify_run(signed)


def test_the_signature_covers_the_chain_heads(signed, tmp_path, monkeypatch):
    """Appending a re-chained row to the trace changes its head: caught with the key, even
    before the manifest is looked at by size."""
    d = tmp_path / "longer"
    shutil.copytree(signed, d)
    last = (d / "trace.jsonl").read_bytes().splitlines(keepends=True)[-1]
    row = {**json.loads(last), "chain": line_hash(last)}
    with open(d / "trace.jsonl", "ab") as fh:
        fh.write((json.dumps(row, sort_keys=True, separators=(",", ":")) + "\n").encode())
    meta = json.loads((d / "meta.json").read_text())
    meta["files"] = file_manifest(d)
    (d / "meta.json").write_text(json.dumps(seal(meta)))  # the forger re-seals it too
    monkeypatch.setenv("KBGYM_SIGNING_KEY", KEY)
    with pytest.raises(ConfigError, match="signature does not match"):
        verify_run(d)
