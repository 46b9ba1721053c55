"""Library speed and memory: p50/p95 of search, read, add, edit and link, one process per size.

    python scripts/benchmarks/bench_library.py [--sizes 6000,1000000] [--ops 400]

The synthetic library is shaped like a universe (SPEC §3): per person a job, hobby, city and
birth sentence, plus marriage, child/parent and friend sentences, with names drawn from a few
hundred first and last names. Each size runs in a fresh process so peak RSS (ru_maxrss)
belongs to that size alone (it includes the benchmark's own copy of the texts). Latencies are
per call through the functions the environment uses (search_result, read_result, apply_edit),
with immediate index refresh: every added or edited note is searchable at once.

``search`` mixes realistic queries (names, "friend of X", "lives in the city of C", a job);
``search_common_only`` holds only very frequent words ("of", "is a friend of", ...), the
worst case for an inverted index.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

OPS = ("search", "search_common_only", "read", "add", "edit", "link", "link_many_20")
SYL = ["ab", "er", "na", "thy", "mar", "quil", "fen", "wick", "dor", "ell", "gar", "os", "tin",
       "bel", "rud", "sa", "mo", "ve", "kin", "lo", "hart", "ley", "ton", "ric"]  # fmt: skip
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]  # fmt: skip


def synthetic(target: int, rng: random.Random) -> tuple[list[str], dict[str, list[str]]]:
    def word(k: int) -> str:
        return "".join(rng.choice(SYL) for _ in range(k)).capitalize()

    v = {
        "firsts": sorted({word(2) for _ in range(400)}),
        "lasts": sorted({word(3) for _ in range(900)}),
        "jobs": sorted({word(2).lower() + "er" for _ in range(120)}),
        "hobbies": sorted({word(2).lower() + "ing" for _ in range(120)}),
        "cities": sorted({word(3) for _ in range(60)}),
        "people": [],
    }
    texts: list[str] = []
    people = v["people"]
    while len(texts) < target:
        n = f"{rng.choice(v['firsts'])} {rng.choice(v['lasts'])}"
        people.append(n)
        born = f"{rng.choice(MONTHS)} {rng.randint(1, 28)}, {rng.randint(1900, 2010)}"
        job, hobby, city = rng.choice(v["jobs"]), rng.choice(v["hobbies"]), rng.choice(v["cities"])
        texts += [f"{n}'s job is {job}.", f"{n}'s hobby is {hobby}.",
                  f"{n} lives in the city of {city}.", f"{n} was born on {born}."]  # fmt: skip
        if len(people) > 3:
            o = rng.choice(people[:-1])
            texts += [f"{n} is married to {o}.", f"{o} is married to {n}."]
            for _ in range(rng.randint(1, 3)):
                f = rng.choice(people[:-1])
                texts += [f"{n} is a friend of {f}.", f"{f} is a friend of {n}."]
            p = rng.choice(people[:-1])
            role = rng.choice(["father", "mother"])
            texts += [f"{n} is a child of {p}.", f"{p} is the {role} of {n}."]
    return texts[:target], v


sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import pct, peak_rss_mb  # noqa: E402


def child(target: int, n_ops: int) -> dict:
    from kbgym.library import BM25Index, Library, apply_edit, read_result, search_result

    rng = random.Random(12345)
    texts, v = synthetic(target, rng)
    nodes = [(f"s{i:04d}", t) for i, t in enumerate(texts, 1)]
    t0 = time.perf_counter()
    lib = Library.from_texts(nodes, search=BM25Index())
    res: dict = {"nodes": len(lib), "build_s": round(time.perf_counter() - t0, 2)}

    def timed(fn, calls):
        out = []
        for args in calls:
            s = time.perf_counter_ns()
            fn(*args)
            out.append((time.perf_counter_ns() - s) / 1e3)
        return {"p50_us": round(pct(out, 0.5), 1), "p95_us": round(pct(out, 0.95), 1)}

    def query() -> str:
        n, c = rng.choice(v["people"]), rng.choice(v["cities"])
        return rng.choice([f"{n} job", f"friend of {n}", f"who is {n} married to",
                           f"lives in the city of {c}", rng.choice(v["jobs"]), f"{n} born",
                           f"children of {n}", f"{rng.choice(v['hobbies'])} hobby", n,
                           f"mother of {n}"])  # fmt: skip

    ids = lib.ids()
    people = v["people"]
    searches = [(lib, query(), rng.randint(1, 2)) for _ in range(n_ops)]
    timed(search_result, searches[:20])  # warm-up
    res["search"] = timed(search_result, searches)
    common = ["of", "is a friend of", "lives in the city of", "'s job is"]
    res["search_common_only"] = timed(search_result, [(lib, q, 1) for q in common * 10])
    adds = [(lib, "add", {"text": f"People whose job is {rng.choice(v['jobs'])} number {i}."})
            for i in range(n_ops)]  # fmt: skip
    res["add"] = timed(apply_edit, adds)
    new_ids = lib.ids()[-n_ops:]
    assert lib.search(f"number {n_ops - 1}", 5)[0][0] == new_ids[-1]  # visible at once
    res["link"] = timed(apply_edit, [
        (lib, "link", {"source": rng.choice(new_ids), "target": rng.choice(ids)})
        for _ in range(n_ops)])  # fmt: skip
    res["link_many_20"] = timed(apply_edit, [
        (lib, "link_many", {"source": rng.choice(new_ids), "targets": rng.sample(ids, 20)})
        for _ in range(n_ops // 4)])  # fmt: skip
    res["edit"] = timed(apply_edit, [
        (lib, "edit", {"id": rng.choice(ids),
                       "text": f"{rng.choice(people)} is a friend of {rng.choice(people)}."})
        for _ in range(n_ops)])  # fmt: skip
    pool = new_ids + ids[:n_ops]  # half of them with links
    res["read"] = timed(read_result, [(lib, rng.choice(pool)) for _ in range(n_ops)])
    t0 = time.perf_counter()
    st = lib.stats()
    res["stats_us"] = round((time.perf_counter() - t0) * 1e6, 1)
    res["links"] = st["n_links"]
    res["rss_mb"] = round(peak_rss_mb())
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="6000,1000000")
    ap.add_argument("--ops", type=int, default=400)
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.ops)))
        return
    for n in (int(s) for s in args.sizes.split(",")):
        out = subprocess.run([sys.executable, __file__, "--child", str(n), "--ops", str(args.ops)],
                             check=True, capture_output=True, text=True)  # fmt: skip
        res = json.loads(out.stdout)
        print(f"nodes {res['nodes']:,}  build {res['build_s']} s  peak RSS {res['rss_mb']} MB  "
              f"stats() {res['stats_us']} us")
        for op in OPS:
            r = res[op]
            print(f"  {op:<20} p50 {r['p50_us']:>9.1f} us   p95 {r['p95_us']:>9.1f} us")


if __name__ == "__main__":
    main()
