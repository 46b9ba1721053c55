"""Binary snapshot write + read at scale (issue 39, "snapshot write + read, 1.17M notes").

    python scripts/benchmarks/bench_snapshot.py [--notes 1170000] [--rounds 3] [--edit-every 1]
        [--json]

Builds a universe-shaped synthetic library (bench_library.synthetic) with the BM25 index,
then times, as CPU time of this process (medians over ``--rounds``; load printed beside):

- ``fresh, first write``: ``write_snapshot(format="binary")`` of the library as built, its
  digest's column sum forgotten before each round (the one pass over the notes the first
  binary write of a library built from a universe makes), and ``load_snapshot`` of the file;
- ``fresh``: the same with the digest the library carries (every later write, and every
  write of a loaded library);
- ``after edits``: the same after an edit to every ``--edit-every``-th note (default: every
  note), 1,000 adds and 1,000 links, so no note is its column any more and the index has
  tails and tombstones;
- with ``--json``, the JSON snapshot of the fresh library once, as the anchor.

Every load is checked: same digest, same note count, same top hits for a few queries.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_library import synthetic  # noqa: E402
from harness import peak_rss_mb  # noqa: E402

import random  # noqa: E402


def round_trip(lib, path: str, fmt: str = "binary", cold: bool = False
               ) -> tuple[float, float, str]:
    """One write + read. ``cold``: the library's digest of its starting columns is forgotten
    first, so the write sums them (what the first binary write of a library built from a
    universe pays); else the write uses the digest the library carries."""
    from kbgym.library import BM25Index
    from kbgym.library.digest import DigestBase
    from kbgym.library.snapshot import load_snapshot, write_snapshot

    lib._content_hash = None  # (JSON: the content hash computed afresh each time)
    if cold:
        lib._dbase = DigestBase(lib._nodes._base.source)
    c = time.process_time()
    h = write_snapshot(path, lib, "bench", {"path": None, "hash": None}, format=fmt)
    w = time.process_time() - c
    c = time.process_time()
    back, meta = (load_snapshot(path) if fmt == "binary"
                  else load_snapshot(path, search=BM25Index()))
    r = time.process_time() - c
    assert (meta["digest"] if fmt == "binary" else meta["content_hash"]) == h
    assert len(back) == len(lib)
    for q in ("is a friend of", "lives in the city of"):
        assert back.search(q, 10) == lib.search(q, 10), q
    return w, r, h


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=1_170_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--edit-every", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    from kbgym.library import BM25Index, Library

    rng = random.Random(0)
    texts, v = synthetic(a.notes, rng)
    lib = Library.from_texts([(f"s{i:04d}", t) for i, t in enumerate(texts, 1)],
                             search=BM25Index())
    del texts
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kb.kbgs")
        rows["fresh, first write (sums the columns' digests)"] = [
            round_trip(lib, path, cold=True) for _ in range(a.rounds)]
        rows["fresh"] = [round_trip(lib, path) for _ in range(a.rounds)]
        mb = os.path.getsize(path) / 1e6
        if a.json:
            rows["fresh, JSON (anchor)"] = [round_trip(lib, path + ".json", "json")]
        c = time.process_time()
        ids = lib.ids()
        for i in ids[:: a.edit_every]:
            lib.edit(i, lib[i].text.replace(".", "!"), dedup=False)
        people = v["people"]
        for j in range(1000):
            lib.add(f"{rng.choice(people)} is a friend of {rng.choice(people)}, note {j}.",
                    dedup=False)
        for _ in range(1000):
            a_, b_ = rng.sample(ids, 2)
            if a_ in lib and b_ in lib:
                lib.link(a_, b_)
        edit_s = time.process_time() - c
        rows["after edits"] = [round_trip(lib, path) for _ in range(a.rounds)]
    load = os.getloadavg()
    print(f"{a.notes:,} notes, binary file {mb:.0f} MB; edits: every {a.edit_every}. note "
          f"+ 1,000 adds + 1,000 links ({edit_s:.1f} s CPU); peak RSS {peak_rss_mb():.0f} MB; "
          f"load {load[0]:.2f} {load[1]:.2f} on {os.cpu_count()} cores")
    print("| case | write s CPU | read s CPU | write + read | goal < 2 s |")
    print("|---|---|---|---|---|")
    for name, rs in rows.items():
        w = statistics.median(r[0] for r in rs)
        r = statistics.median(r[1] for r in rs)
        print(f"| {name} | {w:.2f} | {r:.2f} | {w + r:.2f} | {'met' if w + r < 2 else 'not met'} |")


if __name__ == "__main__":
    main()
