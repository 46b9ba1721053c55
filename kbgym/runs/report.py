"""``kbgym report``: a run directory summarised as report.json and report.md (SPEC §15.1)."""

from __future__ import annotations

import os
import statistics
from collections import Counter, defaultdict
from pathlib import Path

from kbgym.env.actions import EDIT_ACTIONS
from kbgym.errors import ConfigError
from kbgym.library.graph import Library
from kbgym.library.stats import index_coverage_2hop, question_index_coverage
from kbgym.metrics.costs import PriceTable, cached_share, exam_costs, tokens_of
from kbgym.metrics.misinformation import misinformation
from kbgym.metrics.outcomes import breakdowns, category_key
from kbgym.metrics.structure import edge_classes, index_structure, link_support_alignment
from kbgym.runs.logs import read_jsonl, verify_trace, write_json
from kbgym.runs.probe import format_table, has_nav, legend
from kbgym.runs.replay import load_run_universe, read_run_meta, snapshot_library
from kbgym.safeload import read_data
from kbgym.scoring import score_block


def _mean(xs):
    xs = list(xs)
    return statistics.fmean(xs) if xs else None


def forward_by_epoch(train_log: list[dict]) -> dict:
    """Forward F1, steps and budget exhaustion per epoch, overall and per class (E3)."""
    by = defaultdict(list)
    for r in train_log:
        by[r["epoch"]].append(r)
    out = {}
    for epoch, rows in sorted(by.items()):
        cats = defaultdict(list)
        for r in rows:
            cats[r["category"]].append(r["f1"])
        out[str(epoch)] = {
            "n": len(rows), "f1": _mean(r["f1"] for r in rows),
            "p1_steps": _mean(r["p1_steps"] for r in rows),
            "exhausted": sum(r["answer"] is None for r in rows),
            "by_category": {c: _mean(v) for c, v in sorted(cats.items(),
                                                           key=lambda kv: category_key(kv[0]))},
        }
    return out


def forward_f1_by(train_log: list[dict], field: str) -> dict:
    """Forward F1 per class (or template) and epoch: {name: {epoch: mean F1}}."""
    by = defaultdict(lambda: defaultdict(list))
    for r in train_log:
        by[r[field]][str(r["epoch"])].append(r["f1"])
    key = category_key if field == "category" else str
    return {name: {e: _mean(v) for e, v in epochs.items()}
            for name, epochs in sorted(by.items(), key=lambda kv: key(kv[0]))}


def edit_mix(train_log: list[dict], series: list[dict]) -> dict:
    """Edits and backward steps per iteration by epoch, net nodes added, totals (E1, E4)."""
    by = defaultdict(list)
    for r in train_log:
        by[r["epoch"]].append(r)
    nodes_at = {s["iteration"]: s["n_nodes"] for s in series}
    per_epoch = {}
    for epoch, rows in sorted(by.items()):
        first, last = rows[0]["iteration"], rows[-1]["iteration"]
        net = (nodes_at.get(last, 0) - nodes_at.get(first - 1, 0)) / len(rows) \
            if (first - 1) in nodes_at and last in nodes_at else None
        per_epoch[str(epoch)] = {
            "edits_per_iteration": _mean(sum(r["edits"].values()) for r in rows),
            "p2_steps": _mean(r["p2_steps"] for r in rows),
            "net_nodes_per_iteration": net,
        }
    totals = Counter()
    for r in train_log:
        totals.update(r["edits"])
    return {"by_epoch": per_epoch, "totals": {k: totals.get(k, 0) for k in EDIT_ACTIONS},
            "judge_calls": sum(r["judge_calls"] for r in train_log),
            "merges": sum(r["merges"] for r in train_log)}


def coverage_dynamics(train_log: list[dict], series: list[dict]) -> dict:
    """index_coverage per iteration and its slope per distinct question seen."""
    cov = [(s["iteration"], s["index_coverage"]) for s in series]
    seen, distinct = set(), {}
    for r in train_log:
        seen.add(r["qid"])
        distinct[r["iteration"]] = len(seen)
    slope = None
    if train_log:
        last = train_log[-1]["iteration"]
        final = dict(cov).get(last)
        if final is not None and distinct.get(last):
            slope = 100 * (final - cov[0][1]) / distinct[last]
    return {"index_coverage": cov, "points_per_distinct_question": slope}


def token_costs(meta: dict, train_log: list[dict], curve: dict, prices=None) -> dict:
    """Prompt, completion and cached prompt tokens of training and of each exam, the cached
    share, and with a price table (:mod:`kbgym.metrics.costs`) the cost with and without the
    cache discount and the cost per correct exam answer. The run's agent model is priced."""
    model = (meta.get("agent") or {}).get("model")
    table = PriceTable.load(prices) if prices is not None else None
    t_in, t_out, cached = tokens_of(train_log)
    train = {"tokens_in": t_in, "tokens_out": t_out, "tokens_cached": cached,
             "cached_share": cached_share(t_in, cached), "cost_usd": None,
             "cost_usd_no_cache": None}
    if table is not None:
        train["cost_usd"] = table.cost(model, t_in, t_out, cached)
        train["cost_usd_no_cache"] = table.cost(model, t_in, t_out)
    return {"model": model, "priced": table is not None, "train": train,
            "exams": {label: exam_costs(rows, model, table) for label, rows in curve.items()}}


def find_probe_table(run_dir: Path, probe_table: str | Path | None = None) -> dict | None:
    """The probe table to include (:func:`locate_probe_table`), or None."""
    return locate_probe_table(Path(run_dir), probe_table)[0]


def locate_probe_table(run_dir: Path, probe_table: str | Path | None = None
                       ) -> tuple[dict | None, str | None]:
    """The probe table to include and the file it came from: ``probe_table`` if given, else
    ``run_dir/probe_table.json`` when a ``kbgym probe table --out`` left one there, else the
    one the run's previous report included (the demo's sits next to the run folder), so that
    re-running ``kbgym report`` never drops it."""
    if probe_table:
        path = Path(probe_table)
        if not path.exists():
            raise ConfigError(f"{probe_table}: no such probe table file")
        return read_probe_table(path), _relative(path, run_dir)
    path = run_dir / "probe_table.json"
    if path.exists():
        return read_probe_table(path), "probe_table.json"
    previous = run_dir / "report.json"
    if previous.exists():
        try:
            old = read_data(previous, "previous report", yaml=False, object_only=True)
        except ConfigError:  # an unreadable old report is rewritten, not consulted
            return None, None
        source = old.get("probe_table_source")  # relative to the run folder
        if isinstance(source, str) and (run_dir / source).is_file():
            return read_probe_table(run_dir / source), source
        table = old.get("probe_table")
        if isinstance(table, dict) and "groups" in table:
            return table, source if isinstance(source, str) else None
    return None, None


def _relative(path: Path, run_dir: Path) -> str:
    """``path`` as seen from ``run_dir`` (so a moved run folder keeps finding its table)."""
    return os.path.relpath(path.resolve(), run_dir.resolve())


def read_probe_table(path: Path) -> dict:
    """A probe table file, checked; ``ConfigError`` naming the file when it is not one."""
    try:
        table = read_data(path, "probe table", yaml=False)
    except ConfigError as e:
        raise ConfigError(f"{e} (not a probe table)") from None
    if not isinstance(table, dict) or "groups" not in table:
        raise ConfigError(f"{path}: not a probe table (no 'groups'; write one with "
                          "kbgym probe table --out)")
    return table


def build_report(run_dir: str | Path, universe=None, probe_table: str | Path | None = None,
                 prices=None, *, library: Library | None = None) -> dict:
    """The report of a run; ``prices`` (a price table or its file) adds money to the costs.
    ``library``: the run's last epoch's library when the caller has it loaded already (the
    demo), used if its content hash is the snapshot's (:func:`snapshot_library`)."""
    run_dir = Path(run_dir)
    meta = read_run_meta(run_dir)
    u = load_run_universe(run_dir, universe)
    verify_trace(run_dir)  # a report of a cut or altered run is refused, naming the row
    from kbgym.runs.manifest import verify_run

    verify_run(run_dir, meta)  # and of one whose files differ from what meta.json records
    train_log = read_jsonl(run_dir / "train_log.jsonl")
    series = read_jsonl(run_dir / "series.jsonl")
    kb_stats = read_jsonl(run_dir / "kb_stats.jsonl")
    test_log = read_jsonl(run_dir / "test_log.jsonl")
    last_epoch = kb_stats[-1]["epoch"] if kb_stats else 0
    final_lib = snapshot_library(run_dir / f"kb_epoch_{last_epoch}.json", library)

    curve = defaultdict(list)
    for r in test_log:
        curve[str(r["epoch"])].append(r)
    labels = list(curve)
    table, source = locate_probe_table(run_dir, probe_table)
    return {
        "schema_version": 1, "run_id": meta["run_id"],
        "learning_curve": {k: score_block(v) for k, v in curve.items()},
        "final_test": breakdowns(curve[labels[-1]]) if labels else None,
        "costs": {"tokens": meta["tokens"], "train_iterations": len(train_log),
                  **token_costs(meta, train_log, curve, prices)},
        "kb_size": {k: final_lib.stats()[k] for k in ("n_nodes", "n_links",
                                                       "authored_statements")},
        "train_forward": {"by_epoch": forward_by_epoch(train_log)},
        "by_category": forward_f1_by(train_log, "category"),
        "by_template": forward_f1_by(train_log, "template"),
        "edit_mix": edit_mix(train_log, series),
        "coverage": {
            **coverage_dynamics(train_log, series),
            "index_coverage_2hop": index_coverage_2hop(final_lib),
            "question_index_coverage": question_index_coverage(
                final_lib, [u.question(q) for q in sorted({r["qid"] for r in train_log})]),
        },
        "structure": index_structure(final_lib, u),
        "misinformation": misinformation(final_lib, u),
        "edge_classes": edge_classes(final_lib),
        "link_alignment": link_support_alignment(final_lib, u, meta["seed"]),
        "kb_stats": kb_stats,
        "tokens": meta["tokens"],
        # logs written before cached tokens were recorded read as 0
        "tokens_cached": meta.get("tokens_cached") or {
            "train": tokens_of(train_log)[2], "test": tokens_of(test_log)[2]},
        "probe_table": table,
        "probe_table_source": source,
    }


def _fmt(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


def misinformation_line(m: dict) -> str:
    """One line: statements in the notes the agent wrote, checked against the universe."""
    ids = ", ".join(m["false_ids"]) + (" ..." if m["false_notes"] > len(m["false_ids"]) else "")
    if not m.get("applies", True):
        return (f"- misinformation: not checked ({m['unverifiable_statements']} statements in "
                "the generated universes' forms; this universe has its own)")
    partial = m.get("incomplete_sets")  # absent from reports written before it existed
    return (f"- misinformation: {m['false_statements']} false, {m['true_statements']} true, "
            f"{m['unverifiable_statements']} unverifiable statements; {m['false_notes']} of "
            f"{m['notes_written']} written notes state something false"
            + (f" ({ids})" if ids else "")
            + (f"; {partial} incomplete sets (notes linking part of a set: "
               f"{', '.join(m['incomplete_ids'])})" if partial else ""))


def wrong_members_line(m: dict) -> str | None:
    """One line: members the written notes list or link that are not in the set they name
    (``None`` for reports written before the count existed, or an unchecked universe)."""
    if "wrong_members" not in m or not m.get("applies", True):
        return None
    ids = ", ".join(m["wrong_member_ids"])
    return (f"- wrong members: {m['wrong_members']} (non-members a written note lists or links "
            f"in a set its text names" + (f": {ids})" if ids else ")"))


def render_markdown(rep: dict) -> str:
    s = rep["structure"]
    lines = [f"# KBGym run {rep['run_id']}", "", "## Training (forward pass by epoch)", "",
             "| epoch | n | F1 | steps | exhausted | edits/it | backward steps | net nodes/it |",
             "|---|---|---|---|---|---|---|---|"]
    mix = rep["edit_mix"]["by_epoch"]
    for e, row in rep["train_forward"]["by_epoch"].items():
        m = mix.get(e, {})
        lines.append(f"| {e} | {row['n']} | {_fmt(row['f1'])} | {_fmt(row['p1_steps'], '.2f')} | "
                     f"{row['exhausted']} | {_fmt(m.get('edits_per_iteration'), '.2f')} | "
                     f"{_fmt(m.get('p2_steps'), '.2f')} | "
                     f"{_fmt(m.get('net_nodes_per_iteration'), '.2f')} |")
    st = rep["kb_stats"][-1] if rep["kb_stats"] else {}
    od = s["out_degree"]
    lines += ["", "## What was built", "",
              f"- nodes {st.get('n_nodes')}, links {st.get('n_links')}, authored "
              f"{st.get('authored_statements')}, index_coverage {_fmt(st.get('index_coverage'))}",
              "- actions: " + ", ".join(f"{k} {v}" for k, v in rep["edit_mix"]["totals"].items()),
              f"- index precision {_fmt(s['precision'])}, recall {_fmt(s['recall'])} "
              f"({s['scorable']} scorable of {s['index_nodes']})",
              "- character: " + ", ".join(f"{k} {v}" for k, v in s["character"].items()),
              "- index families (from links): " + (", ".join(
                  f"{k} {v}" for k, v in s["families"].items()) or "none") + "; by title "
              "wording: " + (", ".join(f"{k} {v}" for k, v in s.get("families_by_title",
                                                                       {}).items()) or "none"),
              f"- out-degree: mean {_fmt(od['mean'], '.1f')}, median {od['median']}, max "
              f"{od['max']}, empty {od['empty']}, thin {od['thin']}",
              "- edge classes: " + ", ".join(f"{k} {v}" for k, v in rep["edge_classes"].items()),
              f"- coverage slope: {_fmt(rep['coverage']['points_per_distinct_question'])} points "
              f"per distinct question; question_index_coverage "
              f"{rep['coverage']['question_index_coverage']['covered']}/"
              f"{rep['coverage']['question_index_coverage']['total']} trained questions"]
    if rep.get("misinformation"):
        lines.append(misinformation_line(rep["misinformation"]))
        wrong = wrong_members_line(rep["misinformation"])
        if wrong:
            lines.append(wrong)
    if rep["learning_curve"]:
        lines += ["", "## Evaluation by epoch", "", "| epoch | n | F1 | mean steps |",
                  "|---|---|---|---|"]
        for e, b in rep["learning_curve"].items():
            lines.append(f"| {e} | {b['n']} | {_fmt(b['f1'])} | {_fmt(b['mean_steps'], '.2f')} |")
    if rep.get("probe_table"):
        lines += ["", "## Gradient probe (formula (1))", "",
                  "* = the rho CI lies below 1 and there is no F1 loss; F1↓ = the paired CI of "
                  "F1(arm) - F1(base) lies entirely below -delta."]
        if has_nav(rep["probe_table"]):
            lines += ["", "rho_nav is the same ratio for the ideal navigator, a reader that "
                      "knows each question's support (docs/protocol.md §12.6): what the "
                      "library offers, whatever the examiner's reader makes of it. The "
                      "blind-spot lines compare the two savings; a flagged arm is limited by "
                      "the examiner's reader, not by its curator."]
        lines += ["", "```", format_table(rep["probe_table"]), "```", "",
                  *[f"- {line}" for line in legend(rep["probe_table"])]]
    lines += _token_lines(rep["costs"])
    return "\n".join(lines) + "\n"


def _token_lines(costs: dict) -> list[str]:
    """The tokens section: shown when any tokens were spent or a price table was given."""
    parts = {"train": costs["train"], **{f"exam {k}": v for k, v in costs["exams"].items()}}
    if not costs["priced"] and not any(p["tokens_in"] or p["tokens_out"]
                                       for p in parts.values()):
        return []
    lines = ["", "## Tokens", "",
             "prompt tokens (in), the part read from the server's prompt cache (cached, share), "
             "completion tokens (out)" + (f"; USD for {costs['model']}, with and without the "
                                          "cache discount" if costs["priced"] else ""), "",
             "| part | in | cached | share | out | USD | USD no cache | USD/correct | "
             "USD/correct no cache |", "|---|---|---|---|---|---|---|---|---|"]
    for name, p in parts.items():
        lines.append(f"| {name} | {p['tokens_in']} | {p['tokens_cached']} | "
                     f"{_fmt(p['cached_share'], '.2f')} | {p['tokens_out']} | "
                     f"{_fmt(p['cost_usd'], '.4g')} | {_fmt(p['cost_usd_no_cache'], '.4g')} | "
                     f"{_fmt(p.get('cost_per_correct_usd'), '.4g')} | "
                     f"{_fmt(p.get('cost_per_correct_usd_no_cache'), '.4g')} |")
    return lines


def write_report(run_dir: str | Path, universe=None, probe_table: str | Path | None = None,
                 prices=None, *, library: Library | None = None) -> dict:
    rep = build_report(run_dir, universe, probe_table, prices, library=library)
    write_json(Path(run_dir) / "report.json", rep)
    (Path(run_dir) / "report.md").write_text(render_markdown(rep), encoding="utf-8")
    return rep
