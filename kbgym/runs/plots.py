"""``kbgym plot``: PNG figures from a run directory (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

import json
from pathlib import Path

from kbgym.errors import KBGymError
from kbgym.library.snapshot import load_snapshot
from kbgym.runs.logs import read_jsonl

GROUP_ORDER = ("exact", "exact_matched", "share2", "share1", "share0")


NO_PLOTS = "plots skipped: matplotlib is not installed (pip install 'kbgym[plot]')"


def plotting_available() -> bool:
    """Whether the ``plot`` extra (matplotlib) is installed."""
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def want_plots(plots: bool, say) -> bool:
    """Whether a command that writes figures besides its tables (the demo, ``kbgym
    reproduce``, ``kbgym sweep report``) draws them: asked for and possible. Asked for without
    the plot extra, it says ``NO_PLOTS`` and the command writes everything else."""
    if plots and not plotting_available():
        say(NO_PLOTS)
        return False
    return plots


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise KBGymError("plotting needs matplotlib: pip install 'kbgym[plot]'") from None
    return plt


def plot_probe_table(table: dict, path: Path) -> Path:
    """rho per group and arm with its CI as error bars; the F1 gate marks each bar (``*`` for
    a star, ``F1↓`` for an F1 loss) and the dashed line is rho = 1. Where the arms' rows carry
    the ideal navigator's figures, a black diamond with its CI marks rho_nav on each bar and
    ``blind spot`` tops the bars the blind-spot line flags."""
    from kbgym.runs.probe import mark

    plt = _pyplot()
    nav_label = "rho_nav (ideal navigator)"
    groups = [g for g in GROUP_ORDER if g in table["groups"]]
    groups += [g for g in table["groups"] if g not in groups]
    arms = [a for a in next(iter(table["groups"].values()))["all"] if a != table["base"]]
    fig, ax = plt.subplots(figsize=(1.6 * len(groups) + 2, 4))
    width = 0.8 / max(1, len(arms))
    for i, arm in enumerate(arms):
        xs, ys, err, marks = [], [], [[], []], []
        for j, g in enumerate(groups):
            c = table["groups"][g]["all"].get(arm)
            if not c or not c["n"]:
                continue
            xs.append(j + (i - (len(arms) - 1) / 2) * width)
            ys.append(c["rho"])
            lo, hi = c["ci"] or (c["rho"], c["rho"])
            err[0].append(c["rho"] - lo)
            err[1].append(hi - c["rho"])
            marks.append(mark(c))
        ax.bar(xs, ys, width, yerr=err, capsize=3, label=arm)
        for x, y, e, m in zip(xs, ys, err[1], marks):
            if m:
                ax.annotate(m, (x, y + e), ha="center", va="bottom", fontsize=9)
        for x, g in zip(xs, [g for g in groups if (table["groups"][g]["all"].get(arm) or {})
                             .get("n")]):
            c = table["groups"][g]["all"][arm]
            if c.get("rho_nav") is None:
                continue
            lo, hi = c.get("rho_nav_ci") or (c["rho_nav"], c["rho_nav"])
            ax.errorbar([x], [c["rho_nav"]], yerr=[[c["rho_nav"] - lo], [hi - c["rho_nav"]]],
                        fmt="D", color="black", markersize=5, capsize=2, label=nav_label)
            nav_label = "_nolegend_"  # one legend entry for all the diamonds
            if (c.get("blind_spot") or {}).get("flagged"):
                top = max(hi, (c["ci"] or [0, c["rho"]])[1])
                ax.annotate("blind spot", (x, top + 0.04), ha="center", va="bottom",
                            fontsize=8, color="crimson", rotation=90)
    ax.axhline(1.0, color="grey", linestyle="--", linewidth=1)
    if any((c.get("blind_spot") or {}).get("flagged") for g in groups
           for c in table["groups"][g]["all"].values()):
        ax.set_ylim(top=max(ax.get_ylim()[1], 1.35))  # room for the blind-spot labels
    ax.set_xticks(range(len(groups)), groups)
    ax.set(ylabel=f"rho = steps(arm) / steps({table['base']})",
           title="Gradient probe (* saves steps with no F1 loss; F1↓ loses F1)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_run(run_dir: str | Path, out: str | Path | None = None,
             probe_table: str | Path | None = None) -> list[Path]:
    """Write gradient.png (if curve.json exists), probe_table.png (if a probe table is given
    or the run directory holds probe_table.json), growth.png and out_degree.png."""
    from kbgym.runs.report import find_probe_table

    run_dir = Path(run_dir)
    # every input is read first: a bad one stops before anything else (matplotlib included)
    table = find_probe_table(run_dir, probe_table)
    series = read_jsonl(run_dir / "series.jsonl")
    plt = _pyplot()
    out = Path(out) if out else run_dir
    out.mkdir(parents=True, exist_ok=True)
    written = []

    if table is not None:
        written.append(plot_probe_table(table, out / "probe_table.png"))

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
