"""Re-run the whole CLI bad-input table and measure what refusing costs.

Every case of ``tests/cli/test_bad_input.py`` (flags, YAML/JSON files with alias bombs and deep
nesting, corpus documents and questions, tampered logs, snapshots, run and exam folders), plus
large inputs kept out of the default suite (a 200 MB corpus document, a 200 MB one-line
questions file, 200 MB universe and probe files of the wrong kind, a 0.9 MB YAML grid of 120,000
seeds, a 2 GB snapshot), each run in a forked child (``kbgym.cli.main`` in-process, as the
suite does, so no interpreter start is timed). A case passes when it exits 2 with one line on
stderr naming the flag or file and writes nothing. Prints the cases, the failures, and the
peak RSS and wall time of the worst case; a child's peak RSS includes the pages it shares with
the parent (the imported modules and the fixture universe), so it is an upper bound.

    .venv/bin/python scripts/benchmarks/bad_input.py [--only SUBSTRING] [--no-large]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MiB = 1 << 20


def load_table():
    spec = importlib.util.spec_from_file_location("bad_input_table",
                                                  ROOT / "tests" / "cli" / "test_bad_input.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def large_cases(w: Path) -> list[tuple[list[str], str]]:
    """Inputs too big for the default suite: each is refused before it is read whole."""
    def sparse(path: Path, size: int) -> None:
        with open(path, "wb") as fh:
            fh.truncate(size)

    (w / "L_docs").mkdir()
    sparse(w / "L_docs" / "big.md", 200 * MiB)
    sparse(w / "L_q_oneline.jsonl", 200 * MiB)
    with open(w / "L_wrong_kind.json", "w", encoding="utf-8") as fh:  # real bytes, valid JSON
        fh.write('{"kind": "not a universe", "blob": "')
        chunk = "x" * MiB
        for _ in range(200):
            fh.write(chunk)
        fh.write('"}')
    sparse(w / "L_probe.json", 1024 * MiB)
    sparse(w / "L_snapshot.json", 2100 * MiB)
    (w / "L_seeds.yaml").write_text(
        "seeds: [" + ", ".join(map(str, range(120_000))) + "]\ncurators: [scripted-noop]\n")
    (w / "L_bomb10.yaml").write_text("a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n"
        for i in range(12)))
    corpus = ROOT / "examples" / "corpus"
    u = str(w / "u.json")
    return [
        (["import", "corpus", "--docs", str(w / "L_docs"), "--questions",
          str(corpus / "questions.jsonl"), "--out", str(w / "new.json")], "16 MB limit"),
        (["import", "corpus", "--docs", str(corpus / "docs"), "--questions",
          str(w / "L_q_oneline.jsonl"), "--out", str(w / "new.json")], "1 MB limit"),
        (["test", "--universe", str(w / "L_wrong_kind.json")], "not a kbgym universe file"),
        (["train", "--universe", str(w / "L_wrong_kind.json"), "--out", str(w / "new")],
         "L_wrong_kind.json"),
        (["probe", "table", "--probe", str(w / "L_probe.json"), "--arm",
          f"B1={w}/exam_b1"], "L_probe.json"),
        (["test", "--universe", u, "--questions", str(w / "L_probe.json"), "--split", "exact"],
         "L_probe.json"),
        (["test", "--universe", u, "--library", str(w / "L_snapshot.json")], "limit"),
        (["sweep", str(w / "L_seeds.yaml"), "--out", str(w / "new_sweep")], "L_seeds.yaml"),
        (["sweep", str(w / "L_bomb10.yaml"), "--out", str(w / "new_sweep")], "aliases"),
        (["build", "--config", str(w / "L_bomb10.yaml"), "--out", str(w / "new.json")],
         "aliases"),
    ]


def run_case(argv: list[str], cwd: Path) -> dict:
    """``kbgym.cli.main(argv)`` in a forked child: exit code, stderr, seconds, peak RSS."""
    err_path = cwd.parent / "stderr.txt"
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child
        code = 3
        try:
            os.chdir(cwd)
            fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 2)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            sys.stderr = open(2, "w", closefd=False)
            sys.stdout = open(1, "w", closefd=False)
            resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))  # a safety net only
            signal.alarm(120)
            from kbgym.cli import main

            try:
                code = main(argv)
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 2
        except BaseException as exc:  # noqa: BLE001 - reported as a failure
            print(f"CHILD CRASH {type(exc).__name__}: {exc}", file=sys.stderr)
            code = 3
        finally:
            sys.stderr.flush()
            sys.stdout.flush()
            os._exit(code if isinstance(code, int) else 3)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - t0
    return {"code": os.waitstatus_to_exitcode(status), "seconds": seconds,
            "rss_mb": usage.ru_maxrss / 1024, "cpu": usage.ru_utime + usage.ru_stime,
            "stderr": err_path.read_text(encoding="utf-8", errors="replace")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run only the cases whose command line holds this text")
    ap.add_argument("--no-large", action="store_true", help="skip the large-file cases")
    args = ap.parse_args(argv)
    table = load_table()
    work = Path(tempfile.mkdtemp(prefix="kbgym-bad-input-"))
    try:
        (work / "world").mkdir()
        w = table.make_world(work / "world")
        cases = [([a.replace("{w}", str(w)) for a in c], n.replace("{w}", str(w)))
                 for c, n in table.CASES]
        n_table = len(cases)
        if not args.no_large:
            cases += large_cases(w)
        if args.only:
            cases = [c for c in cases if args.only in " ".join(c[0])]
        base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        failures, results = [], []
        with table.held_lock(w / "locked"):
            for i, (argv_, needle) in enumerate(cases):
                before = table.tree(w)
                cwd = work / f"cwd{i}"
                cwd.mkdir()
                res = run_case(argv_, cwd)
                lines = res["stderr"].strip().splitlines()
                problems = []
                if res["code"] != 2:
                    problems.append(f"exit {res['code']}")
                if len(lines) != 1 or "Traceback" in res["stderr"]:
                    problems.append(f"{len(lines)} stderr lines")
                elif needle not in lines[0]:
                    problems.append(f"needle {needle!r} not in the line")
                if table.tree(w) != before:
                    problems.append("wrote into the fixture")
                if any(cwd.iterdir()):
                    problems.append("wrote into the working directory")
                shutil.rmtree(cwd, ignore_errors=True)
                res.update(argv=" ".join(argv_).replace(str(w), "{w}"), problems=problems,
                           line=lines[0] if lines else "")
                results.append(res)
                if problems:
                    failures.append(res)
                    print(f"FAIL  {res['argv'][:110]}\n      {'; '.join(problems)}: "
                          f"{res['stderr'].strip()[:300]}", flush=True)
        worst_rss = max(results, key=lambda r: r["rss_mb"])
        worst_t = max(results, key=lambda r: r["seconds"])
        large = results[n_table:] if not args.only and not args.no_large else []
        print(f"\ncases {len(results)} ({n_table} from tests/cli/test_bad_input.py"
              f"{f', {len(large)} large-file cases' if large else ''}), failures "
              f"{len(failures)}")
        print(f"parent RSS before forking: {base_rss:.0f} MB (shared with every child)")
        print(f"worst peak RSS: {worst_rss['rss_mb']:.0f} MB  ({worst_rss['argv'][:100]})")
        print(f"worst wall time: {worst_t['seconds']:.2f} s, CPU {worst_t['cpu']:.2f} s  "
              f"({worst_t['argv'][:100]})")
        times = sorted(r["seconds"] for r in results)
        print(f"wall time per case: median {times[len(times) // 2]:.3f} s, total "
              f"{sum(times):.1f} s")
        for r in large:
            print(f"  large: {r['rss_mb']:6.0f} MB {r['seconds']:6.2f} s  {r['argv'][:90]}")
        over = [r for r in results if r["rss_mb"] > 1024 or r["seconds"] > 10]
        print(f"cases over 1 GB or 10 s: {len(over)}")
        (work / "results.json").write_text(json.dumps(results, indent=1))
        return 1 if failures or over else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
