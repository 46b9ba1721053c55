"""The PhantomWiki gradient probe with the scripted PW agents, end to end (SPEC §13, §17).

For each PhantomWiki output folder: ``kbgym adapt phantomwiki`` (prints the support recomputed
share and the reasons of the rest) -> ``kbgym train`` (the scripted PW index curator) ->
``kbgym probe make`` (routes to the PW probe; ``--stratify category`` uses ``kbgym adapt
phantomwiki-probe --stratify category``) -> ``kbgym test`` with the scripted PW reader on B1
and on the trained library (epoch 2) -> ``kbgym probe table``. It also prints the reader's F1
and mean steps per PW type on B1 (every universe question), with each type's shape and how
often the step budget was the limit (the reader's ``outcome``).

    .venv/bin/python scripts/experiments/pw_gradient.py                      # the test fixture (+ /tmp/pw_big)
    .venv/bin/python scripts/experiments/pw_gradient.py --src OUT:150 --work /tmp/pwg
    .venv/bin/python scripts/experiments/pw_gradient.py --generate /tmp/pw_big   # regenerate paper scale
    .venv/bin/python scripts/experiments/pw_gradient.py --generate /tmp/pw_d10_big --depth 10 \
        --per-type 30 --skip-solution-traces                         # depth 10, 405 people

``--src DIR[:TRAIN_SIZE]`` may repeat. The fixture (25 people, 60 trainable questions) needs a
small train size (default 16): with all 60 trained, every one-key question is trained and the
share groups are empty. ``--generate DIR`` runs ``pw-generate`` from ``.venv-pw`` (phantom-wiki
1.0.3 on Python 3.12, SWI-Prolog) when DIR has no articles.json yet, with ``--seed 1
--num-family-trees TREES --num-questions-per-type PER_TYPE --question-depth DEPTH`` (defaults:
the paper's 16, 60, 6) and ``--easy-mode`` / ``--skip-solution-traces`` when asked; the command
is printed and written to DIR/generate_command.txt.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests/adapters/data/phantomwiki_seed1"
PW_GENERATE = ROOT / ".venv-pw/bin/pw-generate"
TRAINER = "kbgym_agents.scripted.pw:index_trainer"
READER = "kbgym_agents.scripted.pw:reader"
GROUPS = "exact,share1,share0"


def kbgym(*args: str) -> str:
    cmd = [sys.executable, "-m", "kbgym.cli", *args]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{out.stdout}\n{out.stderr}")
    return out.stdout


def generate_command(out: Path, *, depth: int = 6, trees: int = 16, per_type: int = 60,
                     easy: bool = False, skip_traces: bool = False) -> list[str]:
    cmd = [str(PW_GENERATE), "--seed", "1", "--article-format", "json", "--question-format",
           "json", "--num-family-trees", str(trees), "--num-questions-per-type", str(per_type),
           "--question-depth", str(depth)]
    cmd += ["--easy-mode"] * easy + ["--skip-solution-traces"] * skip_traces
    return cmd + ["-od", str(out)]


def generate(out: Path, **kw) -> None:
    if (out / "articles.json").exists():
        return
    cmd = generate_command(out, **kw)
    print("$ " + " ".join(cmd), flush=True)
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"pw-generate failed:\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}")
    (out / "generate_command.txt").write_text(" ".join(cmd) + "\n", encoding="utf-8")


def support_summary(universe: Path) -> str:
    """The adapter's support figures: the recomputed share and the rest with reasons."""
    import json
    r = json.loads(universe.read_text(encoding="utf-8"))["meta"]["adapter_report"]
    sup = r["support"]
    lines = [f"support recomputed {sup['recomputed']}/{r['questions']} "
             f"({100 * sup['recomputed'] / max(r['questions'], 1):.1f} %); unavailable "
             f"{sup['unavailable']} (unmapped {sup['unmapped']}, answer mismatch "
             f"{sup['answer_mismatch']})"]
    lines += [f"  unmapped: {why}" for why in r["unmapped"]]
    return "\n".join(lines)


def b1_by_type(universe: Path) -> str:
    """F1, mean steps and budget-limited answers per PW type of the reader on B1 over every
    universe question."""
    sys.path.insert(0, str(ROOT))
    from kbgym_agents.scripted.pw import PWReader, parse_pw_question
    from kbgym.env.config import KBGymConfig
    from kbgym.env.env import load_universe
    from kbgym.library.graph import Library
    from kbgym.runs.exam import examine

    u, _ = load_universe(universe)
    budget = KBGymConfig().m
    rows = defaultdict(list)
    shapes = {}
    reader, outcomes = PWReader(), []
    # the exam `kbgym test` and the sweep run, over every universe question; the reader's
    # outcome is read after each question
    exam = examine(u, Library.from_universe(u), reader, questions={q.qid: q for q in u.questions},
                   splits={"all": [q.qid for q in u.questions]}, split="all", navigate=False,
                   progress=lambda i, n, row: outcomes.append(reader.outcome))
    for q, row, outcome in zip(u.questions, exam, outcomes):
        rows[q.template].append((row["f1"], row["steps"], outcome == "budget"))
        parsed = parse_pw_question(q.text)
        shapes.setdefault(q.template, parsed.shape if parsed else "?")

    def line(name: str, shape: str, v: list) -> str:
        return (f"{name:11s} {shape:20s} {len(v):4d} {sum(f for f, _, _ in v) / len(v):6.3f} "
                f"{sum(s for _, s, _ in v) / len(v):6.2f} {sum(s >= budget for _, s, _ in v):9d} "
                f"{sum(b for _, _, b in v):6d}")

    lines = [f"{'template':11s} {'shape':20s} {'n':>4s} {'F1':>6s} {'steps':>6s} "
             f"{'exhausted':>9s} {'budget':>6s}"]
    order = sorted(rows, key=lambda t: int(t.removeprefix("pw_type")))
    lines += [line(t, shapes[t], rows[t]) for t in order]
    lines.append(line("all", "", [x for v in rows.values() for x in v]))
    return "\n".join(lines)


def run_one(src: Path, train_size: int, work: Path, resamples: int,
            stratify: str = "template") -> None:
    work.mkdir(parents=True, exist_ok=True)
    uni, run, probe = work / "universe.json", work / "run", work / "probe.json"
    print(f"== {src}  (train size {train_size})  -> {work}")
    kbgym("adapt", "phantomwiki", "--src", str(src), "--out", str(uni), "--quiet")
    print(support_summary(uni))
    print(b1_by_type(uni))
    if run.exists():
        subprocess.run(["rm", "-rf", str(run)], check=True)
    kbgym("train", "--universe", str(uni), "--agent", TRAINER, "--train-size", str(train_size),
          "--out", str(run), "--quiet")
    if stratify == "template":
        print(kbgym("probe", "make", "--run", str(run), "--universe", str(uni), "--out",
                    str(probe)).strip())
    else:
        print(kbgym("adapt", "phantomwiki-probe", "--run", str(run), "--universe", str(uni),
                    "--stratify", stratify, "--out", str(probe)).strip())
    arms = {"B1": None, "trained": run / "kb_epoch_2.json"}
    for arm, lib in arms.items():
        args = ["test", "--universe", str(uni), "--questions", str(probe), "--split", GROUPS,
                "--reader", READER, "--out", str(work / f"test_{arm}"), "--quiet"]
        if lib is not None:
            args += ["--library", str(lib)]
        kbgym(*args)
    print(kbgym("probe", "table", "--probe", str(probe), "--resamples", str(resamples),
                *[f"--arm={a}={work / f'test_{a}'}" for a in arms]))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", action="append", default=None,
                    help="PhantomWiki output folder, optionally :TRAIN_SIZE (repeatable)")
    ap.add_argument("--work", default="/tmp/pw_gradient", help="working folder")
    ap.add_argument("--generate", default=None,
                    help="generate a phantom-wiki output into this folder (if absent) and add it")
    ap.add_argument("--depth", type=int, default=6, help="--question-depth of --generate")
    ap.add_argument("--trees", type=int, default=16, help="--num-family-trees of --generate")
    ap.add_argument("--per-type", type=int, default=60, dest="per_type",
                    help="--num-questions-per-type of --generate")
    ap.add_argument("--easy", action="store_true", help="--easy-mode for --generate")
    ap.add_argument("--skip-solution-traces", action="store_true", dest="skip_traces",
                    help="--skip-solution-traces for --generate (smaller files)")
    ap.add_argument("--train-size", type=int, default=150, dest="train_size",
                    help="train size of the generated folder (default 150)")
    ap.add_argument("--stratify", choices=("template", "category"), default="template",
                    help="PW probe quota per template (SPEC) or per category")
    ap.add_argument("--resamples", type=int, default=20000)
    args = ap.parse_args(argv)

    srcs = args.src or [f"{FIXTURE}:16"]
    if args.src is None and args.generate is None and Path("/tmp/pw_big/articles.json").exists():
        srcs.append("/tmp/pw_big:150")
    if args.generate:
        generate(Path(args.generate), depth=args.depth, trees=args.trees,
                 per_type=args.per_type, easy=args.easy, skip_traces=args.skip_traces)
        srcs.append(f"{args.generate}:{args.train_size}")
    for i, spec in enumerate(srcs):
        path, _, n = spec.rpartition(":") if ":" in spec else (spec, "", "150")
        run_one(Path(path), int(n), Path(args.work) / f"{i}_{Path(path).name}", args.resamples,
                args.stratify)


if __name__ == "__main__":
    main()
