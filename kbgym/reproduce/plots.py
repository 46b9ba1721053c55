"""The reproduction's figures: ``gradient.png`` (ρ and ΔF1 per probe group, KBGym's mean and
between-seed 95% CI beside the paper's points, and the PhantomWiki arm) and
``coverage_growth.png`` (index coverage against distinct questions and against iterations of
the repeat-heavy schedule, and the held-out steps saved and F1 against train size, with B3)."""

from __future__ import annotations

from pathlib import Path

from kbgym.reproduce import paper as P
from kbgym.runs.plots import _pyplot

GROUPS = ("exact", "share2", "share1", "share0")


def _err(stat: dict | None) -> tuple[float | None, float, float]:
    if not stat or stat.get("mean") is None:
        return None, 0.0, 0.0
    m, ci = stat["mean"], stat.get("ci")
    return (m, m - ci[0], ci[1] - m) if ci else (m, 0.0, 0.0)


def _bars(ax, groups: list[str], arms: dict, key: str, colors: dict) -> None:
    for j, (arm, color) in enumerate(colors.items()):
        cells = arms.get(arm) or {}
        xs, ys, lo, hi = [], [], [], []
        for i, g in enumerate(groups):
            m, a, b = _err((cells.get(g) or {}).get(key))
            if m is not None:
                xs.append(i + (j - 0.5) * 0.18)
                ys.append(m)
                lo.append(a)
                hi.append(b)
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o", color=color, capsize=3,
                    label=f"KBGym {arm}")


def plot_reproduction(rep: dict, out: str | Path) -> list[Path]:
    plt = _pyplot()
    out = Path(out)
    st = rep["settings"]
    written = []
    m, t = str(st["m"]), str(st["tight_m"])
    colors = {"trained": "tab:blue", "B3": "tab:orange"}

    fig, axes = plt.subplots(1, 3, figsize=(14, 4.3))
    ax = axes[0]
    _bars(ax, list(GROUPS), (rep["gradient"].get(m) or {}).get("arms", {}), "rho_mean", colors)
    ax.scatter(range(len(GROUPS)), [P.RHO[g] for g in GROUPS], marker="x", color="black", s=60,
               zorder=5, label="paper (trained)")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xticks(range(len(GROUPS)), GROUPS)
    ax.set_ylabel(f"ρ = steps / steps(B1), M = {st['m']}")
    ax.set_title("steps: the key-coverage gradient")
    ax.legend(fontsize=8)
    ax = axes[1]
    _bars(ax, list(GROUPS), (rep["gradient"].get(t) or {}).get("arms", {}), "f1_diff_mean",
          colors)
    ax.scatter(range(len(GROUPS)), [P.F1_GAIN[g] for g in GROUPS], marker="x", color="black",
               s=60, zorder=5, label="paper (trained, M = 15)")
    ax.axhline(0.0, color="grey", lw=0.8, ls="--")
    ax.set_xticks(range(len(GROUPS)), GROUPS)
    ax.set_ylabel(f"ΔF1 = F1 − F1(B1), M = {st['tight_m']}")
    ax.set_title("accuracy at the tight budget")
    ax.legend(fontsize=8)
    ax = axes[2]
    pw_groups = ["exact", "share1", "share0"]
    for cell in rep.get("phantomwiki") or []:
        _bars(ax, pw_groups, cell["arms"], "rho_mean", {"trained": "tab:green"})
    ax.scatter(range(3), [P.PW_RHO[g] for g in pw_groups], marker="x", color="black", s=60,
               zorder=5, label="paper (PhantomWiki)")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xticks(range(3), pw_groups)
    ax.set_ylabel("ρ (PhantomWiki probe)")
    ax.set_title("PhantomWiki generation")
    ax.legend(fontsize=8)
    fig.suptitle(f"KBGym vs the paper: mean over seeds {st['seeds']} with 95% CI")
    fig.tight_layout()
    path = out / "gradient.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)

    gr = rep.get("growth")
    if gr:
        fig, axes = plt.subplots(1, 3, figsize=(14, 4.3))
        ax = axes[0]
        for sched, color, x_key in (("distinct", "tab:blue", "distinct"),
                                    ("repeat", "tab:red", "iterations")):
            c = gr["curves"][sched]
            xs = c[x_key] if sched == "distinct" else c["iterations"]
            ys = [100 * (s["mean"] or 0) for s in c["index_coverage"]]
            lo = [100 * (s["ci"][0] if s["ci"] else s["mean"]) for s in c["index_coverage"]]
            hi = [100 * (s["ci"][1] if s["ci"] else s["mean"]) for s in c["index_coverage"]]
            label = ("one pass: coverage vs distinct questions" if sched == "distinct" else
                     f"repeat-heavy ({st['repeat_distinct']} × {st['repeat_epochs']}): vs "
                     "iterations")
            ax.plot(xs, ys, color=color, label=label)
            ax.fill_between(xs, lo, hi, color=color, alpha=0.2)
        ax.scatter([100, 200], [100 * P.COVERAGE_AT_100, 100 * P.COVERAGE_AT_200_REPEATED],
                   marker="x", color="black", s=60, zorder=5,
                   label="paper (100 questions, then repeated)")
        ax.axhline(100, color="tab:orange", lw=1, ls="--", label="B3")
        ax.set_xlabel("questions (distinct) / iterations (repeat schedule)")
        ax.set_ylabel("index_coverage (%)")
        ax.set_title("coverage growth")
        ax.legend(fontsize=7)
        sizes = gr["sizes"]
        for ax, budget, key, label in ((axes[1], m, "saved", f"held-out steps saved, M = {m}"),
                                       (axes[2], t, "f1", f"held-out F1, M = {t}")):
            stats = [gr["states"][f"distinct@{s}"][budget][key] for s in sizes]
            ys = [s["mean"] for s in stats]
            ax.errorbar(sizes, ys, yerr=[[s["mean"] - (s["ci"] or [s["mean"]] * 2)[0]
                                          for s in stats],
                                         [(s["ci"] or [s["mean"]] * 2)[1] - s["mean"]
                                          for s in stats]],
                        fmt="o-", color="tab:blue", capsize=3, label="trained (one pass)")
            b3 = gr["states"].get("B3", {}).get(budget, {}).get(key, {})
            if b3.get("mean") is not None:
                ax.axhline(b3["mean"], color="tab:orange", ls="--", label="B3")
            if key == "f1":
                b1 = gr["states"]["B1"][budget]["f1"]["mean"]
                ax.axhline(b1, color="grey", ls=":", label="B1")
            ax.axvline(4 * gr["base_size"], color="black", lw=0.6, ls=":")
            ax.set_xlabel("distinct training questions")
            ax.set_ylabel(label)
            ax.legend(fontsize=8)
        axes[1].set_title("steps saved on never-trained questions")
        axes[2].set_title("accuracy on never-trained questions")
        fig.suptitle(f"coverage growth, mean over seeds {gr['seeds']} with 95% CI "
                     f"(dotted line: 4 × {gr['base_size']})")
        fig.tight_layout()
        path = out / "coverage_growth.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written
