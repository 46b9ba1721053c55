"""Questions of a policies universe: templates, pools, golds (with answer aliases), support
and keys, all computed from the ledger.

Classes separate **lookup** (one fact: tier ``easy``, category ``PL_LOOKUP``) from
**connection** (tier ``hard``): the *effective* value after amendments and state replacement
(``PL_EFFECTIVE``), which document *controls* (``PL_CONTROLS``), what *depends* on a provision
(``PL_DEPENDS``), what is *affected* if it changes (``PL_AFFECTED``), how a new *edition*
changed the effective value (``PL_EDITION``), *contradictions* against the controlling text (``PL_CONTRADICTION``) and
*abstain* (the value is not set: ``PL_ABSTAIN``, gold ``unknown``).

Golds: the first is canonical; a value lists every voice a reader may write it in
(:func:`~.sentences.value_aliases`: ``$10,000``, ``10,000 dollars``, ``ten thousand
dollars``, …), so SQuAD F1 scores ``$10,000`` and ``ten thousand dollars`` the same; a document
is its code and ``{noun} {code}``; a set of documents is their codes sorted and joined with
``, ``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from kbgym.scoring import normalize
from kbgym.types import Question
from kbgym.worlds.policies import grammar as S
from kbgym.worlds.policies.ledger import PROVISION_REFS, Entry, Ledger

UNKNOWN = ("unknown",)


@dataclass(frozen=True)
class Template:
    name: str
    category: str
    tier: str  # easy (lookup) | hard (connected)
    hops: int
    reserved: bool = False
    shape: str | None = None  # the question form, when not the template's own

    @property
    def form(self) -> str:
        return self.shape or self.name

    def to_json(self) -> dict:
        return {"category": self.category, "tier": self.tier, "hops": self.hops,
                "reserved": self.reserved}


#: The templates, in table order (pools, shuffles and draws follow it).
TEMPLATES: tuple[Template, ...] = (
    Template("pl_form_value", "PL_LOOKUP", "easy", 1),
    Template("pl_endorsement_value", "PL_LOOKUP", "easy", 1),
    Template("pl_effective_date", "PL_LOOKUP", "easy", 1),
    Template("pl_bulletin_value", "PL_LOOKUP", "easy", 1),
    Template("pl_effective", "PL_EFFECTIVE", "hard", 2),
    Template("pl_state_effective", "PL_EFFECTIVE", "hard", 3),
    Template("pl_bulletin_current_value", "PL_EFFECTIVE", "hard", 2, reserved=True),
    Template("pl_controls", "PL_CONTROLS", "hard", 2),
    Template("pl_state_controls", "PL_CONTROLS", "hard", 3, reserved=True),
    Template("pl_bulletin_current", "PL_CONTROLS", "hard", 2),
    Template("pl_depends", "PL_DEPENDS", "hard", 2),
    Template("pl_affected", "PL_AFFECTED", "hard", 3),
    Template("pl_edition", "PL_EDITION", "hard", 2),
    Template("pl_contradiction", "PL_CONTRADICTION", "hard", 3),
    Template("pl_abstain", "PL_ABSTAIN", "hard", 2, shape="pl_effective"),
)
BY_NAME = {t.name: t for t in TEMPLATES}
RESERVED = tuple(t.name for t in TEMPLATES if t.reserved)
TRAINED = tuple(t.name for t in TEMPLATES if not t.reserved)
LOOKUP_CATEGORIES = ("PL_LOOKUP",)


def connected(category: str) -> bool:
    """Whether a category needs connecting several facts (every class but lookup)."""
    return category not in LOOKUP_CATEGORIES


@dataclass(frozen=True)
class Instance:
    """One question before it has a qid: template, slots, golds, support (ledger ids), keys."""

    template: str
    slots: tuple[tuple[str, object], ...]
    golds: tuple[str, ...]
    support: tuple[str, ...]
    keys: tuple[str, ...]

    @property
    def text(self) -> str:
        return S.question_text(BY_NAME[self.template].form, **dict(self.slots))

    def question(self, qid: str, note_of: dict[str, str], eval_flavor: str | None = None
                 ) -> Question:
        t = BY_NAME[self.template]
        support = tuple(sorted({note_of[f] for f in self.support}, key=lambda n: int(n[1:])))
        return Question(qid, t.name, t.category, t.tier, t.hops, self.text, self.golds, support,
                        self.keys, unanswerable=self.golds == UNKNOWN, eval_flavor=eval_flavor)


# ---------------------------------------------------------------------------------------------
# Golds


def _dedupe(golds) -> tuple[str, ...]:
    """Golds in order, dropping those that normalise like an earlier one."""
    seen, out = set(), []
    for g in golds:
        if normalize(g) not in seen:
            seen.add(normalize(g))
            out.append(g)
    return tuple(out)


@lru_cache(maxsize=None)
def value_golds(concept: str, value: int) -> tuple[str, ...]:
    return _dedupe(S.value_aliases(S.CONCEPT_BY_ID[concept].unit, value))


def doc_golds(code: str) -> tuple[str, ...]:
    return _dedupe((code, S.doc_ref(code)))


def set_golds(codes) -> tuple[str, ...]:
    return (S.join_codes(codes),)


# ---------------------------------------------------------------------------------------------
# Pools


def provision_key(p: str) -> str:
    return f"provision:{p}"


class Pools:
    """Every template's instances from a ledger, in enumeration order (provisions and
    documents in ledger order)."""

    def __init__(self, ledger: Ledger):
        self.L = ledger

    def all(self) -> dict[str, list[Instance]]:
        return {t.name: list(getattr(self, f"_{t.name}")()) for t in TEMPLATES}

    # -- helpers -------------------------------------------------------------------------
    def _slots(self, p: str, **extra) -> tuple[tuple[str, object], ...]:
        prov = self.L.provisions[p]
        d = {"form": prov.form, "section": prov.section,
             "concept": S.CONCEPT_BY_ID[prov.concept].name, **extra}
        return tuple(sorted(d.items()))

    def effective_support(self, p: str, state: str | None = None) -> list[Entry]:
        """The facts the controlling text is decided by: every edition of the provision, its
        amendments and (for a state) its replacements, each with its document's header (the
        edition it attaches to, and its date)."""
        L = self.L
        out = list(L.editions(p))
        for e in L.amendments(p) + (L.replacements(p) if state is not None else []):
            out += [e, L.header(e.doc)]
        return out

    def _each_provision(self, cond: Callable[[str], bool]) -> Iterator[str]:
        return (p for p in self.L.provisions if cond(p))

    # -- lookups -------------------------------------------------------------------------
    def _pl_form_value(self):
        for p in self.L.provisions:
            for e in self.L.editions(p):
                if e.kind == "sets":
                    yield Instance("pl_form_value", self._slots(p, edition=e.edition),
                                   value_golds(e.concept, e.value), (e.id,), (provision_key(p),))

    def _pl_endorsement_value(self):
        for e in self.L.entries:
            if e.kind == "amends":
                slots = tuple(sorted({"doc": e.doc, "form": e.form, "section": e.section,
                                      "concept": S.CONCEPT_BY_ID[e.concept].name}.items()))
                yield Instance("pl_endorsement_value", slots, value_golds(e.concept, e.value),
                               (e.id,), tuple(sorted((f"document:{e.doc}",
                                                      provision_key(e.provision)))))

    def _pl_effective_date(self):
        for d in self.L.documents:
            if d.kind in ("endorsement", "state_form"):
                h = self.L.header(d.code)
                yield Instance("pl_effective_date", (("doc", d.code),), S.date_aliases(h.date),
                               (h.id,), (f"document:{d.code}",))

    def _pl_bulletin_value(self):
        for d in self.L.documents:
            if d.kind == "bulletin":
                m = self.L.bulletin_minimum(d.code)
                yield Instance("pl_bulletin_value", (("concept", S.CONCEPT_BY_ID[m.concept].name),
                                                     ("doc", d.code)),
                               value_golds(m.concept, m.value), (m.id,), (f"document:{d.code}",))

    # -- effective value and control ----------------------------------------------------
    def _amended(self, p: str) -> bool:
        return bool(self.L.amendments(p)) and self.L.effective(p) is not None

    def _pl_effective(self):
        for p in self._each_provision(self._amended):
            c = self.L.controlling(p)
            yield Instance("pl_effective", self._slots(p), value_golds(c.concept, c.value),
                           tuple(e.id for e in self.effective_support(p)), (provision_key(p),))

    def _state_cases(self) -> Iterator[tuple[str, str]]:
        """(provision, state): every state with a replacement of the provision, then the first
        state (table order) with none, whose question falls back to the form's own text."""
        for p in self.L.provisions:
            states = list(dict.fromkeys(e.state for e in self.L.replacements(p)))
            if not states:
                continue
            yield from ((p, s) for s in states)
            yield p, next(s for s in S.STATES if s not in states)

    def _pl_state_effective(self):
        for p, s in self._state_cases():
            c = self.L.controlling(p, s)
            yield Instance("pl_state_effective", self._slots(p, state=s),
                           value_golds(c.concept, c.value),
                           tuple(e.id for e in self.effective_support(p, s)),
                           (provision_key(p), f"state:{s}"))

    def _pl_controls(self):
        for p in self._each_provision(self._amended):
            c = self.L.controlling(p)
            yield Instance("pl_controls", self._slots(p), doc_golds(c.doc),
                           tuple(e.id for e in self.effective_support(p)), (provision_key(p),))

    def _pl_state_controls(self):
        for p, s in self._state_cases():
            c = self.L.controlling(p, s)
            yield Instance("pl_state_controls", self._slots(p, state=s), doc_golds(c.doc),
                           tuple(e.id for e in self.effective_support(p, s)),
                           (provision_key(p), f"state:{s}"))

    def _series(self):
        for cid, chain in self.L.series.items():
            support = [self.L.bulletin_minimum(b) for b in chain]
            support += [e for b in chain for e in self.L.by_doc[b] if e.kind == "supersedes"]
            yield cid, self.L.current_bulletin(cid), tuple(e.id for e in support)

    def _pl_bulletin_current(self):
        for cid, current, support in self._series():
            yield Instance("pl_bulletin_current", (("concept", S.CONCEPT_BY_ID[cid].name),),
                           doc_golds(current), support, (f"series:{S.series_key(cid)}",))

    def _pl_bulletin_current_value(self):
        for cid, current, support in self._series():
            m = self.L.bulletin_minimum(current)
            yield Instance("pl_bulletin_current_value", (("concept", S.CONCEPT_BY_ID[cid].name),),
                           value_golds(cid, m.value), support, (f"series:{S.series_key(cid)}",))

    # -- dependencies --------------------------------------------------------------------
    def dependency_support(self, p: str) -> list[Entry]:
        return [e for e in self.L.by_provision[p] if e.kind in PROVISION_REFS]

    def _pl_depends(self):
        for p in self._each_provision(lambda p: bool(self.L.dependents(p))):
            slots = tuple(sorted(self._slots(p)))
            slots = tuple((k, v) for k, v in slots if k != "concept")
            yield Instance("pl_depends", slots, set_golds(self.L.dependents(p)),
                           tuple(e.id for e in self.dependency_support(p)), (provision_key(p),))

    def _pl_affected(self):
        # questions where following references matters: at least as many documents are
        # affected through other documents as directly
        for p in self._each_provision(
                lambda p: len(self.L.affected(p)) >= 2 * len(self.L.dependents(p)) > 0):
            affected = self.L.affected(p)
            support = self.dependency_support(p) + [
                e for code in sorted(affected) for e in self.L.by_target[code]
                if e.doc in affected]
            slots = tuple((k, v) for k, v in self._slots(p) if k != "concept")
            yield Instance("pl_affected", slots, set_golds(affected),
                           tuple(e.id for e in support), (provision_key(p),))

    # -- editions, contradictions, abstain -----------------------------------------------
    def _pl_edition(self):
        for p in self.L.provisions:
            eds = self.L.editions(p)
            if len(eds) != 2:
                continue
            old, new = (self.L.effective(p, edition=e.edition) for e in eds)
            if old is None or new is None or old == new:
                continue
            yield Instance("pl_edition",
                           self._slots(p, edition=eds[0].edition, edition2=eds[1].edition),
                           value_golds(eds[0].concept, abs(new - old)),
                           tuple(e.id for e in self.effective_support(p)), (provision_key(p),))

    def _pl_contradiction(self):
        for p in self._each_provision(self._amended):
            right = self.L.effective(p)
            wrong = [e for e in self.L.memo_statements(p) if e.value != right]
            if wrong:
                support = self.effective_support(p) + self.L.memo_statements(p)
                yield Instance("pl_contradiction", self._slots(p),
                               set_golds(e.doc for e in wrong), tuple(e.id for e in support),
                               (provision_key(p),))

    def _pl_abstain(self):
        for p in self._each_provision(lambda p: self.L.effective(p) is None):
            yield Instance("pl_abstain", self._slots(p), UNKNOWN, (), (provision_key(p),))
