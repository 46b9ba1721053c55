"""The ledger rendered as long documents, and the documents split into paragraph notes.

Every document is sections of paragraphs; a paragraph is one note (ids ``s0001`` … in
document order), opening with its locator (``[CP-E04 § 2.1]``). Each fact sentence is drawn
from its kind's wordings in :data:`~.grammar.FORMS`, padded with boilerplate that names
concepts but sets nothing (stream ``universe/casebook/prose/{document}`` for the wording,
``…/{document}/{section}.{paragraph}`` for each paragraph's padding, so editing a value
rewrites only the paragraph that states it). A base form writes each
provision twice: in its section and as a row of the schedule table in § 8 (a one-line
Markdown table: notes are one line). Paragraphs stay
under the note cap (:data:`kbgym.protocol.limits.MAX_TEXT_CHARS`): a document is long because
it has many paragraphs, never because a note is.

:func:`render_documents` returns the notes and ``where``: the notes each fact is written in
(the ledger's "where it must appear", checked by the gold checker).
"""

from __future__ import annotations

from collections import defaultdict

from kbgym.protocol.limits import MAX_TEXT_CHARS
from kbgym.seeding import stream
from kbgym.types import Fact as NodeFact
from kbgym.types import Node
from kbgym.worlds.casebook import grammar as G
from kbgym.worlds.casebook.ledger import Doc, Fact, Ledger
from kbgym.worlds.casebook.vocab import (CONCEPT_BY_ID, CONCEPTS, DEFINITIONS, FILLER, LINES,
                                         SECTIONS, class_label)

#: The share of concept mentions written by the concept's name (the rest by a synonym).
NAME_SHARE = 0.4
#: Paragraphs are padded with boilerplate up to about this many characters (never past the cap).
SOFT_CHARS = 620
#: Entries per paragraph of the manual's filing schedule.
FILING_ROWS = 5
#: Regulatory-class sentences per paragraph of a form's § 1.
CLASS_ROWS = 4
_HEADER = {"form": ("h_form", "h_form2"), "endorsement": ("h_end", "h_end2"),
           "state_form": ("h_state", "h_state2"), "bulletin": ("h_bull", "h_bull2"),
           "memo": ("h_memo",), "faq": ("h_faq",), "manual": ("h_manual",)}
_FILED_HEADER = {"endorsement": ("h_end3", "h_end4"), "state_form": ("h_state3",)}
_SCHEDULED_HEADER = {("endorsement", False): ("h_end5",), ("endorsement", True): ("h_end6",),
                     ("state_form", False): ("h_state4",), ("state_form", True): ("h_state5",)}
_TITLES = {"endorsement": ("Schedule", "Amendment", "Closing provisions"),
           "state_form": ("Schedule", "State amendment", "Closing provisions"),
           "bulletin": ("Requirement", "Background", "Compliance"),
           "memo": ("Discussion", "Item", "Closing"), "faq": ("Questions", "Item", "Closing"),
           "manual": ("Order of precedence", "Definitions", "")}


class _Writer:
    def __init__(self, ledger: Ledger, seed: int):
        self.ledger = ledger
        self.seed = seed
        self.rng = stream(seed, "universe/casebook/prose")
        self.nodes: list[Node] = []
        self.avoid: set[str] = set()  # concepts the current document's padding never names
        self.where: dict[str, list[str]] = defaultdict(list)

    # -- slots -----------------------------------------------------------------------------
    def target(self, key: str, by_title: bool) -> str:
        d = self.ledger.doc[key]
        return G.form_ref(d.code, d.edition, d.title, by_title)

    def ref(self, key: str) -> str:
        d = self.ledger.doc[key]
        return G.doc_ref(d.kind, d.code, d.edition)

    def concept(self, cid: str) -> str:
        c = CONCEPT_BY_ID[cid]
        return c.name if self.rng.random() < NAME_SHARE else self.rng.choice(c.synonyms)

    def value(self, cid: str, value: int) -> str:
        return G.format_value(CONCEPT_BY_ID[cid].unit, value, self.rng.choice(G.VALUE_VOICES))

    def date(self, iso: str) -> str:
        return G.format_date(iso, self.rng.choice(G.DATE_VOICES))

    def pick(self, names: tuple[str, ...]) -> G.Form:
        return G.FORM_BY_NAME[self.rng.choice(names)]

    def forms_of(self, *kinds: str) -> tuple[str, ...]:
        return tuple(f.name for k in kinds for f in G.FORMS_OF[k])

    # -- sentences -------------------------------------------------------------------------
    def header(self, d: Doc) -> str:
        names = _HEADER[d.kind]
        if d.scheduled:
            names = _SCHEDULED_HEADER[(d.kind, d.filed)]
        elif d.filed:
            names = _FILED_HEADER[d.kind]
        form = self.pick(names)
        slots = {"doc": d.code, "date": self.date(d.date)}
        if d.kind == "form":
            slots.update(title=d.title, edition=d.edition, line=LINES[d.line][1])
        if d.target:
            slots["target"] = self.target(d.target, d.by_title)
        if d.state:
            slots["state"] = d.state
        if d.kind == "bulletin":
            slots["line"] = LINES[d.line][1]
        out = G.render(form, **slots)
        if d.supersedes:
            out += " " + G.render(self.pick(self.forms_of("supersedes")),
                                  ref=self.ref(d.supersedes))
        return out

    def sentence(self, f: Fact) -> str:
        c = f.concept
        if f.kind == "sets":
            return G.render(self.pick(self.forms_of("sets")), concept=self.concept(c),
                            value=self.value(c, f.value))
        if f.kind in ("amends", "replaces"):
            # An amendment or a state replacement names neither its provision nor its form
            # nor its state (grammar.py): it gives the provision's place in "the Coverage
            # Form" (§ 3.2), which form is the document's header's or Schedule's, what the
            # provision is the form's own paragraph at that place, and the state the header's;
            # a revision names only the amendment it revises.
            value = self.value(c, f.value)
            if f.ref:
                return G.render(self.pick(("a11", "a12")), ref=self.ref(f.ref), item=f.item,
                                value=value)
            names = ("a8", "a9") if f.kind == "amends" else ("r5", "r6")
            return G.render(self.pick(names), value=value, section=CONCEPT_BY_ID[c].section,
                            para=f.para)
        if f.kind == "bound":  # on a class of provisions, never one by name
            low = CONCEPT_BY_ID[c].bound == "minimum"
            return G.render(self.pick(self.forms_of("bound")), klass=class_label(c, f.item),
                            value=self.value(c, f.value), state=f.state,
                            line=LINES[f.line][1], side="below" if low else "above",
                            bound=CONCEPT_BY_ID[c].bound)
        if f.kind == "states":
            return G.render(self.pick(self.forms_of("states")), concept=self.concept(c),
                            value=self.value(c, f.value), target=self.target(f.target, f.by_title))
        if f.kind == "refers":
            return G.render(self.pick(self.forms_of("refers")), concept=self.concept(c),
                            target=self.target(f.target, f.by_title), ref=self.ref(f.ref),
                            item=f.item)
        if f.kind == "precedence":
            return G.render(G.FORM_BY_NAME["prec"])
        if f.kind == "classifies":
            return G.render(G.FORM_BY_NAME["cls"], concept=self.concept(c),
                            klass=class_label(c, f.item))
        if f.kind == "attaches":
            if f.by_date:  # the form alone: the edition in force on the document's date
                d = self.ledger.doc[f.target]
                return G.render(self.pick(("att3", "att4")),
                                formonly=f"the {d.title}" if f.by_title else f"form {d.code}")
            return G.render(self.pick(("att", "att2")),
                            target=self.target(f.target, f.by_title))
        if f.kind == "filed":
            d = self.ledger.doc[f.ref]
            return G.render(G.FORM_BY_NAME["filed"], refkind=G.KIND_WORD[d.kind], doc=d.code,
                            date=self.date(f.date))
        if f.kind == "defines":
            return DEFINITIONS[f.item]
        raise ValueError(f"no sentence for fact kind {f.kind!r}")

    def filler(self, concepts: list[str], rng) -> str:
        text = rng.choice(FILLER)
        if "{concept}" in text:
            cid = rng.choice(concepts) if concepts and rng.random() < 0.7 \
                else rng.choice([c.id for c in CONCEPTS if c.id not in self.avoid])
            c = CONCEPT_BY_ID[cid]
            text = text.replace("{concept}", c.name if rng.random() < NAME_SHARE
                                else rng.choice(c.synonyms))
        return text

    # -- paragraphs ------------------------------------------------------------------------
    def para(self, d: Doc, section: int, n: int, body: list[str], facts: list[Fact],
             concepts: list[str], pad: bool = True) -> None:
        head = G.locator(d.code, d.edition, section, n)
        text = " ".join([head, *body])
        if pad:
            # the padding's own stream: a value written longer or shorter changes no other
            # paragraph
            rng = stream(self.seed, f"universe/casebook/prose/{d.key}/{section}.{n}")
            goal = rng.randint(SOFT_CHARS // 2, SOFT_CHARS)
            for _ in range(12):
                if len(text) >= goal:
                    break
                extra = self.filler(concepts, rng)
                if extra in text:
                    continue
                if len(text) + len(extra) + 1 > MAX_TEXT_CHARS - 20:
                    break
                text = text + " " + extra
        if len(text) > MAX_TEXT_CHARS:
            raise ValueError(f"paragraph {head} has {len(text)} characters, over the note cap")
        nid = "s%04d" % (len(self.nodes) + 1)
        self.nodes.append(Node(nid, text, NodeFact("paragraph", d.key, f"§{section}.{n}")))
        for f in facts:
            self.where[f.id].append(nid)

    def document(self, d: Doc, facts: list[Fact]) -> None:
        rng = self.rng
        own = sorted({f.concept for f in facts if f.concept})
        self.avoid = set()
        if d.kind == "bulletin":
            # a bulletin bounds a class: its boilerplate never names a provision of that kind
            kinds = {(CONCEPT_BY_ID[c].unit, CONCEPT_BY_ID[c].bound) for c in own}
            self.avoid = {c.id for c in CONCEPTS if (c.unit, c.bound) in kinds}
            own = []
        if d.kind in ("endorsement", "state_form"):
            # an endorsement's boilerplate never names what it amends (its amendments give
            # only the provision's place in the form): it talks about the form's other
            # provisions, so a search for the provision's name does not find it
            self.avoid = set(own)
            own = [f.concept for f in self.ledger.of_doc[d.target]
                   if f.kind == "sets" and f.concept not in self.avoid]
        issued = [f for f in facts if f.kind in ("issued", "supersedes")]
        self.para(d, 0, 1, [self.header(d)], issued, own)
        if d.kind == "form":
            self.form_body(d, facts, own)
            return
        by_at: dict[int, list[Fact]] = defaultdict(list)
        for f in facts:
            if f.kind not in ("issued", "supersedes"):
                by_at[f.at].append(f)
        titles = _TITLES[d.kind]
        last = max(by_at, default=0)
        for s in range(1, last + 2):
            if s == last + 1 and d.kind == "manual":
                break
            title = titles[0] if s == 1 else titles[2] if s == last + 1 else titles[1]
            group = by_at.get(s, [])
            if d.kind == "manual" and s == 2:  # definitions, two a paragraph
                for i in range(0, len(group), 2):
                    self.para(d, s, i // 2 + 1, [self.sentence(f) for f in group[i:i + 2]],
                              group[i:i + 2], own, pad=False)
                continue
            if d.kind == "manual" and s == 3:  # the filing schedule, in date order
                for i in range(0, len(group), FILING_ROWS):
                    rows = group[i:i + FILING_ROWS]
                    lead = ["Table of effective dates." if i == 0
                            else "Table of effective dates, continued."]
                    self.para(d, s, i // FILING_ROWS + 1,
                              lead + [self.sentence(f) for f in rows], rows, own, pad=False)
                continue
            lead = [f"{title}."] if title else []
            if not group:
                for n in range(1, rng.randint(1, 2) + 1):
                    self.para(d, s, n, lead if n == 1 else [], [], own)
                continue
            n = 0
            for f in group:
                n += 1
                self.para(d, s, n, (lead if n == 1 else []) + [self.sentence(f)], [f],
                          [f.concept] if f.concept and not self.avoid else own)
            if rng.random() < 0.5:
                self.para(d, s, n + 1, [], [], own)

    def form_body(self, d: Doc, facts: list[Fact], own: list[str]) -> None:
        rng = self.rng
        defs = [f for f in facts if f.kind == "defines"]
        self.para(d, 1, 1, [f"Section 1 \u2014 {SECTIONS[0]}."]
                  + [self.sentence(f) for f in defs], defs, own, pad=False)
        classes = [f for f in facts if f.kind == "classifies"]
        for i in range(0, len(classes), CLASS_ROWS):  # § 1.2 …: the regulatory classes
            rows = classes[i:i + CLASS_ROWS]
            self.para(d, 1, 2 + i // CLASS_ROWS, [self.sentence(f) for f in rows], rows, own,
                      pad=False)
        sets = [f for f in facts if f.kind == "sets"]
        for s in range(2, 8):
            n = 1
            self.para(d, s, n, [f"Section {s} \u2014 {SECTIONS[s - 1]}."], [], own)
            for f in (f for f in sets if f.at == s):
                n += 1
                if f.para != n:
                    raise ValueError(f"{d.key}: provision {f.concept} is § {s}.{n}, the ledger "
                                     f"says § {s}.{f.para}")
                self.para(d, s, n, [self.sentence(f)], [f], [f.concept])
            if rng.random() < 0.5:
                self.para(d, s, n + 1, [], [], own)
        rows = ["Section 8 \u2014 Schedule of limits, periods and percentages.",
                "| Provision | Section | Amount | |---|---|---|"]
        for f in sets:
            rows.append(G.render(G.FORM_BY_NAME["row"], concept=self.concept(f.concept),
                                        section=f.at, para=f.para,
                                        value=self.value(f.concept, f.value)))
        self.para(d, 8, 1, [" ".join(rows)], sets, own, pad=False)

    def run(self) -> tuple[list[Node], dict[str, list[str]]]:
        for d in self.ledger.docs:
            # one stream per document: editing one document rewrites only its paragraphs
            self.rng = stream(self.seed, f"universe/casebook/prose/{d.key}")
            self.document(d, self.ledger.of_doc[d.key])
        return self.nodes, dict(self.where)


def render_documents(ledger: Ledger, seed: int) -> tuple[list[Node], dict[str, list[str]]]:
    """The paragraph notes of every document (in ledger document order) and, per fact id,
    the notes it is written in."""
    return _Writer(ledger, seed).run()
