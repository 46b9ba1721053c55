"""The sweep report's figures: the key-coverage gradient (ρ per probe group) and the
training-time learning curve, each a mean over seeds with a between-seed 95% band."""

from __future__ import annotations

from pathlib import Path

from kbgym.runs.plots import _pyplot

MAX_CELLS = 8  # curves drawn per figure; a larger sweep's report.json still has all


def _band(stats: list[dict]) -> tuple[list, list, list]:
    mean = [s["mean"] for s in stats]
    lo = [s["ci"][0] if s["ci"] else s["mean"] for s in stats]
    hi = [s["ci"][1] if s["ci"] else s["mean"] for s in stats]
    return mean, lo, hi


def plot_sweep(rep: dict, out: str | Path) -> list[Path]:
    plt = _pyplot()
    out = Path(out)
    written = []
    cells = rep["cells"][:MAX_CELLS]

    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for c in cells:
        for arm, groups in c["arms"].items():
            names = list(groups)
            if not names:
                continue
            mean, lo, hi = _band([groups[g]["rho_mean"] for g in names])
            x = range(len(names))
            line, = ax.plot(x, mean, marker="o", label=f"{c['label']} / {arm}")
            ax.fill_between(x, lo, hi, alpha=0.2, color=line.get_color())
            ax.set_xticks(list(x), names)
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set(xlabel="probe group (key coverage falls to the right)",
           ylabel="ρ = steps(arm) / steps(B1)",
           title="Key-coverage gradient (mean over seeds, 95% band)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    written.append(out / "gradient.png")
    fig.savefig(written[-1], dpi=110)
    plt.close(fig)

    with_curve = [c for c in cells if c["curve"]]
    if with_curve:
        panels = (("rho", "ρ = steps / steps at iteration 0", "cost against the untrained state"),
                  ("mean_steps", "mean reader steps", "cost"), ("f1", "mean F1", "F1"))
        fig, axes = plt.subplots(len(with_curve), 3, figsize=(15, 3.6 * len(with_curve)),
                                 squeeze=False)
        for row, c in zip(axes, with_curve):
            its = c["curve"]["iterations"]
            for g, series in c["curve"]["groups"].items():
                for ax, (key, _, _) in zip(row, panels):
                    mean, lo, hi = _band(series[key])
                    line, = ax.plot(its, mean, marker=".", label=g)
                    ax.fill_between(its, lo, hi, alpha=0.2, color=line.get_color())
            for ax, (_, ylabel, title) in zip(row, panels):
                ax.set(xlabel="training iteration", ylabel=ylabel, title=f"{c['label']}: {title}")
            row[0].legend(fontsize=7)
        fig.tight_layout()
        written.append(out / "learning_curve.png")
        fig.savefig(written[-1], dpi=110)
        plt.close(fig)
    return written
