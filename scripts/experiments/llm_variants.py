"""Compare LLM-reader variants on the same questions: collapse_repeats, a plan line, JSON in text.

Every variant examines the same questions (by default the first ``--per-category`` QC1 and
QC2 questions of the evaluation splits) on the same library (B1 unless ``--library``) with the
same model and budget, one question at a time, and the figures come from the same run:

- F1, EM, answered share and mean steps, and F1 paired with the first variant (the mean
  difference, a bootstrap 95% CI over questions, and questions won/lost);
- seconds per step: the median over all steps, and the median at each step index 1..m (the
  step-8 figure is what a prefix cache should speed up);
- prompt, completion and cached prompt tokens and the cached share (from the server's usage or
  llama.cpp's timings);
- repeats (a step whose action and input equal an earlier step's in the same question),
  invalid actions, no-ops, and how the agent read the replies (tool call / act / text).

Variants are names joined with ``+`` from:

========== =============================================================================
base        the reader as configured (``--tool-mode``, the RETRIEVAL skill)
collapse    the env's ``collapse_repeats`` on (a repeated identical search/read is shortened)
plan        the ``retrieval_plan`` skill: RETRIEVAL plus one "plan before each action" line
text        JSON in text: no tools; the reply is one ``{"name", "arguments"}`` object
json        with ``text``: also ``response_format={"type": "json_object"}``
v0          the first observation layout (counter line before the history, what
            ``kbgym/KBGym-v0`` keeps), where the environment still offers it
tools       the standard tools mode; ``single``: the single ``act`` tool forced by name
fields      the fields mode: the model fills fields, the agent acts (a JSON schema per step)
noschema    with ``fields``: ``response_format`` json_object without the schema
small       the short skills for small models (``retrieval_small``)
noguards    the guards off (answer at any step, repeats passed through)
nooffers    no index offers after the observation
nochain     with ``fields``: no relation chain (answers, the chain line and the chain's
            searches of :mod:`kbgym_agents.llm.chain` off)
========== =============================================================================

``--variants base,v0`` is the before/after measurement of the observation layout: same
questions, same model, seconds per step by step index and the cached share for each.

    python scripts/experiments/llm_variants.py --base-url http://127.0.0.1:8765/v1 \\
        --model qwen2.5-coder-1.5b --variants base,collapse,plan,text,text+json
    python scripts/experiments/llm_variants.py --fake          # the fake server: checks the plumbing only

llama-cpp-python's server (what ``make llm-demo`` runs) reuses the prompt prefix but reports
nothing about it in its replies, so its cached tokens read as 0 there; ``--server-log
runs/llm-demo/server.log`` counts them from its verbose log instead ("N prefix-match hit")
for each variant. llama.cpp's own ``llama-server`` reports them in every reply.

``--fake`` runs against the loopback fake server of the tests (a toy policy that searches then
answers, reporting cached tokens both ways); its figures say nothing about any model.
Writes ``summary.json`` and one exam directory per variant under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from kbgym_agents.llm.agent import make_llm_agent  # noqa: E402
from kbgym.env.config import KBGymConfig  # noqa: E402
from kbgym.env.env import KBGymEnv, load_universe  # noqa: E402
from kbgym.errors import ConfigError  # noqa: E402
from kbgym.jsonio import write_canonical  # noqa: E402
from kbgym.library.graph import Library  # noqa: E402
from kbgym.library.snapshot import load_snapshot  # noqa: E402
from kbgym.metrics.costs import exam_costs  # noqa: E402
from kbgym.metrics.outcomes import bootstrap_indices  # noqa: E402
from kbgym.runs.episode import run_episode  # noqa: E402
from kbgym.runs.logs import read_jsonl  # noqa: E402
from kbgym.runs.recorder import RunRecorder  # noqa: E402
from kbgym.runs.rows import test_row  # noqa: E402
from kbgym.scoring import score_block  # noqa: E402
from kbgym.worlds.people import UniverseConfig, generate  # noqa: E402

ATOMS = ("base", "collapse", "plan", "text", "json", "v0", "tools", "single", "fields",
         "noschema", "small", "noguards", "nooffers", "nochain")
MODE_ATOMS = ("text", "tools", "single", "fields")
#: The first observation layout, for environments that offer more than one.
FIRST_LAYOUT = {"obs_layout": "counter_first"}
EVAL_SPLITS = ("test_in", "test_out", "eval")


def parse_variant(name: str) -> dict[str, Any]:
    """The settings of a ``+``-joined variant name (``base`` alone is the defaults)."""
    atoms = [a for a in name.split("+") if a]
    unknown = [a for a in atoms if a not in ATOMS]
    if not atoms or unknown:
        raise ConfigError(f"variant {name!r}: unknown part(s) {', '.join(unknown) or '(none)'}; "
                          f"join names from {', '.join(ATOMS)} with +")
    if "json" in atoms and "text" not in atoms:
        raise ConfigError(f"variant {name!r}: json needs text (text+json)")
    if "noschema" in atoms and "fields" not in atoms:
        raise ConfigError(f"variant {name!r}: noschema needs fields (fields+noschema)")
    if "nochain" in atoms and "fields" not in atoms:
        raise ConfigError(f"variant {name!r}: nochain needs fields (fields+nochain)")
    modes = [a for a in atoms if a in MODE_ATOMS]
    if len(modes) > 1:
        raise ConfigError(f"variant {name!r}: more than one tool mode ({', '.join(modes)})")
    return {"collapse": "collapse" in atoms, "plan": "plan" in atoms,
            "text": "text" in atoms, "json": "json" in atoms, "v0": "v0" in atoms,
            "mode": modes[0] if modes else None, "schema": "noschema" not in atoms,
            "small": "small" in atoms, "guards": "noguards" not in atoms,
            "offers": "nooffers" not in atoms, "chain": "nochain" not in atoms}


def env_layout_kwargs(settings: dict) -> dict:
    """The environment's keyword for the variant's observation layout ({} for the current)."""
    if not settings["v0"]:
        return {}
    import inspect

    if "obs_layout" not in inspect.signature(KBGymEnv).parameters:
        raise ConfigError("this environment has one observation layout (no obs_layout "
                          "option), so there is no v0 variant to compare")
    return dict(FIRST_LAYOUT)


def warm_up(agent, universe, library, env_cfg, env_kwargs: dict, qs: dict) -> None:
    """One untimed, unlogged call on the first question's first observation, so that every
    variant starts with the server's prompt cache holding its own system message (otherwise
    the first variant starts cold and each later one inherits the previous variant's)."""
    env = KBGymEnv(universe, mode="probe", library=library, questions=list(qs.values()),
                   split="all", config=env_cfg, **env_kwargs)
    try:
        obs, info = env.reset(options={"qid": next(iter(qs))})
        agent.reset()
        agent.act(obs, info)
    finally:
        agent.close()
        env.close()


def run_exam(universe, library, reader, env_cfg, env_kwargs: dict, qs: dict,
             splits: dict[str, list[str]], label: str, out: Path, progress=None) -> list[dict]:
    """:func:`kbgym.runs.exam.examine` with the environment's layout chosen: the same
    recorder, episodes and test_log rows, one question at a time."""
    env = KBGymEnv(universe, mode="probe", library=library, questions=list(qs.values()),
                   split="all", config=env_cfg, **env_kwargs)
    runner = RunRecorder(env, out, run_id=f"variants-{label}")
    rows = []
    try:
        items = [(name, qs[qid]) for name, qids in splits.items() for qid in qids]
        for i, (name, q) in enumerate(items, start=1):
            runner.begin(epoch=label, split=name)
            summary, _, wall = run_episode(runner, reader, q.qid)
            rows.append(test_row(label, name, q, summary))
            if progress is not None:
                progress(i, len(items), rows[-1])
    finally:
        runner.close()
    return rows


class StepTimer:
    """The reader seen by the exam, timing each decision and numbering it within its question.

    Everything else (``reset``, ``last_usage``, ``stats``, ``meta``) is the reader's."""

    def __init__(self, agent: Any):
        self.agent = agent
        self.steps: list[dict] = []
        self._k = 0

    def reset(self) -> None:
        self._k = 0
        self.agent.reset()

    def act(self, observation: dict, info: dict | None = None) -> Any:
        self._k += 1
        t = time.perf_counter()
        action = self.agent.act(observation, info)
        usage = self.agent.last_usage
        self.steps.append({"step": self._k, "seconds": time.perf_counter() - t,
                           "tokens_in": usage[0], "tokens_cached": usage[2],
                           "fields": getattr(self.agent, "last_fields", None)})
        return action

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)


def pick_questions(universe, categories: list[str], per_category: int,
                   from_splits: tuple[str, ...] = EVAL_SPLITS
                   ) -> tuple[dict, dict[str, list[str]]]:
    """The first ``per_category`` questions of each category over ``from_splits`` (the
    evaluation splits by default), in split order: (questions by qid, {category: qids})."""
    splits: dict[str, list[str]] = {c: [] for c in categories}
    for split in from_splits:
        for qid in universe.splits.get(split, []):
            q = universe.question(qid)
            if q.category in splits and len(splits[q.category]) < per_category \
                    and qid not in splits[q.category]:
                splits[q.category].append(qid)
    empty = [c for c, v in splits.items() if not v]
    if empty:
        raise ConfigError(f"no evaluation question of category {', '.join(empty)}")
    qs = {qid: universe.question(qid) for v in splits.values() for qid in v}
    return qs, splits


def _median(xs) -> float | None:
    xs = list(xs)
    return statistics.median(xs) if xs else None


def repeats(trace: list[dict]) -> int:
    """Steps whose (action, input) equals an earlier step's in the same question."""
    seen: dict[str, set] = defaultdict(set)
    n = 0
    for r in trace:
        key = json.dumps([r["action"], r["input"]], sort_keys=True)
        if key in seen[r["qid"]]:
            n += 1
        seen[r["qid"]].add(key)
    return n


_PREFIX_HIT = re.compile(r"Llama\.generate: (\d+) prefix-match hit, remaining (\d+) prompt "
                         r"tokens to eval")


def log_cache_counts(text: str) -> dict:
    """Prompt-cache hits in a llama-cpp-python server's verbose log: calls that reused a
    prefix, the tokens reused and the tokens still evaluated on those calls, and calls whose
    whole prompt was cached (no count given)."""
    hits = [(int(a), int(b)) for a, b in _PREFIX_HIT.findall(text)]
    return {"prefix_hits": len(hits), "cached": sum(a for a, _ in hits),
            "evaluated_on_hits": sum(b for _, b in hits),
            "full_hits": text.count("full prompt already cached")}


def paired_f1(rows: list[dict], base: list[dict], seed: int, name: str,
              resamples: int) -> dict:
    """Mean F1 difference (variant − base) over shared qids, a bootstrap 95% CI, wins/losses."""
    by = {r["qid"]: r["f1"] for r in base}
    diffs = np.array([r["f1"] - by[r["qid"]] for r in rows if r["qid"] in by], dtype=float)
    if not len(diffs):
        return {"n": 0, "delta_f1": None, "ci": None, "wins": 0, "losses": 0}
    idx = bootstrap_indices(seed, f"llm-variants/{name}", len(diffs), resamples)
    lo, hi = np.percentile(diffs[idx].mean(axis=1), [2.5, 97.5])
    return {"n": int(len(diffs)), "delta_f1": float(diffs.mean()), "ci": [float(lo), float(hi)],
            "wins": int((diffs > 0).sum()), "losses": int((diffs < 0).sum())}


def run_variant(name: str, settings: dict, args, universe, library, qs, splits,
                out: Path) -> dict:
    opts = dict(model=args.model, base_url=args.base_url, api_key_env=args.api_key_env,
                tool_mode=settings["mode"] or args.tool_mode,
                json_mode=settings["json"], max_tokens=args.max_tokens,
                temperature=args.temperature, timeout_s=args.timeout, max_retries=2,
                question_timeout_s=args.question_timeout,
                skill_set="small" if settings["small"] else args.skills,
                guards=settings["guards"], offers=settings["offers"], chain=settings["chain"],
                fields_json=args.fields_json if settings["schema"] else "object")
    if settings["plan"]:
        opts["skills"] = {"probe": "retrieval_plan"}
    env_cfg = KBGymConfig.make(m=args.m, memory_k=args.memory_k,
                               collapse_repeats=settings["collapse"])
    if args.warmup:
        warm_up(make_llm_agent("reader", **opts), universe, library, env_cfg,
                env_layout_kwargs(settings), qs)
    reader = make_llm_agent("reader", **opts)
    reader.caller.client  # make the SDK client now, so that step 1 times only the call
    timer = StepTimer(reader)
    exam_dir = out / name
    for old in exam_dir.glob("*.jsonl"):
        old.unlink()
    log = Path(args.server_log) if args.server_log else None
    log_at = log.stat().st_size if log is not None and log.exists() else 0
    t0 = time.perf_counter()
    rows = run_exam(universe, library, timer, env_cfg, env_layout_kwargs(settings), qs,
                    splits, name, exam_dir,
                    progress=lambda i, n, row: print(
                        f"  {name} {i}/{n} {row['split']} {row['qid']} f1={row['f1']:.2f} "
                        f"steps={row['steps']}", flush=True) if not args.quiet else None)
    wall = time.perf_counter() - t0
    reader.close()
    server_log = None
    if log is not None and log.exists():
        with open(log, "rb") as fh:
            fh.seek(log_at)
            server_log = log_cache_counts(fh.read().decode("utf-8", "replace"))
    trace = read_jsonl(exam_dir / "trace.jsonl")
    with open(exam_dir / "steps.jsonl", "w", encoding="utf-8") as fh:  # what each step said
        for step, row in zip(timer.steps, trace):
            fh.write(json.dumps({"qid": row["qid"], "step": step["step"],
                                 "action": row["action"], "input": row["input"],
                                 "seconds": round(step["seconds"], 3),
                                 "fields": step["fields"]}) + "\n")
    by_step = defaultdict(list)
    for s in timer.steps:
        by_step[s["step"]].append(s["seconds"])
    stats = reader.stats
    n_steps = len(trace)
    return {
        "settings": {**settings, "tool_mode": opts["tool_mode"],
                     "obs_layout": env_layout_kwargs(settings).get("obs_layout", "current"),
                     "skill": reader.skill_names["probe"]},
        "score": score_block(rows),
        "by_category": {c: score_block([r for r in rows if r["split"] == c]) for c in splits},
        "seconds": {"wall": round(wall, 3),
                    "per_step_median": _median(s["seconds"] for s in timer.steps),
                    "by_step_median": {k: _median(v) for k, v in sorted(by_step.items())}},
        "tokens": exam_costs(rows),
        "server_log": server_log,
        "steps": n_steps, "repeats": repeats(trace),
        "invalid": sum(not r["valid"] for r in trace),
        "noops": sum(r["action"] == "__noop__" for r in trace),
        "decisions": stats["decisions"], "mode": stats["mode"], "switches": stats["switches"],
        "fields": stats["fields"], "guards": stats["guards"],
        "seconds_per_question": wall / max(1, len(rows)),
        "api": {k: stats[k] for k in ("calls", "ok", "retries", "failed", "errors")},
        "rows": rows,
    }


def _f(x, spec=".3f") -> str:
    return "-" if x is None else format(x, spec)


def print_summary(results: dict, m: int) -> None:
    names = list(results)
    w = max([16] + [len(n) + 2 for n in names])
    cats = list(next(iter(results.values()))["by_category"])
    print(f"\n{'variant':{w}s}   n    F1  ({' / '.join(cats)})    EM  answered steps  s/q  "
          "dF1 vs first [95% CI]     W/L")
    for name in names:
        r = results[name]
        s, p = r["score"], r["paired"]
        ci = f"[{p['ci'][0]:+.2f},{p['ci'][1]:+.2f}]" if p.get("ci") else ""
        delta = f"{p['delta_f1']:+.3f}" if p.get("delta_f1") is not None else "-"
        by = " / ".join(_f(r["by_category"][c]["f1"], ".2f") for c in cats)
        print(f"{name:{w}s}{s['n']:4d}{_f(s['f1'], '6.2f')}  ({by}){_f(s['em'], '6.2f')}"
              f"{_f(1 - s['unanswered_rate'], '10.2f')}{_f(s['mean_steps'], '6.2f')}"
              f"{r['seconds_per_question']:5.0f}  "
              f"{delta:>7s} {ci:17s}{p.get('wins', 0):3d}/{p.get('losses', 0)}")
    print("\nvariant         s/step " + "".join(f"{'@' + str(k):>7s}" for k in range(1, m + 1))
          + "   tok in  cached share  tok out repeats invalid noops")
    for name in names:
        r = results[name]
        sec, t = r["seconds"], r["tokens"]
        at = "".join(_f(sec["by_step_median"].get(k), "7.2f") if
                     sec["by_step_median"].get(k) is not None else f"{'-':>7s}"
                     for k in range(1, m + 1))
        print(f"{name:16s}{_f(sec['per_step_median'], '6.2f')} {at}{t['tokens_in']:9d}"
              f"{t['tokens_cached']:8d}{_f(t['cached_share'], '6.2f')}{t['tokens_out']:9d}"
              f"{r['repeats']:8d}{r['invalid']:8d}{r['noops']:6d}")
    logged = {n: r["server_log"] for n, r in results.items() if r.get("server_log")}
    if logged:
        parts = []
        for n, v in logged.items():
            t_in = results[n]["tokens"]["tokens_in"]
            parts.append(f"{n} {v['cached']} cached tokens on {v['prefix_hits']} prefix hits "
                         f"(share of prompt tokens {_f(v['cached'] / t_in if t_in else None)})")
        print("\nserver log (llama-cpp-python): " + "; ".join(parts))
    print("\nreplies read as: " + "; ".join(
        f"{n} {json.dumps(results[n]['decisions'], sort_keys=True)}" for n in names))
    acted = {n: (results[n]["fields"], results[n]["guards"]) for n in names
             if results[n]["fields"] or results[n]["guards"]}
    if acted:
        print("fields chose / guards changed: " + "; ".join(
            f"{n} {json.dumps(f, sort_keys=True)} / {json.dumps(g, sort_keys=True)}"
            for n, (f, g) in acted.items()))


def start_fake(args):
    sys.path.insert(0, str(ROOT / "tests" / "llm"))
    from fake_server import FakeServer

    srv = FakeServer(cache="both", latency=args.fake_latency,
                     prompt_ms_per_token=args.fake_ms_per_token, keep_requests=False).start()
    args.base_url, args.model = srv.url, "fake"
    return srv


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base-url", help="an OpenAI-compatible endpoint (or $OPENAI_BASE_URL)")
    p.add_argument("--model")
    p.add_argument("--api-key-env", default="OPENAI_API_KEY")
    p.add_argument("--fake", action="store_true",
                   help="start the tests' fake server on loopback and use it")
    p.add_argument("--fake-latency", type=float, default=0.0)
    p.add_argument("--fake-ms-per-token", type=float, default=0.0,
                   help="fake server: delay per uncached prompt token")
    p.add_argument("--variants", default="base,collapse,plan,text,text+json",
                   help="comma-separated; the first is the reference for dF1")
    p.add_argument("--universe", help="universe.json (default: a small generated one)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--people", type=int, default=60)
    p.add_argument("--library", help="a snapshot (default: B1, the untouched library)")
    p.add_argument("--categories", default="QC1,QC2")
    p.add_argument("--per-category", type=int, default=5)
    p.add_argument("--m", type=int, default=8, help="the exam budget")
    p.add_argument("--memory-k", type=int, default=30)
    p.add_argument("--tool-mode", default="single",
                   choices=["auto", "tools", "single", "text", "fields"])
    p.add_argument("--skills", default="full", choices=["full", "small"],
                   help="the skill set of variants without 'small'")
    p.add_argument("--fields-json", default="schema", choices=["schema", "json_schema"],
                   help="the fields mode's response_format: llama.cpp's json_object with a "
                        "schema, or OpenAI's json_schema")
    p.add_argument("--from-splits", default=",".join(EVAL_SPLITS),
                   help="the splits questions are picked from, in order (add train for more "
                        "questions on B1)")
    p.add_argument("--max-tokens", type=int, default=192)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per call")
    p.add_argument("--question-timeout", type=float, default=1800.0)
    p.add_argument("--resamples", type=int, default=5000)
    p.add_argument("--warmup", action=argparse.BooleanOptionalAction, default=True,
                   help="one untimed call per variant first, so each starts with its own "
                        "prompt in the server's cache (default: on)")
    p.add_argument("--server-log", help="a llama-cpp-python server's log: count its prompt-cache "
                   "hits per variant (its replies do not report them)")
    p.add_argument("--out", default="runs/llm-variants")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)

    try:
        variants = {name.strip(): parse_variant(name.strip())
                    for name in args.variants.split(",") if name.strip()}
        if not variants:
            raise ConfigError("--variants names no variant")
        for settings in variants.values():
            env_layout_kwargs(settings)  # a layout this environment lacks fails here, not later
        if not args.model and not args.fake:
            raise ConfigError("give --model (or --fake)")
        if args.universe:
            try:
                universe = load_universe(args.universe)[0]
            except (OSError, ValueError, KeyError) as err:
                raise ConfigError(f"{args.universe}: not a readable universe ({err})") from None
        else:
            universe = generate(UniverseConfig(seed=args.seed, n_people=args.people,
                                               n_cities=8, sizes=(40, 30, 20),
                                               eval_sizes=(10, 6)))
        library = load_snapshot(args.library)[0] if args.library else \
            Library.from_universe(universe)
        cats = [c.strip() for c in args.categories.split(",") if c.strip()]
        qs, splits = pick_questions(universe, cats, args.per_category,
                                    tuple(x for x in args.from_splits.split(",") if x))
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    srv = start_fake(args) if args.fake else None
    print(f"{len(qs)} questions ({', '.join(f'{c} {len(v)}' for c, v in splits.items())}), "
          f"m={args.m}, model {args.model}, variants {', '.join(variants)}", flush=True)
    results: dict[str, dict] = {}
    try:
        for name, settings in variants.items():
            results[name] = run_variant(name, settings, args, universe, library, qs, splits,
                                        out)
    finally:
        if srv is not None:
            srv.stop()
    first = next(iter(results))
    for name, r in results.items():
        r["paired"] = paired_f1(r["rows"], results[first]["rows"], args.seed, name,
                                args.resamples) if name != first else {}
    print_summary(results, args.m)
    summary = {"model": args.model, "fake": args.fake, "m": args.m,
               "questions": {c: v for c, v in splits.items()},
               "variants": {n: {k: v for k, v in r.items() if k != "rows"}
                            for n, r in results.items()}}
    write_canonical(out / "summary.json", summary)
    print(f"\nsummary: {out / 'summary.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
