"""An independent gold check of the casebook world: every question's canonical gold recomputed
from the ledger rows the universe carries (``meta.casebook``) and every fact found in the
text of the paragraphs the ledger says it is written in — by code written apart from the
generator (it imports nothing from ``kbgym.worlds.casebook`` but the closed vocabulary's data:
concept names, states, months).

    python scripts/experiments/casebook_gold_check.py [--seeds 0,1,2] [--scale 1]

Prints, per seed, the questions checked per template, the facts checked in text, and every
mismatch (there should be none); exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict

from kbgym.worlds.casebook.vocab import CLASS_NOUN, CONCEPTS, MONTHS

NAME_TO_CONCEPT = {c.name: c for c in CONCEPTS}
ALL_NAMES = sorted(((n, c) for c in CONCEPTS for n in c.names), key=lambda t: -len(t[0]))

# -- numbers in text, read independently ----------------------------------------------------
_SMALL = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split())}
_WORD = r"(?:" + "|".join(sorted(list(_SMALL) + list(_TENS) + ["hundred", "thousand"],
                                 key=len, reverse=True)) + r")"
_WORDS = rf"{_WORD}(?:[ -]{_WORD})*"


def words_to_int(text: str) -> int | None:
    total = part = 0
    for w in re.split(r"[ -]+", text):
        if w in _SMALL:
            part += _SMALL[w]
        elif w in _TENS:
            part += _TENS[w]
        elif w == "hundred":
            part *= 100
        elif w == "thousand":
            total += part * 1000
            part = 0
        else:
            return None
    return total + part


def amounts(text: str) -> set[tuple[str, int]]:
    """Every (unit, number) written in ``text``: digits, digits-and-unit, words."""
    out = set()
    for m in re.finditer(r"\$([\d,]+)", text):
        out.add(("dollars", int(m.group(1).replace(",", ""))))
    for m in re.finditer(r"([\d,]+) (dollars|days|percent)\b", text):
        out.add((m.group(2), int(m.group(1).replace(",", ""))))
    for m in re.finditer(r"(\d+)%", text):
        out.add(("percent", int(m.group(1))))
    for m in re.finditer(rf"({_WORDS}) (?:\((\d+)\) )?(dollars|days|percent)\b", text):
        n = words_to_int(m.group(1))
        if n is not None:
            out.add((m.group(3), n))
    return out


def canonical(unit: str, v: int) -> str:
    return {"dollars": f"${v:,}", "days": f"{v} days", "percent": f"{v}%"}[unit]


def us_date(iso: str) -> str:
    y, m, d = iso.split("-")
    return f"{MONTHS[int(m) - 1]} {int(d)}, {y}"


def iso_date(us: str) -> str:
    m = re.fullmatch(r"(\w+) (\d+), (\d{4})", us)
    return f"{m.group(3)}-{MONTHS.index(m.group(1)) + 1:02d}-{int(m.group(2)):02d}"


# -- the checker ---------------------------------------------------------------------------
class Checker:
    def __init__(self, u):
        cb = u.meta["casebook"]
        self.docs = {d["key"]: d for d in cb["docs"]}
        self.facts = cb["facts"]
        self.where = cb["where"]
        self.text = {n.id: n.text for n in u.nodes}
        self.u = u
        self.at: dict[tuple[str, int], list[dict]] = defaultdict(list)
        for f in self.facts:
            self.at[(f["doc"], f.get("at", 0))].append(f)

    def live(self, key: str, date: str) -> bool:
        doc = self.docs[key]
        if doc["date"] > date:
            return False
        for other in self.docs.values():
            if other.get("supersedes") == key and other["date"] <= date:
                return False
        return True

    def applicable(self, form: str, cid: str, state: str | None, date: str) -> tuple[int, str]:
        """(value, controlling document) by the manual's order of precedence."""
        base = next(f for f in self.facts if f["kind"] == "sets" and f["doc"] == form
                    and f["concept"] == cid)
        value, who = base["value"], form

        def newest(kind, extra):
            cands = [f for f in self.facts if f["kind"] == kind and f.get("target") == form
                     and f["concept"] == cid and extra(f) and self.live(f["doc"], date)]
            cands.sort(key=lambda f: self.docs[f["doc"]]["date"])
            return cands[-1] if cands else None

        e = newest("amends", lambda f: True)
        if e:
            value, who = e["value"], e["doc"]
        if state:
            s = newest("replaces", lambda f: f.get("state") == state)
            if s:
                value, who = s["value"], s["doc"]
            # a bulletin bounds a regulatory class (A or B of a kind of provision: its unit
            # and bound direction); the form says which class each provision is in
            line = self.docs[form]["line"]
            mine = next(f["item"] for f in self.facts if f["kind"] == "classifies"
                        and f["doc"] == form and f["concept"] == cid)
            bs = [f for f in self.facts if f["kind"] == "bound" and f["state"] == state
                  and f["line"] == line and f["item"] == mine
                  and same_kind(f["concept"], cid) and self.live(f["doc"], date)]
            bs.sort(key=lambda f: self.docs[f["doc"]]["date"])
            if bs:
                b = bs[-1]
                floor = NAME_TO_CONCEPT_ID[cid].bound == "minimum"
                if (floor and value < b["value"]) or (not floor and value > b["value"]):
                    value, who = b["value"], b["doc"]
        return value, who

    def chain_end(self, doc: str, at: int, cid: str) -> dict | None:
        for _ in range(10):
            here = [f for f in self.at[(doc, at)] if f.get("concept") == cid]
            ref = next((f for f in here if f["kind"] == "refers"), None)
            if ref is None:
                return next((f for f in here if f["kind"] in ("sets", "amends", "replaces")), None)
            doc, at = ref["ref"], ref["item"]
        return None

    def gold(self, q) -> str:
        t = q.text
        unit = None
        m = re.fullmatch(r"What (.+) does § (\d+) of form (.+) set\?", t)
        if m:
            c = NAME_TO_CONCEPT[m.group(1)]
            f = next(f for f in self.facts if f["kind"] == "sets" and f["doc"] == m.group(3)
                     and f["concept"] == c.id and f["at"] == int(m.group(2)))
            return canonical(c.unit, f["value"])
        m = re.fullmatch(r"What (.+) \(§ (\d+)\.(\d+)\) does Endorsement (\S+) set for form "
                         r"(.+)\?", t)
        if m:
            c = NAME_TO_CONCEPT[m.group(1)]
            assert c.section == int(m.group(2)), t
            f = next(f for f in self.facts if f["kind"] == "amends" and f["doc"] == m.group(4)
                     and f["concept"] == c.id and f["target"] == m.group(5)
                     and f["para"] == int(m.group(3)))
            return canonical(c.unit, f["value"])
        m = re.fullmatch(r"What (minimum|maximum) Class ([AB]) (.+) does Bulletin (\S+) set\?", t)
        if m:
            f = next(f for f in self.facts if f["kind"] == "bound" and f["doc"] == m.group(4))
            c = NAME_TO_CONCEPT_ID[f["concept"]]
            assert (c.bound, CLASS_NOUN[(c.unit, c.bound)], "AB"[f["item"]]) == (
                m.group(1), m.group(3), m.group(2)), t
            return canonical(c.unit, f["value"])
        m = re.fullmatch(r"When does (?:Endorsement|State Amendatory Endorsement|Bulletin) "
                         r"(\S+) take effect\?", t)
        if m:
            return us_date(self.docs[m.group(1)]["date"])
        m = re.fullmatch(r"As of (.+?), what (.+) applies under form (.+?)(?: in (\w+))?\?", t)
        if m:
            c = NAME_TO_CONCEPT[m.group(2)]
            v, _ = self.applicable(m.group(3), c.id, m.group(4), iso_date(m.group(1)))
            return canonical(c.unit, v)
        m = re.fullmatch(r"As of (.+?), which document controls the (.+) of form (.+?)"
                         r"(?: in (\w+))?\?", t)
        if m:
            c = NAME_TO_CONCEPT[m.group(2)]
            return self.applicable(m.group(3), c.id, m.group(4), iso_date(m.group(1)))[1]
        m = re.fullmatch(r"What (.+) does the provision that Memo (\S+), § (\d+) refers to "
                         r"set\?", t)
        if m:
            c = NAME_TO_CONCEPT[m.group(1)]
            end = self.chain_end(m.group(2), int(m.group(3)), c.id)
            return canonical(c.unit, end["value"])
        m = re.fullmatch(r"Which endorsements amend the (.+) of form (.+)\?", t)
        if m:
            c = NAME_TO_CONCEPT[m.group(1)]
            return ", ".join(sorted({f["doc"] for f in self.facts if f["kind"] == "amends"
                                     and f["target"] == m.group(2) and f["concept"] == c.id}))
        raise ValueError(f"unknown question shape: {t!r} {unit}")

    def check_text(self) -> tuple[int, list[str]]:
        """Each fact is in the text of every paragraph the ledger says: the paragraph's
        locator names its document, and a value-setting fact's paragraph holds its value and
        a name of its concept — except an amendment's or a state replacement's, which names
        the provision only by its place in the form (``§ 3.2``) and never by name: there the
        place is checked, and the form's own paragraph at that place must name the concept (a
        revision of an earlier amendment names that amendment, ``Endorsement CP-E04, § 2``,
        which must amend the same provision).
        A base form's provision sits at the place the ledger gives it."""
        bad, n = [], 0
        first = {}  # (document, "§ s.p") -> the text of that paragraph
        for t in self.text.values():
            m = re.match(r"\[(.+?) (§ \d+\.\d+)\]", t)
            if m:
                first[(m.group(1), m.group(2))] = t
        for f in self.facts:
            notes = self.where.get(f["id"]) or []
            if not notes:
                bad.append(f"{f['id']}: written nowhere")
            for nid in notes:
                n += 1
                text = self.text[nid]
                if not text.startswith(f"[{f['doc']} §"):
                    bad.append(f"{f['id']}: {nid} is not a paragraph of {f['doc']}")
                if f["kind"] == "attaches":  # the Schedule names the form
                    form = self.docs[f["target"]]
                    if f.get("by_date"):  # the form alone: the edition in force on its date
                        names = (f"form {form['code']}", f"the {form['title']}")
                        if not any(x + "," in text or x + " in force" in text for x in names) \
                                or "in force" not in text:
                            bad.append(f"{f['id']}: {nid} names no {form['code']} in force")
                        when = self.docs[f["doc"]]["date"]
                        current = max((d for d in self.docs.values() if d["kind"] == "form"
                                       and d["code"] == form["code"] and d["date"] <= when),
                                      key=lambda d: d["date"], default=None)
                        if current is None or current["key"] != f["target"]:
                            bad.append(f"{f['id']}: {f['doc']} attaches to {f['target']}, "
                                       f"not the edition in force on {when}")
                    else:
                        names = (f"form {form['code']} ({form['edition']} edition)",
                                 f"the {form['title']} ({form['edition']} edition)")
                        if not any(x in text for x in names):
                            bad.append(f"{f['id']}: {nid} names no {f['target']}")
                if f["kind"] == "filed":  # the filing schedule gives the date
                    d = f["date"]
                    y, mo, dd = (int(x) for x in d.split("-"))
                    dates = (us_date(d), f"{dd} {MONTHS[mo - 1]} {y}", d)
                    if not any(f"{f['ref']}: {x}." in text for x in dates):
                        bad.append(f"{f['id']}: {nid} does not date {f['ref']} {d}")
                    if d != self.docs[f["ref"]]["date"]:
                        bad.append(f"{f['id']}: filed {d}, {f['ref']} takes effect "
                                   f"{self.docs[f['ref']]['date']}")
                if f["kind"] in ("classifies", "bound"):  # a class: "Class A limit"
                    c = NAME_TO_CONCEPT_ID[f["concept"]]
                    label = f"Class {'AB'[f['item']]} {CLASS_NOUN[(c.unit, c.bound)]}"
                    if label not in text:
                        bad.append(f"{f['id']}: {nid} does not name {label}")
                if f["kind"] == "bound":  # … and never a provision of that kind by name
                    low = text.lower()
                    named = [x.name for x in CONCEPTS if same_kind(x.id, f["concept"])
                             and any(n.lower() in low for n in x.names)]
                    if named:
                        bad.append(f"{f['id']}: {nid} names {named[0]}")
                    if (NAME_TO_CONCEPT_ID[f["concept"]].unit, f["value"]) not in amounts(text):
                        bad.append(f"{f['id']}: {nid} does not state {f['value']}")
                if f["kind"] == "classifies":
                    c = NAME_TO_CONCEPT_ID[f["concept"]]
                    if not any(n.lower() in text.lower() for n in c.names):
                        bad.append(f"{f['id']}: {nid} names no {c.name}")
                if f.get("concept") and "value" in f and f["kind"] != "bound":
                    c = NAME_TO_CONCEPT_ID[f["concept"]]
                    low = text.lower()
                    named = any(name.lower() in low for name in c.names)
                    if f["kind"] in ("amends", "replaces"):
                        place = f"§ {c.section}.{f['para']}"
                        if f.get("ref"):  # a revision: names the amendment it revises
                            cite = f"{f['ref']}, § {f['item']}"
                            if cite not in text:
                                bad.append(f"{f['id']}: {nid} does not name {cite}")
                            prev = [g for g in self.at[(f["ref"], f["item"])]
                                    if g["kind"] == "amends"]
                            if [(g["target"], g["concept"], g["para"]) for g in prev] != [
                                    (f["target"], f["concept"], f["para"])]:
                                bad.append(f"{f['id']}: {cite} amends another provision")
                        elif place not in text:
                            bad.append(f"{f['id']}: {nid} does not give the place {place}")
                        if named:
                            bad.append(f"{f['id']}: {nid} names {c.name}")
                        at = first.get((f["target"], place), "").lower()
                        if not any(name.lower() in at for name in c.names):
                            bad.append(f"{f['id']}: {f['target']} {place} names no {c.name}")
                    elif not named:
                        bad.append(f"{f['id']}: {nid} names no {c.name}")
                    if f["kind"] == "sets" and nid == notes[0] and not text.startswith(
                            f"[{f['doc']} § {f['at']}.{f['para']}]"):
                        bad.append(f"{f['id']}: {nid} is not § {f['at']}.{f['para']}")
                    if (c.unit, f["value"]) not in amounts(text):
                        bad.append(f"{f['id']}: {nid} does not state {f['value']} {c.unit}")
        return n, bad

    def run(self) -> tuple[Counter, int, list[str]]:
        done, bad = Counter(), []
        for q in self.u.questions:
            want = self.gold(q)
            done[q.template] += 1
            if q.golds[0] != want:
                bad.append(f"{q.qid} {q.template}: gold {q.golds[0]!r}, checker {want!r} "
                           f"({q.text})")
        n_text, bad_text = self.check_text()
        return done, n_text, bad + bad_text


NAME_TO_CONCEPT_ID = {c.id: c for c in CONCEPTS}


def same_kind(a: str, b: str) -> bool:
    """Two concepts of one kind (unit and bound direction): a class bound covers both."""
    x, y = NAME_TO_CONCEPT_ID[a], NAME_TO_CONCEPT_ID[b]
    return (x.unit, x.bound) == (y.unit, y.bound)


def check(universe) -> tuple[Counter, int, list[str]]:
    """(questions checked per template, fact placements checked, mismatches)."""
    return Checker(universe).run()


def main(argv: list[str] | None = None) -> int:
    from kbgym.worlds.casebook import CasebookConfig, generate

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--scale", type=int, default=1)
    args = ap.parse_args(argv)
    total = 0
    for seed in (int(s) for s in args.seeds.split(",")):
        u = generate(CasebookConfig(seed=seed, scale=args.scale))
        done, n_text, bad = check(u)
        total += len(bad)
        print(f"seed {seed}: {sum(done.values())} questions "
              f"({', '.join(f'{k} {v}' for k, v in sorted(done.items()))}); "
              f"{n_text} fact placements in text; {len(bad)} mismatches")
        for line in bad[:20]:
            print("  " + line)
    print(f"total mismatches: {total}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
