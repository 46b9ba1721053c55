"""``reproduction.md``: the table first, then how each figure was measured."""

from __future__ import annotations

from kbgym.reproduce.table import counts


def _esc(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _f(x, spec=".3f") -> str:
    return "–" if x is None else format(x, spec)


def _ci(s: dict | None, spec=".3f", scale=1.0) -> str:
    if not s or s.get("mean") is None:
        return "–"
    ci = s.get("ci")
    txt = format(scale * s["mean"], spec)
    return txt + (f" [{format(scale * ci[0], spec)}, {format(scale * ci[1], spec)}]" if ci else "")


def _state_order(item) -> tuple:
    name, s = item
    kind = {"B1": 0, "B3": 1}.get(name, 2 if name.startswith("distinct") else 3)
    return (kind, s.get("iteration") or 0, name)


def table_markdown(rep: dict) -> str:
    """The claim table alone (what the README quotes)."""
    k = len(rep["settings"]["seeds"])
    lines = [f"| # | paper claim | paper | KBGym (95 % CI over {k} seeds) | ideal navigator ρ "
             f"| verdict | why KBGym differs |",
             "|---|---|---|---|---|---|---|"]
    for i, r in enumerate(rep["table"], start=1):
        lines.append(f"| {i} | {_esc(r['claim'])} | {_esc(r['paper_text'])} | "
                     f"{_esc(r['kbgym_text'])} | {_esc(r['navigator'])} | **{r['verdict']}** | "
                     f"{_esc(r['why'])} |")
    return "\n".join(lines) + "\n"


def render_markdown(rep: dict) -> str:
    st = rep["settings"]
    c = counts(rep["table"])
    secs = rep["seconds"]
    lines = [
        "# Does KBGym reproduce the paper?", "",
        f"`{rep['command']}` — {len(st['seeds'])} seeds ({', '.join(map(str, st['seeds']))}); "
        f"{rep['runs']['done']} sweep runs ({rep['runs']['ran']} ran now, "
        f"{rep['runs']['skipped']} already done"
        + (f", {rep['runs']['failed']} failed" if rep["runs"]["failed"] else "") + "); "
        f"this invocation took {secs['wall']:.0f} s wall; the runs themselves "
        f"{secs['runs_total']:.0f} s wall and {secs.get('runs_cpu', 0):.0f} s CPU (sums over "
        "runs, whenever they ran).", "",
        f"**{c['within CI']} within CI, {c['same direction']} same direction, {c['differs']} "
        f"differ**" + (f", {c['undecided']} undecided" if c["undecided"] else "")
        + (f", {c['not measured']} not measured" if c["not measured"] else "") +
        f" of {len(rep['table'])} claims. The paper's figures are one seed with gpt-5-mini as "
        "reader and curator; KBGym's are the scripted curator (`scripted-index`) and the fixed "
        "scripted reader over seeds. *within CI*: the paper's figure lies in KBGym's 95 % "
        "between-seed CI (or KBGym's in the paper's CI); *same direction*: KBGym's figure passes "
        "the claim's test (listed below) but not within CI; *differs*: neither; *undecided*: "
        "fewer than 3 seeds and a CI wider than the claim's margin (it holds the paper's "
        "figure and values where the claim fails), so no verdict. The ideal "
        "navigator (docs/protocol.md §12.6) is a reader that knows each question's support: "
        "its ρ on the same arm and questions says what the library itself allows.", "",
        table_markdown(rep).rstrip("\n"), "",
        "## How each figure was measured", "",
        "| # | claim id | measured on | test for *same direction* |", "|---|---|---|---|"]
    for i, r in enumerate(rep["table"], start=1):
        lines.append(f"| {i} | `{r['id']}` | {_esc(r['where'])} | {_esc(r['test'])} |")
    b = rep.get("budgets") or {}
    if b:
        lines += ["", "## The tight budget", "",
                  f"At the env's M = {st['m']} the scripted reader answers every probe question "
                  f"on B1 (pooled F1 {_f(b.get('b1_f1_m'))}), so no accuracy gain can show. "
                  f"The accuracy side is read at M = {st['tight_m']}, where B1's pooled F1 on "
                  f"the probe is {_f(b.get('b1_f1_tight'))} (`python "
                  "scripts/experiments/tight_budget.py` scans M)."]
    gr = rep.get("growth")
    if gr:
        lines += ["", "## Coverage growth", "",
                  f"Held-out questions: {gr['n_held_out']} per seed (never trained). Mean over "
                  f"seeds [95 % CI]; ρ, saved steps and ρ_nav at M = {st['m']}, F1 at "
                  f"M = {st['tight_m']}.", "",
                  "| library | distinct questions | index_coverage | links | held-out ρ | steps "
                  f"saved | ρ_nav | F1 (M = {st['tight_m']}) |",
                  "|---|---|---|---|---|---|---|---|"]
        m, t = str(st["m"]), str(st["tight_m"])
        for name, s in sorted(gr["states"].items(), key=_state_order):
            lines.append(
                f"| {name} | {_f(s['distinct'], 'd') if s['distinct'] is not None else '–'} | "
                f"{_ci(s['index_coverage'], '.1f', 100)} % | {_ci(s['n_links'], ',.0f')} | "
                f"{_ci(s[m]['rho'])} | {_ci(s[m]['saved'], '.2f')} | {_ci(s[m]['rho_nav'])} | "
                f"{_ci(s[t]['f1'])} |")
    if rep.get("notes"):
        lines += ["", "## Notes", ""] + [f"- {n}" for n in rep["notes"]]
    plots = ", ".join(f"`{p}`" for p in rep["plots"])
    lines += ["", f"Files: `reproduction.json` (every figure), {plots}; "
              "the sweep runs are under `runs/` (`kbgym sweep report` reads the chains)."]
    return "\n".join(lines) + "\n"
