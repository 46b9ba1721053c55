"""The fact ledger of a policies universe: documents, the facts each states, and what they
mean together (editions, amendments, state replacements, supersession, dependencies).

The ledger is the truth. Notes are a rendering of it (:mod:`.documents`); golds are computed
from it (:mod:`.questions`), never from text.

**Documents.** Base forms (``HO-3``, titled ``the Homeowners Special Form``) with numbered
provisions (``§I.B``), each setting one concept, in one or two editions (years); endorsements (``HE-12``) that amend provisions of one
form; state forms (``SA-4``) that replace provisions of one form in one state; regulator
bulletins (``RB-21-04``) that set a minimum for a regulated concept, each superseding the
previous bulletin of its series; underwriting guidelines (``UG-7``) and claims manuals
(``CM-2``) that refer to provisions and to other documents; interpretive memos (``IM-14``)
that state provisions' values, some wrongly; glossaries and training notes that name concepts
and set nothing. Every document has a date.

**Facts** (:class:`Entry`, kinds as in :data:`~.sentences.SENTENCES`): ``issued``, ``sets``,
``reserves``, ``describes``, ``amends``, ``replaces``, ``minimum``, ``supersedes``, ``refers``,
``refers_doc``, ``states``, ``mentions``.

**Meaning** (:class:`Ledger`; docs/protocol.md §21):

- a form's *current* edition is its latest;
- endorsements and state forms attach to one edition of their form and apply to that edition
  only;
- under an edition E, the *controlling* text of provision P (in state S) is the latest-dated
  state form replacing P in S attached to E if there is one, else the latest-dated endorsement
  amending P attached to E, else edition E itself; the *effective* value is the controlling
  text's (none for a provision E reserves and nothing amends). Without an edition named, E is
  the current one;
- the *dependents* of P are the documents whose facts amend, replace, refer to or state P;
  the documents *affected* if P changes are its dependents and, transitively, every document
  that refers to an affected document;
- a bulletin series' *current* bulletin is the one no other bulletin supersedes.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, fields

from kbgym.seeding import stream
from kbgym.worlds.policies import grammar as S
from kbgym.worlds.policies.config import PolicyConfig

#: Ledger fact kinds in which a document refers to a provision it does not own.
PROVISION_REFS = ("amends", "replaces", "refers", "states")
#: Share of endorsements and state forms (of forms with an earlier edition) attached to the
#: current edition.
ATTACH_CURRENT = 0.75


@dataclass(frozen=True)
class Document:
    """``kind`` as in :data:`~.sentences.DOC_KINDS`; ``date`` ISO (a form: its current
    edition's); ``state`` for a state form; ``editions`` (``(year, date)`` pairs) and
    ``title`` (``Homeowners Special Form``) for a form."""

    code: str
    kind: str
    date: str
    state: str | None = None
    editions: tuple[tuple[int, str], ...] = ()
    title: str | None = None

    def to_json(self) -> dict:
        d = {"code": self.code, "kind": self.kind, "date": self.date}
        if self.state:
            d["state"] = self.state
        if self.editions:
            d["editions"] = [list(e) for e in self.editions]
        if self.title:
            d["title"] = self.title
        return d

    @classmethod
    def from_json(cls, d: dict) -> "Document":
        return cls(d["code"], d["kind"], d["date"], d.get("state"),
                   tuple((int(y), dt) for y, dt in d.get("editions", ())), d.get("title"))


@dataclass(frozen=True)
class Entry:
    """One fact. ``doc`` is the document that states it; the other fields as the kind needs
    (``value`` in the concept's unit; ``target`` a document named by ``refers_doc`` and
    ``supersedes``)."""

    id: str
    kind: str
    doc: str
    form: str | None = None
    edition: int | None = None
    section: str | None = None
    concept: str | None = None
    value: int | None = None
    state: str | None = None
    target: str | None = None
    date: str | None = None

    @property
    def provision(self) -> str | None:
        return S.provision_key(self.form, self.section) if self.form and self.section else None

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in _ENTRY_FIELDS if getattr(self, k) is not None}

    @classmethod
    def from_json(cls, d: dict) -> "Entry":
        return cls(**d)


_ENTRY_FIELDS = tuple(f.name for f in fields(Entry))


@dataclass(frozen=True)
class Provision:
    form: str
    section: str
    concept: str

    @property
    def key(self) -> str:
        return S.provision_key(self.form, self.section)


class Ledger:
    """Documents and facts, with the semantic queries golds are computed from."""

    def __init__(self, documents, entries):
        self.documents: tuple[Document, ...] = tuple(documents)
        self.entries: tuple[Entry, ...] = tuple(entries)
        self.doc = {d.code: d for d in self.documents}
        self.entry = {e.id: e for e in self.entries}
        self.by_doc: dict[str, list[Entry]] = defaultdict(list)
        self.by_provision: dict[str, list[Entry]] = defaultdict(list)
        self.by_target: dict[str, list[Entry]] = defaultdict(list)
        self.provisions: dict[str, Provision] = {}
        self.series: dict[str, list[str]] = defaultdict(list)  # concept -> bulletins, in order
        for e in self.entries:
            self.by_doc[e.doc].append(e)
            if e.provision:
                self.by_provision[e.provision].append(e)
            if e.target:
                self.by_target[e.target].append(e)
            if e.kind in ("sets", "reserves") and e.provision not in self.provisions:
                self.provisions[e.provision] = Provision(e.form, e.section, e.concept)
            if e.kind == "minimum":
                self.series[e.concept].append(e.doc)

    # -- JSON ----------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"documents": [d.to_json() for d in self.documents],
                "ledger": [e.to_json() for e in self.entries]}

    @classmethod
    def from_json(cls, d: dict) -> "Ledger":
        return cls([Document.from_json(x) for x in d["documents"]],
                   [Entry.from_json(x) for x in d["ledger"]])

    # -- documents -----------------------------------------------------------------------
    def header(self, code: str, edition: int | None = None) -> Entry:
        """The ``issued`` fact of a document (a form: of ``edition``, default the current)."""
        if self.doc[code].kind != "form":
            return next(e for e in self.by_doc[code] if e.kind == "issued")
        if edition is None:
            edition = self.current_edition(code)
        return next(e for e in self.by_doc[code] if e.kind == "issued" and e.edition == edition)

    def attached(self, endorsement: str) -> int:
        """The form edition an endorsement attaches to."""
        return self.header(endorsement).edition

    def current_edition(self, form: str) -> int:
        return max(y for y, _ in self.doc[form].editions)

    def date_of(self, code: str) -> str:
        return self.doc[code].date

    # -- provisions ----------------------------------------------------------------------
    def edition_entry(self, provision: str, year: int) -> Entry | None:
        """The ``sets``/``reserves`` fact of one edition of a provision."""
        for e in self.by_provision[provision]:
            if e.kind in ("sets", "reserves") and e.edition == year:
                return e
        return None

    def editions(self, provision: str) -> list[Entry]:
        """The provision's ``sets``/``reserves`` facts, oldest edition first."""
        return sorted((e for e in self.by_provision[provision] if e.kind in ("sets", "reserves")),
                      key=lambda e: e.edition)

    def base(self, provision: str) -> Entry:
        p = self.provisions[provision]
        return self.edition_entry(provision, self.current_edition(p.form))

    def amendments(self, provision: str) -> list[Entry]:
        return [e for e in self.by_provision[provision] if e.kind == "amends"]

    def replacements(self, provision: str, state: str | None = None) -> list[Entry]:
        return [e for e in self.by_provision[provision] if e.kind == "replaces"
                and (state is None or e.state == state)]

    def memo_statements(self, provision: str) -> list[Entry]:
        return [e for e in self.by_provision[provision] if e.kind == "states"]

    def controlling(self, provision: str, state: str | None = None,
                    edition: int | None = None) -> Entry:
        """The fact of the controlling text under ``edition`` (default: the current one)."""
        if edition is None:
            edition = self.current_edition(self.provisions[provision].form)
        candidates = []
        if state is not None:
            candidates = [e for e in self.replacements(provision, state)
                          if self.attached(e.doc) == edition]
        if not candidates:
            candidates = [e for e in self.amendments(provision)
                          if self.attached(e.doc) == edition]
        if candidates:
            return max(candidates, key=lambda e: self.date_of(e.doc))
        return self.edition_entry(provision, edition)

    def effective(self, provision: str, state: str | None = None,
                  edition: int | None = None) -> int | None:
        return self.controlling(provision, state, edition).value

    def dependents(self, provision: str) -> set[str]:
        return {e.doc for e in self.by_provision[provision] if e.kind in PROVISION_REFS}

    def referrers(self, code: str) -> set[str]:
        """Documents that name ``code`` (``refers_doc``; ``supersedes`` for bulletins)."""
        return {e.doc for e in self.by_target[code]}

    def affected(self, provision: str) -> set[str]:
        out = set(self.dependents(provision))
        frontier = sorted(out)
        while frontier:
            nxt = []
            for code in frontier:
                for r in sorted(self.referrers(code)):
                    if r not in out:
                        out.add(r)
                        nxt.append(r)
            frontier = nxt
        return out

    # -- bulletins -----------------------------------------------------------------------
    def current_bulletin(self, concept: str) -> str:
        chain = self.series[concept]
        superseded = {e.target for code in chain for e in self.by_doc[code]
                      if e.kind == "supersedes"}
        live = [c for c in chain if c not in superseded]
        return max(live, key=self.date_of)

    def bulletin_minimum(self, code: str) -> Entry:
        return next(e for e in self.by_doc[code] if e.kind == "minimum")


# ---------------------------------------------------------------------------------------------
# Generation


class _Dates:
    """Dates, distinct within a scope where the world's rules compare them (the documents
    that change one form; one bulletin series), so that "the latest" is always one
    document."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.used: dict[str, set[str]] = defaultdict(set)

    def draw(self, lo_year: int, hi_year: int, after: str | None = None,
             before: str | None = None, scope: str | None = None) -> str:
        used = self.used[scope] if scope is not None else ()
        while True:
            y = self.rng.randrange(lo_year, hi_year + 1)
            iso = f"{y:04d}-{self.rng.randrange(1, 13):02d}-{self.rng.randrange(1, 29):02d}"
            if iso not in used and (after is None or iso > after) \
                    and (before is None or iso < before):
                if scope is not None:
                    self.used[scope].add(iso)
                return iso


class _Codes:
    """Distinct document numbers per prefix."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.used: dict[str, set[int]] = defaultdict(set)

    def draw(self, prefix: str, lo: int, hi: int) -> int:
        free = hi - lo - len(self.used[prefix])
        if free <= 0:  # a very large library: widen the range
            hi = lo + len(self.used[prefix]) * 2 + 10
        while True:
            n = self.rng.randrange(lo, hi)
            if n not in self.used[prefix]:
                self.used[prefix].add(n)
                return n


class _Builder:
    def __init__(self, config: PolicyConfig):
        self.cfg = config
        self.rng = stream(config.seed, "universe/documents")
        self.dates = _Dates(self.rng)
        self.codes = _Codes(self.rng)
        self.documents: list[Document] = []
        self.entries: list[Entry] = []
        # indexes over what was added (the generator stays linear in the library's size)
        self._edition: dict[tuple, Entry] = {}
        self._sets: dict[tuple, list[Entry]] = {}
        self._provisions: dict[str, tuple[str, str, str]] = {}
        self.ledger: Ledger | None = None  # the forms-and-amendments ledger memos consult

    def add(self, kind: str, doc: str, **fields) -> Entry:
        e = Entry("f%04d" % (len(self.entries) + 1), kind, doc, **fields)
        self.entries.append(e)
        if kind in ("sets", "reserves"):
            self._edition[(e.form, e.section, e.edition)] = e
            if kind == "sets":
                self._sets.setdefault((e.form, e.edition), []).append(e)
            self._provisions.setdefault(e.provision, (e.form, e.section, e.concept))
        return e

    def code(self, prefix: str, lo: int = 1, hi: int = 100) -> str:
        return f"{prefix}-{self.codes.draw(prefix, lo, hi)}"

    # -- forms ---------------------------------------------------------------------------
    def forms(self, n: int) -> None:
        cfg, rng = self.cfg, self.rng
        labels = S.section_labels(cfg.sections)
        for i in range(n):
            prefix = S.FORM_FAMILIES[i % len(S.FORM_FAMILIES)][0]
            code = self.code(prefix, 1, 20)
            title = S.form_title(prefix, i // len(S.FORM_FAMILIES))
            first = self.dates.draw(2012, 2016, scope=code)
            editions = [(int(first[:4]), first)]
            if rng.random() < cfg.second_edition:
                year = int(first[:4]) + rng.randrange(3, 6)
                second = self.dates.draw(year, year, after=first, scope=code)
                editions.append((year, second))
            self.documents.append(Document(code, "form", editions[-1][1],
                                           editions=tuple(editions), title=title))
            for year, date in editions:
                self.add("issued", code, edition=year, date=date)
            concepts = rng.sample([c.id for c in S.CONCEPTS], cfg.sections)
            for label, cid in zip(labels, concepts, strict=True):
                c = S.CONCEPT_BY_ID[cid]
                reserved = rng.random() < cfg.reserved
                value = None if reserved else rng.choice(c.values)
                for k, (year, _) in enumerate(editions):
                    if k and not reserved and rng.random() < cfg.edition_change:
                        value = rng.choice([v for v in c.values if v != value])
                    self.add("reserves" if reserved else "sets", code, form=code,
                             edition=year, section=label, concept=cid, value=value)
                if rng.random() < cfg.describe:
                    self.add("describes", code, form=code, section=label, concept=cid)

    def ledger_entry(self, form: str, section: str, edition: int) -> Entry:
        return self._edition[(form, section, edition)]

    def _form_provisions(self, form: Document) -> list[Entry]:
        """The current edition's provisions of a form that set a value."""
        return list(self._sets.get((form.code, form.editions[-1][0]), ()))

    def _all_provisions(self) -> list[tuple[str, str, str]]:
        return list(self._provisions.values())

    # -- endorsements and state forms ----------------------------------------------------
    def _changes(self, kind: str, n: int, most: int) -> None:
        rng = self.rng
        forms = [d for d in self.documents if d.kind == "form"]
        for _ in range(n):
            form = rng.choice(forms)
            provs = self._form_provisions(form)
            if not provs:
                continue
            picked = sorted(rng.sample(provs, min(len(provs), rng.randrange(1, most + 1))),
                            key=lambda e: S.section_labels(self.cfg.sections).index(e.section))
            # most attach to the current edition, some to an earlier one (dated while that
            # edition was current)
            k = len(form.editions) - 1
            if k and rng.random() >= ATTACH_CURRENT:
                k = rng.randrange(k)
            edition, start = form.editions[k]
            if k + 1 < len(form.editions):
                end = form.editions[k + 1]
                date = self.dates.draw(edition, end[0], after=start, before=end[1],
                                       scope=form.code)
            else:
                date = self.dates.draw(edition, edition + 4, after=start, scope=form.code)
            if kind == "endorsement":
                code = self.code(S.ENDORSEMENT_PREFIX[form.code.split("-")[0]], 10, 100)
                state = None
            else:
                code, state = self.code("SA"), rng.choice(S.STATES)
            self.documents.append(Document(code, kind, date, state))
            self.add("issued", code, form=form.code, edition=edition, date=date, state=state)
            for cur in picked:
                base = self.ledger_entry(form.code, cur.section, edition)
                c = S.CONCEPT_BY_ID[base.concept]
                value = rng.choice([v for v in c.values if v != base.value])
                self.add("amends" if kind == "endorsement" else "replaces", code, form=base.form,
                         section=base.section, concept=base.concept, value=value, state=state)

    # -- bulletins -----------------------------------------------------------------------
    def bulletins(self, n: int) -> None:
        rng = self.rng
        regulated = [c.id for c in S.CONCEPTS if c.regulated]
        n_series = min(len(regulated), max(1, n // 2))
        concepts = rng.sample(regulated, n_series)
        lengths = [n // n_series + (1 if i < n % n_series else 0) for i in range(n_series)]
        for cid, length in zip(concepts, lengths, strict=True):
            c = S.CONCEPT_BY_ID[cid]
            year = rng.randrange(2012, 2016)
            previous, value = None, None
            for _ in range(length):
                date = self.dates.draw(year, year + 1, scope=cid)
                yy = int(date[2:4])
                code = f"RB-{yy:02d}-{self.codes.draw(f'RB{yy}', 1, 30):02d}"
                self.documents.append(Document(code, "bulletin", date))
                self.add("issued", code, date=date)
                value = rng.choice([v for v in c.values if v != value])
                self.add("minimum", code, concept=cid, value=value)
                if previous is not None:
                    self.add("supersedes", code, target=previous)
                previous = code
                year = int(date[:4]) + rng.randrange(1, 3)

    # -- references ----------------------------------------------------------------------
    def _references(self, kind: str, n: int, provisions: tuple[int, int],
                    doc_refs: tuple[int, int], targets: tuple[str, ...]) -> None:
        rng = self.rng
        prefix = S.DOC_KINDS[kind][1]
        pool = self._all_provisions()
        cands = [d.code for d in self.documents if d.kind in targets]  # none of this kind
        for _ in range(n):
            code = self.code(prefix)
            date = self.dates.draw(2018, 2024)
            self.documents.append(Document(code, kind, date))
            self.add("issued", code, date=date)
            for form, section, cid in rng.sample(pool, min(len(pool),
                                                           rng.randrange(provisions[0],
                                                                         provisions[1] + 1))):
                self.add("refers", code, form=form, section=section, concept=cid)
            k = rng.randrange(doc_refs[0], doc_refs[1] + 1)
            for target in rng.sample(cands, min(k, len(cands))):
                self.add("refers_doc", code, target=target)

    def memos(self, n: int) -> None:
        rng, cfg = self.rng, self.cfg
        ledger = Ledger(self.documents, self.entries)
        provs = [p for p in ledger.provisions if ledger.base(p).kind == "sets"]
        amended = [p for p in provs if ledger.amendments(p)]
        position = {p: i for i, p in enumerate(provs)}
        for _ in range(n):
            code = self.code("IM")
            date = self.dates.draw(2018, 2024)
            self.documents.append(Document(code, "memo", date))
            self.add("issued", code, date=date)
            # memos mostly discuss amended provisions (where a stale value is easy to state)
            k = rng.randrange(2, 6)
            picks = rng.sample(amended, min(len(amended), (k + 1) // 2))
            picks += rng.sample(_Without(provs, picks, position), min(len(provs), k // 2))
            for key in picks:
                p = ledger.provisions[key]
                right = ledger.effective(key)
                value = right
                if rng.random() < cfg.misstate:
                    base = ledger.base(key).value
                    stale = base if base != right else None
                    c = S.CONCEPT_BY_ID[p.concept]
                    value = stale if stale is not None and rng.random() < 0.5 else rng.choice(
                        [v for v in c.values if v != right])
                self.add("states", code, form=p.form, section=p.section, concept=p.concept,
                         value=value)

    def distractors(self, n: int) -> None:
        rng = self.rng
        for i in range(n):
            kind = ("glossary", "training")[i % 2]
            code = self.code(S.DOC_KINDS[kind][1])
            date = self.dates.draw(2018, 2024)
            self.documents.append(Document(code, kind, date))
            self.add("issued", code, date=date)
            for cid in rng.sample([c.id for c in S.CONCEPTS], rng.randrange(3, 8)):
                self.add("mentions", code, concept=cid)


class _Without(Sequence):
    """``[x for x in items if x not in drop]`` without building it (``drop`` is a few items):
    ``random.sample`` draws from it exactly as from that list."""

    def __init__(self, items: list, drop: list, position: dict):
        self.items = items
        self.gaps = sorted(position[d] for d in set(drop) if d in position)

    def __len__(self) -> int:
        return len(self.items) - len(self.gaps)

    def __getitem__(self, j: int):
        if not 0 <= j < len(self):
            raise IndexError(j)
        for g in self.gaps:
            if g <= j:
                j += 1
        return self.items[j]


def build_ledger(config: PolicyConfig) -> Ledger:
    """The ledger of ``config``: a pure function of it (stream ``universe/documents``)."""
    counts = config.counts()
    b = _Builder(config)
    b.forms(counts["form"])
    b._changes("endorsement", counts["endorsement"], 4)
    b._changes("state_form", counts["state_form"], 3)
    b.bulletins(counts["bulletin"])
    b._references("guideline", counts["guideline"], (6, 12), (1, 3),
                  ("endorsement", "state_form", "bulletin"))
    b._references("manual", counts["manual"], (4, 9), (2, 4),
                  ("endorsement", "state_form", "guideline"))
    b.memos(counts["memo"])
    b.distractors(counts["distractor"])
    return Ledger(b.documents, b.entries)
