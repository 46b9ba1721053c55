"""The policies world's generator and demo, timed.

    python scripts/benchmarks/bench_policies.py [--repeats 5] [--sizes 100,1000] [--no-demo]

Per library size (documents): documents, facts and notes, questions, the median wall and CPU
seconds of ``generate`` over the repeats, and whether every repeat gave byte-identical
universe files. Then one ``kbgym demo --world policies`` (build, train 100 questions x 2
epochs, probe, exams of four arms, curve, report and plots) with its time by stage.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import tempfile
import time

from kbgym.worlds.policies import PolicyConfig, generate, ledger_of


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sizes", default="100,1000")
    ap.add_argument("--no-demo", action="store_true")
    args = ap.parse_args()
    print(f"{'documents':>9s} {'facts':>7s} {'notes':>7s} {'questions':>9s} "
          f"{'wall s (median)':>15s} {'cpu s (median)':>14s}  identical")
    for n in (int(x) for x in args.sizes.split(",")):
        walls, cpus, digests = [], [], set()
        for _ in range(args.repeats):
            t, c = time.perf_counter(), time.process_time()
            u = generate(PolicyConfig(documents=n))
            text = u.dumps()  # the universe file's bytes
            walls.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
            digests.add(hashlib.sha256(text.encode()).hexdigest())
        led = ledger_of(u)
        print(f"{len(led.documents):9d} {len(led.entries):7d} {len(u.nodes):7d} "
              f"{len(u.questions):9d} {statistics.median(walls):15.3f} "
              f"{statistics.median(cpus):14.3f}  {len(digests) == 1}")
    if args.no_demo:
        return
    from kbgym.runs.demo import run_demo

    with tempfile.TemporaryDirectory() as tmp:
        t, c = time.perf_counter(), time.process_time()
        out = run_demo(f"{tmp}/demo", world="policies", say=lambda *a: None)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
    stages = ", ".join(f"{k} {v:.1f}s" for k, v in out["timings"].items())
    print(f"\nkbgym demo --world policies: {wall:.1f} s wall, {cpu:.1f} s CPU ({stages})")


if __name__ == "__main__":
    main()
