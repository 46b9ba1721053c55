"""Casebook drift: documents edited in place and new documents issued (stream ``drift``).

``drift(universe, changes, seed)`` makes version 2 of a casebook universe: ``changes``
value-setting facts (a form's provision, an endorsement's amendment, a state form's
replacement, a bulletin's bound) get a new value — the document is edited in place, so its
paragraph keeps its id and only its text changes — and ``changes // 2`` new endorsements are
issued, amending the most-amended provisions (new documents: new paragraphs after the old
ones). Every other paragraph is byte-for-byte unchanged (one prose stream per document), the
questions are re-answered from the new ledger, and ``meta.casebook_drift`` lists the edited
facts, their paragraphs and the new documents.

This is what staleness by hash is tested on: a claim citing an edited paragraph sees its hash
change; a claim whose paragraphs are unchanged but whose provision a new endorsement now
amends does not — the case hashes cannot catch.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from kbgym.seeding import stream
from kbgym.types import Universe
from kbgym.worlds.casebook.config import CasebookConfig
from kbgym.worlds.casebook.generate import assemble, ledger_of, where_of
from kbgym.worlds.casebook.ledger import LAST_DATE, Doc, Fact, Ledger, add_days
from kbgym.worlds.casebook.vocab import CONCEPT_BY_ID

EDITABLE = ("sets", "amends", "replaces", "bound")


def drift(universe: Universe, changes: int, seed: int = 0) -> Universe:
    """Version 2 of a casebook universe (module doc)."""
    if changes < 0:
        raise ValueError(f"changes must be >= 0, not {changes}")
    rng = stream(seed, "drift/casebook")
    config = CasebookConfig(**universe.meta["config"])
    ledger = ledger_of(universe)
    facts = list(ledger.facts)
    editable = [i for i, f in enumerate(facts) if f.kind in EDITABLE]
    edited = []
    for i in sorted(rng.sample(editable, min(changes, len(editable)))):
        f = facts[i]
        grid = [v for v in CONCEPT_BY_ID[f.concept].grid if v != f.value]
        facts[i] = replace(f, value=rng.choice(grid))
        edited.append(f.id)
    docs = list(ledger.docs)
    amended = Counter((f.target, f.concept) for f in facts if f.kind == "amends")
    hot = [k for k, _ in sorted(amended.items(), key=lambda kv: (-kv[1], kv[0]))]
    by_key = {d.key: d for d in docs}
    new_docs = []
    for n in range(changes // 2):
        if not hot:
            break
        target, concept = hot[n % len(hot)]
        prefix = by_key[target].code.split("-")[0]
        last = max((int(d.code.split("-E")[1]) for d in docs if d.kind == "endorsement"
                    and d.code.startswith(prefix + "-E")), default=0)
        code = f"{prefix}-E{last + 1:02d}"
        date = min(add_days(max(by_key[target].date, "2024-01-01"), rng.randint(30, 700)),
                   LAST_DATE)
        doc = Doc(code, code, "endorsement", date, target=target, by_title=rng.random() < 0.5)
        docs.append(doc)
        new_docs.append(code)
        nid = len(facts)
        facts.append(Fact("f%05d" % (nid + 1), "issued", code, date=date, target=target,
                          by_title=doc.by_title))
        old = [f.value for f in facts if f.kind in ("sets", "amends") and f.target == target
               and f.concept == concept]
        value = rng.choice([v for v in CONCEPT_BY_ID[concept].grid if v not in old])
        para = next(f.para for f in facts if f.kind == "sets" and f.doc == target
                    and f.concept == concept)
        facts.append(Fact("f%05d" % (nid + 2), "amends", code, at=2, concept=concept,
                          value=value, target=target, para=para))
    new = Ledger(docs, facts)
    where = where_of(universe)
    meta = {"casebook_drift": {
        "seed": seed, "changes": changes, "edited": edited,
        "edited_paragraphs": sorted({n for fid in edited for n in where.get(fid, [])},
                                    key=lambda n: int(n[1:])),
        "new_documents": new_docs, "from_hash": universe.hash}}
    return assemble(config, new, meta_extra=meta)
