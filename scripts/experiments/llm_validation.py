"""Is the instrument right for a real reader? A language model as reader on B1, the canonical
trained library and another curator's library, and as curator.

    python scripts/experiments/llm_validation.py --base-url http://127.0.0.1:8765/v1 \\
        --model qwen2.5-coder-1.5b [--n 24] [--groups exact,share0] [--m 15] \\
        [--other entity-pages] [--curator-questions 20] [--parts reader,curator] [--out DIR]
    python scripts/experiments/llm_validation.py --fake --people 60 --n 3 --train-size 20 \\
        --curator-questions 2                        # the plumbing only, on the fake server

A benchmark, not a test. On the default universe (or ``--universe``):

1. the canonical trained library: the scripted index curator on train[:100] x 2 epochs, and
   the probe made from that run (``kbgym probe make``); the first ``--n`` questions of each of
   ``--groups`` are examined in every arm (the same questions);
2. ``--other``: one more curator of ``kbgym_agents.zoo.curators.ZOO`` trained the same way
   (default ``entity-pages``: an ``About X.`` page per person);
3. reader arms B1, trained and other, each examined by the LLM reader (the fields mode, the
   small skills and the guards by default; ``--tool-mode``/``--skills`` change them) and by the
   scripted reader; ρ, its paired-bootstrap CI, F1 and the CI of F1(arm) − F1(B1) per group
   from :func:`kbgym.runs.probe.probe_table`, one table per reader, with seconds per question
   for the LLM. Columns of the ideal navigator (``nav_steps``/``nav_f1`` in test_log rows,
   ``rho_nav`` in the table) are printed when the rows or the table carry them;
4. the LLM as curator (role trainer) on the first ``--curator-questions`` training questions,
   one epoch: the share of valid actions (forward, backward, all), the edits by kind, and the
   structure metrics of ``kbgym report`` (link-inferred index precision/recall, false
   statements, size).

Each LLM exam appends its rows to ``DIR/llm_<arm>/rows.jsonl`` as it goes: run the same
command again after a stop and only the missing questions are asked. Prints the tables and
writes ``DIR/validation.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kbgym_agents.llm.agent import make_llm_agent  # noqa: E402
from kbgym_agents.zoo.curators import ZOO  # noqa: E402
from kbgym.env.config import KBGymConfig  # noqa: E402
from kbgym.env.env import load_universe  # noqa: E402
from kbgym.errors import ConfigError  # noqa: E402
from kbgym.jsonio import write_canonical  # noqa: E402
from kbgym.library.graph import Library  # noqa: E402
from kbgym.library.snapshot import load_snapshot  # noqa: E402
from kbgym.plugins import make_agent  # noqa: E402
from kbgym.runs.exam import examine  # noqa: E402
from kbgym.runs.gradient import probe_questions  # noqa: E402
from kbgym.runs.logs import read_jsonl  # noqa: E402
from kbgym.runs.probe import make_probe_from_run, mark, probe_table  # noqa: E402
from kbgym.runs.report import build_report  # noqa: E402
from kbgym.runs.train import TrainConfig, train  # noqa: E402
from kbgym.worlds.people import UniverseConfig, generate  # noqa: E402

ARMS = ("B1", "trained", "other")
NAV_ROW = ("nav_steps", "nav_f1")
NAV_CELL = ("rho_nav",)
EDITS = ("add", "edit", "delete", "link", "link_many", "unlink")


# -- setting up ------------------------------------------------------------------------------


def universe_of(args, out: Path):
    if args.universe:
        try:
            return load_universe(args.universe)[0]
        except (OSError, ValueError, KeyError) as err:
            raise ConfigError(f"{args.universe}: not a readable universe ({err})") from None
    cfg = UniverseConfig(seed=args.seed) if not args.people else \
        UniverseConfig(seed=args.seed, n_people=args.people, n_cities=8, sizes=(40, 30, 20),
                       eval_sizes=(10, 6))
    return generate(cfg)


def trained(universe, curator: str, out: Path, train_size: int) -> Library:
    """The epoch-2 library of ``curator`` on train[:train_size] (trained once, then reused)."""
    snap = out / "kb_epoch_2.json"
    if not snap.exists():
        train(universe, make_agent(ZOO.get(curator, curator)), out,
              config=TrainConfig(epochs=2, train_size=train_size, snapshot_every=1000))
    return load_snapshot(snap)[0]


def probe_subset(universe, run: Path, groups: list[str], n: int, out: Path) -> dict:
    """The probe of the canonical run, cut to the first ``n`` questions of each group."""
    path = out / "probe.json"
    if path.exists():
        probe = json.loads(path.read_text())
    else:
        probe = make_probe_from_run(universe, run, per_group=max(n, 30))
        missing = [g for g in groups if g not in probe["splits"]]
        if missing:
            raise ConfigError(f"the probe has no group {', '.join(missing)}")
        probe["splits"] = {g: probe["splits"][g][:n] for g in groups}
        keep = {gid for gids in probe["splits"].values() for gid in gids}
        probe["questions"] = [q for q in probe["questions"] if q["qid"] in keep]
        write_canonical(path, probe)
    short = {g: len(v) for g, v in probe["splits"].items() if len(v) < n}
    if short:
        print(f"note: fewer than {n} questions in " +
              ", ".join(f"{g} ({k})" for g, k in short.items()), flush=True)
    return probe


# -- exams -----------------------------------------------------------------------------------


def llm_reader(args):
    return make_llm_agent("reader", model=args.model, base_url=args.base_url,
                          api_key_env=args.api_key_env, tool_mode=args.tool_mode,
                          skill_set=args.skills, max_tokens=args.max_tokens,
                          temperature=args.temperature, timeout_s=args.timeout, max_retries=2,
                          question_timeout_s=args.question_timeout, **args.fast)


def done_rows(probe: dict, out: Path) -> list[dict]:
    """The rows in ``out/rows.jsonl`` for the probe's questions, in probe order."""
    path = out / "rows.jsonl"
    rows = read_jsonl(path) if path.exists() else []
    order = {(g, q): i for i, (g, gids) in enumerate(probe["splits"].items()) for q in gids}
    seen: dict = {}
    for r in rows:
        seen.setdefault((r["split"], r["qid"]), r)
    return sorted((r for k, r in seen.items() if k in order), key=lambda r: order[
        (r["split"], r["qid"])])


def exam_llm(universe, lib: Library, probe: dict, args, out: Path,
             groups: list[str]) -> dict:
    """The LLM reader on the questions of ``groups`` not yet in ``out/rows.jsonl`` (appended
    one by one, with the seconds each took); returns the reader's counters."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "rows.jsonl"
    have = {(r["split"], r["qid"]) for r in done_rows(probe, out)}
    qs, splits = probe_questions(probe)
    todo = {g: [q for q in splits[g] if (g, q) not in have] for g in groups if g in splits}
    reader = llm_reader(args)
    t = [time.perf_counter()]

    def keep(i, n, row):
        now = time.perf_counter()
        row = dict(row, seconds=round(now - t[0], 3))
        t[0] = now
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row, sort_keys=True) + "\n")
        if not args.quiet:
            print(f"  {out.name} {i}/{n} {row['split']} {row['qid']} f1={row['f1']:.2f} "
                  f"steps={row['steps']} {row['seconds']:.0f}s", flush=True)

    if any(todo.values()):
        examine(universe, lib, reader, KBGymConfig(m=args.m), split=list(todo),
                questions=qs, splits=todo, label=out.name, progress=keep)
    reader.close()
    return reader.stats


def exam_scripted(universe, lib: Library, probe: dict, args) -> list[dict]:
    qs, splits = probe_questions(probe)
    return examine(universe, lib, make_agent(args.scripted_reader), KBGymConfig(m=args.m),
                   split=list(splits), questions=qs, splits=splits)


# -- tables ----------------------------------------------------------------------------------


def _mean(xs) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.fmean(xs) if xs else None


def _f(x, spec=".3f") -> str:
    return "-" if x is None else format(x, spec)


def table_lines(title: str, table: dict, rows: dict[str, list[dict]], seconds: bool) -> list[str]:
    """One line per group x arm: n, steps, ρ [CI] mark, F1, ΔF1 [CI], and the navigator's
    columns and s/question where present."""
    nav_rows = any(k in r for rs in rows.values() for r in rs for k in NAV_ROW)
    nav_cell = any(k in c for g in table["groups"].values() for c in g["all"].values()
                   for k in NAV_CELL)
    head = (f"{'group':8s}{'arm':10s}{'n':>4s}{'steps':>7s}{'rho':>7s}    {'95% CI':13s}"
            f"{'F1':>6s}{'dF1':>7s}  {'dF1 95% CI':15s}")
    if nav_rows:
        head += f"{'nav steps':>10s}{'nav F1':>8s}"
    if nav_cell:
        head += f"{'rho_nav':>9s}"
    if seconds:
        head += f"{'s/q':>6s}"
    lines = [title, head]
    for group, cells in table["groups"].items():
        for arm, c in cells["all"].items():
            if not c["n"]:
                continue
            ci = f"{c['ci'][0]:.3f}-{c['ci'][1]:.3f}" if c.get("ci") else ""
            dci = (f"{c['f1_diff_ci'][0]:+.2f}..{c['f1_diff_ci'][1]:+.2f}"
                   if c.get("f1_diff_ci") else "")
            line = (f"{group:8s}{arm:10s}{c['n']:4d}{c['mean_steps']:7.2f}{c['rho']:7.3f}"
                    f"{mark(c):4s}{ci:13s}{c['f1']:6.3f}{c['f1_diff']:+7.3f}  {dci:15s}")
            rs = [r for r in rows[arm] if r["split"] == group]
            if nav_rows:
                line += (f"{_f(_mean(r.get('nav_steps') for r in rs), '10.2f')}"
                         f"{_f(_mean(r.get('nav_f1') for r in rs), '8.3f')}")
            if nav_cell:
                line += f"{_f(c.get('rho_nav'), '9.3f')}"
            if seconds:
                line += f"{_f(_mean(r.get('seconds') for r in rs), '6.0f')}"
            lines.append(line)
    return lines


def answer_lines(table: dict, label: str) -> list[str]:
    """The plain answer: does the trained library lower the reader's steps on exact, and keep
    its F1?"""
    groups = table["groups"]
    if "exact" not in groups or "trained" not in groups["exact"]["all"]:
        return []
    c = groups["exact"]["all"]["trained"]
    if not c["n"] or not c.get("ci"):
        return []
    lo, hi = c["ci"]
    b1_f1 = c["f1"] - c["f1_diff"]
    if c["f1"] == 0 and b1_f1 == 0:  # steps of a reader that never answers right say nothing
        return [f"{label}: answers no exact question right on either library (F1 0.000), so "
                f"its steps (rho {c['rho']:.3f}) measure when it gives up, not the library"]
    steps = ("lowers its steps" if hi < 1 else "raises its steps" if lo > 1
             else "does not change its steps measurably")
    dlo, dhi = c["f1_diff_ci"]
    f1 = "loses F1" if dhi < 0 else "keeps its F1"  # formula (1) with delta 0
    return [f"{label}: on exact the trained library {steps} (rho {c['rho']:.3f}, 95% CI "
            f"{lo:.3f}-{hi:.3f}) and {f1} (F1 {c['f1']:.3f} vs B1 "
            f"{b1_f1:.3f}, dF1 95% CI {dlo:+.3f}..{dhi:+.3f})"]


# -- the curator -----------------------------------------------------------------------------


def curator_run(universe, args, out: Path) -> dict:
    """The LLM as curator on train[:k], one epoch: valid actions, edits and structure."""
    run = out / "curator"
    if not (run / "meta.json").exists() or not (run / "kb_epoch_1.json").exists():
        agent = make_llm_agent("trainer", model=args.model, base_url=args.base_url,
                               api_key_env=args.api_key_env, tool_mode=args.tool_mode,
                               skill_set=args.skills, max_tokens=args.max_tokens,
                               temperature=args.temperature, timeout_s=args.timeout,
                               max_retries=2, question_timeout_s=args.question_timeout,
                               **args.fast)
        t0 = time.perf_counter()

        def show(i, n, row):
            if not args.quiet:
                print(f"  curator {i}/{n} {row['qid']} f1={row.get('f1', 0):.2f} "
                      f"({time.perf_counter() - t0:.0f}s)", flush=True)

        train(universe, agent, run, progress=show, resume=(run / "meta.json").exists(),
              config=TrainConfig(epochs=1, train_size=args.curator_questions,
                                 snapshot_every=1000))
        agent.close()
    trace = read_jsonl(run / "trace.jsonl")
    steps = [r for r in trace if r.get("kind") == "train"]
    by_phase: dict[str, list] = {}
    for r in steps:
        by_phase.setdefault(str(r.get("phase")), []).append(r)

    def share(rs):
        return sum(bool(r["valid"]) for r in rs) / len(rs) if rs else None

    rep = build_report(run, universe)
    s = rep["structure"]
    edits = {k: sum(r["action"] == k for r in steps) for k in EDITS}
    return {
        "questions": args.curator_questions, "steps": len(steps),
        "valid_share": share(steps),
        "valid_share_by_phase": {p: share(rs) for p, rs in sorted(by_phase.items())},
        "edits": edits, "kb_size": rep["kb_size"],
        "structure": {k: s.get(k) for k in ("index_nodes", "scorable", "precision", "recall",
                                             "links_scored", "links_correct", "families",
                                             "character", "out_degree") if k in s},
        "false_statements": rep["misinformation"].get("false_statements"),
        "forward_f1": rep["train_forward"]["by_epoch"],
        "noops": sum(r["action"] == "__noop__" for r in steps),
    }


def curator_lines(c: dict) -> list[str]:
    st = c["structure"]
    edits = ", ".join(f"{k} {v}" for k, v in c["edits"].items() if v) or "none"
    phases = ", ".join(f"phase {p} {_f(v, '.3f')}" for p, v in c["valid_share_by_phase"].items())
    return [f"LLM curator, {c['questions']} training questions x 1 epoch: {c['steps']} steps, "
            f"valid actions {_f(c['valid_share'])} ({phases}), no-ops {c['noops']}",
            f"  edits: {edits}; library {c['kb_size']}",
            f"  structure: {st.get('index_nodes')} index notes ({st.get('scorable')} scorable), "
            f"families {st.get('families')}, character {st.get('character')}; index "
            f"precision {_f(st.get('precision'))}, recall {_f(st.get('recall'))}; false "
            f"statements {c['false_statements']}"]


# -- main ------------------------------------------------------------------------------------


def start_fake(args):
    sys.path.insert(0, str(ROOT / "tests" / "llm"))
    from fake_server import FakeServer

    srv = FakeServer(keep_requests=False).start()
    args.base_url, args.model = srv.url, "fake"
    args.fast = {"backoff_initial_s": 0.005, "backoff_max_s": 0.02}
    return srv


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base-url")
    p.add_argument("--model")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY")
    p.add_argument("--fake", action="store_true", help="the tests' fake server (plumbing only)")
    p.add_argument("--universe", help="universe.json (default: the default universe)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--people", type=int, default=0, help="a small generated universe instead")
    p.add_argument("--train-size", type=int, default=100, help="the curators' training questions")
    p.add_argument("--groups", default="exact,share0", help="the probe's groups")
    p.add_argument("--exam-groups", default="",
                   help="the groups the LLM reader examines in this run (default: all)")
    p.add_argument("--n", type=int, default=24, help="questions per group")
    p.add_argument("--m", type=int, default=15, help="the exam budget")
    p.add_argument("--other", default="entity-pages", choices=[k for k in ZOO
                                                               if k != "scripted-index"])
    p.add_argument("--parts", default="reader,curator")
    p.add_argument("--arms", default=",".join(ARMS),
                   help="the arms the LLM reader examines in this run (the tables use every "
                        "arm's rows so far)")
    p.add_argument("--curator-questions", type=int, default=20)
    p.add_argument("--tool-mode", default="fields",
                   choices=["auto", "tools", "single", "text", "fields"])
    p.add_argument("--skills", default="small", choices=["full", "small"])
    p.add_argument("--scripted-reader", default="scripted-reader")
    p.add_argument("--max-tokens", type=int, default=256)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--timeout", type=float, default=600.0)
    p.add_argument("--question-timeout", type=float, default=1800.0)
    p.add_argument("--resamples", type=int, default=10000)
    p.add_argument("--out", default="runs/llm-validation")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    args.fast = {}
    parts = {x.strip() for x in args.parts.split(",") if x.strip()}
    groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    try:
        if set(arms) - set(ARMS):
            raise ConfigError(f"--arms: expected some of {', '.join(ARMS)}, got {args.arms!r}")
        if parts - {"reader", "curator"} or not parts:
            raise ConfigError(f"--parts: expected reader and/or curator, got {args.parts!r}")
        if not args.model and not args.fake:
            raise ConfigError("give --model (or --fake)")
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        universe = universe_of(args, out)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    srv = start_fake(args) if args.fake else None
    result: dict[str, Any] = {"model": args.model, "fake": args.fake, "m": args.m,
                              "tool_mode": args.tool_mode, "skills": args.skills}
    lines: list[str] = []
    try:
        if "reader" in parts:
            libs = {"B1": Library.from_universe(universe),
                    "trained": trained(universe, "scripted-index", out / "train_index",
                                       args.train_size),
                    "other": trained(universe, args.other, out / f"train_{args.other}",
                                     args.train_size)}
            probe = probe_subset(universe, out / "train_index", groups, args.n, out)
            print(f"{sum(map(len, probe['splits'].values()))} questions "
                  f"({', '.join(f'{g} {len(v)}' for g, v in probe['splits'].items())}) x "
                  f"{len(libs)} arms, m = {args.m}, model {args.model}", flush=True)
            scripted = {arm: exam_scripted(universe, lib, probe, args)
                        for arm, lib in libs.items()}
            stats = {}
            now = [g for g in (args.exam_groups.split(",") if args.exam_groups else groups)
                   if g in groups]
            for group in now:  # group by group, so a cut run has whole comparisons
                for arm in arms:
                    stats[f"{group}/{arm}"] = exam_llm(universe, libs[arm], probe, args,
                                                       out / f"llm_{arm}", [group])
            llm = {arm: done_rows(probe, out / f"llm_{arm}") for arm in libs}
            llm = {arm: rows for arm, rows in llm.items() if rows}
            if "B1" not in llm:
                raise ConfigError("no LLM rows on B1 yet: examine it first (--arms B1)")
            t_llm = probe_table(llm, probe, resamples=args.resamples)
            t_scr = probe_table(scripted, probe, resamples=args.resamples)
            other = f"other = {args.other}"
            lines += table_lines(f"\nLLM reader ({args.model}, {args.tool_mode}, skills "
                                 f"{args.skills}), m = {args.m}; {other}", t_llm, llm, True)
            lines += table_lines(f"\n{args.scripted_reader}, the same questions", t_scr,
                                 scripted, False)
            lines += [""] + answer_lines(t_llm, "LLM reader") + \
                answer_lines(t_scr, args.scripted_reader)
            result.update(other=args.other, probe_splits=probe["splits"], llm_table=t_llm,
                          scripted_table=t_scr, llm_stats=stats,
                          seconds_per_question={a: _mean(r.get("seconds") for r in rs)
                                                for a, rs in llm.items()})
        if "curator" in parts:
            result["curator"] = curator_run(universe, args, out)
            lines += [""] + curator_lines(result["curator"])
    finally:
        if srv is not None:
            srv.stop()
    print("\n".join(lines))
    write_canonical(out / "validation.json", result)
    print(f"\nwrote {out / 'validation.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
