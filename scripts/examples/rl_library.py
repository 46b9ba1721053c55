"""A library that learns under RL, without a GPU: GRPO-style groups of rollouts from scripted
policies, the best of each group committed between steps by ``LibraryLearner``, then the
committed library examined by the probe like any run, and replayed byte for byte.

    python scripts/examples/rl_library.py [--steps 6] [--questions 5] [--out runs/rl-library]
        [--reward curation] [--reward-k 8] [--rule best] [--per-group 30] [--overwrite]

Each "GRPO step" takes the next ``--questions`` training questions; every question gets one
rollout per policy in the group (scripted-index, scripted-noop, scripted-content,
scripted-random: the G generations of a group, standing in for an LLM's samples), each on a
fork of the learner's library; ``learner.commit()`` then keeps the best rollout of each
question (``--rule``). The learner's folder ``OUT/library`` is an ordinary training run.
Printed: per step the kept policies and rewards; then the replay check of every commit
(``kbgym replay --all-epochs``), and the probe's rho table for B1 and the RL-built library
(the same as ``kbgym probe make --run OUT/library``, ``kbgym test`` of both arms and
``kbgym probe table``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
POLICIES = ("scripted-index", "scripted-noop", "scripted-content", "scripted-random")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--questions", type=int, default=5, help="questions per step")
    ap.add_argument("--reward", choices=("curation", "both"), default="curation")
    ap.add_argument("--reward-k", type=int, default=8)
    ap.add_argument("--rule", choices=("best", "best_positive"), default="best")
    ap.add_argument("--per-group", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/rl-library")
    ap.add_argument("--overwrite", action="store_true", help="replace OUT/library's run")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from kbgym.env.env import default_universe
    from kbgym.library.graph import Library
    from kbgym.library.snapshot import load_snapshot, snapshot_hash
    from kbgym.plugins import make_agent
    from kbgym.runs.gradient import examine_probe
    from kbgym.runs.learner import LibraryLearner
    from kbgym.runs.probe import format_table, make_probe_from_run, probe_table
    from kbgym.runs.replay import replay_run, verify_all_epochs

    t0 = time.perf_counter()
    u = default_universe()
    out = Path(args.out)
    from kbgym.errors import ConfigError

    try:
        learner = LibraryLearner(u, out / "library", rule=args.rule, overwrite=args.overwrite,
                                 config={"reward": args.reward, "reward_k": args.reward_k})
    except ConfigError as err:
        sys.exit(f"rl_library.py: {err} (--overwrite)")
    policies = {name: make_agent(name) for name in POLICIES}
    qids = list(u.splits["train"])
    for step in range(args.steps):
        batch = qids[step * args.questions:(step + 1) * args.questions]
        for qid in batch:  # one group per question: a rollout per policy, in POLICIES order
            for agent in policies.values():
                learner.rollout(agent, qid)
        rec = learner.commit()
        kept = [f"{k['qid']}:{POLICIES[k['index']]} {k['reward']:+.3f}" for k in rec["kept"]]
        print(f"step {step + 1}: kept {', '.join(kept)}")
    learner.close()
    run = out / "library"
    checks = verify_all_epochs(run)
    final = load_snapshot(run / f"kb_epoch_{learner.commits}.json")[0]
    print(f"replay of {len(checks)} snapshots (epoch 0 = B1, then one per commit): "
          f"{'all byte-identical' if not any(checks.values()) else checks}")
    print(f"replayed {snapshot_hash(replay_run(run))}\nsnapshot {snapshot_hash(final)}")
    probe = make_probe_from_run(u, run, per_group=args.per_group, seed=args.seed)
    reader = make_agent("scripted-reader")
    arms = {"B1": examine_probe(u, Library.from_universe(u), reader, probe, label="B1"),
            "RL": examine_probe(u, final, reader, probe, label="RL")}
    print(format_table(probe_table(arms, probe, seed=args.seed)))
    print(f"time: {time.perf_counter() - t0:.1f}s")


if __name__ == "__main__":
    main()
