"""Source drift in a policies universe (``kbgym drift`` on a ``--world policies`` universe):
new documents supersede old ones, as they do in a real policy library.

Changes, drawn from stream ``drift`` of the drift seed (one uniform choice of kind per change;
a kind with no candidate passes to the next in this order):

- ``edition``: a form gets a new edition, dated after every date in the library; each of its
  provisions is restated for it, a share with a new value. Endorsements and state forms
  attached to the previous edition stop applying, so effective values move;
- ``bulletin``: a new bulletin supersedes the current one of a series, with a new minimum;
- ``endorsement``: a new endorsement, attached to a form's current edition, amends one or two
  of its provisions.

Every new fact is a new ledger entry and a new original note, ids from ``10^(d+1) + 1`` (d: the
digit count of the highest note id), so that a library trained on v1 can take them in
(:func:`kbgym.worlds.people.drift.carry_library`). Old notes stay. ``meta.drift.supersedes`` maps
each new note to the note it replaces: a new edition's provision to the previous edition's, a
new bulletin's minimum to the current one's, a new amendment to the provision's previous
controlling text. Questions keep their qids and texts and are re-answered from the new ledger
(golds and support); one whose template no longer applies is dropped. ``meta.drift`` has the
same fields as a people drift, so staleness, typed ``supersedes`` links and ``kbgym
drift-report`` work unchanged.
"""

from __future__ import annotations

import random

from kbgym.errors import ConfigError
from kbgym.protocol.ids import id_num
from kbgym.seeding import stream
from kbgym.worlds.people.drift import summarize as drift_summary
from kbgym.types import Fact, Node, Universe
from kbgym.worlds.policies import grammar as S
from kbgym.worlds.policies.documents import render_entry
from kbgym.worlds.policies.generate import ledger_of
from kbgym.worlds.policies.ledger import Document, Entry, Ledger
from kbgym.worlds.policies.questions import Pools

KINDS = ("edition", "bulletin", "endorsement")


class _State:
    def __init__(self, u: Universe, seed: int):
        self.u = u
        self.ledger = ledger_of(u)
        self.documents = list(self.ledger.documents)
        self.entries = list(self.ledger.entries)
        self.nodes = list(u.nodes)
        self.note_of = {n.fact.object: n.id for n in u.nodes}
        top = max(id_num(n.id) for n in u.nodes)
        self.next_num = 10 ** (len(str(top)) + 1) + 1
        self.first_new = self.next_num
        self.voices = stream(seed, "drift/voices")
        self.supersedes: dict[str, str] = dict(u.meta.get("drift", {}).get("supersedes", {}))
        self.events: list[dict] = []
        self.used_dates = {d.date for d in self.documents} | {
            e.date for e in self.entries if e.date}

    def current(self) -> Ledger:
        return Ledger(self.documents, self.entries)

    def date(self, rng: random.Random) -> str:
        latest = max(self.used_dates)
        year = int(latest[:4]) + 1
        while True:
            iso = f"{year:04d}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
            if iso not in self.used_dates:
                self.used_dates.add(iso)
                return iso

    def add(self, kind: str, doc: str, **fields) -> str:
        """A new fact and its note; returns the note id."""
        e = Entry("f%04d" % (len(self.entries) + 1), kind, doc, **fields)
        self.entries.append(e)
        nid = "s%04d" % self.next_num
        self.next_num += 1
        self.nodes.append(Node(nid, render_entry(self.current(), e, self.voices),
                               Fact(e.kind, e.doc, e.id)))
        self.note_of[e.id] = nid
        return nid

    def code(self, prefix: str, rng: random.Random, lo: int = 1, hi: int = 100) -> str:
        taken = {d.code for d in self.documents}
        free = [f"{prefix}-{n}" for n in range(lo, hi) if f"{prefix}-{n}" not in taken]
        if not free:
            n = hi
            while f"{prefix}-{n}" in taken:
                n += 1
            return f"{prefix}-{n}"
        return rng.choice(free)


def _edition(st: _State, rng: random.Random) -> dict | None:
    forms = [d for d in st.documents if d.kind == "form"]
    if not forms:
        return None
    form = rng.choice(forms)
    L = st.current()
    date = st.date(rng)
    year = int(date[:4])
    i = st.documents.index(form)
    form = Document(form.code, "form", date, editions=form.editions + ((year, date),),
                    title=form.title)
    st.documents[i] = form
    notes = [st.add("issued", form.code, edition=year, date=date)]
    supersedes = []
    for p, prov in L.provisions.items():
        if prov.form != form.code:
            continue
        old = L.base(p)
        value = old.value
        if value is not None and rng.random() < 0.5:
            c = S.CONCEPT_BY_ID[prov.concept]
            value = rng.choice([v for v in c.values if v != value])
        nid = st.add(old.kind, form.code, form=form.code, edition=year, section=prov.section,
                     concept=prov.concept, value=value)
        st.supersedes[nid] = st.note_of[old.id]
        notes.append(nid)
        supersedes.append(st.note_of[old.id])
    return {"kind": "edition", "documents": [form.code], "edition": year, "notes": notes,
            "supersedes": supersedes}


def _bulletin(st: _State, rng: random.Random) -> dict | None:
    L = st.current()
    if not L.series:
        return None
    concept = rng.choice(sorted(L.series))
    old = L.current_bulletin(concept)
    date = st.date(rng)
    yy = int(date[2:4])
    taken = {d.code for d in st.documents}
    code = next(f"RB-{yy:02d}-{n:02d}" for n in range(1, 100) if f"RB-{yy:02d}-{n:02d}" not in taken)
    st.documents.append(Document(code, "bulletin", date))
    c = S.CONCEPT_BY_ID[concept]
    old_min = L.bulletin_minimum(old)
    notes = [st.add("issued", code, date=date),
             st.add("minimum", code, concept=concept,
                    value=rng.choice([v for v in c.values if v != old_min.value])),
             st.add("supersedes", code, target=old)]
    st.supersedes[notes[1]] = st.note_of[old_min.id]
    return {"kind": "bulletin", "documents": [code], "supersedes": [st.note_of[old_min.id]],
            "notes": notes}


def _endorsement(st: _State, rng: random.Random) -> dict | None:
    L = st.current()
    forms = [d for d in st.documents if d.kind == "form"]
    if not forms:
        return None
    form = rng.choice(forms)
    year = L.current_edition(form.code)
    provs = [p for p, prov in L.provisions.items() if prov.form == form.code
             and L.effective(p) is not None]
    if not provs:
        return None
    picked = sorted(rng.sample(provs, min(len(provs), rng.randrange(1, 3))),
                    key=lambda p: list(L.provisions).index(p))
    date = st.date(rng)
    code = st.code(S.ENDORSEMENT_PREFIX[form.code.split("-")[0]], rng, 10, 100)
    st.documents.append(Document(code, "endorsement", date))
    notes = [st.add("issued", code, form=form.code, edition=year, date=date)]
    supersedes = []
    for p in picked:
        prov = L.provisions[p]
        old = L.controlling(p)
        c = S.CONCEPT_BY_ID[prov.concept]
        nid = st.add("amends", code, form=prov.form, section=prov.section, concept=prov.concept,
                     value=rng.choice([v for v in c.values if v != old.value]))
        st.supersedes[nid] = st.note_of[old.id]
        notes.append(nid)
        supersedes.append(st.note_of[old.id])
    return {"kind": "endorsement", "documents": [code], "notes": notes,
            "supersedes": supersedes}


_EVENTS = {"edition": _edition, "bulletin": _bulletin, "endorsement": _endorsement}


def drift(u: Universe, changes: int, seed: int = 0) -> Universe:
    """Policies universe v2: ``changes`` seeded changes applied to ``u`` (module doc)."""
    if changes < 0:
        raise ConfigError(f"changes must be >= 0, got {changes}")
    if u.meta.get("source") != "policies":
        raise ConfigError("this is the policies world's drift; give it a --world policies "
                          "universe")
    st = _State(u, seed)
    rng = stream(seed, "drift")
    for _ in range(changes):
        first = KINDS.index(rng.choice(KINDS))
        for k in range(len(KINDS)):
            ev = _EVENTS[KINDS[(first + k) % len(KINDS)]](st, rng)
            if ev is not None:
                st.events.append(ev)
                break
    ledger = st.current()
    by_text = {}
    for pool in Pools(ledger).all().values():
        for inst in pool:
            by_text.setdefault(inst.text, inst)
    questions, status, old_golds = [], {"drifted": [], "unchanged": [], "dropped": []}, {}
    for q in u.questions:
        inst = by_text.get(q.text)
        if inst is None or inst.template != q.template:
            status["dropped"].append(q.qid)
            continue
        q2 = inst.question(q.qid, st.note_of, q.eval_flavor)
        questions.append(q2)
        if q2.golds != q.golds:
            status["drifted"].append(q.qid)
            old_golds[q.qid] = list(q.golds)
        else:
            status["unchanged"].append(q.qid)
    dropped = set(status["dropped"])
    meta = dict(u.meta)
    meta["policies"] = ledger.to_json()
    meta["drift"] = {
        "parent_hash": u.hash, "seed": seed, "changes": changes, "events": st.events,
        "first_new_id": "s%04d" % st.first_new, "supersedes": st.supersedes,
        "questions": status, "old_golds": old_golds,
    }
    return Universe(meta=meta, vocab=u.vocab, people=u.people, nodes=tuple(st.nodes),
                    questions=tuple(questions),
                    splits={k: tuple(x for x in v if x not in dropped)
                            for k, v in u.splits.items()})


def summarize(u2: Universe) -> str:
    """The drift's summary lines, with this world's event kinds."""
    return drift_summary(u2, KINDS)
