"""How often does the claim reader read something false in truthful prose? The property test
``test_truthful_prose_about_several_people_reads_nothing_false`` draws 40 texts per run; this
draws many more from the same sentences, so that a rare misreading shows (issue 34).

    python scripts/experiments/claim_sampler.py [--texts 4000] [--seed 0] [--show 5]

Each text joins 1-4 of the test's ``TRUE_SENTENCES`` (true relations and values of a person A,
a friend B, a child C and the spouse S of a generated universe whose names share first names
and surnames), as paragraphs, in a random letter case, half of them on one line as the library
stores a note. Every fact the reader reads is checked against the universe. Prints the number
of texts, the false readings and the sentence combinations they came from, and a few examples.
Needs the test dependencies (it imports the test module for its sentences).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
from collections import Counter
from pathlib import Path

from kbgym.claims import people_vocabulary
from kbgym.metrics.misinformation import Truth
from kbgym.worlds.people import UniverseConfig, generate

TESTS = Path(__file__).resolve().parents[2] / "tests" / "claims" / "test_reader.py"


def _test_module():
    spec = importlib.util.spec_from_file_location("claims_test_reader", TESTS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--texts", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", type=int, default=5, help="examples to print")
    args = ap.parse_args(argv)
    t = _test_module()
    u = generate(UniverseConfig(n_people=120, n_cities=8, sizes=(10, 5, 5), eval_sizes=(2, 2)))
    vocab, truth = people_vocabulary(u), Truth(u)
    by = {p.pid: p for p in u.people}
    rng = random.Random(args.seed)
    people = [q for q in u.real_people if q.friends and q.spouse and q.children]
    bad: Counter = Counter()
    examples: dict = {}
    for _ in range(args.texts):
        a = rng.choice(people)
        b, c = by[rng.choice(sorted(a.friends))], by[rng.choice(sorted(a.children))]
        sentences = tuple(rng.choice(t.TRUE_SENTENCES) for _ in range(rng.randint(1, 4)))
        case, one_line = rng.choice(sorted(t.CASES)), rng.random() < 0.5
        text = t.several_people(a, b, c, by[a.spouse], sentences, case, one_line)
        for f in t.false_readings(text, vocab, truth):
            bad[sentences] += 1
            examples.setdefault(sentences, (text, f))
    print(f"{args.texts} texts; {sum(bad.values())} false readings in {len(bad)} sentence "
          f"combinations ({len(t.TRUE_SENTENCES)} sentences to draw from)")
    for sentences, (text, fact) in list(examples.items())[:args.show]:
        print(f"  {' | '.join(sentences)}\n    {' '.join(text.split())[:300]}\n    read: {fact}")


if __name__ == "__main__":
    main()
