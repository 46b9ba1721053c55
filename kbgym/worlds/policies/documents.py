"""The ledger rendered as notes: one note per fact, in ledger order (so a document's notes are
consecutive), ids ``s0001``, ``s0002``, …

Each fact is written in one of its kind's sentence forms (:data:`~.sentences.VOICES`), its
concept by its name or a synonym and its value in digits or in words, all drawn from stream
``universe/voices``. A note's hidden fact is ``(kind, document, ledger id)``.
"""

from __future__ import annotations

import random

from kbgym.seeding import stream
from kbgym.universe.types import Fact, Node
from kbgym.worlds.policies import sentences as S
from kbgym.worlds.policies.ledger import Entry, Ledger

#: Chance that a concept is written by a synonym, and that a value is written in words.
SYNONYM_SHARE = 0.3
WORDS_SHARE = 0.4

_ISSUED = {"form": ("form_issued", "form_issued_2"),
           "endorsement": ("endorsement_issued", "endorsement_issued_2"),
           "state_form": ("state_issued",)}


def _forms(ledger: Ledger, e: Entry) -> list[S.Form]:
    if e.kind == "issued":
        names = _ISSUED.get(ledger.doc[e.doc].kind, ("doc_issued",))
        return [S.FORM_BY_NAME[n] for n in names]
    return list(S.VOICES[e.kind])


def render_entry(ledger: Ledger, e: Entry, rng: random.Random) -> str:
    """The sentence of one fact, its voice drawn from ``rng`` (always four draws)."""
    forms = _forms(ledger, e)
    form = forms[rng.randrange(len(forms))]
    synonym, words = rng.random() < SYNONYM_SHARE, rng.random() < WORDS_SHARE
    pick = rng.random()
    slots: dict = {"doc": e.doc, "form": e.doc}  # a form's own sentences name it as {form}
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
