"""The ledger rendered as notes: one note per fact, in ledger order (so a document's notes are
consecutive), ids ``s0001``, ``s0002``, …

Each fact is written in one of its kind's sentence forms (:data:`~.sentences.VOICES`), its
concept by its name or a synonym, its value in digits or in words, and a reference to a
provision by code and section (``form HO-3 §I.B``) or by the form's title and the concept
(``the water backup limit of the Homeowners Special Form``), all drawn from stream
``universe/voices``. A note's hidden fact is ``(kind, document, ledger id)``.
"""

from __future__ import annotations

import random

from kbgym.seeding import stream
from kbgym.types import Fact, Node
from kbgym.worlds.policies import grammar as S
from kbgym.worlds.policies.ledger import Entry, Ledger

#: Chance that a concept is written by a synonym, that a value is written in words, and that a
#: reference names a provision by its form's title (``... of the Homeowners Special Form``).
SYNONYM_SHARE = 0.3
WORDS_SHARE = 0.4
TITLE_SHARE = 0.4

_ISSUED = {"form": ("form_issued", "form_issued_2"),
           "endorsement": ("endorsement_issued", "endorsement_issued_2"),
           "state_form": ("state_issued",)}


def _forms(ledger: Ledger, e: Entry, by_title: bool) -> list[S.Form]:
    if e.kind == "issued":
        names = _ISSUED.get(ledger.doc[e.doc].kind, ("doc_issued",))
        return [S.FORM_BY_NAME[n] for n in names]
    forms = list(S.VOICES[e.kind])
    titled = [f for f in forms if f.name in S.TITLE_FORMS]
    if titled and by_title:
        return titled
    return [f for f in forms if f.name not in S.TITLE_FORMS]


def render_entry(ledger: Ledger, e: Entry, rng: random.Random) -> str:
    """The sentence of one fact, its voice drawn from ``rng`` (always five draws): a reference
    to a provision names it by its form's title and concept (an indirect reference) with
    probability :data:`TITLE_SHARE`, else by code and section."""
    by_title = rng.random() < TITLE_SHARE
    forms = _forms(ledger, e, by_title)
    form = forms[rng.randrange(len(forms))]
    synonym, words = rng.random() < SYNONYM_SHARE, rng.random() < WORDS_SHARE
    pick = rng.random()
    slots: dict = {"doc": e.doc, "form": e.doc}  # a form's own sentences name it as {form}
    owner = ledger.doc.get(e.form or e.doc)
    if owner is not None and owner.title:
        slots["title"] = owner.title
    if e.concept is not None:
        c = S.CONCEPT_BY_ID[e.concept]
        slots["concept"] = c.synonyms[int(pick * len(c.synonyms))] if synonym else c.name
        if e.value is not None:
            slots["value"] = S.format_value(c.unit, e.value, "words" if words else "digits")
    for key in ("form", "edition", "section", "state", "target", "date"):
        if getattr(e, key) is not None:
            slots[key] = getattr(e, key)
    return S.render(form, **slots)


def render_nodes(ledger: Ledger, seed: int) -> tuple[list[Node], dict[str, str]]:
    """The notes (in ledger order) and the ledger id -> note id map."""
    rng = stream(seed, "universe/voices")
    nodes, note_of = [], {}
    for i, e in enumerate(ledger.entries, start=1):
        nid = "s%04d" % i
        nodes.append(Node(nid, render_entry(ledger, e, rng), Fact(e.kind, e.doc, e.id)))
        note_of[e.id] = nid
    return nodes, note_of
