"""Does the curation reward point the right way? Reward summed over training vs the probe.

    python scripts/experiments/reward_alignment.py [--train-size 100] [--epochs 1] [--per-group 30]
        [--k 16] [--transfer 8] [--own] [--norm mean|sum] [--mu 0.5] [--seed 0]
        [--out runs/reward_alignment]

For each curator (scripted index, content writer, no-op, random, junk links, and degraded
index curators: half / quarter member lists, a quarter / three quarters wrong members, one key
per question, short titles, person hubs only) this trains a fresh B1 library on the same
training questions with ``reward="curation"`` and sums the reward, then examines the trained
library with the scripted reader on one gradient probe (made from those questions) next to B1.

Printed: per curator the total reward, the share of its episodes rewarded exactly 0, the mean
|reward| of the others, rho and F1 per probe group; the Spearman correlations of total reward
with the F1-gated objective on exact and on share2 (goals: <= -0.8 and <= -0.7: more reward,
fewer steps) - the objective of a group is the arm's rho there when the arm has no F1 loss
against the no-op in any group, and otherwise ranks below every arm without one (rho + 10: a
curator that costs answers is worse than any that does not, and among such curators fewer
steps is still better); the same with plain rho, over all curators and over those without an
F1 loss; and whether every curator with an F1 loss earned less reward than the no-op. Writes
alignment.json and alignment.png (matplotlib) under --out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

GROUPS = ("exact", "share2", "share1")
#: What an F1 loss adds to rho in the gated objective: such an arm ranks below all others.
LOSS_OFFSET = 10.0


def spearman(x: list[float], y: list[float]) -> float:
    """Spearman's rank correlation (average ranks for ties)."""
    def ranks(v):
        v = np.asarray(v, dtype=float)
        order = v.argsort(kind="mergesort")
        r = np.empty(len(v))
        r[order] = np.arange(len(v))
        for val in np.unique(v):  # average the ranks of ties
            idx = v == val
            r[idx] = r[idx].mean()
        return r
    rx, ry = ranks(x), ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


def train_arm(universe, agent, qids, config, epochs=1):
    """Train a fresh B1 library with ``agent``; (library, total reward, per-episode rewards)."""
    from kbgym.env.env import KBGymEnv
    from kbgym.runs.episode import EpisodeRun

    env = KBGymEnv(universe, config=config)
    rewards = []
    for _ in range(epochs):
        for qid in qids:
            run = EpisodeRun(env, agent, qid)
            while not run.step(agent.act(run.obs, run.info)):
                pass
            rewards.append(run.info["curation"]["reward"])
    return env.library, float(sum(rewards)), rewards


def probe_cells(table: dict, arm: str) -> dict:
    out = {}
    for g in GROUPS:
        c = table["groups"][g]["all"][arm]
        out[g] = {"rho": c["rho"], "ci": c["ci"], "f1": c["f1"], "steps": c["mean_steps"]}
    return out


def run(args) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from kbgym_agents.scripted.variants import variant_trainers
    from kbgym.env.env import default_universe
    from kbgym.library.graph import Library
    from kbgym.plugins import make_agent
    from kbgym.runs.gradient import examine_probe
    from kbgym.runs.probe import make_probe, probe_table
    from kbgym.worlds.people import UniverseConfig, generate

    u = default_universe() if args.seed == 0 else generate(UniverseConfig(seed=args.seed))
    qids = list(u.splits["train"])[: args.train_size]
    config = {"reward": "curation", "reward_k": args.k, "reward_mu": args.mu,
              "reward_transfer": args.transfer, "reward_own": args.own,
              "reward_norm": args.norm}
    probe = make_probe(u, [{"qid": q} for q in qids], per_group=args.per_group, seed=args.seed)
    reader = make_agent("scripted-reader")
    arms = {"B1": examine_probe(u, Library.from_universe(u), reader, probe, label="B1")}
    totals, per_episode = {}, {}
    for name, agent in variant_trainers(args.seed).items():
        t = time.perf_counter()
        lib, total, rewards = train_arm(u, agent, qids, config, args.epochs)
        arms[name] = examine_probe(u, lib, reader, probe, label=name)
        totals[name], per_episode[name] = total, rewards
        print(f"  {name:20s} reward {total:+8.4f}  ({time.perf_counter() - t:.1f}s)",
              file=sys.stderr)
    table = probe_table(arms, probe, seed=args.seed)
    cells = {name: probe_cells(table, name) for name in totals}
    names = list(totals)
    reward = [totals[n] for n in names]
    rho_exact = [cells[n]["exact"]["rho"] for n in names]
    rho_share2 = [cells[n]["share2"]["rho"] for n in names]
    noop = cells["noop"]
    f1_loss = {n: [g for g in GROUPS if cells[n][g]["f1"] < noop[g]["f1"] - 1e-9] for n in names}
    lossy = [n for n in names if f1_loss[n]]
    keep = [i for i, n in enumerate(names) if not f1_loss[n]]

    def gated(g):
        return [cells[n][g]["rho"] + (LOSS_OFFSET if f1_loss[n] else 0.0) for n in names]

    def density(rs):
        nonzero = [abs(r) for r in rs if r != 0.0]
        return {"episodes": len(rs), "zero_share": 1 - len(nonzero) / len(rs) if rs else None,
                "mean_abs_nonzero": sum(nonzero) / len(nonzero) if nonzero else 0.0}

    return {
        "universe": u.hash, "train_size": len(qids), "epochs": args.epochs, "k": args.k,
        "transfer": args.transfer, "own": args.own, "norm": args.norm,
        "mu": args.mu, "seed": args.seed, "per_group": args.per_group,
        "curators": {n: {"reward": totals[n], **cells[n], "f1_loss_groups": f1_loss[n],
                         **density(per_episode[n])} for n in names},
        "spearman_reward_gated_exact": spearman(reward, gated("exact")),
        "spearman_reward_gated_share2": spearman(reward, gated("share2")),
        "spearman_reward_rho_exact": spearman(reward, rho_exact),
        "spearman_reward_rho_share2": spearman(reward, rho_share2),
        "spearman_f1_preserving_rho_exact": spearman([reward[i] for i in keep],
                                                     [rho_exact[i] for i in keep]),
        "spearman_f1_preserving_rho_share2": spearman([reward[i] for i in keep],
                                                      [rho_share2[i] for i in keep]),
        "f1_loss_curators": lossy,
        "f1_loss_all_below_noop": all(totals[n] < totals["noop"] for n in lossy),
    }


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cur = result["curators"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, g in zip(axes, ("exact", "share2")):
        for n, c in cur.items():
            ax.scatter(c["reward"], c[g]["rho"], color="tab:red" if c["f1_loss_groups"]
                       else "tab:blue")
            ax.annotate(n, (c["reward"], c[g]["rho"]), fontsize=7, xytext=(3, 3),
                        textcoords="offset points")
        key = f"spearman_reward_rho_{g}"
        ax.set_title(f"{g}: Spearman {result[key]:.2f}")
        ax.set_xlabel("total curation reward over training")
        ax.set_ylabel(f"probe rho ({g})")
        ax.axhline(1.0, color="grey", lw=0.5)
    fig.suptitle("curation reward vs probe cost (red: F1 loss against the no-op)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train-size", type=int, default=100)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--per-group", type=int, default=30)
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--transfer", type=int, default=8)
    ap.add_argument("--own", action="store_true", help="examine the episode's own question")
    ap.add_argument("--norm", choices=("mean", "sum"), default="mean")
    ap.add_argument("--mu", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/reward_alignment")
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args()
    t = time.perf_counter()
    result = run(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "alignment.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"{'curator':20s}{'reward':>9s}{'zero':>6s}{'|r|>0':>8s}" + "".join(
        f"{'rho ' + g:>13s}{'F1 ' + g:>11s}" for g in GROUPS))
    for n, c in sorted(result["curators"].items(), key=lambda kv: -kv[1]["reward"]):
        print(f"{n:20s}{c['reward']:+9.4f}{c['zero_share']:6.0%}{c['mean_abs_nonzero']:8.4f}"
              + "".join(f"{c[g]['rho']:13.3f}{c[g]['f1']:11.3f}" for g in GROUPS)
              + ("  F1 loss: " + ",".join(c["f1_loss_groups"]) if c["f1_loss_groups"] else ""))
    print(f"Spearman(reward, F1-gated objective exact)  = "
          f"{result['spearman_reward_gated_exact']:+.3f}  (goal <= -0.8)")
    print(f"Spearman(reward, F1-gated objective share2) = "
          f"{result['spearman_reward_gated_share2']:+.3f}  (goal <= -0.7)")
    print(f"Spearman(reward, rho exact)  = {result['spearman_reward_rho_exact']:+.3f}")
    print(f"Spearman(reward, rho share2) = {result['spearman_reward_rho_share2']:+.3f}")
    print(f"the same over the curators without an F1 loss: exact "
          f"{result['spearman_f1_preserving_rho_exact']:+.3f}, share2 "
          f"{result['spearman_f1_preserving_rho_share2']:+.3f}")
    print(f"curators with an F1 loss: {', '.join(result['f1_loss_curators']) or 'none'}; "
          f"all rewarded below the no-op: {result['f1_loss_all_below_noop']}")
    if not args.no_plot:
        plot(result, out / "alignment.png")
        print(f"figure: {out / 'alignment.png'}")
    print(f"time: {time.perf_counter() - t:.1f}s")


if __name__ == "__main__":
    main()
