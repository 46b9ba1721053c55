"""Binary snapshot write + read at scale (issue 39, "snapshot write + read, 1.17M notes").

    python scripts/benchmarks/bench_snapshot.py [--notes 1170000] [--rounds 3] [--edit-every 1]
        [--json] [--baseline COMMIT]

Builds a universe-shaped synthetic library (bench_library.synthetic) with the BM25 index,
then times, as CPU time of the process that holds the library (medians over ``--rounds``;
load printed beside):

- ``fresh, first write``: ``write_snapshot(format="binary")`` of the library as built, its
  digest's column sum forgotten before each round (the one pass over the notes the first
  binary write of a library built from a universe makes), and ``load_snapshot`` of the file;
- ``fresh``: the same with the digest the library carries (every later write, and every
  write of a loaded library);
- ``after edits``: the same after an edit to every ``--edit-every``-th note (default: every
  note), 1,000 adds and 1,000 links, so no note is its column any more and the index has
  tails (and, when not every note is edited, dead slots);
- with ``--json``, the JSON snapshot of the fresh library once, as the anchor.

With ``--baseline COMMIT`` the same library is also built by that commit's kbgym (a temporary
checkout) in a second process, and every round alternates between the two processes (A B A B
...), so both see the same machine load; the two must write the same digests.

Every load is checked: same digest, same note count, same top hits for a few queries.
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
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_library import synthetic  # noqa: E402
from harness import checkout, code_env, load_note, peak_rss_mb  # noqa: E402

CASES = {"cold": "fresh, first write (sums the columns' digests)", "fresh": "fresh",
         "json": "fresh, JSON (anchor)", "after": "after edits"}


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


class Bench:
    """The library and the operations the rounds run on it (in this process)."""

    def __init__(self, a: argparse.Namespace, tmp: str):
        from kbgym.library import BM25Index, Library

        self.a, self.path = a, os.path.join(tmp, "kb.kbgs")
        self.rng = random.Random(0)
        texts, self.v = synthetic(a.notes, self.rng)
        self.lib = Library.from_texts([(f"s{i:04d}", t) for i, t in enumerate(texts, 1)],
                                      search=BM25Index())

    def do(self, cmd: str) -> dict:
        if cmd == "edit":
            return {"edit_s": self.edit()}
        if cmd == "done":
            return {"rss": peak_rss_mb(), "mb": os.path.getsize(self.path) / 1e6}
        fmt = "json" if cmd == "json" else "binary"
        w, r, h = round_trip(self.lib, self.path + (".json" if fmt == "json" else ""), fmt,
                             cold=cmd == "cold")
        return {"w": w, "r": r, "hash": h}

    def edit(self) -> float:
        lib, rng, a = self.lib, self.rng, self.a
        c = time.process_time()
        ids = lib.ids()
        for i in ids[:: a.edit_every]:
            lib.edit(i, lib[i].text.replace(".", "!"), dedup=False)
        people = self.v["people"]
        for j in range(1000):
            lib.add(f"{rng.choice(people)} is a friend of {rng.choice(people)}, note {j}.",
                    dedup=False)
        for _ in range(1000):
            a_, b_ = rng.sample(ids, 2)
            if a_ in lib and b_ in lib:
                lib.link(a_, b_)
        return time.process_time() - c


class Child:
    """A :class:`Bench` in another process (``--serve``), importing ``tree``'s kbgym."""

    def __init__(self, a: argparse.Namespace, tree: Path):
        env = code_env(tree)
        args = [sys.executable, __file__, "--serve", "--notes", str(a.notes),
                "--edit-every", str(a.edit_every)]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env, cwd=str(tree))
        self.ready = self._read()

    def _read(self) -> dict:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"benchmark child exited ({self.proc.wait()})")
        return json.loads(line)

    def do(self, cmd: str) -> dict:
        assert self.proc.stdin is not None
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.do("quit")
        self.proc.wait()


def serve(a: argparse.Namespace) -> None:
    import kbgym

    with tempfile.TemporaryDirectory() as tmp:
        b = Bench(a, tmp)
        print(json.dumps({"kbgym": str(Path(kbgym.__file__).parent.parent)}), flush=True)
        for line in sys.stdin:
            if line.strip() == "quit":
                print("{}", flush=True)
                return
            print(json.dumps(b.do(line.strip())), flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=1_170_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--edit-every", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--baseline", help="also time this commit's kbgym (a temporary checkout), "
                    "round by round in turn with this tree's")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.serve:
        return serve(a)
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        runners: dict[str, object] = {}
        if a.baseline:
            tree = stack.enter_context(checkout(a.baseline))
            base = Child(a, tree)
            stack.callback(base.close)
            runners[f"baseline {a.baseline}"] = base
            if Path(base.ready["kbgym"]).resolve() != tree.resolve():
                raise SystemExit(f"the baseline process imported {base.ready['kbgym']}")
        runners["this tree"] = Bench(a, tmp)
        res: dict[str, dict[str, list[dict]]] = {k: {} for k in runners}
        extra: dict[str, dict] = {k: {} for k in runners}

        def rounds(cmd: str, n: int) -> None:
            for _ in range(n):
                got = {k: r.do(cmd) for k, r in runners.items()}  # type: ignore[attr-defined]
                if len({g["hash"] for g in got.values()}) != 1:
                    raise SystemExit(f"{cmd}: the trees wrote different digests: {got}")
                for k, g in got.items():
                    res[k].setdefault(cmd, []).append(g)

        rounds("cold", a.rounds)
        rounds("fresh", a.rounds)
        if a.json:
            rounds("json", 1)
        for k, r in runners.items():
            extra[k].update(r.do("edit"))  # type: ignore[attr-defined]
        rounds("after", a.rounds)
        for k, r in runners.items():
            extra[k].update(r.do("done"))  # type: ignore[attr-defined]
    print(f"{a.notes:,} notes; edits: every {a.edit_every}. note + 1,000 adds + 1,000 links; "
          f"{load_note()}; CPU seconds, medians "
          f"of {a.rounds} (JSON: 1)")
    for k, e in extra.items():
        print(f"- {k}: binary file {e['mb']:.0f} MB, the edits {e['edit_s']:.1f} s CPU, peak RSS "
              f"{e['rss']:.0f} MB")
    print("| case | tree | write s CPU | read s CPU | write + read | goal < 2 s |")
    print("|---|---|---|---|---|---|")
    for cmd, name in CASES.items():
        for k in runners:
            rs = res[k].get(cmd)
            if not rs:
                continue
            w = statistics.median(r["w"] for r in rs)
            r = statistics.median(r["r"] for r in rs)
            print(f"| {name} | {k} | {w:.2f} | {r:.2f} | {w + r:.2f} | "
                  f"{'met' if w + r < 2 else 'not met'} |")


if __name__ == "__main__":
    main()
