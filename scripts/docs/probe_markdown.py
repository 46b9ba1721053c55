"""Print a probe table (the ``probe_table.json`` that ``kbgym demo`` or ``kbgym probe table
--out`` writes) as a Markdown table: the README's results table is this script's output.

    python scripts/docs/probe_markdown.py runs/demo/probe_table.json [--groups exact,share2,…]

One row per probe group and arm: the base arm's (B1's) mean steps, the arm's mean steps, ρ with
its 95 % paired bootstrap CI (``*``: the CI lies below 1 with no F1 loss; ``F1↓``: an F1 loss)
and its F1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def markdown(table: dict, groups: list[str] | None = None, arms: list[str] | None = None) -> str:
    """One row per (group, arm): B1's steps, the arm's steps, ρ [95 % CI] and F1."""
    base = table["base"]
    groups = [g for g in (groups or list(table["groups"])) if g in table["groups"]]
    shown = arms or [a for a in table["groups"][groups[0]]["all"] if a != base]
    rows = [f"| group | {base} steps | arm | steps | ρ [95 % CI] | F1 |", "|---|---|---|---|---|---|"]
    for g in groups:
        cells = table["groups"][g]["all"]
        for a in shown:
            arm = cells[a]
            mark = "*" if arm["star"] else (" F1↓" if arm["f1_loss"] else "")
            lo, hi = arm["ci"]
            rows.append(f"| {g} | {cells[base]['mean_steps']:.2f} | {a} | {arm['mean_steps']:.2f} | "
                        f"{arm['rho']:.3f}{mark} [{lo:.3f}, {hi:.3f}] | {arm['f1']:.3f} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("table", type=Path, help="probe_table.json")
    p.add_argument("--groups", default="exact,share2,share1,share0",
                   help="comma-separated probe groups, in order")
    p.add_argument("--arms", default=None, help="comma-separated arms, in order (default: all)")
    args = p.parse_args(argv)
    try:
        table = json.loads(args.table.read_text(encoding="utf-8"))
        print(markdown(table, args.groups.split(","), args.arms.split(",") if args.arms else None))
    except (OSError, ValueError, KeyError) as err:
        print(f"probe_markdown: error: {args.table}: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
