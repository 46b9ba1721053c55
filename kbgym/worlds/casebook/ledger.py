"""The casebook ledger: every document and every fact, the truth golds are computed from.

Built by :func:`build_ledger` as a pure function of the config (stream
``universe/casebook/ledger``), in stages: base forms (editions of a form code, each setting
its provisions at a place, § section.paragraph, and putting each in a regulatory class),
endorsements (attached to one edition and dated within its life, amending 1–3 provisions;
some revise and supersede an earlier endorsement; an amendment of a provision another
endorsement already amended may revise it, ``The figure inserted by Endorsement CP-E04, §
2 …``), state amendatory endorsements (one state, one edition), regulator bulletins (a bound
on one regulatory class for one line of business in one state; a series' later bulletins
supersede the earlier ones *from their effective date*), memos and FAQs (restating effective
values, some wrongly; reference chains of 2–4 hops ending at the paragraph that sets a value),
the manual's rule of precedence, and (own streams, so the rest does not move) the manual's
table of effective dates and the Schedules naming the form a document attaches to. Where each
fact is written is decided by :mod:`.documents`.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import replace

from kbgym.seeding import stream
from kbgym.worlds.casebook.config import CasebookConfig
from kbgym.worlds.casebook.grammar import form_label, form_title
from kbgym.worlds.casebook.records import Doc, Fact, Ledger
from kbgym.worlds.casebook.rules import Rules
from kbgym.worlds.casebook.vocab import (CONCEPT_BY_ID, CONCEPTS, DEFINITIONS, LINES, STATE_CODE,
                                         STATES)

#: The last date any document takes effect, and the dates questions ask "as of".
LAST_DATE = "2026-06-30"
AS_OF: tuple[str, ...] = tuple(f"{y}-{m:02d}-01" for y in range(2016, 2027) for m in (1, 7))


# -- dates -----------------------------------------------------------------------------------
def add_days(iso: str, days: int) -> str:
    return (dt.date.fromisoformat(iso) + dt.timedelta(days=days)).isoformat()


def _date(rng, first_year: int, last_year: int) -> str:
    return f"{rng.randint(first_year, last_year)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _after(rng, iso: str, lo: int, hi: int) -> str:
    return min(add_days(iso, rng.randint(lo, hi)), LAST_DATE)


def _other(rng, grid, *avoid) -> int:
    choices = [v for v in grid if v not in avoid]
    return rng.choice(choices)


# -- the build -------------------------------------------------------------------------------
class _Builder:
    def __init__(self, cfg: CasebookConfig):
        self.cfg = cfg
        self.rng = stream(cfg.seed, "universe/casebook/ledger")
        self.docs: list[Doc] = []
        self.facts: list[Fact] = []
        self.sections: dict[str, int] = defaultdict(int)  # doc key -> last section used
        self.base: dict[tuple[str, str], int] = {}  # (form edition, concept) -> value
        self.para: dict[tuple[str, str], int] = {}  # (form edition, concept) -> its § s.para
        self.cls: dict[tuple[str, str], int] = {}  # (form code, concept) -> its class (0, 1)
        self.editions: list[Doc] = []
        self.codes: dict[str, int] = defaultdict(int)
        self.by_key: dict[str, Doc] = {}
        self.amends_of: dict[str, list[Fact]] = defaultdict(list)
        self.provisions_of: dict[str, list[str]] = defaultdict(list)
        self.hot: dict[str, list[str]] = {}

    def fact(self, **kw) -> Fact:
        f = Fact(id="f%05d" % (len(self.facts) + 1), **kw)
        self.facts.append(f)
        return f

    def section(self, key: str) -> int:
        self.sections[key] += 1
        return self.sections[key]

    def add_doc(self, d: Doc) -> Doc:
        self.docs.append(d)
        self.by_key[d.key] = d
        self.fact(kind="issued", doc=d.key, date=d.date, target=d.target, state=d.state,
                  line=d.line, by_title=d.by_title)
        if d.supersedes:
            self.fact(kind="supersedes", doc=d.key, ref=d.supersedes)
        return d

    def code(self, stem: str) -> int:
        self.codes[stem] += 1
        return self.codes[stem]

    # -- stages ----------------------------------------------------------------------------
    def forms(self) -> None:
        rng, cfg = self.rng, self.cfg
        for i in range(cfg.count("forms")):
            line, k = i % len(LINES), i // len(LINES)
            prefix = LINES[line][0]
            code, title = f"{prefix}-{10 * (k + 1)}", form_title(line, k)
            concepts = sorted(rng.sample([c.id for c in CONCEPTS], cfg.provisions),
                              key=lambda c: (CONCEPT_BY_ID[c].section, c))
            year = rng.randint(2014, 2018)
            values = {c: rng.choice(CONCEPT_BY_ID[c].grid) for c in concepts}
            # each provision's regulatory class (A or B of its kind), fixed per form code
            crng = stream(cfg.seed, f"universe/casebook/classes/{code}")
            self.cls.update({(code, c): crng.randrange(2) for c in concepts})
            for e in range(rng.choice((1, 2, 2, 3))):
                if e:
                    year += rng.randint(2, 4)
                    values = {c: (v if rng.random() < 0.5
                                  else _other(rng, CONCEPT_BY_ID[c].grid, v))
                              for c, v in values.items()}
                date = f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
                d = self.add_doc(Doc(form_label(code, year), code, "form", date, edition=year,
                                     title=title, line=line))
                self.editions.append(d)
                self.sections[d.key] = 0
                for n in rng.sample(range(len(DEFINITIONS)), 3):
                    self.fact(kind="defines", doc=d.key, at=1, item=n)
                for c in concepts:
                    self.fact(kind="classifies", doc=d.key, at=1, concept=c, target=d.key,
                              item=self.cls[(code, c)])
                used: dict[int, int] = defaultdict(lambda: 1)  # § n.1 is the heading
                for c in concepts:
                    self.base[(d.key, c)] = values[c]
                    self.provisions_of[d.key].append(c)
                    sec = CONCEPT_BY_ID[c].section
                    used[sec] += 1
                    self.para[(d.key, c)] = used[sec]
                    self.fact(kind="sets", doc=d.key, at=sec, concept=c, value=values[c],
                              target=d.key, para=used[sec])
                self.sections[d.key] = 8
        # an edition's life: until the day before the next edition of its code takes effect
        # (endorsements and state forms are written against the edition then current, so a
        # Schedule may name the form alone: "the edition in force when it takes effect")
        self.until: dict[str, str] = {}
        for a, b in zip(self.editions, self.editions[1:] + [None]):
            same = b is not None and b.code == a.code
            self.until[a.key] = add_days(b.date, -1) if same else LAST_DATE

    def concepts_of(self, fe: str) -> list[str]:
        return self.provisions_of[fe]

    def hot_concepts(self, fe: str, n: int) -> list[str]:
        """``n`` provisions of an edition, drawn mostly from its two "hot" ones (the first
        two of a fixed per-edition shuffle): endorsements cluster on a few provisions, so a
        provision is often amended several times."""
        if fe not in self.hot:
            order = list(self.concepts_of(fe))
            self.rng.shuffle(order)
            self.hot[fe] = order
        order = self.hot[fe]
        out: list[str] = []
        while len(out) < n:
            pool = order[:2] if self.rng.random() < 0.8 else order
            c = self.rng.choice(pool)
            if c not in out:
                out.append(c)
        return out

    def endorsements(self) -> None:
        rng = self.rng
        amended: dict[tuple[str, str], list[Fact]] = defaultdict(list)
        live: dict[str, list[Doc]] = defaultdict(list)  # form edition -> not yet superseded
        for _ in range(self.cfg.count("endorsements")):
            fe = self.doc_of(rng.choice(self.editions).key)
            prefix = fe.code.split("-")[0]
            code = f"{prefix}-E{self.code(prefix + '-E'):02d}"
            old = None
            if live[fe.key] and rng.random() < 0.5:
                old = live[fe.key].pop(0)
            if old is not None:
                date = min(_after(rng, old.date, 180, 1000), self.until[fe.key])
                prior = [f.concept for f in self.amends_of[old.key]]
                concepts = rng.sample(prior, rng.randint(1, len(prior)))
                extra = [c for c in self.concepts_of(fe.key) if c not in concepts]
                if extra and rng.random() < 0.4:
                    concepts.append(rng.choice(extra))
            else:
                date = min(_after(rng, fe.date, 30, 1500), self.until[fe.key])
                concepts = self.hot_concepts(fe.key, rng.choice((1, 1, 2, 2, 3)))
            d = self.add_doc(Doc(code, code, "endorsement", date, target=fe.key,
                                 supersedes=old.key if old else None,
                                 by_title=rng.random() < self.cfg.by_title))
            live[fe.key].append(d)
            for c in concepts:
                earlier = amended[(fe.key, c)]
                avoid = [self.base[(fe.key, c)]] + [f.value for f in earlier]
                value = _other(rng, CONCEPT_BY_ID[c].grid, *avoid)
                prev = earlier[-1] if earlier and rng.random() < 0.6 else None
                f = self.fact(kind="amends", doc=d.key, at=self.section(d.key) + 1, concept=c,
                              value=value, target=fe.key, ref=prev.doc if prev else None,
                              item=prev.at if prev else None, para=self.para[(fe.key, c)],
                              by_title=rng.random() < self.cfg.by_title)
                amended[(fe.key, c)].append(f)
                self.amends_of[d.key].append(f)
            self.sections[d.key] += 1  # a closing section of boilerplate

    def doc_of(self, key: str) -> Doc:
        return self.by_key[key]

    def state_forms(self) -> None:
        rng = self.rng
        for _ in range(self.cfg.count("state_forms")):
            fe = rng.choice(self.editions)
            state = rng.choice(STATES)
            prefix = fe.code.split("-")[0]
            code = f"{prefix}-S{self.code(prefix + '-S'):02d}"
            date = min(_after(rng, fe.date, 60, 1800), self.until[fe.key])
            d = self.add_doc(Doc(code, code, "state_form", date,
                                 state=state, target=fe.key,
                                 by_title=rng.random() < self.cfg.by_title))
            self.section(d.key)  # § 1: the schedule
            for c in rng.sample(self.concepts_of(fe.key), rng.choice((1, 2, 2))):
                value = _other(rng, CONCEPT_BY_ID[c].grid, self.base[(fe.key, c)])
                self.fact(kind="replaces", doc=d.key, at=self.section(d.key) + 0, concept=c,
                          value=value, target=fe.key, state=state, para=self.para[(fe.key, c)],
                          by_title=rng.random() < self.cfg.by_title)

    def bulletins(self) -> None:
        rng = self.rng
        left = self.cfg.count("bulletins")
        while left > 0:
            fe = rng.choice(self.editions)
            c = CONCEPT_BY_ID[rng.choice(self.concepts_of(fe.key))]
            state = rng.choice(STATES)
            n = min(left, rng.choice((1, 2, 3, 3)))
            left -= n
            grid = c.grid
            lo, hi = len(grid) // 3, (2 * len(grid)) // 3
            date, prev, value = _date(rng, 2016, 2021), None, None
            for _ in range(n):
                value = _other(rng, grid[lo:hi + 1], value)
                year = int(date[:4])
                st = STATE_CODE[state]
                code = f"{st}-B{year % 100:02d}-{self.code(st + str(year)):02d}"
                d = self.add_doc(Doc(code, code, "bulletin", date, state=state, line=fe.line,
                                     supersedes=prev))
                # the bound is on the provision's class (its kind, A or B), which the form
                # defines; ``concept`` is the provision drawn (it gives the kind and the grid)
                self.fact(kind="bound", doc=d.key, at=self.section(d.key), concept=c.id,
                          value=value, state=state, line=fe.line,
                          item=self.cls[(fe.code, c.id)])
                prev, date = d.key, _after(rng, date, 300, 1400)

    def memos_and_faqs(self) -> None:
        rng, cfg = self.rng, self.cfg
        notes: list[Doc] = []
        for _ in range(cfg.count("memos")):
            year = rng.randint(2017, 2025)
            code = f"M-{year}-{self.code('M-' + str(year)):02d}"
            notes.append(self.add_doc(Doc(code, code, "memo", _date(rng, year, year))))
        for _ in range(cfg.count("faqs")):
            prefix = rng.choice(LINES)[0]
            code = f"FAQ-{prefix}-{self.code('FAQ-' + prefix)}"
            notes.append(self.add_doc(Doc(code, code, "faq", _date(rng, 2017, 2025))))
        rules = Rules(Ledger(list(self.docs), list(self.facts)))
        provisions = sorted(self.base)
        for d in notes:
            for _ in range(rng.randint(4, 8) if d.kind == "memo" else rng.randint(6, 10)):
                fe, c = rng.choice(provisions)
                if self.doc_of(fe).date > d.date:
                    continue
                truth = rules.effective(fe, c, None, d.date).value
                correct = rng.random() >= cfg.misstate
                value = truth if correct else _other(rng, CONCEPT_BY_ID[c].grid, truth)
                self.fact(kind="states", doc=d.key, at=self.section(d.key), concept=c,
                          value=value, target=fe, by_title=rng.random() < cfg.by_title,
                          correct=correct)
        # reference chains: start -> ... -> the section that sets the value
        ends = [f for f in self.facts if f.kind in ("amends", "replaces", "sets")]
        for chain in range(int(cfg.chains * cfg.count("forms") + 0.5)):
            end = rng.choice(ends)
            hops = rng.choice((2, 3, 4))
            holders = [rng.choice([n for n in notes if n.kind == "memo"])]
            holders += [rng.choice(notes) for _ in range(hops - 1)]
            sections = [self.section(h.key) for h in holders]
            for h in range(hops):
                nxt_doc = holders[h + 1].key if h + 1 < hops else end.doc
                nxt_at = sections[h + 1] if h + 1 < hops else end.at
                self.fact(kind="refers", doc=holders[h].key, at=sections[h], concept=end.concept,
                          target=end.target, ref=nxt_doc, item=nxt_at, chain=chain, hop=h + 1,
                          by_title=rng.random() < cfg.by_title)

    def manual(self) -> None:
        d = self.add_doc(Doc("GM-1", "GM-1", "manual", "2015-01-01"))
        self.fact(kind="precedence", doc=d.key, at=self.section(d.key))
        for n in range(len(DEFINITIONS)):
            self.fact(kind="defines", doc=d.key, at=2, item=n)
        self.sections[d.key] = 2

    def filing(self) -> None:
        """A share of endorsements and state forms leave their date to the manual's filing
        schedule (GM-1 § 3, in date order): their header gives none (own stream
        ``universe/casebook/filing``, so the rest of the ledger does not move)."""
        rng = stream(self.cfg.seed, "universe/casebook/filing")
        filed = []
        for i, d in enumerate(self.docs):
            if d.kind in ("endorsement", "state_form") and rng.random() < self.cfg.filed:
                self.docs[i] = replace(d, filed=True)
                self.by_key[d.key] = self.docs[i]
                filed.append(self.docs[i])
        for d in sorted(filed, key=lambda d: (d.date, d.key)):
            self.fact(kind="filed", doc="GM-1", at=3, ref=d.key, date=d.date)

    def schedules(self) -> None:
        """A share of endorsements and state forms name no form in their header: their
        Schedule (§ 1) names it (own stream ``universe/casebook/schedule``) — a share of those
        by the form alone, the edition being the one in force on the document's date."""
        rng = stream(self.cfg.seed, "universe/casebook/schedule")
        for i, d in enumerate(self.docs):
            if d.kind in ("endorsement", "state_form") and rng.random() < self.cfg.scheduled:
                self.docs[i] = replace(d, scheduled=True)
                self.by_key[d.key] = self.docs[i]
                self.fact(kind="attaches", doc=d.key, at=1, target=d.target,
                          by_title=rng.random() < self.cfg.by_title,
                          by_date=rng.random() < self.cfg.by_date)

    def build(self) -> Ledger:
        self.manual()
        self.forms()
        self.endorsements()
        self.state_forms()
        self.bulletins()
        self.memos_and_faqs()
        self.filing()
        self.schedules()
        return Ledger(self.docs, self.facts)


def build_ledger(cfg: CasebookConfig) -> Ledger:
    """The ledger of a config (a pure function of it)."""
    return _Builder(cfg).build()


__all__ = ["AS_OF", "LAST_DATE", "Doc", "Fact", "Ledger", "add_days", "build_ledger"]
