"""Questions of a casebook universe: templates, pools, golds, support and keys.

**Lookups** (the control group, tier ``easy``) are answered by one paragraph: what a form
edition's section sets, what an endorsement sets, a bulletin's bound, when a document takes
effect. **Connected** questions (the treatment, tier ``hard``) need several documents: the
value that applies in a state on a date (amendments, supersession, state forms and the
regulator's bound, by the manual's order of precedence), the document that controls it, the
value at the end of a 2–4 hop reference chain, and every endorsement that amends a provision.
A connected question is asked only where following the documents matters: the applicable
value differs from the edition's own *and* from the newest amendment ever issued (so dates,
supersession, a state form or a regulator's bound decide it); the controlling document is
neither the edition nor that newest amendment; a chain's end value differs from the form's.

Pools are thinned so that no gold answers more than 8 % of a template's questions about one
concept (a guesser answering the commonest gold per template and concept stays near 0.08;
``scripts/experiments/casebook_blog_table.py`` measures it), then cut to ``config.pool``
questions per template (stream ``questions/casebook``).
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

from kbgym.seeding import stream
from kbgym.types import Question
from kbgym.worlds.casebook.config import CasebookConfig
from kbgym.worlds.casebook.grammar import (KIND_WORD, date_forms, format_date, render_question,
                                            value_forms)
from kbgym.worlds.casebook.ledger import AS_OF, Ledger
from kbgym.worlds.casebook.rules import Rules, kind_of
from kbgym.worlds.casebook.vocab import CONCEPT_BY_ID, class_label

#: The largest share of one template's questions about one concept a single gold may answer.
MODE_CAP = 0.08


@dataclass(frozen=True)
class Template:
    name: str
    category: str
    tier: str
    hops: int
    reserved: bool = False

    def to_json(self) -> dict:
        return {"category": self.category, "tier": self.tier, "hops": self.hops,
                "reserved": self.reserved}


TEMPLATES: tuple[Template, ...] = (
    Template("cb_form_value", "CB_LOOKUP", "easy", 1),
    Template("cb_endorsement_value", "CB_LOOKUP", "easy", 1),
    Template("cb_bound", "CB_LOOKUP", "easy", 1),
    Template("cb_date", "CB_LOOKUP", "easy", 1, reserved=True),
    Template("cb_effective", "CB_EFFECTIVE", "hard", 3),
    Template("cb_controls", "CB_CONTROLS", "hard", 3),
    Template("cb_chain", "CB_CHAIN", "hard", 3),
    Template("cb_amenders", "CB_DEPENDS", "hard", 2, reserved=True),
)
BY_NAME = {t.name: t for t in TEMPLATES}
RESERVED = tuple(t.name for t in TEMPLATES if t.reserved)
TRAINED = tuple(t.name for t in TEMPLATES if not t.reserved)
LOOKUP = tuple(t.name for t in TEMPLATES if t.tier == "easy")
CONNECTED = tuple(t.name for t in TEMPLATES if t.tier == "hard")


@dataclass(frozen=True)
class Instance:
    """A question before it has a qid: ``facts`` are the ledger facts its gold is decided
    by; ``concept`` (or None) is what the mode cap groups by."""

    template: str
    text: str
    golds: tuple[str, ...]
    facts: tuple[str, ...]
    keys: tuple[str, ...]
    concept: str | None

    def question(self, qid: str, where: dict[str, list[str]], flavor: str | None = None
                 ) -> Question:
        t = BY_NAME[self.template]
        notes = sorted({where[f][0] for f in self.facts if where.get(f)},
                       key=lambda n: int(n[1:]))
        return Question(qid, t.name, t.category, t.tier, t.hops, self.text, self.golds,
                        tuple(notes), self.keys, False, "exact", flavor)


def provision_key(form: str, concept: str) -> str:
    return f"provision:{form} {CONCEPT_BY_ID[concept].name}"


def doc_golds(ledger: Ledger, key: str) -> tuple[str, ...]:
    d = ledger.doc[key]
    return (key, f"{KIND_WORD[d.kind]} {key}")


def _val(concept: str, value: int) -> tuple[str, ...]:
    return value_forms(CONCEPT_BY_ID[concept].unit, value)


class Pools:
    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        self.rules = Rules(ledger)

    # -- lookups ---------------------------------------------------------------------------
    def cb_form_value(self):
        for f in self.ledger.by_kind["sets"]:
            d = self.ledger.doc[f.doc]
            name = CONCEPT_BY_ID[f.concept].name
            text = render_question("cb_form_value", concept=name, section=f.at, form=d.key)
            yield Instance("cb_form_value", text,
                           _val(f.concept, f.value), (f.id,),
                           (provision_key(f.target, f.concept),), f.concept)

    def cb_endorsement_value(self):
        """A lookup: one paragraph answers it, so only amendments that give their place (a
        revision names only the amendment it revises: following it is connected work)."""
        for f in self.ledger.by_kind["amends"]:
            if f.ref:
                continue
            name = CONCEPT_BY_ID[f.concept].name
            yield Instance("cb_endorsement_value",
                           render_question("cb_endorsement_value", concept=name, doc=f.doc,
                                           form=f.target, section=CONCEPT_BY_ID[f.concept].section,
                                           para=f.para),
                           _val(f.concept, f.value), (f.id,), (f"document:{f.doc}",), f.concept)

    def cb_bound(self):
        for f in self.ledger.by_kind["bound"]:
            c = CONCEPT_BY_ID[f.concept]
            label = class_label(f.concept, f.item)
            text = render_question("cb_bound", bound=c.bound, klass=label, doc=f.doc)
            yield Instance("cb_bound", text,
                           _val(f.concept, f.value), (f.id,), (f"document:{f.doc}",), label)

    def cb_date(self):
        for f in self.ledger.by_kind["issued"]:
            d = self.ledger.doc[f.doc]
            if d.kind not in ("endorsement", "state_form", "bulletin"):
                continue
            text = render_question("cb_date", refkind=KIND_WORD[d.kind], doc=d.key)
            yield Instance("cb_date", text, date_forms(d.date), tuple(self.rules.when(d.key)),
                           (f"document:{d.key}",), None)

    # -- connected -------------------------------------------------------------------------
    def _situations(self):
        """(form edition, concept, state, date, resolution, naive) where the controlling
        document is not the edition itself; ``naive`` is the newest amendment ever issued
        for the provision (ignoring the date asked and supersession), the answer a reader
        who finds every amendment but follows nothing further would give. At most two dates
        per (form, concept, state, controlling document)."""
        r = self.rules
        for (form, concept) in sorted(r.sets):
            line = self.ledger.doc[form].line
            cls = r.classes[(form, concept)].item
            states = sorted({s for (fm, c, s) in r.replaces if fm == form and c == concept}
                            | {s for (s, ln, k, x) in r.bounds
                               if ln == line and k == kind_of(concept) and x == cls})
            if not states and not r.amends.get((form, concept)):
                continue
            seen: dict[tuple, int] = defaultdict(int)
            ams = r.amends.get((form, concept), [])
            naive = max(ams, key=lambda f: (self.ledger.doc[f.doc].date, f.doc)) if ams else None
            for state in states or [None]:
                for date in AS_OF:
                    if date < self.ledger.doc[form].date:
                        continue
                    res = r.effective(form, concept, state, date)
                    if res.tie or res.controls == form:
                        continue
                    k = (state, res.controls, res.value)
                    seen[k] += 1
                    if seen[k] <= 2:
                        yield form, concept, state, date, res, naive

    def cb_effective(self):
        for form, concept, state, date, res, naive in self._situations():
            if res.value == res.base or (naive is not None and res.value == naive.value):
                continue
            name = CONCEPT_BY_ID[concept].name
            yield Instance("cb_effective", render_question("cb_effective", date=format_date(date),
                                           concept=name, form=form, state=state),
                           _val(concept, res.value), res.support,
                           (provision_key(form, concept),), concept)

    def cb_controls(self):
        for form, concept, state, date, res, naive in self._situations():
            if naive is not None and res.controls == naive.doc:
                continue
            name = CONCEPT_BY_ID[concept].name
            yield Instance("cb_controls", render_question("cb_controls", date=format_date(date),
                                           concept=name, form=form, state=state),
                           doc_golds(self.ledger, res.controls), res.support,
                           (provision_key(form, concept),), concept)

    def cb_chain(self):
        ledger = self.ledger
        for chain, hops in sorted(ledger.chains().items()):
            start = hops[0]
            end = next((f for f in ledger.of_doc[hops[-1].ref]
                        if f.at == hops[-1].item and f.concept == start.concept
                        and f.kind in ("sets", "amends", "replaces")
                        and f.target == start.target), None)
            if end is None:
                continue
            if end.value == self.rules.sets[(start.target, start.concept)].value \
                    and end.kind != "sets":
                continue
            name = CONCEPT_BY_ID[start.concept].name
            yield Instance("cb_chain", render_question("cb_chain", concept=name, doc=start.doc,
                                           item=start.at), _val(start.concept, end.value),
                           tuple(f.id for f in hops) + (end.id,),
                           (provision_key(start.target, start.concept),
                            f"document:{start.doc}"), start.concept)

    def cb_amenders(self):
        r = self.rules
        for (form, concept) in sorted(r.amends):
            docs = r.amenders(form, concept)
            name = CONCEPT_BY_ID[concept].name
            gold = ", ".join(docs)
            yield Instance("cb_amenders", render_question("cb_amenders", concept=name, form=form),
                           (gold,), tuple(f.id for f in r.amends[(form, concept)]),
                           (provision_key(form, concept),), concept)

    def all(self, cfg: CasebookConfig) -> dict[str, list[Instance]]:
        rng = stream(cfg.seed, "questions/casebook")
        out = {}
        for t in TEMPLATES:
            items = thin(list(getattr(self, t.name)()), rng)
            if len(items) > cfg.pool:
                pick = sorted(rng.sample(range(len(items)), cfg.pool))
                items = [items[i] for i in pick]
            out[t.name] = items
        return out


def thin(items: list[Instance], rng: random.Random) -> list[Instance]:
    """Drop questions so that no gold answers more than :data:`MODE_CAP` of a concept's
    questions (at least one per gold is kept), keeping pool order."""
    by_concept: dict[str | None, list[int]] = defaultdict(list)
    for i, inst in enumerate(items):
        by_concept[inst.concept].append(i)
    keep: set[int] = set()
    for concept, idx in by_concept.items():
        if concept is None:
            keep.update(idx)
            continue
        cap = max(1, int(MODE_CAP * len(idx)))
        order = list(idx)
        rng.shuffle(order)
        count: dict[str, int] = defaultdict(int)
        for i in order:
            g = items[i].golds[0]
            if count[g] < cap:
                count[g] += 1
                keep.add(i)
    return [items[i] for i in sorted(keep)]
