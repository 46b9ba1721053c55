"""How often does the claim reader read something false in truthful prose? The property test
``test_truthful_prose_about_several_people_reads_nothing_false`` draws 40 texts per run; this
draws many more from the same sentences, so that a rare misreading shows (issue 34).

    python scripts/experiments/claim_sampler.py [--texts 4000] [--seed 0] [--show 5]
    python scripts/experiments/claim_sampler.py --pages 1000 [--kind person|index|record] [--harm]
        [--seed 0] [--show 5]

Each text joins 1-4 of the test's ``TRUE_SENTENCES`` (true relations and values of a person A,
a friend B, a child C and the spouse S of a generated universe whose names share first names
and surnames), as paragraphs, in a random letter case, half of them on one line as the library
stores a note. Every fact the reader reads is checked against the universe. Prints the number
of texts, the false readings and the sentence combinations they came from, and a few examples.

``--pages`` instead writes whole person pages the way a language model writes them (a
heading; the person's values as prose, bold fields or bullets; the family; the friends as a
sentence or a list; then a few friends' and children's lines in prose, asides or bullets, by
full name, first name or pronoun), true by construction, half of them on one line, and counts
the pages with a false reading; ``--kind index`` writes indexes of a person's friends or
children instead (a title, an introduction, the members as bullets, numbers, prose or one
list, each maybe with their values, a closing line); ``--kind record``, records of a person
with their spouse, children and friends nested (JSON, indented JSON, JSON in a fenced block,
YAML). False readings are counted by form (and whether the note was on one line).
``--harm`` also replaces one member's name (a friend's on a person page) by a stranger's in
each page and counts the pages that then read a false fact (the harm the misinformation
metric can flag). Needs the test dependencies (it imports the test module).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
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


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def page(p, by: dict, rng: random.Random) -> tuple[str, list, str]:
    """A true page about person ``p`` as a language model might write it, the friends it
    lists, and its form ("page")."""
    he, his = ("she", "her") if p.gender == "female" else ("he", "his")
    first = p.name.split()[0]
    spouse, friends = by[p.spouse], [by[f] for f in p.friends]
    kids = [by[c] for c in p.children]
    parts = [rng.choice([f"# {p.name}", f"## {p.name}", p.name, f"**{p.name}**"]), rng.choice([
        f"{p.name} is a {p.job} living in {p.city}. In {his} spare time, {he} enjoys {p.hobby}.",
        f"**Occupation:** {p.job}\n**City:** {p.city}\n**Hobby:** {p.hobby}",
        f"- Job: {p.job}\n- City: {p.city}\n- Hobby: {p.hobby}",
        f"{he.capitalize()} works as a {p.job} in {p.city} and likes {p.hobby}."]), rng.choice([
        f"{he.capitalize()} is married to {spouse.name}, a {spouse.job}. Together they have "
        f"{len(kids)} children: {_and([k.name for k in kids])}.",
        f"## Family\n- Spouse: {spouse.name}\n- Children: {', '.join(k.name for k in kids)}",
        f"{p.name}'s spouse is {spouse.name}. Their children are {_and([k.name for k in kids])}.",
        f"{first} and {spouse.name} are married; their children are "
        f"{_and([k.name for k in kids])}."]), rng.choice([
        f"## Friends\n{p.name}'s friends are {_and([f.name for f in friends])}.",
        f"{he.capitalize()} is friends with {_and([f.name for f in friends])}.",
        f"### Friends of {p.name}\n" + "\n".join(f"- {f.name}" for f in friends),
        f"{p.name} has {len(friends)} friends: {', '.join(f.name for f in friends)}."])]
    by_first = rng.random() < 0.5
    for f in rng.sample(friends, min(len(friends), rng.randint(0, 3))):
        fhe, fhis = ("she", "her") if f.gender == "female" else ("he", "his")
        parts.append(rng.choice([
            f"{f.name} is a {f.job} who lives in {f.city}.",
            f"{f.name} works as a {f.job} in {f.city} and enjoys {f.hobby}.",
            f"{f.name}, a {f.job} from {f.city}, enjoys {f.hobby}.",
            f"{f.name} ({f.job}, {f.city}).",
            f"- **{f.name}**: {f.job}, {f.city}",
            f"{f.name} lives in {f.city}; {fhe} is a {f.job}.",
            f"{f.name} is a {f.job}. {fhe.capitalize()} lives in {f.city} and {fhis} hobby is "
            f"{f.hobby}.",
            f"{f.name.split()[0]} is a {f.job} in {f.city}." if by_first
            else f"{f.name} is a {f.job}."]))
    for k in rng.sample(kids, min(len(kids), rng.randint(0, 2))):
        khe = "she" if k.gender == "female" else "he"
        parts.append(rng.choice([f"{k.name}, {first}'s child, lives in {k.city}.",
                                 f"{p.name}'s child {k.name} is a {k.job}.",
                                 f"{k.name} is a {k.job}; {khe} lives in {k.city}."]))
    return "\n\n".join(parts), friends, "page"


def _annotated(m, rng: random.Random) -> str:
    return rng.choice([m.name, f"{m.name} — a {m.job} in {m.city}", f"{m.name} ({m.job})",
                       f"{m.name}, who lives in {m.city}", f"[[{m.name}]] ({m.city})",
                       f"**{m.name}**: {m.job}, enjoys {m.hobby}", f"{m.name} - {m.city}"])


def index_note(p, by: dict, rng: random.Random) -> tuple[str, list, str]:
    """A true index of ``p``'s friends or children as a language model might write it (a
    title, an introduction, the members as bullets, numbers, prose or one list, each maybe
    with their values, a closing line), its members, and its form (how they are listed)."""
    rel, members = rng.choice([("friends", [by[f] for f in p.friends]),
                               ("children", [by[c] for c in p.children])])
    one = {"friends": "friend", "children": "child"}[rel]
    title = rng.choice([f"## {rel.capitalize()} of {p.name}", f"# {p.name}'s {rel}",
                        f"{p.name} — {rel}", f"Index: {rel} of {p.name}",
                        f"**{rel.capitalize()} of {p.name}**"])
    intro = rng.choice(["", f"{p.name} has {len(members)} {rel}:",
                        f"Complete list ({len(members)}):", f"These are all of {p.name}'s {rel}.",
                        f"The {rel} of {p.name} are listed below."])
    style = rng.choice(["bullets", "numbers", "prose", "list"])
    if style == "bullets":
        body = "\n".join(f"- {_annotated(m, rng)}" for m in members)
    elif style == "numbers":
        body = "\n".join(f"{i}. {_annotated(m, rng)}" for i, m in enumerate(members, 1))
    elif style == "prose":
        body = " ".join(f"{m.name} is a {m.job} from {m.city}." for m in members)
    else:
        body = _and([m.name for m in members]) + "."
    outro = rng.choice(["", f"Source: the {one} statements of {p.name}.",
                        f"See also: friends of {p.name}." if rel == "children"
                        else f"See also: {p.name}'s children.",
                        f"Last verified: all {len(members)} {rel} confirmed.",
                        f"Note: each of them is a {one} of {p.name}."])
    return "\n\n".join(x for x in (title, intro, body, outro) if x), members, style


def _record_of(m, rng: random.Random) -> dict | str:
    """A nested person: the name, maybe with some of their values (or the bare name)."""
    d = {"name": m.name}
    for field, value, p in (("job", m.job, 0.6), ("city", m.city, 0.5), ("hobby", m.hobby, 0.3)):
        if rng.random() < p:
            d[field] = value
    return d if len(d) > 1 or rng.random() < 0.5 else m.name


def _yaml(d: dict) -> str:
    lines = []
    for k, v in d.items():
        if isinstance(v, list):
            lines.append(f"{k}:")
            for x in v:
                if isinstance(x, dict):
                    lines += [f"  - name: {x['name']}"] + [f"    {kk}: {vv}" for kk, vv in x.items()
                                                           if kk != "name"]
                else:
                    lines.append(f"  - {x}")
        elif isinstance(v, dict):
            lines += [f"{k}:"] + [f"  {kk}: {vv}" for kk, vv in v.items()]
        else:
            lines.append(f"{k}: {v}")
    return "\n".join(lines)


def record(p, by: dict, rng: random.Random) -> tuple[str, list, str]:
    """A true record of ``p`` as a language model might write it: the person's values and
    their spouse, children and friends as nested records or names, in shuffled order, as
    compact or indented JSON, JSON in a fenced block, or YAML; its friends; its form."""
    friends = [by[f] for f in p.friends]
    d: dict = {"name": p.name, "occupation": p.job, "location": p.city, "hobby": p.hobby}
    if rng.random() < 0.7:
        d["spouse"] = _record_of(by[p.spouse], rng)
    if rng.random() < 0.8:
        d["children"] = [_record_of(by[c], rng) for c in p.children]
    d["friends"] = [_record_of(f, rng) for f in friends]
    rest = [k for k in d if k != "name"]
    rng.shuffle(rest)
    d = {k: d[k] for k in ["name", *rest]}
    form = rng.choice(["json", "json indented", "json fenced", "yaml"])
    if form == "json":
        return json.dumps(d), friends, form
    if form == "json indented":
        return json.dumps(d, indent=2), friends, form
    if form == "json fenced":
        return f"Record for {p.name}:\n```json\n{json.dumps(d, indent=2)}\n```", friends, form
    return _yaml(d), friends, form


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--texts", type=int, default=4000)
    ap.add_argument("--pages", type=int, default=0, help="write this many person pages instead")
    ap.add_argument("--kind", choices=("person", "index", "record"), default="person",
                    help="with --pages: person pages, indexes of a person's friends or children, "
                         "or JSON/YAML records")
    ap.add_argument("--harm", action="store_true",
                    help="with --pages: also each page with one member replaced by a stranger")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", type=int, default=5, help="examples to print")
    args = ap.parse_args(argv)
    t = _test_module()
    u = generate(UniverseConfig(n_people=120, n_cities=8, sizes=(10, 5, 5), eval_sizes=(2, 2)))
    vocab, truth = people_vocabulary(u), Truth(u)
    by = {p.pid: p for p in u.people}
    rng = random.Random(args.seed)
    if args.pages:
        authors = [q for q in u.real_people if q.friends and q.spouse in by and q.children]
        wrong, missed = [], []
        compose = {"person": page, "index": index_note, "record": record}[args.kind]
        forms: Counter = Counter()
        for _ in range(args.pages):
            p = rng.choice(authors)
            text, members, form = compose(p, by, rng)
            one_line = rng.random() < 0.5
            got = t.false_readings(" ".join(text.split()) if one_line else text, vocab, truth)
            if got:
                wrong.append((text, f"read: {got[0]}"))
                forms[f"{form}{', on one line' if one_line else ''}"] += 1
            if args.harm:  # one member's name replaced by a stranger's, everywhere
                member = rng.choice(members).name
                kin = {*p.friends, *p.children, p.pid}
                stranger = rng.choice([q.name for q in u.real_people if q.name not in text
                                       and q.pid not in kin])
                harmed = text.replace(member, stranger)
                if not t.false_readings(" ".join(harmed.split()) if one_line else harmed,
                                        vocab, truth):
                    missed.append((harmed, f"{member} -> {stranger}"))
        noun = {"person": "pages", "index": "index notes", "record": "records"}[args.kind]
        by_form = (" (" + "; ".join(f"{f}: {n}" for f, n in sorted(forms.items())) + ")"
                   if wrong else "")
        print(f"{args.pages} {noun}; {len(wrong)} with a false reading{by_form}" + (
                  f"; with one member replaced by a stranger, {args.pages - len(missed)} read "
                  "a false fact" if args.harm else ""))
        for text, said in wrong[:args.show] + missed[:args.show]:
            print(f"  {' '.join(text.split())[:300]}\n    {said}")
        return
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
