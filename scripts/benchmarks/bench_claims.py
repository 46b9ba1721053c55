"""The claim reader (kbgym.claims): throughput, and the misinformation figures it gives on
generated truthful and harmful libraries.

    python scripts/benchmarks/bench_claims.py [--seed 0] [--rounds 3] [--zoo 48]

Prints, on the default universe (``UniverseConfig()``):

- the time to build the vocabulary;
- cold reads (the memo cleared before each round) of every original note, in notes/s, the
  median of ``--rounds`` rounds;
- cold reads of long rendered notes (one per real person: a markdown profile with a friends
  list, a prose page, a JSON record and a table, ~300-900 characters), notes/s and chars/s;
- memoised re-reads of the originals, notes/s;
- over ``--zoo`` generated libraries (agents/zoo, a 120-person universe, the first 20
  training questions): per class (truthful / harmful by harm), the libraries with any false
  statement, wrong member or incomplete set, and the totals; and the libraries with a false
  statement under the rule before the claim reader (one §3 or answer sentence at a time).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict

from kbgym.claims import people_vocabulary, read_claims
from kbgym.worlds.people import UniverseConfig, generate


def long_notes(u) -> list[str]:
    by = {p.pid: p for p in u.people}
    out = []
    for p in u.real_people:
        friends = [by[f].name for f in p.friends]
        kids = [by[c].name for c in p.children]
        pro, pos = ("He", "His") if p.gender == "male" else ("She", "Her")
        md = (f"# {p.name}\n- Job: {p.job}\n- Hobby: {p.hobby}\n- City: {p.city}\n"
              f"## Friends of {p.name}\n" + "\n".join(f"- [[{f}]]" for f in friends))
        prose = (f"{p.name} works as a {p.job} and lives in {p.city}. {pro} enjoys {p.hobby}. "
                 + (f"{pos} friends are {', '.join(friends)}. " if friends else "")
                 + (f"{pos} children are {', '.join(kids)}." if kids else ""))
        record = json.dumps({"name": p.name, "job": p.job, "hobby": p.hobby, "city": p.city,
                             "friends": friends, "children": kids})
        table = ("| Name | Job | Hobby | City |\n|---|---|---|---|\n"
                 f"| {p.name} | {p.job} | {p.hobby} | {p.city} |\n\n"
                 f"| Friends of {p.name} |\n|---|\n" + "\n".join(f"| {f} |" for f in friends))
        out += [md, prose, record, " ".join(table.split())]
    return out


def rate(texts, vocab, rounds: int, cold: bool = True) -> float:
    rates = []
    for _ in range(rounds):
        if cold:
            vocab._cache.clear()
        t = time.perf_counter()
        for text in texts:
            read_claims(text, vocab)
        rates.append(len(texts) / (time.perf_counter() - t))
    return statistics.median(rates)


def zoo(n: int, seed: int) -> None:
    sys.path.insert(0, ".")
    from kbgym.library.graph import AUTHORED, EDITED
    from kbgym.metrics.misinformation import Truth, misinformation, sentences
    from kbgym_agents.zoo.generated import generate_libraries

    u = generate(UniverseConfig(seed=11, n_people=120))
    qs = u.split("train")[:20]
    truth = Truth(u)
    rows: dict[str, list] = defaultdict(list)
    for g in generate_libraries(u, seed, n, questions=qs):
        m = misinformation(g.library, u)
        # the rule before the claim reader: one §3 or answer sentence at a time
        old = sum(1 for node in g.library if node.flag in (AUTHORED, EDITED)
                  for x in sentences(node.text)
                  if (v := truth.sentence(x)) is not None and v[1] == "false")
        gone = sum(1 for q in qs for o in q.support if o not in g.library)
        label = "truthful" if g.truthful else ("noisy" if not g.harms else
                                               "harmful: " + "+".join(sorted(g.harms)))
        rows[label].append((m["false_statements"], m["wrong_members"], m["incomplete_sets"],
                            gone, old))
    print(f"\nzoo: {n} generated libraries (seed {seed}), per class: libraries with any "
          "false statement / wrong member / incomplete set / deleted support; sums")
    print(f"{'class':52} {'n':>3} {'false':>6} {'wrong':>6} {'incompl':>7} {'gone':>5} "
          f"{'flagged':>7} | sums f/w/i | false by sentence forms only")
    for label in sorted(rows, key=lambda k: (k != "truthful", k)):
        r = rows[label]
        anyf = [sum(x[i] > 0 for x in r) for i in range(4)]
        flagged = sum(any(v > 0 for v in x) for x in r)
        sums = [sum(x[i] for x in r) for i in range(3)]
        print(f"{label:52} {len(r):>3} {anyf[0]:>6} {anyf[1]:>6} {anyf[2]:>7} {anyf[3]:>5} "
              f"{flagged:>7} | {sums[0]}/{sums[1]}/{sums[2]} | {sum(x[4] > 0 for x in r)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--zoo", type=int, default=48, help="generated libraries (0: skip)")
    a = ap.parse_args()
    u = generate(UniverseConfig(seed=a.seed))
    t = time.perf_counter()
    vocab = people_vocabulary(u)
    print(f"default universe: {len(u.people)} people, {len(u.nodes)} original notes; "
          f"vocabulary built in {1000 * (time.perf_counter() - t):.1f} ms "
          f"({len(vocab.lexicon)} token windows)")
    originals = [n.text for n in u.nodes]
    longs = long_notes(u)
    chars = sum(map(len, longs))
    r = rate(originals, vocab, a.rounds)
    print(f"originals, cold: {r:,.0f} notes/s (median of {a.rounds})")
    r = rate(longs, vocab, a.rounds)
    print(f"long rendered notes ({len(longs)}, mean {chars / len(longs):.0f} chars), cold: "
          f"{r:,.0f} notes/s, {r * chars / len(longs) / 1e6:.2f} M chars/s")
    r = rate(originals, vocab, a.rounds, cold=False)
    print(f"originals, memoised: {r:,.0f} notes/s")
    if a.zoo:
        zoo(a.zoo, a.seed)


if __name__ == "__main__":
    main()
