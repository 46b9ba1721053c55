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


# -- the tamper suite: every file of a finished run x every damage x every reader -------------

READERS = {  # name -> argv after the run folder is put in
    "report": ["report", "--run", "{d}", "--universe", "{u}"],
    "view": ["view", "--run", "{d}", "--universe", "{u}", "--out", "{o}/v.html"],
    "replay": ["replay", "--run", "{d}", "--universe", "{u}"],
    "probe make": ["probe", "make", "--run", "{d}", "--universe", "{u}", "--out", "{o}/p.json"],
    "resume": ["train", "--universe", "{u}", "--agent", "toy_agents:ToyTrainer", "--epochs",
               "1", "--train-size", "6", "--snapshot-every", "3", "--quiet", "--out", "{d}",
               "--resume"],
}


def damages(p: Path, run: Path):
    """(name, function) pairs that damage the file ``p`` in place."""
    data = p.read_bytes()
    yield "flipped", lambda: p.write_bytes(data[:len(data) // 2] + bytes(
        [data[len(data) // 2] ^ 1]) + data[len(data) // 2 + 1:]) if data else None
    yield "cut", lambda: p.write_bytes(data[: len(data) // 2])
    yield "emptied", lambda: p.write_bytes(b"")
    yield "deleted", p.unlink
    yield "linked", lambda: (p.unlink(), p.symlink_to(run / p.name))
    if p.name.startswith("kb_") and p.suffix == ".json":
        other = sorted(q for q in run.glob("kb_*.json") if q.name != p.name)[0]
        yield "swapped", lambda: p.write_bytes(other.read_bytes())


def tamper_cases(w: Path, upath: Path) -> list[dict]:
    """Run every reader on a copy of the fixture run with one file damaged. A reader passes
    when it exits 2 with one line naming the file (or the row), or, for ``--resume``, when it
    repairs the run to the pristine bytes."""
    out, work = [], w.parent / "tamper"
    work.mkdir()
    run = work / "base"  # trained by the command line, so that --resume continues it
    (work / "cwd").mkdir()
    made = run_case([a.format(d=run, u=upath, o=work) for a in READERS["resume"][:-1]],
                    work / "cwd")
    if made["code"] != 0:
        raise SystemExit(f"the tamper suite's run failed: {made['stderr'][-500:]}")
    names = sorted(p.name for p in run.iterdir() if p.is_file() and p.name != ".kbgym.lock")
    pristine = {p.name: p.read_bytes() for p in run.iterdir()
                if p.is_file() and p.name not in ("timing.jsonl", ".kbgym.lock")}
    k = 0
    for name in names:
        for what, _ in damages(run / name, run):
            for reader, template in READERS.items():
                k += 1
                d = work / f"r{k}"
                shutil.copytree(run, d, symlinks=True)
                dict(damages(d / name, run))[what]()
                o = work / f"o{k}"
                o.mkdir()
                argv = [a.format(d=d, u=upath, o=o) for a in template]
                res = run_case(argv, o)
                lines = res["stderr"].strip().splitlines()
                now = {p.name: p.read_bytes() for p in d.iterdir()
                       if p.is_file() and not p.is_symlink()
                       and p.name not in ("timing.jsonl", ".kbgym.lock")}
                refused = res["code"] == 2 and len(lines) == 1 and "Traceback" not in \
                    res["stderr"] and (name in lines[0] or "row" in lines[0]
                                       or "meta.json" in lines[0])
                repaired = reader == "resume" and res["code"] == 0 and now == pristine
                harmless = name == "timing.jsonl" and res["code"] == 0  # wall-clock only
                ok = refused or repaired or harmless
                out.append({"argv": f"{reader} <run: {name} {what}>", "ok": ok,
                            "code": res["code"], "line": lines[0] if lines else "",
                            "seconds": res["seconds"], "rss_mb": res["rss_mb"],
                            "cpu": res["cpu"], "stderr": res["stderr"]})
                shutil.rmtree(d, ignore_errors=True)
                shutil.rmtree(o, ignore_errors=True)
    return out


# -- kill chains: a run killed at random moments, resumed until it finishes ---------------------

def kill_chains(w: Path, upath: Path, n: int, seed: int = 0) -> list[dict]:
    """``n`` chains: ``kbgym train`` in a child process, SIGKILLed after a random delay (the
    first of each few chains within 0.4 s: before its first meta.json), then ``--resume``d,
    killed again, ... until a resume finishes; the finished folder must equal a run never
    killed, byte for byte (timing.jsonl aside)."""
    import random
    import subprocess

    rng = random.Random(seed)
    base = [sys.executable, "-m", "kbgym.cli", "train", "--universe", str(upath), "--agent",
            "toy_agents:sleepy_trainer", "--epochs", "2", "--train-size", "6",
            "--snapshot-every", "3", "--quiet", "--out"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "tests" / "runs"), os.environ.get("PYTHONPATH", "")])}
    ref = w.parent / "kill_ref"
    subprocess.run([*base, str(ref)], env=env, check=True, capture_output=True)

    def files(d: Path) -> dict:
        return {p.name: p.read_bytes() for p in d.iterdir()
                if p.is_file() and p.name not in ("timing.jsonl", ".kbgym.lock")}

    want = files(ref)
    out = []
    for c in range(n):
        d = w.parent / f"kill{c}"
        kills, early, finished = 0, False, False
        for attempt in range(8):
            cmd = [*base, str(d)] + (["--resume"] if attempt else [])
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE)
            delay = rng.uniform(0.05, 0.4) if attempt == 0 and c % 3 == 0 \
                else rng.uniform(0.3, 3.0)
            try:
                _, err = proc.communicate(timeout=delay if attempt < 6 else 120)
                if proc.returncode != 0:
                    out.append({"argv": f"kill chain {c}", "ok": False, "code": proc.returncode,
                                "line": err.decode()[-300:], "kills": kills})
                    break
                finished = True
                break
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                kills += 1
                early = early or not (d / "meta.json").exists()
        if finished:
            same = files(d) == want
            out.append({"argv": f"kill chain {c} ({kills} kills"
                                f"{', one before the first meta.json' if early else ''})",
                        "ok": same, "code": 0, "line": "" if same else "bytes differ",
                        "kills": kills, "early": early})
        shutil.rmtree(d, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run only the cases whose command line holds this text")
    ap.add_argument("--no-large", action="store_true", help="skip the large-file cases")
    ap.add_argument("--no-tamper", action="store_true",
                    help="skip the tamper suite (every file of a run x every reader)")
    ap.add_argument("--kills", type=int, default=22,
                    help="kill chains to run (default 22; 0 skips them)")
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
        extra = []
        if not args.no_tamper and not args.only:
            sys.path.insert(0, str(ROOT / "tests" / "runs"))
            extra += tamper_cases(w, w / "u.json")
            bad = [r for r in extra if not r["ok"]]
            print(f"tamper suite: {len(extra)} reader runs on damaged run folders, "
                  f"{len(bad)} failures")
            for r in bad:
                print(f"FAIL  {r['argv']}: exit {r['code']}: {r['line'][:200]}")
                failures.append(r)
        if args.kills and not args.only:
            chains = kill_chains(w, w / "u.json", args.kills)
            bad = [r for r in chains if not r["ok"]]
            kills = sum(r.get("kills", 0) for r in chains)
            early = sum(bool(r.get("early")) for r in chains)
            print(f"kill chains: {len(chains)} ({kills} kills landed, {early} chains killed "
                  f"before the first meta.json), {len(bad)} failures")
            for r in bad:
                print(f"FAIL  {r['argv']}: {r['line'][:200]}")
                failures.append(r)
            extra += [{**r, "seconds": 0.0, "rss_mb": 0.0, "cpu": 0.0} for r in chains]
        worst_rss = max(results, key=lambda r: r["rss_mb"])
        worst_t = max(results, key=lambda r: r["seconds"])
        large = results[n_table:] if not args.only and not args.no_large else []
        print(f"\ncases {len(results) + len(extra)} ({n_table} from "
              f"tests/cli/test_bad_input.py{f', {len(large)} large-file cases' if large else ''}"
              f", {len(extra)} tamper and kill-chain cases), failures {len(failures)}")
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
