"""A finished run's meta.json names every snapshot and log with its bytes and sha256; every
reader refuses, in one line naming the file, a folder that differs; a run still training may
only have grown. (The long tamper loop over every file x every reader is in
scripts/benchmarks/bad_input.py.)"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from kbgym.cli import main
from kbgym.errors import ConfigError
from kbgym.runs.manifest import file_manifest, verify_run

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from toy_run import U, train_toy  # noqa: E402


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return train_toy(tmp_path_factory.mktemp("mf") / "run")


def test_the_manifest_names_every_snapshot_and_log(run):
    files = json.loads((run / "meta.json").read_text())["files"]
    on_disk = {p.name for p in run.iterdir() if p.name.startswith("kb_")
               or p.name in ("trace.jsonl", "train_log.jsonl", "series.jsonl", "kb_stats.jsonl")}
    assert set(files) == on_disk and files == file_manifest(run)
    assert verify_run(run) == files


def _damages(p: Path):
    data = p.read_bytes()
    yield "flipped", lambda: p.write_bytes(data[:-2] + bytes([data[-2] ^ 1]) + data[-1:])
    yield "cut", lambda: p.write_bytes(data[: len(data) // 2])
    yield "emptied", lambda: p.write_bytes(b"")
    yield "deleted", p.unlink


FILES = ["kb_epoch_0.json", "kb_epoch_2.json", "kb_iter_0004.json", "series.jsonl",
         "kb_stats.jsonl", "train_log.jsonl", "trace.jsonl"]


@pytest.mark.parametrize("name", FILES)
def test_every_damage_to_a_kept_file_is_refused_naming_it(run, tmp_path, name):
    for what, damage in _damages(run / name):
        d = tmp_path / what
        shutil.copytree(run, d)
        dict(_damages(d / name))[what]()
        with pytest.raises(ConfigError) as err:
            verify_run(d)
        assert name in str(err.value) and "\n" not in str(err.value), what


def test_a_byte_flipped_in_meta_json_is_refused(run, tmp_path):
    d = tmp_path / "m"
    shutil.copytree(run, d)
    text = (d / "meta.json").read_text()
    (d / "meta.json").write_text(text.replace('"epochs":2', '"epochs":3'))
    with pytest.raises(ConfigError, match="meta.json was edited"):
        verify_run(d)


def test_a_snapshot_swapped_for_another_valid_one_or_added_is_refused(run, tmp_path):
    d = tmp_path / "swap"
    shutil.copytree(run, d)
    shutil.copy(d / "kb_epoch_2.json", d / "kb_epoch_0.json")
    with pytest.raises(ConfigError, match="kb_epoch_0.json"):
        verify_run(d)
    d = tmp_path / "added"
    shutil.copytree(run, d)
    shutil.copy(d / "kb_epoch_2.json", d / "kb_iter_0003.json")
    with pytest.raises(ConfigError, match="kb_iter_0003.json: not recorded"):
        verify_run(d)


@pytest.mark.parametrize("argv", [["report", "--run", "{d}", "--universe", "{u}"],
                                  ["replay", "--run", "{d}", "--universe", "{u}"],
                                  ["view", "--run", "{d}", "--universe", "{u}", "--out", "{t}/v.html"],
                                  ["probe", "make", "--run", "{d}", "--universe", "{u}",
                                   "--out", "{t}/p.json"]])
def test_readers_refuse_a_run_whose_train_log_was_cut_in_half(run, tmp_path, capsys, argv):
    """The round-three finding: report reported half a run (train_log cut 80 -> 40 rows)."""
    from kbgym.runs.logs import read_jsonl, rewrite_jsonl

    d = tmp_path / "run"
    shutil.copytree(run, d)
    rewrite_jsonl(d / "train_log.jsonl", read_jsonl(d / "train_log.jsonl")[:5])
    u = tmp_path / "u.json"
    u.write_text(U.dumps())
    argv = [a.format(d=d, u=u, t=tmp_path) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "train_log.jsonl" in err[0], err


def test_a_run_in_progress_may_grow_but_not_change(run, tmp_path):
    d = tmp_path / "live"
    shutil.copytree(run, d)
    meta = json.loads((d / "meta.json").read_text())
    del meta["verdict"], meta["meta_sha256"]  # as if still training: its logs grew since
    (d / "meta.json").write_text(json.dumps(meta))
    with open(d / "trace.jsonl", "ab") as fh:
        fh.write(b'{"kind":"train"')  # a row being written
    shutil.copy(d / "kb_iter_0010.json", d / "kb_iter_0012.json")  # written since: not named
    verify_run(d)
    data = (d / "train_log.jsonl").read_bytes()
    (d / "train_log.jsonl").write_bytes(data[:10] + b"X" + data[11:])
    with pytest.raises(ConfigError, match="train_log.jsonl"):
        verify_run(d)
