"""Structure metrics and misinformation over reworded libraries, on several seeds.

    python scripts/experiments/structure_wording.py [--seeds 0,1,2,3,4] [--train-size 100]

Per seed: train the scripted index curator (default universe, 2 epochs), then reword every
index title in seven styles (same links) and print index precision, recall, the link-based
families and character per style, with the title-based families beside them; the last column
says whether the link-based metrics equal the canonical titles' (they must). Then it writes one
false statement per trained question (every other one a wrong job in the universe's fact form,
the rest wrong answers in the answer-statement form) into the trained library and prints the
misinformation counts.
"""

from __future__ import annotations

import argparse
import random
import tempfile
from pathlib import Path

from kbgym.library.snapshot import load_snapshot
from kbgym.metrics.misinformation import misinformation
from kbgym.metrics.structure import Resolver, index_structure
from kbgym.plugins import make_agent
from kbgym.runs.train import TrainConfig, train
from kbgym.worlds.people import UniverseConfig, generate
from kbgym.worlds.people.statements import answer_statement, question_slots

STYLES = {
    "canonical": None,
    "possessive": {"friends": "{n}'s circle of friends.", "children": "{n}'s kids.",
                   "grandchildren": "{n}'s grandkids.", "hub": "{n}'s page.",
                   "job": "The {n}s.", "hobby": "The {n} crowd.", "city": "{n}'s people."},
    "clause": {"friends": "People {n} is friends with.", "children": "People {n} raised.",
               "grandchildren": "People {n} is a grandparent of.", "hub": "Things known about {n}.",
               "job": "People who work as a {n}.", "hobby": "People who enjoy {n}.",
               "city": "People who live in {n}."},
    "lead word": {"friends": "About {n}'s friendships", "children": "About {n}'s children",
                  "grandchildren": "About {n}'s grandchildren", "hub": "About {n}",
                  "job": "About the {n} trade", "hobby": "About {n} fans", "city": "About {n}"},
    "index": {k: "Index: {n} / " + k for k in ("friends", "children", "grandchildren", "hub",
                                               "job", "hobby", "city")},
    "caps": {k: k.upper() + " — {n}" for k in ("friends", "children", "grandchildren", "hub",
                                               "job", "hobby", "city")},
    "no title": {k: "Index note." for k in ("friends", "children", "grandchildren", "hub",
                                            "job", "hobby", "city")},
}


def reworded(lib, u, style: dict | None):
    """A copy of ``lib`` whose authored notes carry ``style``'s titles (links untouched)."""
    out = lib.copy(search=None, dedup=None)
    if style is None:
        return out
    res = Resolver(u)
    name = {p.pid: p.name for p in u.people}
    for node in [n for n in out if n.is_authored]:
        key = res.resolve(node.text).key
        if key is None:
            continue
        kind, _, rest = key.partition(":")
        text = style[kind].format(n=name.get(rest, rest))
        out.edit(node.id, f"{text} ({node.id})", dedup=False)  # ids keep the texts distinct
    return out


def link_metrics(st: dict) -> dict:
    return {k: v for k, v in st.items() if k not in ("families_by_title", "title_agrees")}


def false_answers(lib, u, qids):
    """``lib`` plus one false statement per question: for every other question with a named
    person, a wrong job for that person in the universe's fact form; otherwise a wrong answer
    (another answer of the same template) as an answer statement."""
    out = lib.copy(search=None, dedup=None)
    rng = random.Random(0)
    answers: dict[str, set[str]] = {}
    for q in u.questions:
        answers.setdefault(q.template, set()).update(q.golds)
    job_of = {p.name: p.job for p in u.people}
    for i, qid in enumerate(qids):
        q = u.question(qid)
        slots = question_slots(q.template, q.text)
        if i % 2 and "X" in slots:
            wrong = rng.choice([j for j in u.vocab["jobs"] if j != job_of[slots["X"]]])
            out.add(f"{slots['X']}'s job is {wrong}.", dedup=False)
            continue
        pool = sorted(answers[q.template] - set(q.golds)) or ["unknown"]
        out.add(answer_statement(q.template, slots, rng.choice(pool)), dedup=False)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--train-size", type=int, default=100)
    args = ap.parse_args()
    for seed in (int(s) for s in args.seeds.split(",")):
        u = generate(UniverseConfig(seed=seed))
        with tempfile.TemporaryDirectory() as tmp:
            train(u, make_agent("scripted-index"), Path(tmp),
                  config=TrainConfig(epochs=2, train_size=args.train_size))
            lib, _ = load_snapshot(Path(tmp) / "kb_epoch_2.json")
        print(f"seed {seed}: {sum(n.is_authored for n in lib)} index notes")
        print(f"  {'style':11s}{'precision':>10s}{'recall':>8s}  families (links)"
              f"{'':40s}character{'':23s}by title{'':33s}same")
        base = None
        for label, style in STYLES.items():
            st = index_structure(reworded(lib, u, style), u)
            base = base or link_metrics(st)
            fam = " ".join(f"{k} {v}" for k, v in st["families"].items())
            ch = " ".join(f"{k[:4]} {v}" for k, v in st["character"].items())
            title = " ".join(f"{k[:4]} {v}" for k, v in st["families_by_title"].items())
            print(f"  {label:11s}{st['precision']:10.3f}{st['recall']:8.3f}  {fam:56s}{ch:32s}"
                  f"{title:41s}{'yes' if link_metrics(st) == base else 'NO'}")
        qids = list(u.splits["train"][:args.train_size])
        m = misinformation(false_answers(lib, u, qids), u)
        print(f"  false answers written for {len(qids)} questions: false {m['false_statements']}"
              f", true {m['true_statements']}, unverifiable {m['unverifiable_statements']}; "
              f"false notes {m['false_notes']}/{m['notes_written']} "
              f"(share {m['false_note_share']:.3f}); by form {m['by_form']}")


if __name__ == "__main__":
    main()
