"""The `kbgym build` command, config files and the universe's golden hash."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kbgym.cli import main
from kbgym.config import load_config
from kbgym.errors import ConfigError
from kbgym.worlds.people import UniverseConfig, generate

ROOT = Path(__file__).resolve().parents[1]

# Regenerate with: kbgym build --config configs/small.yaml --out /tmp/u.json  (prints the hash)
SMALL_HASH = "sha256:bc3c8dc09c2f3ab99daea4a55e77c65d261bfd463c3dfaf61363b846430da8da"


def test_build_writes_universe_and_summary(tmp_path, capsys):
    out = tmp_path / "u.json"
    assert main(["build", "--config", str(ROOT / "configs/small.yaml"), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "people=60 (+6 distractors)" in text and "qc10_spouse_job R" in text
    data = json.loads(out.read_text())
    assert data["kind"] == "kbgym.universe" and data["schema_version"] == 1
    assert len(data["nodes"]) == 680


def test_small_config_golden_hash():
    cfg = load_config(ROOT / "configs/small.yaml")
    assert generate(cfg.universe).hash == SMALL_HASH


def test_paper_config_is_the_default():
    cfg = load_config(ROOT / "configs/paper.yaml")
    assert cfg.universe == UniverseConfig()
    u = generate(cfg.universe)
    assert 5800 <= len(u.nodes) <= 6000
    assert sorted(len(v) for v in u.splits.values()) == [30, 50, 100, 150]


def test_flags_override_config(tmp_path):
    out = tmp_path / "u.json"
    assert main(["build", "--config", str(ROOT / "configs/small.yaml"), "--people", "40",
                 "--train", "12", "--seed", "7", "--out", str(out), "--quiet"]) == 0
    meta = json.loads(out.read_text())["meta"]
    assert (meta["n_people"], meta["sizes"][0], meta["seed"]) == (40, 12, 7)


@pytest.mark.parametrize("argv, needle", [
    (["--people", "3"], "argument --people: must be between 6 and 1000000, got 3"),
    (["--people", "-5"], "argument --people: must be between 6 and 1000000"),
    (["--distractors", "1.5"], "argument --distractors: must be between 0 and 1"),
    (["--distractors", "-0.1"], "argument --distractors"),
    (["--train", "-4"], "argument --train: must be between 0 and 1000000"),
    (["--hard-frac", "2"], "argument --hard-frac"),
])
def test_bad_sizes_exit_nonzero_with_one_line(tmp_path, argv, needle):
    out = tmp_path / "u.json"
    proc = subprocess.run([sys.executable, "-m", "kbgym.cli", "build", *argv, "--out", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in proc.stderr
    assert not out.exists()


@pytest.mark.parametrize("body, needle", [
    ("universe: {n_peple: 50}\n", "universe: n_peple: unknown key"),
    ("universe: {n_people: 2}\n", "n_people: must be at least 6"),
    ("nonsense: 1\n", "nonsense: unknown key"),
    ("universe: [\n", "not valid YAML"),
    ("- 1\n- 2\n", "expected a mapping"),
])
def test_bad_config_files(tmp_path, body, needle):
    path = tmp_path / "c.yaml"
    path.write_text(body)
    with pytest.raises(ConfigError, match=needle.replace("[", r"\[")) as err:
        load_config(path)
    assert "\n" not in str(err.value)


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "absent.yaml")


def test_universe_config_rejects_too_few_people():
    with pytest.raises(ConfigError):
        UniverseConfig.make(n_people=5)
