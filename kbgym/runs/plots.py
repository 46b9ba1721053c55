"""``kbgym plot``: PNG figures from a run directory (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

import json
from pathlib import Path

from kbgym.errors import KBGymError
from kbgym.library.snapshot import load_snapshot
from kbgym.runs.logs import read_jsonl

GROUP_ORDER = ("exact", "exact_matched", "share2", "share1", "share0")


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise KBGymError("plotting needs matplotlib: pip install 'kbgym[plot]'") from None
    return plt


def plot_run(run_dir: str | Path, out: str | Path | None = None) -> list[Path]:
    """Write gradient.png (if curve.json exists), growth.png and out_degree.png."""
    plt = _pyplot()
    run_dir = Path(run_dir)
    out = Path(out) if out else run_dir
    out.mkdir(parents=True, exist_ok=True)
    written = []

    curve_path = run_dir / "curve.json"
    if curve_path.exists():
        curve = json.loads(curve_path.read_text(encoding="utf-8"))
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
        its = curve["iterations"]
        for g in GROUP_ORDER:
            if g in curve["groups"]:
                ax1.plot(its, curve["groups"][g]["mean_steps"], marker="o", label=g)
                ax2.plot(its, curve["groups"][g]["f1"], marker="o", label=g)
        ax1.set(xlabel="training iteration", ylabel="mean reader steps",
                title="Key-coverage gradient: cost")
        ax2.set(xlabel="training iteration", ylabel="mean F1", title="Key-coverage gradient: F1")
        ax1.legend()
        fig.tight_layout()
        written.append(out / "gradient.png")
        fig.savefig(written[-1], dpi=110)
        plt.close(fig)

    series = read_jsonl(run_dir / "series.jsonl")
    if series:
        its = [s["iteration"] for s in series]
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot(its, [s["n_links"] for s in series], label="links")
        ax.plot(its, [s["authored_statements"] for s in series], label="authored (index) notes")
        base = series[0]["n_nodes"]
        ax.plot(its, [s["n_nodes"] - base for s in series], label="net nodes added")
        ax.set(xlabel="training iteration", title="Library growth")
        ax.legend()
        fig.tight_layout()
        written.append(out / "growth.png")
        fig.savefig(written[-1], dpi=110)
        plt.close(fig)

    if series and "stale_links" in series[0]:  # a run on a drifted universe
        its = [s["iteration"] for s in series]
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot(its, [s["stale_links"] for s in series], label="stale links")
        ax.plot(its, [s["stale_index_notes"] for s in series], label="stale index notes")
        ax.set(xlabel="training iteration", title="Staleness after source drift")
        ax.legend()
        fig.tight_layout()
        written.append(out / "staleness.png")
        fig.savefig(written[-1], dpi=110)
        plt.close(fig)

    snaps = sorted(run_dir.glob("kb_epoch_*.json"), key=lambda p: int(p.stem.split("_")[-1]))
    if snaps:
        lib, _ = load_snapshot(snaps[-1])
        degrees = [len(n.links) for n in lib if n.is_authored]
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.hist(degrees, bins=range(0, max(degrees + [1]) + 2))
        ax.set(xlabel="out-degree of index notes", ylabel="notes",
               title=f"Out-degree ({len(degrees)} index notes)")
        fig.tight_layout()
        written.append(out / "out_degree.png")
        fig.savefig(written[-1], dpi=110)
        plt.close(fig)
    return written
