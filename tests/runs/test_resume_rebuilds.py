"""``--resume`` trusts no derived file: snapshots, series.jsonl and kb_stats.jsonl are rebuilt
from the verified trace, so a run whose derived files were deleted, cut, emptied, flipped or
replaced resumes to the same bytes as the run never touched; a linked one is refused."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from kbgym.errors import ConfigError
from kbgym.runs.logs import read_jsonl, rewrite_jsonl
from kbgym.runs.train import train

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import toy_agents  # noqa: E402

from toy_run import CFG, U, train_toy  # noqa: E402
from toy_run import files as _files  # noqa: E402


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return train_toy(tmp_path_factory.mktemp("rb") / "run")



def _flip(p: Path) -> None:
    b = bytearray(p.read_bytes())
    b[len(b) // 2] ^= 0x01
    p.write_bytes(bytes(b))


TAMPERS = {
    "kb_stats deleted": lambda d: (d / "kb_stats.jsonl").unlink(),
    "kb_stats cut": lambda d: rewrite_jsonl(d / "kb_stats.jsonl",
                                            read_jsonl(d / "kb_stats.jsonl")[:1]),
    "series cut to one row": lambda d: rewrite_jsonl(d / "series.jsonl",
                                                     read_jsonl(d / "series.jsonl")[:1]),
    "series deleted": lambda d: (d / "series.jsonl").unlink(),
    "snapshot emptied": lambda d: (d / "kb_epoch_0.json").write_bytes(b""),
    "snapshot truncated": lambda d: (d / "kb_iter_0004.json").write_bytes(
        (d / "kb_iter_0004.json").read_bytes()[:100]),
    "snapshot flipped": lambda d: _flip(d / "kb_iter_0002.json"),
    "snapshot replaced by []": lambda d: (d / "kb_epoch_1.json").write_text("[]"),
    "snapshot deleted": lambda d: (d / "kb_iter_0006.json").unlink(),
    "epoch 0 replaced by the trained library": lambda d: shutil.copy(d / "kb_epoch_2.json",
                                                                     d / "kb_epoch_0.json"),
}


@pytest.mark.parametrize("name", list(TAMPERS))
def test_resume_rebuilds_derived_files_from_the_trace(run, tmp_path, name):
    d = tmp_path / "run"
    shutil.copytree(run, d)
    TAMPERS[name](d)
    train(U, toy_agents.ToyTrainer(), d, config=CFG, resume=True)
    assert _files(d) == _files(run)


def test_resume_of_a_cut_run_with_kb_stats_deleted_keeps_epoch_0_untrained(run, tmp_path):
    """The round-three finding: kb_stats deleted made --resume write the trained library as
    kb_epoch_0 and cut the series to one row."""
    d = tmp_path / "run"
    shutil.copytree(run, d)
    meta = json.loads((d / "meta.json").read_text())
    del meta["verdict"], meta["files"], meta["meta_sha256"]  # the meta.json of a run still training
    (d / "meta.json").write_text(json.dumps(meta))
    rewrite_jsonl(d / "train_log.jsonl", read_jsonl(d / "train_log.jsonl")[:3])
    (d / "kb_stats.jsonl").unlink()
    for p in d.glob("kb_iter_*.json"):
        p.unlink()
    train(U, toy_agents.ToyTrainer(), d, config=CFG, resume=True)
    assert _files(d) == _files(run)
    assert len(read_jsonl(d / "series.jsonl")) == 11


def test_a_linked_snapshot_is_refused_by_resume(run, tmp_path):
    d = tmp_path / "run"
    shutil.copytree(run, d)
    (d / "kb_epoch_1.json").unlink()
    (d / "kb_epoch_1.json").symlink_to(run / "kb_epoch_2.json")
    before = json.dumps(sorted(p.name for p in d.iterdir()))
    with pytest.raises(ConfigError, match="symbolic link"):
        train(U, toy_agents.ToyTrainer(), d, config=CFG, resume=True)
    assert json.dumps(sorted(p.name for p in d.iterdir())) == before


@pytest.mark.parametrize("resume", [False, True])
def test_a_folder_killed_before_its_first_meta_json_starts_afresh(run, tmp_path, capsys, resume):
    d = tmp_path / "run"
    d.mkdir()
    (d / ".meta.json.x1y2z3.tmp").write_text('{"run_id": "r-')
    train(U, toy_agents.ToyTrainer(), d, config=CFG, resume=resume)
    assert "killed before its first meta.json" in capsys.readouterr().err
    assert _files(d) == _files(run) and not list(d.glob(".*.tmp"))
