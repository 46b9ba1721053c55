"""The rules a casebook question is answered by, applied to the ledger (docs/casebook.md §2):

- a document is *in force* on a date when it has taken effect and no document superseding it
  has taken effect (so the newest document is not always the one in force);
- under a form edition, the value of a provision in a state on a date is the edition's value,
  replaced by the most recently effective endorsement in force that amends it, replaced in
  turn by the most recently effective state amendatory endorsement in force for that state,
  and finally held to the bound of the regulator's bulletin in force for that state, line
  and the provision's regulatory class (a bulletin bounds "Class A limits"; the form says
  which of its provisions are in which class; a minimum raises it, a maximum lowers it);
- memos and FAQs never change a value (they may contradict it);
- the document that *controls* is the one whose value stands.

This module is the generator's resolver; the gold checker (``scripts/experiments/
casebook_gold_check.py``) recomputes every gold with its own code.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from kbgym.worlds.casebook.records import Fact, Ledger
from kbgym.worlds.casebook.vocab import CONCEPT_BY_ID


@dataclass(frozen=True)
class Resolution:
    value: int
    controls: str  # the document key whose value stands
    base: int  # the edition's own value
    support: tuple[str, ...]  # fact ids the answer is decided by
    tie: bool = False  # two candidates took effect on the same day (ambiguous: not asked)


def kind_of(concept: str) -> tuple[str, str]:
    """A provision's kind: its unit and the direction a regulator bounds it."""
    c = CONCEPT_BY_ID[concept]
    return c.unit, c.bound


class Rules:
    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        self.sets: dict[tuple[str, str], Fact] = {}
        self.amends: dict[tuple[str, str], list[Fact]] = defaultdict(list)
        self.replaces: dict[tuple[str, str, str], list[Fact]] = defaultdict(list)
        #: (state, line, kind of provision, class) -> bulletins' bounds
        self.bounds: dict[tuple[str, int, tuple[str, str], int], list[Fact]] = defaultdict(list)
        self.classes: dict[tuple[str, str], Fact] = {}  # (form, concept) -> its class
        self.issued: dict[str, Fact] = {}
        self.supersedes: dict[str, Fact] = {}
        self.filed: dict[str, Fact] = {}  # document -> its entry in the filing schedule
        for f in ledger.facts:
            if f.kind == "sets":
                self.sets[(f.target, f.concept)] = f
            elif f.kind == "amends":
                self.amends[(f.target, f.concept)].append(f)
            elif f.kind == "replaces":
                self.replaces[(f.target, f.concept, f.state)].append(f)
            elif f.kind == "bound":
                self.bounds[(f.state, f.line, kind_of(f.concept), f.item)].append(f)
            elif f.kind == "classifies":
                self.classes[(f.doc, f.concept)] = f
            elif f.kind == "issued":
                self.issued[f.doc] = f
            elif f.kind == "supersedes":
                self.supersedes[f.ref] = f
            elif f.kind == "filed":
                self.filed[f.ref] = f
        prec = ledger.by_kind.get("precedence") or []
        self.precedence = prec[0].id if prec else None

    def in_force(self, key: str, date: str) -> bool:
        doc = self.ledger.doc[key]
        if doc.date > date:
            return False
        newer = self.ledger.superseded_by.get(key)
        return not (newer is not None and self.ledger.doc[newer].date <= date)

    def when(self, key: str) -> list[str]:
        """The facts that say when ``key`` takes effect: its header, and its entry in the
        manual's filing schedule where the header leaves the date to it."""
        out = [self.issued[key].id]
        if key in self.filed:
            out.append(self.filed[key].id)
        return out

    def _why(self, key: str, date: str) -> list[str]:
        """The facts that say whether ``key`` is in force on ``date``."""
        out = self.when(key)
        sup = self.supersedes.get(key)
        if sup is not None:
            out += [sup.id] + self.when(sup.doc)
        return out

    def _latest(self, facts: list[Fact], date: str, support: list[str]) -> tuple[Fact | None, bool]:
        live = []
        for f in facts:
            support += self._why(f.doc, date)
            if self.in_force(f.doc, date):
                live.append(f)
                support.append(f.id)
        if not live:
            return None, False
        live.sort(key=lambda f: (self.ledger.doc[f.doc].date, f.doc))
        dates = [self.ledger.doc[f.doc].date for f in live[-2:]]
        tie = len(dates) == 2 and dates[0] == dates[1]
        return live[-1], tie

    def effective(self, form: str, concept: str, state: str | None, date: str) -> Resolution:
        """The value of provision (form edition, concept) in ``state`` (None: no state
        document or bulletin applies) on ``date``."""
        base = self.sets[(form, concept)]
        value, controls = base.value, form
        support = [base.id, self.issued[form].id]
        if self.precedence:
            support.append(self.precedence)
        top, tie = self._latest(self.amends.get((form, concept), []), date, support)
        if top is not None:
            value, controls = top.value, top.doc
        if state is not None:
            rep, tie2 = self._latest(self.replaces.get((form, concept, state), []), date, support)
            tie = tie or tie2
            if rep is not None:
                value, controls = rep.value, rep.doc
            bounds = self.bounds_of(form, concept, state)
            if bounds:
                support.append(self.classes[(form, concept)].id)
            b, tie3 = self._latest(bounds, date, support)
            tie = tie or tie3
            if b is not None:
                low = CONCEPT_BY_ID[concept].bound == "minimum"
                if (low and value < b.value) or (not low and value > b.value):
                    value, controls = b.value, b.doc
        return Resolution(value, controls, base.value, tuple(dict.fromkeys(support)), tie)

    def bounds_of(self, form: str, concept: str, state: str) -> list[Fact]:
        """The bulletins' bounds on the provision's class in ``state`` for its form's line."""
        cls = self.classes.get((form, concept))
        if cls is None:
            return []
        return self.bounds.get((state, self.ledger.doc[form].line, kind_of(concept), cls.item),
                               [])

    def amenders(self, form: str, concept: str) -> list[str]:
        """Every endorsement that amends the provision (in force or not), sorted."""
        return sorted({f.doc for f in self.amends.get((form, concept), [])})
