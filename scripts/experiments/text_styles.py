"""Same links, same credit? One index per person in several text styles (issue 34).

    python scripts/experiments/text_styles.py [--people 500] [--seed 11] [--questions 26]

On a generated universe, every person named by the first ``--questions`` common-friend and
friend-job training questions gets one authored note linking their friend statements,
written in one style per library (short title, markdown, HTML, YAML, JSON edge records,
arrows, middle dots). It prints, per style, the exam reader's steps and F1 against B1 and
the ideal navigator's ratio, so a style the reader gets less from than the navigator does
shows up as a gap between the two columns.
"""

from __future__ import annotations

import argparse
import json

from kbgym.library.graph import Library
from kbgym.library.search import BM25Index
from kbgym.metrics.navigator import navigate_all
from kbgym.runs.exam import Examiner
from kbgym.worlds.people import UniverseConfig, generate
from kbgym_agents.scripted.reader import ScriptedReader
from kbgym_agents.zoo.generated import Truth

STYLES = {
    "short": lambda x, ms: f"Friends of {x}.",
    "markdown": lambda x, ms: f"## Friends of {x}\n" + "\n".join(f"- [[{m}]]" for m in ms),
    "html": lambda x, ms: (f"<h2>Friends of {x}</h2><ul>"
                           + "".join(f"<li>{m}</li>" for m in ms) + "</ul>"),
    "yaml": lambda x, ms: f"name: {x}\nfriends:\n" + "\n".join(f"  - {m}" for m in ms),
    "edges": lambda x, ms: json.dumps([{"source": x, "relation": "friend", "target": m}
                                       for m in ms]),
    "arrows": lambda x, ms: f"{x} -> friends -> " + ", ".join(ms),
    "middot": lambda x, ms: f"{x} \u2014 friends: " + " \u00b7 ".join(ms),
}


def exam(u, lib, qs) -> dict[str, tuple[int, float]]:
    """qid -> (steps, F1) of the exam reader, one probe episode each (the Examiner's)."""
    examiner = Examiner(u, qs, library=lib, navigate=False)
    reader = ScriptedReader()
    out = {}
    for q in qs:
        summary, _, _ = examiner.run(reader, q.qid)
        out[q.qid] = (summary["steps"], summary["f1"])
    return out


def nav_steps(u, lib, qs) -> int:
    if lib.search_backend is None:
        lib.attach_search(BM25Index())
    return sum(r.steps or 0 for r in navigate_all(lib, u, qs, m=15).values())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--people", type=int, default=500)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--questions", type=int, default=26)
    args = ap.parse_args()
    u = generate(UniverseConfig(seed=args.seed, n_people=args.people))
    truth = Truth(u)
    qs = [q for q in u.split("train")
          if q.template in ("qc7_common_friend", "qc8_friend_job")][:args.questions]
    people = sorted({k[len("person:"):] for q in qs for k in q.keys if k.startswith("person:")})
    base = exam(u, Library.from_universe(u), qs)
    b_steps = sum(s for s, _ in base.values())
    b_nav = nav_steps(u, Library.from_universe(u), qs)
    print(f"{len(qs)} questions, {len(people)} indexed people; B1: reader {b_steps} steps, "
          f"navigator {b_nav}")
    print("| style | reader rho | navigator rho | questions losing F1 |")
    print("|---|---|---|---|")
    for name, render in STYLES.items():
        def build() -> Library:
            lib = Library.from_universe(u)
            for x in people:
                sets = truth.members("friends", x)
                links = [n for ns in sets.values() for n in ns]
                if links:
                    lib.link_many(lib.add(render(x, sorted(sets))).id, links)
            return lib
        got = exam(u, build(), qs)
        lost = sum(1 for q in got if got[q][1] < base[q][1])
        rho = sum(s for s, _ in got.values()) / b_steps
        print(f"| {name} | {rho:.3f} | {nav_steps(u, build(), qs) / b_nav:.3f} | {lost} |")


if __name__ == "__main__":
    main()
