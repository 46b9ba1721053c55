"""Scripted agents of the casebook world (docs/casebook.md): three exam readers that state
their citations through the answer action, and the wiki compiler.

Every agent reads only what the environment shows (``obs["text"]``) or, for the compiler,
the documents' paragraphs, and parses it with the world's published grammar
(:mod:`kbgym.worlds.casebook.grammar`). They apply the order of precedence the manual states
(§ 1 of Manual GM-1) to what they have read; they never see golds or the ledger.

- :class:`SearchReader` (``search``, ``read``, ``answer``): looks each dependency up by
  keyword search — the provision's own paragraph (its place, § 3.2, and its regulatory
  class), the form's header and editions, the Schedules and headers of the documents that
  attach to it, their amendments at that place and the amendments their revisions name, dates
  in the manual's table of effective dates, supersessions, state amendatory endorsements, the
  bulletins on the provision's class — then reads further result pages of its queries while
  the exam budget lasts, and answers from what it found. It follows a reference the way a
  search-only agent can: by searching for the code and section it names.
- :class:`WikiReader`: the same, but first searches the compiled wiki (notes starting
  ``Wiki``): a page linking the claims about the question's provision or reference.
- :class:`GraphReader` (evidence toolset): ``locate`` the wiki page, ``expand`` its ``cites``
  edges; falls back to search.
- :func:`compile_pages`: the unsupervised compile step, from the documents alone (no
  questions): one page per provision and per reference, claims restating the statements they
  rest on in the world's own sentences (titles resolved to codes, each statement next to its
  document's header) and citing paragraph ids with the hash of the paragraph's text.

A reader's repeats differ by a seeded tie-break (``reset(seed=)``): the order of equally good
queries and of paragraphs stating the same fact, so which paragraph it cites can move.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import defaultdict
from dataclasses import dataclass, field

from kbgym import agent_factory
from kbgym.protocol.observation import parse_observation
from kbgym.protocol.results import parse_expand, parse_locate, parse_read, parse_search
from kbgym.worlds.casebook import grammar as G
from kbgym.worlds.casebook.vocab import CONCEPT_BY_ID

from kbgym_agents.base import BaseAgent

#: A claim's citations: ``(sources: s0012#1a2b3c4d, s0040#...)``.
SOURCES_RE = re.compile(r"\(sources: ((?:s\d+#[0-9a-f]{8}(?:, )?)+)\)")
WIKI_WORD = "Wiki"


def text_hash(text: str) -> str:
    """The hash a claim keeps of a paragraph's text (8 hex digits of SHA-256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def claim_sources(text: str) -> list[tuple[str, str]]:
    """(note id, hash) pairs a claim cites."""
    m = SOURCES_RE.search(text)
    if not m:
        return []
    return [tuple(p.split("#")) for p in m.group(1).split(", ")]  # type: ignore[misc]


# ---------------------------------------------------------------------------------------------
# What a reader knows: statements in context, with the notes they came from


@dataclass
class Known:
    """One statement with its document and its citations (the paragraph ids it rests on)."""

    kind: str
    doc: str | None
    section: int | None
    f: dict
    cites: tuple[str, ...]
    para: int | None = None  # a form provision's paragraph in its section (§ section.para)


@dataclass
class Knowledge:
    headers: dict[str, Known] = field(default_factory=dict)
    title_code: dict[str, str] = field(default_factory=dict)
    superseded_by: dict[str, Known] = field(default_factory=dict)
    values: list[Known] = field(default_factory=list)  # sets, row, amends, replaces, bound
    refers: dict[tuple[str, int], Known] = field(default_factory=dict)
    chains: dict[tuple[str, int], Known] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)
    texts: dict[str, str] = field(default_factory=dict)  # every note shown, by id
    filed: dict[str, Known] = field(default_factory=dict)  # doc -> its filing entry
    attached: dict[str, Known] = field(default_factory=dict)  # doc -> its Schedule's form
    #: (form edition, concept) -> the statement putting it in a regulatory class
    classes: dict[tuple[str, str], Known] = field(default_factory=dict)
    #: (form edition, section, paragraph) -> the concept its provision paragraph sets
    place: dict[tuple[str, int, int], str] = field(default_factory=dict)

    def absorb(self, nid: str, text: str) -> None:
        if nid in self.seen:
            return
        self.seen.add(nid)
        self.texts[nid] = text
        loc, statements = G.parse_paragraph(text)
        sources = claim_sources(text)
        cites = tuple(s for s, _ in sources) if sources else (nid,)
        doc = G.form_label(loc[0], loc[1]) if loc else None
        section = loc[2] if loc else None
        para = loc[3] if loc else None
        for st in statements:
            f = st.fields
            if st.kind.startswith("header_"):
                doc = G.form_label(f["doc"], f.get("edition")) if st.kind == "header_form" \
                    else f["doc"]
                section = None
                self.headers.setdefault(doc, Known(st.kind[7:], doc, 0, f, cites))
                if st.kind == "header_form":
                    self.title_code[f["title"]] = f["doc"]
            elif st.kind in ("attaches", "attaches_current") and doc is not None:
                self.attached.setdefault(doc, Known(st.kind, doc, section, f, cites))
            elif st.kind == "classifies" and doc is not None:
                self.classes.setdefault((doc, f["concept"]), Known(st.kind, doc, section, f,
                                                                   cites))
            elif st.kind == "filed":
                self.filed.setdefault(f["doc"], Known(st.kind, doc, section, f, cites))
            elif st.kind == "supersedes":
                self.superseded_by.setdefault(
                    G.form_label(f["ref"], f.get("refedition")), Known(st.kind, doc, 0, f, cites))
            elif st.kind in ("sets", "row", "bound") + AMENDS + REPLACES:
                sec, par = ((f.get("section"), f.get("para")) if st.kind == "row"
                            else (section, para))
                self.values.append(Known(st.kind, doc, sec, f, cites, par))
                if st.kind in ("sets", "row") and doc and sec and par:
                    self.place.setdefault((doc, sec, par), f["concept"])
            elif st.kind == "refers" and doc is not None and section is not None:
                self.refers.setdefault((doc, section), Known(st.kind, doc, section, f, cites))
            elif st.kind == "chain":
                self.chains.setdefault((f["doc"], f["item"]), Known(st.kind, f["doc"], None, f,
                                                                     cites))

    # -- resolution helpers ------------------------------------------------------------------
    def target(self, f: dict) -> str | None:
        """The form edition label a statement's target names (a title through a form
        header), or None when not resolvable yet."""
        if "edition" not in f:  # a form named alone (a Schedule: the edition then in force)
            return None
        if "form" in f:
            return G.form_label(f["form"], f["edition"])
        code = self.title_code.get(f.get("title", ""))
        return G.form_label(code, f["edition"]) if code and "edition" in f else None

    def revised(self, k: Known) -> Known | None:
        """The earlier amendment a revision names (``The figure inserted by Endorsement
        CP-E04, § 2 …``), once its paragraph has been read."""
        if "ref" not in k.f or "item" not in k.f:
            return None
        ref = G.form_label(k.f["ref"], k.f.get("refedition"))
        return next((x for x in self.values if x.doc == ref and x.section == k.f["item"]
                     and x.kind in AMENDS), None)

    def place_of(self, k: Known) -> tuple[int, int] | None:
        """The provision's place (section, paragraph) a value statement gives, following a
        revision to the amendment it revises; None while a link is unread."""
        for _ in range(8):
            if "para" in k.f:
                return k.f["section"], k.f["para"]
            nxt = self.revised(k)
            if nxt is None:
                return None
            k = nxt
        return None

    def unresolved(self, k: Known) -> tuple[str, int] | None:
        """The (document, section) a revision's chain needs read next, or None."""
        for _ in range(8):
            if "para" in k.f or "concept" in k.f or "ref" not in k.f:
                return None
            nxt = self.revised(k)
            if nxt is None:
                return G.form_label(k.f["ref"], k.f.get("refedition")), k.f["item"]
            k = nxt
        return None

    def concept_of(self, k: Known) -> str | None:
        """The concept a value statement is about: named, or (an amendment or replacement
        giving only the provision's place, ``§ 3.2``, or naming only the amendment it
        revises) the concept the target form's own paragraph at that place sets — None
        until every paragraph on the way has been read."""
        if "concept" in k.f:
            return k.f["concept"]
        form, place = self.doc_target(k), self.place_of(k)
        if form is None or place is None:
            return None
        return self.place.get((form, *place))

    def locus(self, form: str, concept: str) -> tuple[int, int] | None:
        """(section, paragraph) of the provision in the form, once its paragraph was read."""
        return next(((s, p) for (fm, s, p), c in self.place.items()
                     if fm == form and c == concept), None)

    def doc_target(self, k: Known) -> str | None:
        t = self.target(k.f)
        return t if t is not None else self.form_of(k.doc)

    def form_of(self, doc: str | None) -> str | None:
        """The form edition an endorsement or state form attaches to: named in its header, or
        where the header leaves it to the Schedule, in the Schedule — which may name the form
        alone, meaning the edition in force on the date the document takes effect (None
        until what decides it has been read)."""
        for src in (self.headers.get(doc), self.attached.get(doc)):
            t = self.target(src.f) if src is not None else None
            if t is not None:
                return t
        att = self.attached.get(doc)
        if att is not None and att.kind == "attaches_current":
            return self.current_edition(self.code_of(att.f), self.date_of(doc))
        return None

    def code_of(self, f: dict) -> str | None:
        """The form code a statement names (by code, or by title through a form header)."""
        return f.get("form") or self.title_code.get(f.get("title", ""))

    def current_edition(self, code: str | None, date: str | None) -> str | None:
        """The edition of form ``code`` in force on ``date``, among the editions whose header
        has been read (the latest to take effect by then)."""
        if code is None or date is None:
            return None
        eds = [h for h in self.headers.values() if h.kind == "form" and h.f["doc"] == code
               and h.f["date"] <= date]
        if not eds:
            return None
        h = max(eds, key=lambda h: h.f["date"])
        return G.form_label(code, h.f["edition"])

    def edition_cites(self, doc: str) -> list[str]:
        """The form headers that place a Schedule naming the form alone on an edition."""
        att = self.attached.get(doc)
        if att is None or att.kind != "attaches_current":
            return []
        code = self.code_of(att.f)
        return [c for h in self.headers.values() if h.kind == "form" and h.f["doc"] == code
                for c in h.cites]

    def kind_of(self, doc: str) -> str | None:
        h = self.headers.get(doc)
        return h.kind if h is not None else G.kind_of_code(doc)

    def date_of(self, doc: str) -> str | None:
        """When ``doc`` takes effect: its header's date, or where the header leaves it to the
        manual's filing schedule, the schedule's entry (None until read)."""
        h = self.headers.get(doc)
        if h is not None and "date" in h.f:
            return h.f["date"]
        fl = self.filed.get(doc)
        return fl.f["date"] if fl else None

    def when_cites(self, doc: str) -> list[str]:
        """The paragraphs that say what ``doc`` is and when it takes effect (header, filing
        entry, the Schedule naming its form)."""
        out = list(self.headers[doc].cites) if doc in self.headers else []
        if doc in self.filed and "date" not in self.headers.get(doc, Known("", None, 0, {},
                                                                            ())).f:
            out += list(self.filed[doc].cites)
        if doc in self.attached:
            out += list(self.attached[doc].cites) + self.edition_cites(doc)
        return out

    def in_force(self, doc: str, date: str) -> bool | None:
        d = self.date_of(doc)
        if d is None:
            return None
        if d > date:
            return False
        sup = self.superseded_by.get(doc)
        if sup is not None:
            sd = self.date_of(sup.doc)
            if sd is None or sd <= date:
                return False
        return True

    def line_of(self, form: str) -> str | None:
        h = self.headers.get(form)
        return h.f.get("line") if h else None


@dataclass
class Answer:
    text: str
    cites: list[str]


def _value(concept: str, value: int) -> str:
    return G.format_value(CONCEPT_BY_ID[concept].unit, value)


class Resolver:
    """The manual's order of precedence applied to what a reader knows. Each method returns
    an :class:`Answer` and the list of things still worth looking up (``wants``)."""

    def __init__(self, kb: Knowledge, rng: random.Random | None = None):
        self.kb, self.rng = kb, rng

    def _pick(self, items: list[Known]) -> Known | None:
        """One of several statements of the same thing: the first, or a seeded pick."""
        if not items:
            return None
        return items[0] if self.rng is None else self.rng.choice(items)

    def base(self, form: str, concept: str) -> Known | None:
        own = [k for k in self.kb.values if k.kind in ("sets", "row") and k.doc == form
               and k.f.get("concept") == concept]
        return self._pick(own)

    def amendments(self, form: str, concept: str) -> list[Known]:
        return [k for k in self.kb.values if k.kind in AMENDS
                and self.kb.concept_of(k) == concept and self.kb.doc_target(k) == form]

    def replacements(self, form: str, concept: str, state: str) -> list[Known]:
        out = []
        for k in self.kb.values:
            if k.kind not in REPLACES or self.kb.concept_of(k) != concept:
                continue
            h = self.kb.headers.get(k.doc)
            st = k.f.get("state") or (h.f.get("state") if h else None)
            if st == state and self.kb.doc_target(k) == form:
                out.append(k)
        return out

    def bounds(self, form: str, concept: str, state: str) -> list[Known]:
        """Bulletins' bounds on the provision's regulatory class (the form says which) for
        its form's line in ``state``; none until the form's class paragraph was read."""
        cls, line = self.kb.classes.get((form, concept)), self.kb.line_of(form)
        if cls is None or line is None:
            return []
        return [k for k in self.kb.values if k.kind == "bound"
                and k.f.get("klass") == cls.f["klass"] and k.f.get("state") == state
                and k.f.get("line") == line]

    def _latest(self, items: list[Known], date: str, cites: list[str], wants: list) -> Known | None:
        live = []
        for k in items:
            ok = self.kb.in_force(k.doc, date)
            if ok is None:
                wants.append(("header", k.doc))
                continue
            sup = self.kb.superseded_by.get(k.doc)
            if k.doc not in self.kb.superseded_by:
                wants.append(("superseder", k.doc))
            if ok:
                live.append(k)
            elif sup is not None:
                cites.extend(sup.cites)
        if not live:
            return None
        live.sort(key=lambda k: self.kb.date_of(k.doc))
        return live[-1]

    def effective(self, form: str, concept: str, state: str | None, date: str
                  ) -> tuple[tuple[int, str] | None, list[str], list]:
        """((value, controlling document) or None, cites, wants)."""
        kb, wants, cites = self.kb, [], []
        b = self.base(form, concept)
        if form not in kb.headers:
            wants.append(("header", form))
        if b is None:
            wants.append(("base", form, concept))
            return None, cites, wants
        value, who = b.f["value"], form
        cites += list(b.cites)
        wants.append(("amendments", form, concept))
        wants.append(("endorsements_of", form))
        wants += self._unread_bodies(form, concept, None)
        top = self._latest(self.amendments(form, concept), date, cites, wants)
        if top is not None:
            value, who = top.f["value"], top.doc
            cites += list(top.cites) + kb.when_cites(top.doc)
        if state is not None:
            wants.append(("state", form, concept, state))
            wants += self._unread_bodies(form, concept, state)
            rep = self._latest(self.replacements(form, concept, state), date, cites, wants)
            if rep is not None:
                value, who = rep.f["value"], rep.doc
                cites += list(rep.cites) + kb.when_cites(rep.doc)
            line = kb.line_of(form)
            if line is not None:
                if (form, concept) not in kb.classes:
                    wants.append(("class", form, concept))
                wants.append(("bounds", line, concept, state, form))
                bd = self._latest(self.bounds(form, concept, state), date, cites, wants)
                if bd is not None:
                    low = CONCEPT_BY_ID[concept].bound == "minimum"
                    if (low and value < bd.f["value"]) or (not low and value > bd.f["value"]):
                        value, who = bd.f["value"], bd.doc
                        cites += (list(bd.cites) + kb.when_cites(bd.doc)
                                  + list(kb.classes[(form, concept)].cites))
        return (value, who), list(dict.fromkeys(cites)), wants

    def _unread_bodies(self, form: str, concept: str, state: str | None) -> list:
        """Endorsements (``state`` None) or state forms whose header names ``form`` but none
        of whose statements about ``concept`` has been seen: each body is worth a look."""
        kind = "state_form" if state else "endorsement"
        out = []
        code = _code(form)[0]
        for doc in list(dict.fromkeys([*self.kb.headers, *self.kb.attached])):
            if self.kb.kind_of(doc) != kind:
                continue
            att = self.kb.attached.get(doc)
            if self.kb.form_of(doc) is None and att is not None \
                    and att.kind == "attaches_current" and self.kb.code_of(att.f) in (code, None):
                # the Schedule names the form alone: which edition takes the document's date
                # and the dates of the form's editions
                out += [("header", doc), ("editions", form)]
                continue
            if self.kb.form_of(doc) != form:
                continue
            h = self.kb.headers.get(doc)
            if h is None:  # known from its Schedule only: its header says when (and where)
                out.append(("header", doc))
                if state:
                    continue
            elif state and h.f.get("state") != state:
                continue
            mine = [k for k in self.kb.values if k.doc == doc]
            if any(self.kb.concept_of(k) == concept for k in mine):
                continue
            links = [u for u in map(self.kb.unresolved, mine) if u is not None]
            out += [("para", d, item, concept) for d, item in links]
            if not links:
                out.append(("doc_values", doc, concept, self.kb.locus(form, concept)))
        return out

    def chain_end(self, doc: str, item: int, concept: str) -> tuple[Known | None, list[str], list]:
        kb, cites, wants = self.kb, [], []
        claim = kb.chains.get((doc, item))
        if claim is not None and claim.f.get("concept") == concept:
            return claim, list(claim.cites), wants
        form = None
        for _ in range(8):
            ref = kb.refers.get((doc, item))
            if ref is not None and ref.f.get("concept") == concept:
                cites += list(ref.cites)
                form = kb.target(ref.f) or form
                doc = G.form_label(ref.f["ref"], ref.f.get("refedition"))
                item = ref.f["item"]
                continue
            here = [k for k in kb.values if k.doc == doc and k.section == item
                    and k.kind not in ("row", "bound")]
            end = [k for k in here if kb.concept_of(k) == concept]
            if not end and len(here) == 1 and "concept" not in here[0].f:
                end = here  # the one provision the reference points at, given by place
            if end:
                return end[0], cites + list(end[0].cites), wants
            wants.append(("para", doc, item, concept))
            return None, cites, wants
        return None, cites, wants

    def answer(self, shape: str, q: dict) -> tuple[Answer | None, list]:
        kb, c = self.kb, q.get("concept")
        if shape == "cb_form_value":
            b = self.base(q["form"], c)
            return (Answer(_value(c, b.f["value"]), list(b.cites)) if b else None,
                    [("base", q["form"], c)])
        if shape == "cb_endorsement_value":
            place = (q["section"], q["para"])
            mine = [k for k in kb.values if k.doc == q["doc"] and k.kind in AMENDS]
            ks = [k for k in mine if kb.place_of(k) == place or kb.concept_of(k) == c]
            k = self._pick(ks)
            links = [u for u in map(kb.unresolved, mine) if u is not None]
            return (Answer(_value(c, k.f["value"]), list(k.cites)) if k else None,
                    [("para", d, item, c) for d, item in links]
                    + [("doc_values", q["doc"], c, place)])
        if shape == "cb_bound":
            ks = [k for k in kb.values if k.doc == q["doc"] and k.kind == "bound"]
            k = self._pick(ks)
            return (Answer(G.format_value(k.f["unit"], k.f["value"]), list(k.cites))
                    if k else None, [("doc_values", q["doc"], q.get("klass"), None)])
        if shape == "cb_date":
            d = kb.date_of(q["doc"])
            return (Answer(G.format_date(d), kb.when_cites(q["doc"])) if d else None,
                    [("header", q["doc"])])
        if shape in ("cb_effective", "cb_controls"):
            res, cites, wants = self.effective(q["form"], c, q.get("state"), q["date"])
            if res is None:
                return None, wants
            text = _value(c, res[0]) if shape == "cb_effective" else res[1]
            return Answer(text, cites), wants
        if shape == "cb_chain":
            end, cites, wants = self.chain_end(q["doc"], q["item"], c)
            return (Answer(_value(c, end.f["value"]), cites) if end else None), wants
        if shape == "cb_amenders":
            ams = self.amendments(q["form"], c)
            docs = sorted({k.doc for k in ams})
            cites = [x for k in ams for x in k.cites]
            return (Answer(", ".join(docs), cites) if docs else None,
                    [("amendments", q["form"], c)])
        return None, []


# ---------------------------------------------------------------------------------------------
# Readers


AMENDS = ("amends", "amends_ref", "amends_ref_chain")
#: The deepest result page a search reader reads of one query.
MAX_PAGES = 4
#: The steps a supervised curator keeps for writing a page (its claims, the page, the links).
WRITE_RESERVE = 12
REPLACES = ("replaces", "replaces_ref")
LOOKUPS = ("cb_form_value", "cb_endorsement_value", "cb_bound", "cb_date")


def concept_name(cid: str) -> str:
    return CONCEPT_BY_ID[cid].name


def _code(label: str) -> tuple[str, str | None]:
    m = re.fullmatch(r"(\S+) \((\d{4}) edition\)", label)
    return (m.group(1), m.group(2)) if m else (label, None)


class SearchReader(BaseAgent):
    """The search-only reader (module doc). ``reset(seed=)`` seeds its tie-breaks."""

    name = "casebook-search-reader"
    wiki = False

    def __init__(self) -> None:
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed) if seed is not None else None
        self.kb = Knowledge()
        self.q: tuple[str, dict] | None = None
        self.asked: set[tuple] = set()
        self.paged: dict[str, int] = {}  # query -> the last page asked of it
        self.spent: set[str] = set()  # queries whose last page showed nothing new
        self.queue: list[dict] = []
        self.last_action: str | None = None
        self.last_query: str | None = None

    # -- helpers ---------------------------------------------------------------------------
    def _shuffle(self, items: list) -> list:
        if self.rng is not None:
            self.rng.shuffle(items)
        return items

    def _absorb(self, result: str) -> None:
        """Take in every note the latest result showed, parsed as the result of the action
        this reader took."""
        name = self.last_action
        if name == "search":
            page = parse_search(result)
            hits = page.hits if page else []
            if self.last_query is not None and all(h.id in self.kb.seen for h in hits):
                self.spent.add(self.last_query)
            for h in hits:
                self.kb.absorb(h.id, h.text)
        elif name == "read":
            r = parse_read(result)
            if r is not None:
                self.kb.absorb(r.id, r.text)
                for link in r.links:
                    self.kb.absorb(link.id, link.text)
        elif name == "locate":
            for h in parse_locate(result) or []:
                self.kb.absorb(h.id, h.text)
        elif name == "expand":
            x = parse_expand(result)
            for e in x.edges if x else []:
                self.kb.absorb(e.id, e.text)

    def queries(self, want: tuple) -> list[str]:
        """Search queries that may find what ``want`` names."""
        kb, kind = self.kb, want[0]
        if kind == "header":
            h = kb.headers.get(want[1])
            if h is not None and "date" not in h.f:  # the header leaves it to the manual
                return [f"Manual GM-1 table of effective dates {want[1]}"]
            code, ed = _code(want[1])
            return [f"{want[1]} takes effect", f"{code} {ed or ''} effective".strip()]
        if kind == "superseder":
            return [f"supersedes {want[1]} withdrawn replaced"]
        if kind == "base":
            code, ed = _code(want[1])
            names = list(CONCEPT_BY_ID[want[2]].names)
            return [f"{n} form {code} {ed} edition" for n in self._shuffle(names)][:2]
        if kind == "amendments":
            # amendments give the provision's place (§ 3.2), not its name
            code, ed = _code(want[1])
            place = kb.locus(want[1], want[2])
            what = f"§ {place[0]}.{place[1]}" if place else concept_name(want[2])
            title = next((t for t, c in kb.title_code.items() if c == code), None)
            out = [f"entry in {what} of form {code} ({ed} edition) changed endorsement"]
            if title:
                out.append(f"entry in {what} of the {title} ({ed} edition) endorsement")
            return self._shuffle(out)
        if kind == "endorsements_of":
            code, ed = _code(want[1])
            title = next((t for t, c in kb.title_code.items() if c == code), None)
            out = [f"Endorsement modifies insurance provided under form {code} ({ed} edition)",
                   f"Schedule form {code} the edition in force when this endorsement takes "
                   f"effect"]
            if title:
                out += [f"endorsement changes the {title} ({ed} edition)",
                        f"Schedule the {title} the edition in force when this endorsement "
                        f"takes effect"]
            return self._shuffle(out)
        if kind == "editions":
            code, _ = _code(want[1])
            title = next((t for t, c in kb.title_code.items() if c == code), None)
            return [f"form {code} edition takes effect"] + (
                [f"the {title} edition effective"] if title else [])
        if kind == "state":
            code, ed = _code(want[1])
            place = kb.locus(want[1], want[2])
            what = f"entry in § {place[0]}.{place[1]}" if place else concept_name(want[2])
            return [f"{want[3]} {code} ({ed} edition) amendatory {what}",
                    f"State Amendatory Endorsement applies in {want[3]} to form {code} "
                    f"({ed} edition)"]
        if kind == "bounds":  # a bulletin bounds the provision's class, not the provision
            c = CONCEPT_BY_ID[want[2]]
            cls = kb.classes.get((want[4], want[2]))
            what = cls.f["klass"] if cls is not None else c.name
            return [f"{want[3]} Department of Insurance {want[1]} {c.bound} {what}"]
        if kind == "class":
            code, ed = _code(want[1])
            return [f"regulatory purposes {concept_name(want[2])} Class form {code} {ed} "
                    f"edition"]
        if kind == "doc_values":
            if want[2] is None or want[2] not in CONCEPT_BY_ID:  # a class, or nothing named
                return [f"{want[1]} {want[2] or ''}".strip(), f"{want[1]} Requirement"]
            if len(want) > 3 and want[3]:  # an endorsement's body: the provision's place
                s, p = want[3]
                return [f"{want[1]} § {s}.{p}", f"{want[1]} Amendment § {s}.{p} Coverage Form",
                        f"{want[1]} Amendment"]
            names = list(CONCEPT_BY_ID[want[2]].names)
            return [f"{want[1]} {n}" for n in self._shuffle(names)][:2]
        if kind == "para":
            return [f"{want[1]} § {want[2]} {concept_name(want[3])}",
                    f"{want[1]} § {want[2]} Amendment entry"]
        return []

    def first_queries(self, shape: str, q: dict) -> list[str]:
        """Where a wiki reader looks first (none for the search reader)."""
        return []

    def settled(self, shape: str, q: dict) -> bool:
        """Whether what was read already answers the question completely (the search reader
        cannot know that a search found every dependency: it answers when its queries run
        out; a lookup is settled by the one statement it asks for)."""
        return shape in LOOKUPS

    def follow(self) -> dict | None:
        """A note worth reading next (none for the search reader)."""
        return None

    def act(self, observation: dict, info: dict | None = None) -> dict:
        action = self._act(observation, info)
        self.last_action = action["action"]
        self.last_query = action.get("query") if action["action"] == "search" else None
        return action

    def _act(self, observation: dict, info: dict | None = None) -> dict:
        text = observation.get("text", "")
        steps_left = observation.get("steps_left", 1)
        if self.q is None:
            self.q = self._question(text)
            if self.q is not None:
                self.queue = [{"action": "search", "query": s}
                              for s in self.first_queries(*self.q)]
        else:
            self._absorb(_last_result(observation))
        if self.q is None:
            return {"action": "answer", "text": "unknown"}
        shape, q = self.q
        ans, wants = Resolver(self.kb, self.rng).answer(shape, q)
        if steps_left <= 1 or (ans is not None and self.settled(shape, q)):
            return self._final(ans)
        follow = self.follow()
        if follow is not None:
            return follow
        if not self.queue:
            for w in wants:
                for query in self.queries(w):
                    if (query,) not in self.asked:
                        self.queue.append({"action": "search", "query": query})
                        break
                if self.queue:
                    break
        if not self.queue:
            # every query asked: read further pages of them, in the order of what is still
            # wanted, while the budget lasts and a page still shows something new
            for w in wants:
                for query in self.queries(w):
                    if (query,) in self.asked and query not in self.spent \
                            and self.paged.get(query, 1) < MAX_PAGES:
                        self.paged[query] = self.paged.get(query, 1) + 1
                        self.queue.append({"action": "search", "query": query,
                                           "page": self.paged[query]})
                        break
                if self.queue:
                    break
        if not self.queue:
            return self._final(ans)
        act = self.queue.pop(0)
        self.asked.add((act.get("query"),))
        return act

    def _final(self, ans: Answer | None) -> dict:
        if ans is None:
            return {"action": "answer", "text": "unknown"}
        return {"action": "answer", "text": ans.text, "cites": sorted(set(ans.cites))}

    @staticmethod
    def _question(text: str) -> tuple[str, dict] | None:
        for line in text.splitlines():
            parsed = G.parse_question(line)
            if parsed is not None:
                return parsed
        return None


def _last_result(observation: dict) -> str:
    """The result of the latest action, from the observation's memory lines."""
    history = parse_observation(observation).history
    return history[-1].result if history else ""


class FirstPageReader(SearchReader):
    """The blind guess the issue measures: one search with the question's own words, then an
    answer from that first page — the rules applied to what it shows, else the first value
    it shows for the question's concept."""

    name = "casebook-first-page"

    def _act(self, observation: dict, info: dict | None = None) -> dict:
        if self.q is None:
            self.q = self._question(observation.get("text", ""))
            if self.q is None:
                return {"action": "answer", "text": "unknown"}
            return {"action": "search", "query": _question_words(self.q)}
        self._absorb(_last_result(observation))
        shape, q = self.q
        ans, _ = Resolver(self.kb, self.rng).answer(shape, q)
        if ans is None and q.get("concept"):
            k = next((k for k in self.kb.values if k.f.get("concept") == q["concept"]), None)
            if k is not None:
                ans = Answer(_value(q["concept"], k.f["value"]) if shape != "cb_controls"
                             else (k.doc or "unknown"), list(k.cites))
        return self._final(ans)


def _question_words(parsed: tuple[str, dict]) -> str:
    shape, q = parsed
    parts = [concept_name(q["concept"])] if q.get("concept") else []
    parts += [str(q[k]) for k in ("form", "doc", "state") if q.get(k)]
    if q.get("para"):
        parts.append(f"§ {q['section']}.{q['para']}")
    return " ".join(parts) or shape


class WikiReader(SearchReader):
    """The search reader that looks in the compiled wiki first (module doc): it searches for
    the question's page, reads it (which shows the claims it links) and, once it has read the
    page of the question's provision or the claim about its reference, trusts it as complete
    and answers."""

    name = "casebook-wiki-reader"

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.read: set[str] = set()
        self.pages: dict[str, str] = {}  # wiki pages seen: id -> text

    def _page_head(self) -> str | None:
        shape, q = self.q  # type: ignore[misc]
        if shape == "cb_chain":
            return f"{WIKI_WORD} reference: Memo {q['doc']} § {q['item']},"
        if "form" in q:
            return f"{WIKI_WORD} page: the {concept_name(q['concept'])} of form {q['form']},"
        return None

    def settled(self, shape: str, q: dict) -> bool:
        if shape in LOOKUPS:
            return True
        if shape == "cb_chain":
            return (q["doc"], q["item"]) in self.kb.chains
        head = self._page_head()
        return head is not None and any(self.pages.get(nid, "").startswith(head)
                                        for nid in self.read)

    def _absorb(self, result: str) -> None:
        super()._absorb(result)
        page = parse_search(result)
        if page is not None:
            for h in page.hits:
                if h.text.startswith(WIKI_WORD + " page:") or h.text.startswith(
                        WIKI_WORD + " reference:"):
                    self.pages[h.id] = h.text
        r = parse_read(result)
        if r is not None:
            self.read.add(r.id)
            self.pages.setdefault(r.id, r.text)

    def follow(self) -> dict | None:
        head = self._page_head()
        if head is None:
            return None
        for nid, text in self.pages.items():
            if text.startswith(head) and nid not in self.read:
                self.read.add(nid)
                return {"action": "read", "id": nid}
        return None

    def first_queries(self, shape: str, q: dict) -> list[str]:
        c = concept_name(q["concept"]) if q.get("concept") else ""
        if shape == "cb_chain":
            return [f"{WIKI_WORD} reference Memo {q['doc']} § {q['item']} {c}"]
        if "form" in q:
            return [f"{WIKI_WORD} page {c} form {q['form']}"]
        return []



class GraphReader(WikiReader):
    """The reader on the evidence toolset: ``locate`` the wiki page (the starting point only),
    ``expand`` its ``cites`` edges and answer from the claims they reach (module doc)."""

    name = "casebook-graph-reader"

    def first_queries(self, shape: str, q: dict) -> list[str]:
        return []

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.phase = "locate"

    def _act(self, observation: dict, info: dict | None = None) -> dict:
        text = observation.get("text", "")
        if self.q is None:
            self.q = self._question(text)
            if self.q is None:
                return {"action": "answer", "text": "unknown"}
            shape, q = self.q
            c = concept_name(q["concept"]) if q.get("concept") else ""
            if shape == "cb_chain":
                terms = [WIKI_WORD, "reference", f"Memo {q['doc']}", f"§ {q['item']}"]
            elif "form" in q:
                terms = [WIKI_WORD, "page", c, q["form"]]
            else:
                self.phase = "search"
                self.q = None  # let the search path parse it again
                return super()._act(observation, info)
            self.phase = "expand"
            return {"action": "locate", "terms": terms}
        if self.phase == "expand":
            result = _last_result(observation)
            hits = parse_locate(result) or []
            # locate gives the starting point only: the evidence comes from following its
            # edges, not from whatever else matched the terms
            page = next((h.id for h in hits if h.text.startswith(WIKI_WORD + " page")
                         or h.text.startswith(WIKI_WORD + " reference")), None)
            self.phase = "search"
            if page is not None:
                self.read.add(page)
                self.pages[page] = next(h.text for h in hits if h.id == page)
                return {"action": "expand", "node": page, "edges": ["cites"]}
            self._absorb(result)  # no page: what locate found is all there is
        return super()._act(observation, info)


class WikiCurator(SearchReader):
    """The supervised curator (backward phase of a training episode): it takes the question
    and its gold from the task block, looks up the question's dependencies with the search
    reader's queries until the order of precedence applied to what it found gives the gold
    (or half the budget is gone), then writes the question's wiki page from the paragraphs it
    was shown — the compiler's page and claims, restricted to that one key — and links the
    page to its claims (``cites`` when ``typed``). A key whose page exists is left alone; a
    page that would not give the gold is not written. ``stats`` counts written / skipped /
    unverified pages."""

    name = "casebook-wiki-curator"

    def __init__(self, typed: bool = False) -> None:
        self.typed = typed
        self.stats: dict[str, int] = defaultdict(int)
        super().__init__()

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.gold: str | None = None
        self.plan: list[dict] | None = None
        self.page_id: str | None = None
        self.claim_ids: list[str] = []
        self.budget: int | None = None

    def _key(self) -> tuple[str, str] | None:
        shape, q = self.q  # type: ignore[misc]
        if shape == "cb_chain":
            return (f"{q['doc']}|{q['item']}",
                    f"{WIKI_WORD} reference: Memo {q['doc']} § {q['item']},")
        if "form" in q and q.get("concept"):
            return (f"{q['form']}|{q['concept']}",
                    f"{WIKI_WORD} page: the {concept_name(q['concept'])} of form {q['form']},")
        return None

    def _gold_queries(self) -> list[str]:
        """Searches for where the gold is written: a document's own paragraphs and its
        filing entry, or a value in the voices documents write it in (next to the words an
        amendment uses)."""
        gold = self.gold or ""
        if re.fullmatch(G.DOC_CODE, gold):
            return [gold, f"Manual GM-1 table of effective dates {gold}"]
        parsed = G.parse_value(gold)
        if parsed is None:
            return []
        unit, value = parsed
        return [f"figure {G.format_value(unit, value, v)} entry Coverage Form"
                for v in ("digits", "words")]

    def _act(self, observation: dict, info: dict | None = None) -> dict:
        from kbgym.protocol.tasks import parse_task

        left = observation.get("steps_left", 1)
        if self.q is None:
            task = parse_task(parse_observation(observation).block)
            parsed = G.parse_question(task.question) if task else None
            if parsed is None or task.gold is None:
                return {"action": "done"}
            self.q, self.gold, self.budget = parsed, task.gold, left
            if self._key() is None or parsed[0] in LOOKUPS:
                # a lookup is verified by one paragraph: a page written from it would hold
                # that one claim, and the wiki reader trusts a page as complete
                self.stats["skipped"] += 1
                return {"action": "done"}
            return {"action": "search", "query": self._key()[1]}
        result = _last_result(observation)
        if self.plan is not None:
            return self._write(result, left)
        self._absorb(result)
        head = self._key()[1]
        if any(t.startswith(head) for t in self.kb.texts.values()):
            self.stats["exists"] += 1
            return {"action": "done"}
        shape, q = self.q
        ans, wants = Resolver(self.kb).answer(shape, q)
        verified = ans is not None and ans.text == self.gold
        if not verified and left > WRITE_RESERVE:
            # the gold first (a document code, a value: where the answer is written), then
            # the search reader's queries for what is still wanted, then their next pages
            for query in self._gold_queries() + [x for w in wants for x in self.queries(w)]:
                if (query,) not in self.asked:
                    self.asked.add((query,))
                    return {"action": "search", "query": query}
            for w in wants:
                for query in self.queries(w):
                    if query not in self.spent and self.paged.get(query, 1) < MAX_PAGES:
                        self.paged[query] = self.paged.get(query, 1) + 1
                        return {"action": "search", "query": query, "page": self.paged[query]}
        if not verified:
            self.stats["unverified"] += 1
            return {"action": "done"}
        shown = sorted(self.kb.texts.items(), key=lambda kv: int(kv[0][1:]))
        paragraphs = [(n, t) for n, t in shown if not t.startswith(WIKI_WORD)]
        pages = compile_pages(paragraphs, keys={self._key()[0]})
        if not pages or len(pages[0].claims) + 3 > left:
            self.stats["unverified"] += 1
            return {"action": "done"}
        page = pages[0]
        self.plan = [{"action": "add", "text": c.text} for c in page.claims]
        self.plan.append({"action": "add", "text": page.text})
        self.stats["written"] += 1
        return self.plan.pop(0)

    def _write(self, result: str, left: int) -> dict:
        m = re.fullmatch(r"added (s\d+)", result.strip())
        if m:
            if self.plan:
                self.claim_ids.append(m.group(1))
            elif self.page_id is None:
                self.page_id = m.group(1)
        if self.plan:
            return self.plan.pop(0)
        if self.page_id is not None and self.claim_ids:
            ids, self.claim_ids = self.claim_ids, []
            act = {"action": "link_many", "source": self.page_id, "targets": ids}
            if self.typed:
                act["type"] = "cites"
            return act
        return {"action": "done"}


class VerifyingGraphReader(GraphReader):
    """The graph reader that checks its evidence before answering: for each claim its answer
    rests on, ``expand(claim, ["cites"])`` shows the cited paragraphs as they are now; a
    paragraph whose text no longer has the hash the claim recorded makes the claim stale, and
    the reader drops it and answers from the paragraphs themselves (staleness found at read
    time, without a model call). One step per claim checked."""

    name = "casebook-graph-reader-verify"

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.verified: set[str] = set()
        self.stale: set[str] = set()
        self.checking: str | None = None
        self.steps_left = 1

    def act(self, observation: dict, info: dict | None = None) -> dict:
        self.steps_left = observation.get("steps_left", 1)
        if self.checking is not None:
            claim, self.checking = self.checking, None
            x = parse_expand(_last_result(observation))
            shown = {e.id: e.text for e in x.edges} if x else {}
            self.verified.add(claim)
            if any(nid in shown and text_hash(shown[nid]) != h
                   for nid, h in claim_sources(self.kb.texts.get(claim, ""))):
                self.stale.add(claim)
                texts = {**self.kb.texts, **shown}
                self.kb = Knowledge()
                for nid, text in sorted(texts.items(), key=lambda kv: int(kv[0][1:])):
                    if nid not in self.stale:
                        self.kb.absorb(nid, text)
        return super().act(observation, info)

    def _final(self, ans: Answer | None) -> dict:
        if ans is not None and self.steps_left > 1:
            cited = set(ans.cites)
            for nid, text in sorted(self.kb.texts.items(), key=lambda kv: int(kv[0][1:])):
                if not text.startswith(WIKI_WORD + " claim") or nid in self.verified:
                    continue
                if cited & {s for s, _ in claim_sources(text)}:
                    self.checking = nid
                    return {"action": "expand", "node": nid, "edges": ["cites"]}
        return super()._final(ans)


# ---------------------------------------------------------------------------------------------
# The wiki compiler (unsupervised: the documents alone)


@dataclass
class Claim:
    text: str
    sources: tuple[str, ...]


@dataclass
class Page:
    key: str
    text: str
    claims: list[Claim]


def _src(nids, texts: dict[str, str]) -> str:
    return "(sources: " + ", ".join(f"{n}#{text_hash(texts[n])}" for n in nids) + ")"


def compile_pages(paragraphs: list[tuple[str, str]], keys: set[str] | None = None) -> list[Page]:
    """The wiki of a library's paragraphs ((id, text) pairs, the documents alone): one page
    per provision (``Wiki page: the {concept} of form {F}.``) and per reference
    (``Wiki reference: Memo M-2021-03 § 2 ...``). Each claim is a document's header and one
    of its statements, restated in the world's sentences with titles resolved to codes, and
    the sources it rests on with their hashes. ``keys`` (provision keys ``{form}|{concept}``
    or reference keys ``{doc}|{item}``) limits the compile to those pages."""
    texts = dict(paragraphs)
    kb = Knowledge()
    for nid, text in paragraphs:
        kb.absorb(nid, text)
    res = Resolver(kb)

    def header_sentence(doc: str) -> tuple[str, tuple[str, ...]]:
        h = kb.headers[doc]
        f = dict(h.f)
        date = kb.date_of(doc)
        form = next(fm for fm in G.FORMS_OF["header_" + h.kind]
                    if ("{date}" in fm.text) == (date is not None))
        slots: dict = {"doc": f["doc"], "date": G.format_date(date) if date else None}
        if h.kind == "form":
            slots.update(title=f["title"], edition=f["edition"], line=f["line"])
        if "state" in f:
            slots["state"] = f["state"]
        if h.kind == "bulletin":
            slots["line"] = f["line"]
        if h.kind in ("endorsement", "state_form"):
            code, ed = _code(kb.form_of(doc) or "")
            slots["target"] = G.form_ref(code, int(ed), "", False) if ed else "an unknown form"
        return G.render(form, **slots), tuple(kb.when_cites(doc))

    def superseded(doc: str) -> tuple[str, tuple[str, ...]]:
        sup = kb.superseded_by.get(doc)
        if sup is None or sup.doc not in kb.headers:
            return "", ()
        head, hc = header_sentence(sup.doc)
        d = kb.headers[doc]
        return (head + " " + G.render(G.FORM_BY_NAME["sup"],
                                      ref=G.doc_ref(d.kind, d.f["doc"], d.f.get("edition"))),
                hc + sup.cites)

    def value_claim(k: Known, form: str, concept: str) -> Claim:
        head, hc = header_sentence(k.doc)
        code, ed = _code(form)
        cname = concept_name(concept)
        val = _value(concept, k.f["value"])
        sec = CONCEPT_BY_ID[concept].section
        if k.kind in ("sets", "row"):
            body = G.render(G.FORM_BY_NAME["s2"], concept=cname, value=val)
        elif k.kind in AMENDS:
            body = G.render(G.FORM_BY_NAME["a2"], target=G.form_ref(code, int(ed), "", False),
                            section=sec, concept=cname, value=val)
        elif k.kind in REPLACES:
            st = kb.headers[k.doc].f.get("state")
            body = G.render(G.FORM_BY_NAME["r2"], state=st, concept=cname, section=sec,
                            target=G.form_ref(code, int(ed), "", False), value=val)
        else:  # bound, on the provision's class
            body = G.render(G.FORM_BY_NAME["b2"], bound=CONCEPT_BY_ID[concept].bound,
                            klass=k.f["klass"], line=k.f["line"], state=k.f["state"],
                            value=val)
        sources = tuple(dict.fromkeys(hc + k.cites))
        sup_text, sup_cites = superseded(k.doc)
        if sup_text:
            body += " " + sup_text
            sources = tuple(dict.fromkeys(sources + sup_cites))
        return Claim(f"{WIKI_WORD} claim. {head} {body} {_src(sources, texts)}", sources)

    pages: list[Page] = []
    provisions = sorted({(k.doc, k.f["concept"]) for k in kb.values if k.kind == "sets"})
    for form, concept in provisions:
        if keys is not None and f"{form}|{concept}" not in keys:
            continue
        if form not in kb.headers:
            continue
        claims = []
        bodies = [k for k in kb.values if k.kind == "sets" and k.doc == form
                  and k.f["concept"] == concept]
        claims.append(value_claim(bodies[0], form, concept))
        for k in res.amendments(form, concept):
            if k.doc in kb.headers:
                claims.append(value_claim(k, form, concept))
        states = set()
        for k in kb.values:
            if k.kind in REPLACES and kb.concept_of(k) == concept \
                    and k.doc in kb.headers and kb.doc_target(k) == form:
                claims.append(value_claim(k, form, concept))
        line = kb.line_of(form)
        cls = kb.classes.get((form, concept))
        if cls is not None:  # the provision's class, then the bounds on that class
            head, hc = header_sentence(form)
            body = G.render(G.FORM_BY_NAME["cls"], concept=concept_name(concept),
                            klass=cls.f["klass"])
            sources = tuple(dict.fromkeys(hc + cls.cites))
            claims.append(Claim(f"{WIKI_WORD} claim. {head} {body} {_src(sources, texts)}",
                                sources))
            for k in kb.values:
                if k.kind == "bound" and k.f["klass"] == cls.f["klass"] \
                        and k.f["line"] == line and k.doc in kb.headers:
                    states.add(k.f["state"])
                    claims.append(value_claim(k, form, concept))
        title = kb.headers[form].f["title"]
        text = (f"{WIKI_WORD} page: the {concept_name(concept)} of form {form}, the {title} "
                f"({line} line). Its claims give the form's value, every endorsement that "
                f"amends it, state amendatory endorsements and regulator bounds, each with "
                f"the date it takes effect and what supersedes it.")
        pages.append(Page(f"{form}|{concept}", text, claims))
    for (doc, item), ref in sorted(kb.refers.items()):
        if keys is not None and f"{doc}|{item}" not in keys:
            continue
        end, cites, _ = res.chain_end(doc, item, ref.f["concept"])
        if end is None:
            continue
        concept = ref.f["concept"]
        target = kb.target(ref.f) or "an unknown form"
        code, ed = _code(target)
        hops = len([c for c in cites if c not in end.cites]) or 1
        if ed is None:
            continue
        kind = kb.headers[doc].kind if doc in kb.headers else "memo"
        sentence = G.render(G.FORM_BY_NAME["chain"], refkind=G.KIND_WORD[kind], doc=doc,
                            item=item, section=hops, concept=concept_name(concept),
                            target=G.form_ref(code, int(ed), "", False),
                            value=_value(concept, end.f["value"]))
        sources = tuple(dict.fromkeys(cites))
        claim = Claim(f"{WIKI_WORD} claim. {sentence} {_src(sources, texts)}", sources)
        text = (f"{WIKI_WORD} reference: Memo {doc} § {item}, on the "
                f"{concept_name(concept)} of {target}; the claim follows the chain of "
                f"references to the paragraph that sets the value.")
        pages.append(Page(f"{doc}|{item}", text, [claim]))
    return pages


def build_wiki(library, pages: list[Page], typed: bool) -> dict:
    """Add the pages and claims to ``library`` (a fresh B1): each page links its claims
    (``cites`` when ``typed``, else untyped); with ``typed`` each claim also ``cites`` the
    paragraphs it rests on (the evidence graph). Returns counts and the claim ids with their
    sources (for the staleness check)."""
    claims, n_links = {}, 0
    for p in pages:
        pid = library.add(p.text, dedup=False).id
        ids = []
        for c in p.claims:
            cid = library.add(c.text, dedup=False).id
            ids.append(cid)
            claims[cid] = list(c.sources)
            if typed:
                for s in c.sources:
                    library.link(cid, s, "cites")
                    n_links += 1
        for cid in ids:
            library.link(pid, cid, "cites" if typed else None)
            n_links += 1
    library.refresh()
    return {"pages": len(pages), "claims": len(claims), "links": n_links, "sources": claims}


# ---------------------------------------------------------------------------------------------
# Staleness by hash


def stale_claims(library, claim_ids) -> list[str]:
    """The claims (by id) any of whose cited paragraphs' current text no longer has the hash
    the claim recorded — found without reading the claim's meaning (no model call)."""
    out = []
    for cid in claim_ids:
        node = library.get(cid)
        if node is None:
            continue
        for nid, h in claim_sources(node.text):
            src = library.get(nid)
            if src is None or text_hash(src.text) != h:
                out.append(cid)
                break
    return out


# ---------------------------------------------------------------------------------------------
# Factories (``--agent kbgym_agents.scripted.casebook:search_reader`` and the casebook world's
# defaults)


@agent_factory
def search_reader() -> SearchReader:
    """The search-only casebook reader."""
    return SearchReader()


@agent_factory
def wiki_reader() -> WikiReader:
    """The casebook reader that looks in the compiled wiki first."""
    return WikiReader()


@agent_factory
def graph_reader() -> GraphReader:
    """The casebook reader on the evidence toolset (locate, expand)."""
    return GraphReader()


@agent_factory
def wiki_trainer():
    """Training: the wiki reader forward, the supervised wiki curator backward."""
    from kbgym_agents.scripted.train import TrainAgent

    return TrainAgent(WikiReader(), WikiCurator())


@agent_factory
def typed_wiki_trainer():
    """Training with typed links: the curator links a page to its claims as ``cites``."""
    from kbgym_agents.scripted.train import TrainAgent

    return TrainAgent(WikiReader(), WikiCurator(typed=True))


#: The LLM reader's skill for this world (``agents/prompts/retrieval_casebook.md``): how the
#: documents are written, the manual's order of precedence, and ``answer(text, cites)``.
LLM_SKILL = "retrieval_casebook"


@agent_factory
def llm_reader(**opts):
    """An LLM reader for the casebook world (``--reader kbgym_agents.scripted.casebook:
    llm_reader --model M --base-url URL``): the ``openai-reader`` with the casebook skill as
    its system message, which asks it to state the paragraphs its answer rests on
    (``answer(text, cites)``). Takes every option ``openai-reader`` takes."""
    from kbgym_agents.llm.factories import reader

    skills = {"probe": LLM_SKILL, "forward": LLM_SKILL, **(opts.pop("skills", None) or {})}
    return reader(skills=skills, **opts)
