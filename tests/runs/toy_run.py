"""The small training run that the run-folder tests resume, tamper with and compare: a
60-person universe, the toy trainer, two epochs of five questions, a snapshot every two
(shared by test_nothing_lost, test_resume_rebuilds and test_manifest)."""

from __future__ import annotations

from pathlib import Path

import toy_agents

from kbgym.runs.train import TrainConfig, train
from kbgym.worlds.people import UniverseConfig, generate

U = generate(UniverseConfig(n_people=60, n_cities=8, sizes=(40, 30, 20), eval_sizes=(10, 6)))
CFG = TrainConfig(epochs=2, train_size=5, snapshot_every=2)


def train_toy(out: Path) -> Path:
    """``out`` after the toy run was trained into it."""
    train(U, toy_agents.ToyTrainer(), out, config=CFG)
    return out


def files(d: Path) -> dict[str, bytes]:
    """A run folder's files by name, less the wall-clock timing and the lock."""
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())
            if p.is_file() and p.name not in ("timing.jsonl", ".kbgym.lock")}
