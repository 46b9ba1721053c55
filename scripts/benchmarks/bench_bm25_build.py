"""BM25 index build at scale against tantivy and bm25s (issue 39, "BM25 index build, 1.17M
notes").

    python scripts/benchmarks/bench_bm25_build.py [--notes 1170000] [--rounds 3]
        [--anchors .venv-anchors/bin/python]

One universe-shaped synthetic corpus (bench_library.synthetic) is written to a temporary
file; each case then builds its index over it in a fresh process, interleaved round by round
(A B C D A B C D ...), and reports the build's CPU time (user + sys of the whole process
during the build, so tantivy's writer threads count) and wall time:

- ``KBGym bulk_load``: ``BM25Index().bulk_load(zip(ids, texts))``;
- ``KBGym in the library``: ``Library.from_texts(..., search=BM25Index())`` (the columns,
  the lazy note map and the index);
- ``tantivy``: an in-RAM index with one stored id and one text field, every document added
  and committed (the anchors' interpreter, when ``--anchors`` names one that imports it);
- ``bm25s``: ``bm25s.tokenize`` + ``BM25().index`` (likewise);
- with ``--baseline COMMIT``, ``bulk_load`` of that commit too (a temporary checkout).

Medians over ``--rounds``; the load average is printed beside.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_library import synthetic  # noqa: E402
from harness import ROOT, checkout, code_env, load_note  # noqa: E402

PRELUDE = r"""
import json, resource, sys, time
texts = json.loads(open(sys.argv[1], encoding="utf-8").read())
ids = [f"s{i:04d}" for i in range(1, len(texts) + 1)]
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
c, w = cpu(), time.perf_counter()
"""
DONE = r"""
print(json.dumps({"cpu_s": cpu() - c, "wall_s": time.perf_counter() - w}))
"""
CASES = {
    "KBGym bulk_load": ("kbgym", """
from kbgym.library.search import BM25Index
c, w = cpu(), time.perf_counter()
ix = BM25Index()
ix.bulk_load(zip(ids, texts))
"""),
    "KBGym in the library": ("kbgym", """
from kbgym.library import BM25Index, Library
c, w = cpu(), time.perf_counter()
lib = Library.from_texts(zip(ids, texts), search=BM25Index())
"""),
    "tantivy (anchor)": ("anchors", """
import tantivy
c, w = cpu(), time.perf_counter()
sb = tantivy.SchemaBuilder()
sb.add_text_field("id", stored=True)
sb.add_text_field("body")
schema = sb.build()
index = tantivy.Index(schema)
writer = index.writer()
for i, t in zip(ids, texts):
    writer.add_document(tantivy.Document(id=i, body=t))
writer.commit()
writer.wait_merging_threads()
index.reload()
"""),
    "bm25s (anchor)": ("anchors", """
import bm25s
c, w = cpu(), time.perf_counter()
tok = bm25s.tokenize(texts, stopwords=None, show_progress=False)
r = bm25s.BM25()
r.index(tok, show_progress=False)
"""),
}


def run(python: str, code: str, corpus: str, root: Path = ROOT) -> dict:
    env = code_env(root)
    out = subprocess.run([python, "-c", PRELUDE + code + DONE, corpus], check=True,
                         capture_output=True, text=True, env=env, cwd=str(ROOT))
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=1_170_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--anchors", default=str(ROOT / ".venv-anchors" / "bin" / "python"))
    ap.add_argument("--baseline", help="also time bulk_load of this commit (a temporary "
                    "checkout), interleaved")
    a = ap.parse_args(argv)
    with checkout(a.baseline) if a.baseline else contextlib.nullcontext() as base:
        measure(a, base)


def measure(a: argparse.Namespace, base: Path | None) -> None:
    texts, _ = synthetic(a.notes, random.Random(0))
    pythons = {"kbgym": sys.executable}
    if Path(a.anchors).exists():
        pythons["anchors"] = a.anchors
    res: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus.json")
        Path(corpus).write_text(json.dumps(texts), encoding="utf-8")
        del texts
        for _ in range(a.rounds):
            for name, (where, code) in CASES.items():
                if where not in pythons:
                    continue
                try:
                    res.setdefault(name, []).append(run(pythons[where], code, corpus))
                    if base is not None and name == "KBGym bulk_load":
                        res.setdefault(f"KBGym bulk_load at {a.baseline}", []).append(
                            run(pythons[where], code, corpus, base))
                except subprocess.CalledProcessError as err:
                    print(f"{name}: failed ({err.stderr.strip().splitlines()[-1:]})")
                    res.pop(name, None)
                    pythons.pop(where, None)
    print(f"BM25 index build, {a.notes:,} synthetic notes; medians of {a.rounds}, interleaved; "
          f"{load_note()}")
    print("| case | CPU s | wall s |")
    print("|---|---|---|")
    for name, rs in res.items():
        print(f"| {name} | {statistics.median(r['cpu_s'] for r in rs):.2f} | "
              f"{statistics.median(r['wall_s'] for r in rs):.2f} |")
    if "tantivy (anchor)" in res and "KBGym bulk_load" in res:
        t = statistics.median(r["cpu_s"] for r in res["tantivy (anchor)"])
        k = statistics.median(r["cpu_s"] for r in res["KBGym bulk_load"])
        print(f"KBGym bulk_load / tantivy, CPU: x{k / t:.2f} (goal <= 1)")


if __name__ == "__main__":
    main()
