"""How guessable each template is: per template, the number of questions and the share of
its most frequent canonical gold, over several seeds of one config.

    python scripts/experiments/template_priors.py [--config configs/varied.yaml] [--seeds 0-4]
        [--people N] [--pools]

Prints one block per seed (n questions, top answer, share; with --pools also the size of the
template's full pool and its top-answer share there) and a closing check: the largest
count-template share and the templates with no questions, per seed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kbgym.config import load_config  # noqa: E402
from kbgym.worlds.people import UniverseConfig, answer_shares, generate  # noqa: E402
from kbgym.worlds.people.guess import COUNT_TEMPLATES, pool_answer_shares  # noqa: E402


def seeds_of(spec: str) -> list[int]:
    lo, _, hi = spec.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def pool_shares(cfg: UniverseConfig) -> dict[str, tuple[int, float | None]]:
    return {name: (r["n"], r["share"]) for name, r in pool_answer_shares(cfg).items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", help="YAML config with a universe section (default: paper)")
    ap.add_argument("--seeds", default="0-4", help="a seed or a range, e.g. 0-4")
    ap.add_argument("--people", type=int, help="override n_people")
    ap.add_argument("--pools", action="store_true", help="also the full pools' shares")
    args = ap.parse_args(argv)
    base = dict(load_config(args.config).universe) if args.config else {}
    if args.people:
        base["n_people"] = args.people
    summary = []
    for seed in seeds_of(args.seeds):
        cfg = UniverseConfig(**{**base, "seed": seed})
        u = generate(cfg)
        shares = answer_shares(u)
        pools = pool_shares(cfg) if args.pools else {}
        print(f"seed {seed}  ({args.config or 'default'}, {cfg.n_people} people)")
        print(f"  {'template':26s}{'n':>5s}  {'top':>10s}{'share':>7s}" +
              (f"{'pool':>7s}{'share':>7s}" if pools else ""))
        for name, row in shares.items():
            share = "-" if row["share"] is None else f"{row['share']:.2f}"
            line = f"  {name:26s}{row['n']:5d}  {str(row['answer'] or '-')[:10]:>10s}{share:>7s}"
            if pools:
                n, s = pools[name]
                line += f"{n:7d}{'-' if s is None else format(s, '.2f'):>7s}"
            print(line)
        worst = max(COUNT_TEMPLATES, key=lambda t: shares[t]["share"] or 0)
        empty = [t for t, r in shares.items() if not r["n"]]
        summary.append((seed, worst, shares[worst]["share"], empty,
                        max((pools[t][1] or 0) for t in COUNT_TEMPLATES) if pools else None))
        print()
    print("seed  max count-template share (template)        templates without questions")
    for seed, worst, share, empty, pool_max in summary:
        extra = f"  (pool max {pool_max:.2f})" if pool_max is not None else ""
        print(f"{seed:4d}  {share:.2f} ({worst}){extra:20s}  {', '.join(empty) or 'none'}")
    ok = all(s <= 0.5 and not e for _, _, s, e, _ in summary)
    print("all count templates <= 50 % and all 26 templates asked: " + ("yes" if ok else "NO"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
