"""The PhantomWiki gradient probe with the scripted PW agents, end to end (SPEC §13, §17).

For each PhantomWiki output folder: ``kbgym adapt phantomwiki`` -> ``kbgym train`` (the
scripted PW index curator) -> ``kbgym probe make`` (routes to the PW probe) -> ``kbgym test``
with the scripted PW reader on B1 and on the trained library (epoch 2) -> ``kbgym probe table``.
It also prints the reader's F1 and mean steps per PW type on B1 (every universe question).

    .venv/bin/python scripts/pw_gradient.py                      # the test fixture (+ /tmp/pw_big)
    .venv/bin/python scripts/pw_gradient.py --src OUT:150 --work /tmp/pwg
    .venv/bin/python scripts/pw_gradient.py --generate /tmp/pw_big   # regenerate paper scale

``--src DIR[:TRAIN_SIZE]`` may repeat. The fixture (25 people, 60 trainable questions) needs a
small train size (default 16): with all 60 trained, every one-key question is trained and the
share groups are empty. ``--generate DIR`` runs ``pw-generate`` from ``.venv-pw`` (phantom-wiki
1.0.3, SWI-Prolog) with the paper's flags (16 trees, 60 questions per type) when DIR has no
articles.json yet.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests/adapters/data/phantomwiki_seed1"
PW_GENERATE = ROOT / ".venv-pw/bin/pw-generate"
TRAINER = "agents.scripted.pw:index_trainer"
READER = "agents.scripted.pw:reader"
GROUPS = "exact,share1,share0"


def kbgym(*args: str) -> str:
    cmd = [sys.executable, "-m", "kbgym.cli", *args]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{out.stdout}\n{out.stderr}")
    return out.stdout


def generate(out: Path) -> None:
    if (out / "articles.json").exists():
        return
    cmd = [str(PW_GENERATE), "--seed", "1", "--article-format", "json", "--question-format",
           "json", "--num-family-trees", "16", "--num-questions-per-type", "60", "-od", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"pw-generate failed:\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}")


def b1_by_type(universe: Path) -> str:
    """F1 and mean steps per PW type of the reader on B1 over every universe question."""
    sys.path.insert(0, str(ROOT))
    from agents.loop import run_episode
    from agents.scripted.pw import PWReader
    from kbgym.env import KBGymEnv
    from kbgym.env.env import load_universe

    u, _ = load_universe(universe)
    env = KBGymEnv(u, mode="probe")
    reader = PWReader()
    rows = defaultdict(list)
    for q in u.questions:
        res = run_episode(env, reader, q.qid)
        rows[q.template].append((res["info"]["episode"]["f1"], res["steps"]))
    lines = [f"{'template':10s} {'n':>4s} {'F1':>6s} {'steps':>6s} {'exhausted':>9s}"]
    for t in sorted(rows):
        v = rows[t]
        lines.append(f"{t:10s} {len(v):4d} {sum(f for f, _ in v) / len(v):6.3f} "
                     f"{sum(s for _, s in v) / len(v):6.2f} {sum(s >= 15 for _, s in v):9d}")
    allv = [x for v in rows.values() for x in v]
    lines.append(f"{'all':10s} {len(allv):4d} {sum(f for f, _ in allv) / len(allv):6.3f} "
                 f"{sum(s for _, s in allv) / len(allv):6.2f} "
                 f"{sum(s >= 15 for _, s in allv):9d}")
    return "\n".join(lines)


def run_one(src: Path, train_size: int, work: Path, resamples: int) -> None:
    work.mkdir(parents=True, exist_ok=True)
    uni, run, probe = work / "universe.json", work / "run", work / "probe.json"
    print(f"== {src}  (train size {train_size})  -> {work}")
    kbgym("adapt", "phantomwiki", "--src", str(src), "--out", str(uni), "--quiet")
    print(b1_by_type(uni))
    if run.exists():
        subprocess.run(["rm", "-rf", str(run)], check=True)
    kbgym("train", "--universe", str(uni), "--agent", TRAINER, "--train-size", str(train_size),
          "--out", str(run), "--quiet")
    print(kbgym("probe", "make", "--run", str(run), "--universe", str(uni), "--out", str(probe))
          .strip())
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
                    help="regenerate the paper-scale output into this folder and add it")
    ap.add_argument("--resamples", type=int, default=20000)
    args = ap.parse_args(argv)

    srcs = args.src or [f"{FIXTURE}:16"]
    if args.src is None and Path("/tmp/pw_big/articles.json").exists():
        srcs.append("/tmp/pw_big:150")
    if args.generate:
        generate(Path(args.generate))
        srcs.append(f"{args.generate}:150")
    for i, spec in enumerate(srcs):
        path, _, n = spec.rpartition(":") if ":" in spec else (spec, "", "150")
        run_one(Path(path), int(n), Path(args.work) / f"{i}_{Path(path).name}", args.resamples)


if __name__ == "__main__":
    main()
