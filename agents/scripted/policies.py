"""Scripted agents for policies universes (``kbgym build --world policies``): a reader, its
evidence-toolset variant, an index curator and a typed curator.

They decide from ``obs["text"]`` only, read with the environment's parsers
(:func:`~kbgym_agents.scripted.text.parse_observation`, ``result_hits``, ``parse_read``) and
the world's public sentence table (:mod:`kbgym.worlds.policies.grammar`: every sentence and
question form, the concepts and their synonyms, value voices, document codes). No other
pattern is read from the text.

**What a note is about.** A sentence of the world states a fact (a :class:`Statement`); it is
*about* the provision it names (``HO-3 §I.B``), its own document (other than a form), any
document it names, and for a bulletin minimum the bulletin series of its concept. Any other
note is an authored note; the subjects its text names (``subjects_in``) make it a *candidate
index* for them, in any wording.

**Reader** (:class:`PolicyReader`, search/read/answer). A question is parsed into its shape and
evaluated from statements, by the world's published rules (docs/protocol.md §21): the current
edition is the latest; an endorsement or state form applies to the edition it attaches to (its
header says which); the controlling text is the latest state form for the state asked about,
else the latest endorsement, else the edition itself; dependents are the documents that amend, replace, refer to or
state a provision, affected documents add everything that refers to an affected document; the
current bulletin is the one no bulletin of its series supersedes. A subject's *dossier* (the
notes about it) is made complete by paging its search until a page shows no statement about it
after at least five statements off it in a row (authored notes are not counted: they say
nothing about what ranks below them), unless an index covers it. Single facts stop at the first note that
states them. On the last step the reader answers from what it was shown.

**Indexes are judged by their links** (the curation promise). A candidate is read; its linked
statements that are about a subject the note names are that subject's complete dossier; when it
also links notes referring to the documents those statements belong to (the second hop of a
dependency chain), it covers the whole chain: every document reached that way has all its
referrers linked. At least half of the linked statements must be about the named subjects, the
documents reached from them, or those documents' own dates; otherwise the note is not trusted
(random links, a mixed note). Statements are believed whoever wrote them; of two that disagree
the newest note wins.

**Evidence reader** (:class:`PolicyEvidenceReader`, toolset ``evidence``): ``locate`` first
(authored notes are listed first, so an index is found whatever its title; a list of fewer than
ten notes is every note holding the terms, hence a complete dossier), ``expand`` to open a
candidate, search paging as the fallback.

**Curators** (:class:`PolicyIndexCurator`, backward phase). The curator re-evaluates the
question from sentences (indexes are not trusted here), checks the answer against the gold,
and only then builds or extends one index note for the question's key — ``Index of form HO-3
§I.B.`` — linking the subject's complete dossier and the notes the evaluation needed (the
amending endorsements' dates, the referrers along a dependency chain). The typed curator
(``link_type="cites"``) links them as ``cites`` and adds, from each linked statement that
refers to the subject, a typed link to the index (``amends``, ``refers_to``, ``cites``,
``supersedes``): the evidence graph over what training touched.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field

from kbgym import agent_factory
from kbgym_agents.base import Action
from kbgym_agents.scripted.curator import PlanCurator, added_id, sync_links
from kbgym_agents.scripted.knowledge import ResultLedger
from kbgym_agents.scripted.plan_reader import PlanReader
from kbgym_agents.scripted.text import result_hits, tokens
from kbgym.protocol.ids import id_key
from kbgym.scoring import f1_score
from kbgym.worlds.policies import grammar as S
from kbgym.worlds.policies.grammar import ParsedQuestion, Statement

Plan = Generator[Action, None, object]

#: Fact kinds through which a document refers to a provision it does not own.
PROVISION_REFS = ("amends", "replaces", "refers", "states")
#: How many lines ``locate`` shows at most (SPEC §18).
LOCATE_MAX = 10


# ---------------------------------------------------------------------------------------------
# Knowledge


@dataclass
class PolicyKnowledge(ResultLedger):
    """What an agent was shown this episode: notes, their statements, search pages, links and
    ``locate`` lists."""

    record_search_errors = False

    page_size: int = 5
    notes: dict[str, str] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    stmts: dict[str, Statement] = field(default_factory=dict)
    subjects: dict[str, tuple[str, ...]] = field(default_factory=dict)
    pages: dict[tuple[str, int], list[tuple[str, str]]] = field(default_factory=dict)
    links: dict[str, list[str]] = field(default_factory=dict)
    located: dict[tuple[str, ...], list[str]] = field(default_factory=dict)
    #: what resolves indirect references: a form's title (from its header) and the section of
    #: a concept in a form (from the form's own sentences, or the question)
    form_of_title: dict[str, str] = field(default_factory=dict)
    section_of: dict[tuple[str, str], str] = field(default_factory=dict)
    pending: set[str] = field(default_factory=set)

    def note(self, nid: str, text: str) -> None:
        if nid not in self.notes:
            self.order.append(nid)
        self.notes[nid] = text
        st = S.parse_sentence(text)
        self.pending.discard(nid)
        if st is None:
            self.stmts.pop(nid, None)
            self.subjects[nid] = tuple(S.subjects_in(text))
            return
        learnt = False
        if st.kind == "issued" and st.title and S.kind_of(st.doc) == "form":
            learnt = self.form_of_title.setdefault(st.title, st.doc) == st.doc
        if st.provision and st.concept and not st.indirect:
            learnt = self.learn_section(st.form, st.concept, st.section) or learnt
        self._set(nid, st)
        if learnt:
            self._resolve_pending()

    def learn_section(self, form: str, concept: str, section: str) -> bool:
        if (form, concept) in self.section_of:
            return False
        self.section_of[(form, concept)] = section
        self._resolve_pending()
        return True

    def _set(self, nid: str, st: Statement) -> None:
        st = S.resolve(st, self.form_of_title, self.section_of)
        self.stmts[nid] = st
        self.subjects[nid] = st.subjects()
        if st.indirect:
            self.pending.add(nid)

    def _resolve_pending(self) -> None:
        for nid in sorted(self.pending, key=id_key):
            self.pending.discard(nid)
            self._set(nid, self.stmts[nid])

    def title_of(self, form: str) -> str | None:
        return next((t for t, f in self.form_of_title.items() if f == form), None)

    def forget(self, nid: str) -> None:
        super().forget(nid)
        self.stmts.pop(nid, None)
        self.subjects.pop(nid, None)
        self.pending.discard(nid)

    def ingest_entry(self, name: str, args: dict | None, result: str) -> None:
        super().ingest_entry(name, args, result)
        if name == "locate" and args is not None and not result.startswith("ERROR"):
            terms = args.get("terms")
            terms = [terms] if isinstance(terms, str) else terms
            if isinstance(terms, list) and all(isinstance(t, str) for t in terms):
                self.located[tuple(terms)] = [nid for nid, _ in result_hits(result)]

    def about(self, subject: str) -> list[str]:
        """Statements about ``subject`` (note ids, id order)."""
        return sorted((n for n, st in self.stmts.items() if subject in self.subjects[n]),
                      key=id_key)

    def authored_naming(self, subject: str) -> list[str]:
        """Notes that are not statements and name ``subject``, in the order first shown."""
        return [n for n in self.order if n in self.notes and n not in self.stmts
                and subject in self.subjects.get(n, ())]

    def newest(self, ids: Iterable[str]) -> list[Statement]:
        """The statements of ``ids``, one per stated fact: of two that state the same fact
        differently the newest note (highest id) wins."""
        best: dict[tuple, tuple[tuple, Statement]] = {}
        for nid in ids:
            st = self.stmts[nid]
            key = (st.kind, st.doc, st.provision, st.edition, st.state, st.concept, st.target)
            if key not in best or id_key(nid) > best[key][0]:
                best[key] = (id_key(nid), st)
        return [st for _, st in sorted(best.values(), key=lambda kv: kv[0])]


# ---------------------------------------------------------------------------------------------
# Evaluation


def _answer_value(concept: str, value: int | None) -> str:
    if value is None:
        return "unknown"
    return S.format_value(S.CONCEPT_BY_ID[concept].unit, value)


class Engine:
    """Evaluates a question over :class:`PolicyKnowledge`, yielding the actions it needs.

    ``fetch=False`` evaluates from what is known (the guess on the last step). ``complete``
    holds the subjects whose dossier is complete, ``refs_complete`` the documents whose
    referrers are; ``used`` the notes the evaluation relied on (what a curator links)."""

    MAX_PAGE = 12

    def __init__(self, kb: PolicyKnowledge, *, evidence: bool = False, use_indexes: bool = True,
                 rng: random.Random | None = None, budget: Callable[[], bool] = lambda: True):
        self.kb = kb
        self.evidence = evidence
        self.use_indexes = use_indexes
        self.rng = rng
        self.budget = budget
        self.fetch = True
        self.complete: set[str] = set()
        self.refs_complete: set[str] = set()
        self.absorbed: set[str] = set()
        self.used: set[str] = set()
        self.incomplete = False

    # -- actions -----------------------------------------------------------------------
    def _can_fetch(self) -> bool:
        if not self.fetch:
            return False
        if not self.budget():
            self.incomplete = True
            return False
        return True

    def _search(self, query: str, page: int = 1) -> Plan:
        if (query, page) not in self.kb.pages and self._can_fetch():
            yield {"action": "search", "query": query, "page": page}

    def _open(self, nid: str) -> Plan:
        if nid not in self.kb.links and self._can_fetch():
            yield ({"action": "expand", "node": nid} if self.evidence
                   else {"action": "read", "id": nid})

    def _order(self, items) -> list:
        """``items`` sorted (ids by number), or in a seeded shuffle on a repeated exam."""
        out = sorted(items, key=lambda x: id_key(x) if x[:1] == "s" and x[1:].isdigit()
                     else (0, x))
        if self.rng is not None:
            self.rng.shuffle(out)
        return out

    # -- indexes -----------------------------------------------------------------------
    def judge(self, nid: str) -> None:
        """Take a read candidate at its links' word (module doc)."""
        kb = self.kb
        self.absorbed.add(nid)
        named = set(kb.subjects.get(nid, ()))
        linked = [x for x in kb.links.get(nid, []) if x in kb.stmts]
        about = [x for x in linked if named & set(kb.subjects[x])]
        if not about:
            return
        reached = {d for x in about for d in (kb.stmts[x].doc, kb.stmts[x].target)
                   if d and S.kind_of(d) != "form"}
        chain, grew = [], True
        while grew:
            grew = False
            for x in linked:
                st = kb.stmts[x]
                if x not in about and x not in chain and st.target in reached:
                    chain.append(x)
                    reached.add(st.doc)
                    grew = True
        forms = {kb.stmts[x].form for x in about if kb.stmts[x].form}
        dates = [x for x in linked if x not in about and x not in chain
                 and kb.stmts[x].kind == "issued" and kb.stmts[x].doc in reached | forms]
        if 2 * (len(about) + len(chain) + len(dates)) < len(linked):
            return
        for s in named:
            if any(s in kb.subjects[x] for x in about):
                self.complete.add(s)
        if chain:
            self.refs_complete |= reached
        self.used.add(nid)

    def try_indexes(self, subject: str) -> Plan:
        if not self.use_indexes:
            return
        cands = [n for n in self.kb.authored_naming(subject) if n not in self.absorbed]
        for nid in self._order(cands)[:3]:
            if subject in self.complete:
                return
            yield from self._open(nid)
            if nid in self.kb.links:
                self.judge(nid)

    # -- dossiers ----------------------------------------------------------------------
    @staticmethod
    def query(subject: str) -> str:
        """The search for a subject's notes: the provision (``HO-3 §I.B``), a form's header
        (``form HO-3 edition takes effect``), the document as sentences name it (``Endorsement
        HE-12``), or a series' words and synonyms."""
        if subject.startswith("minimum "):
            concept = S.CONCEPT_BY_PHRASE[subject[len("minimum "):]]
            return "Bulletin minimum " + " ".join(concept.phrases)
        if " §" in subject:
            return subject
        if S.kind_of(subject) == "form":
            return f"form {subject} edition takes effect"
        return S.doc_ref(subject)

    def _part(self, subject: str, query: str, terms: str | None,
              on: Callable[[str], bool] | None = None) -> Plan:
        """Page one query of a subject's notes to their end (``True``), or until the budget
        stops it (``False``); ``on`` says which statements the query is after (default: those
        about the subject). On the evidence toolset ``locate(terms)`` goes first: fewer than
        ten notes, none authored, are every note holding the terms."""
        kb = self.kb
        if self.evidence and terms is not None:
            key = (terms,)
            if key not in kb.located and self._can_fetch():
                yield {"action": "locate", "terms": [terms]}
            hits = kb.located.get(key)
            yield from self.try_indexes(subject)
            if subject in self.complete:
                return True
            if hits is not None and len(hits) < LOCATE_MAX and not any(
                    n in kb.notes and n not in kb.stmts for n in hits):
                return True
        page = 1
        while page <= self.MAX_PAGE:
            if (query, page) not in kb.pages and not self._can_fetch():
                return False
            yield from self._search(query, page)
            yield from self.try_indexes(subject)
            if subject in self.complete or self._ends(subject, query, page, on):
                return True
            page += 1
        return True

    def dossier(self, subject: str) -> Plan:
        """Make the notes about ``subject`` complete (as far as the budget allows). A
        provision's notes are found twice: by its code and section, and - indirect references
        - by its form's title and its concept (the title from the form's header)."""
        if subject in self.complete:
            return
        yield from self.try_indexes(subject)  # an index already in sight
        if subject in self.complete:
            return
        if " §" not in subject:
            # a series' notes name its concept by any synonym: no one locate term holds them all
            terms = None if subject.startswith("minimum ") else self.query(subject)
            if (yield from self._part(subject, self.query(subject), terms)):
                self.complete.add(subject)
            return
        if not (yield from self._part(subject, subject, subject)):
            return
        form = subject.split(" §", 1)[0]
        concept = next((c for (f, c), sec in self.kb.section_of.items()
                        if f == form and S.provision_key(f, sec) == subject), None)
        if self.kb.title_of(form) is None:
            yield from self.find(form, lambda st: st.kind == "issued" and st.title is not None)
        title = self.kb.title_of(form)
        if title is not None and concept is not None and subject not in self.complete:
            # every indirect reference to the form, whatever its concept (they rank alike)
            phrases = [set(tokens(p)) for p in S.CONCEPT_BY_ID[concept].phrases]
            shared = [w for w in tokens(phrases and S.CONCEPT_BY_ID[concept].name)
                      if all(w in p for p in phrases)]
            terms = " ".join([title, *shared])
            if not (yield from self._part(subject, f"the {title}", terms,
                                          lambda n: self.kb.stmts[n].title == title)):
                return
        self.complete.add(subject)

    def _ends(self, subject: str, query: str, page: int,
              on: Callable[[str], bool] | None = None) -> bool:
        """Whether page ``page`` of ``query`` ends the subject's notes: it is short, or its
        statements include none about the subject (``on``) and the last ``page_size``
        statements shown (in rank order, over the pages so far) are all off it. Authored notes
        are not counted: they rank among a subject's statements without saying anything about
        whether more of them follow."""
        kb = self.kb
        hits = kb.pages.get((query, page)) or []
        if len(hits) < kb.page_size:
            return True
        if on is None:
            def on(n):
                return subject in kb.subjects.get(n, ())

        if any(on(n) for n, _ in hits if n in kb.stmts):
            return False
        run = 0
        for p in range(page, 0, -1):
            for n, _ in reversed(kb.pages.get((query, p)) or []):
                if n in kb.stmts:
                    if on(n):
                        return False
                    run += 1
                    if run >= kb.page_size:
                        return True
        return False

    def find(self, subject: str, want: Callable[[Statement], bool]) -> Plan:
        """The newest statement about ``subject`` that ``want`` accepts, paging only until one
        shows up (a single fact needs no complete dossier)."""
        def found():
            hits = [st for st in self.kb.newest(self.kb.about(subject)) if want(st)]
            return hits[-1] if hits else None

        if found() is None and subject not in self.complete:
            if self.evidence:
                key = (self.query(subject),)
                if key not in self.kb.located and self._can_fetch():
                    yield {"action": "locate", "terms": list(key)}
            if found() is None:
                yield from self.try_indexes(subject)
            query, page = self.query(subject), 1
            while found() is None and subject not in self.complete and page <= self.MAX_PAGE:
                if (query, page) not in self.kb.pages and not self._can_fetch():
                    break
                yield from self._search(query, page)
                if found() is not None:
                    break
                yield from self.try_indexes(subject)
                if self._ends(subject, query, page):
                    if " §" not in subject:  # a provision's dossier also has indirect notes
                        self.complete.add(subject)
                    break
                page += 1
        st = found()
        if st is not None:
            self.used.update(n for n in self.kb.about(subject) if self.kb.stmts[n] is st
                             or self.kb.stmts[n] == st)
        return st

    def statements(self, subject: str, kinds: Iterable[str]) -> list[tuple[str, Statement]]:
        """(note id, statement) about ``subject`` of the given kinds (newest per fact)."""
        kinds = set(kinds)
        kb = self.kb
        keep = {id(st) for st in kb.newest(kb.about(subject))}
        return [(n, kb.stmts[n]) for n in kb.about(subject)
                if kb.stmts[n].kind in kinds and id(kb.stmts[n]) in keep]

    def header(self, doc: str) -> Plan:
        return (yield from self.find(doc, lambda st: st.kind == "issued" and st.doc == doc))

    # -- the world's rules -------------------------------------------------------------
    def provision_facts(self, p: str) -> Plan:
        yield from self.dossier(p)
        self.used.update(self.kb.about(p))
        return self.statements(p, ("sets", "reserves", "amends", "replaces", "states",
                                   "refers", "describes"))

    def controlling(self, p: str, state: str | None = None, edition: int | None = None
                    ) -> Plan:
        """``(document, value or None)`` of the controlling text under ``edition`` (default:
        the current, i.e. latest, edition); ``(None, None)`` when nothing is known."""
        facts = yield from self.provision_facts(p)
        editions = [st for _, st in facts if st.kind in ("sets", "reserves")]
        if edition is None:
            edition = max((st.edition for st in editions), default=None)
        kinds = (["replaces"] if state is not None else []) + ["amends"]
        for kind in kinds:
            dated = []
            for st in self._order_docs([st for _, st in facts if st.kind == kind
                                        and (kind == "amends" or st.state == state)]):
                h = yield from self.header(st.doc)  # which edition it attaches to, and when
                if h is not None and h.edition == edition:
                    dated.append((h.date, st))
            if dated:
                best = max(dated, key=lambda x: x[0])[1]
                return best.doc, best.value
        base = [st for st in editions if st.edition == edition]
        if not base:
            return None, None
        return base[-1].doc, base[-1].value

    def _order_docs(self, stmts: list[Statement]) -> list[Statement]:
        by = {st.doc: st for st in stmts}
        return [by[d] for d in self._order(by)]

    def dependents(self, p: str) -> Plan:
        facts = yield from self.provision_facts(p)
        return {st.doc for _, st in facts if st.kind in PROVISION_REFS}

    def referrers(self, doc: str) -> Plan:
        if doc not in self.refs_complete:
            yield from self.dossier(doc)
        ids = [n for n in self.kb.about(doc) if self.kb.stmts[n].target == doc]
        self.used.update(ids)
        return {self.kb.stmts[n].doc for n in ids}

    def affected(self, p: str) -> Plan:
        out = yield from self.dependents(p)
        frontier = set(out)
        while frontier:
            nxt = set()
            for doc in self._order(frontier):
                nxt |= (yield from self.referrers(doc)) - out
            out |= nxt
            frontier = nxt
        return out

    def current_bulletin(self, concept: str) -> Plan:
        """``(bulletin, its minimum)`` of the current bulletin of a series."""
        series = S.series_key(concept)
        yield from self.dossier(series)
        ids = self.kb.about(series)
        self.used.update(ids)
        minimum = {st.doc: st.value for st in self.kb.newest(ids) if st.kind == "minimum"}
        superseded: set[str] = set()
        for doc in self._order(minimum):
            if not (set(minimum) - superseded - {doc}) and doc not in superseded:
                break  # the last one standing
            yield from self.referrers(doc)
            for n in self.kb.about(doc):
                st = self.kb.stmts[n]
                if st.kind == "supersedes" and st.target in minimum:
                    superseded.add(st.target)
                    self.used.add(n)
        live = sorted(set(minimum) - superseded)
        if not live:
            return None, None
        return live[-1], minimum[live[-1]]

    # -- questions ---------------------------------------------------------------------
    def evaluate(self, q: ParsedQuestion) -> Plan:
        """The answer text of ``q``."""
        shape, p = q.shape, q.provision
        if q.form and q.section and q.concept:  # the question itself says where the concept is
            self.kb.learn_section(q.form, q.concept, q.section)
        if shape == "pl_form_value":
            st = yield from self.find(p, lambda s: s.kind in ("sets", "reserves")
                                      and s.edition == q.editions[0])
            return _answer_value(q.concept, st.value if st else None)
        if shape == "pl_endorsement_value":
            def want(s):
                return s.kind == "amends" and s.provision == p

            st = yield from self.find(q.doc, want)
            if st is None and any(self.kb.stmts[n].indirect for n in self.kb.about(q.doc)):
                # the endorsement names the form by its title: the form's header says which
                yield from self.find(q.form, lambda s: s.kind == "issued" and s.title)
                st = yield from self.find(q.doc, want)
            return _answer_value(q.concept, st.value if st else None)
        if shape == "pl_effective_date":
            st = yield from self.header(q.doc)
            return S.format_date(st.date) if st else "unknown"
        if shape == "pl_bulletin_value":
            st = yield from self.find(q.doc, lambda s: s.kind == "minimum")
            return _answer_value(q.concept, st.value if st else None)
        if shape in ("pl_effective", "pl_state_effective"):
            _, value = yield from self.controlling(p, q.state)
            return _answer_value(q.concept, value)
        if shape in ("pl_controls", "pl_state_controls"):
            doc, _ = yield from self.controlling(p, q.state)
            return doc or "unknown"
        if shape == "pl_depends":
            docs = yield from self.dependents(p)
            return S.join_codes(docs) if docs else "none"
        if shape == "pl_affected":
            docs = yield from self.affected(p)
            return S.join_codes(docs) if docs else "none"
        if shape == "pl_edition":
            _, old = yield from self.controlling(p, edition=q.editions[0])
            _, new = yield from self.controlling(p, edition=q.editions[1])
            if old is None or new is None:
                return "unknown"
            return _answer_value(q.concept, abs(new - old))
        if shape == "pl_contradiction":
            _, right = yield from self.controlling(p)
            memos = [st for _, st in self.statements(p, ("states",)) if st.value != right]
            return S.join_codes(st.doc for st in memos) if memos and right is not None else "none"
        if shape in ("pl_bulletin_current", "pl_bulletin_current_value"):
            doc, value = yield from self.current_bulletin(q.concept)
            if shape == "pl_bulletin_current":
                return doc or "unknown"
            return _answer_value(q.concept, value)
        return "unknown"


def _run(plan: Plan):
    """Run a plan that must not act (``fetch=False``) and return its value."""
    try:
        next(plan)
    except StopIteration as stop:
        return stop.value
    raise RuntimeError("a dry evaluation tried to act")


def question_subject(q: ParsedQuestion) -> str | None:
    """The question's key subject: its provision, else its document, else its series."""
    if q.provision and q.shape != "pl_endorsement_value":
        return q.provision
    if q.doc:
        return q.doc
    if q.concept and q.shape.startswith("pl_bulletin_current"):
        return S.series_key(q.concept)
    return q.provision


# ---------------------------------------------------------------------------------------------
# Agents


class PolicyReader(PlanReader):
    """The policies exam reader: search, read and answer only (module doc)."""

    name = "scripted-policy-reader"
    #: Pinned by bench releases; bumped with every change to what it reads (see
    #: ``ScriptedReader.version``).
    version = "2026-12-07"
    evidence = False

    def __init__(self, *, page_size: int = 5):
        self.page_size = page_size
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """A new episode; ``seed`` (repeated exams) shuffles the order in which equally good
        candidates are read and documents are visited (the tie-break)."""
        self._rng = random.Random(seed) if seed is not None else None
        self._clear()

    def new_episode(self) -> tuple[PolicyKnowledge, Engine]:
        kb = PolicyKnowledge(self.page_size)
        rng = None if self._rng is None else random.Random(self._rng.random())
        return kb, Engine(kb, evidence=self.evidence, rng=rng)

    def parse_question(self, text: str) -> ParsedQuestion | None:
        return S.parse_question(text)

    def guess(self) -> str:
        if self.question is None:
            return "unknown"
        eng = Engine(self.kb, evidence=self.evidence)
        eng.complete, eng.refs_complete = set(self.engine.complete), set(
            self.engine.refs_complete)
        eng.absorbed = set(self.engine.absorbed)
        eng.fetch = False
        return _run(eng.evaluate(self.question)) or "unknown"


class PolicyEvidenceReader(PolicyReader):
    """``scripted-policy-reader-evidence``: the same rules on the evidence toolset (run the env
    with ``toolset="evidence"``): ``locate`` to find, ``expand`` to open."""

    name = "scripted-policy-reader-evidence"
    evidence = True




class PolicyIndexCurator(PlanCurator):
    """Backward phase on policies universes: one verified index note per question key
    (module doc). ``stats`` counts added / extended / complete / skipped / unverified indexes,
    links and typed reference links."""

    name = "scripted-policy-index"
    #: steps kept back for writing: title search, add, link_many, done
    RESERVE = 5

    def __init__(self, *, page_size: int = 5, link_batch_max: int = 40,
                 link_type: str | None = None):
        self.page_size = page_size
        self.link_batch_max = link_batch_max
        self.link_type = link_type
        self.stats = {"added": 0, "extended": 0, "complete": 0, "links": 0, "unlinked": 0,
                      "skipped": 0, "unverified": 0, "typed": 0}
        self.reset()

    def new_knowledge(self) -> PolicyKnowledge:
        return PolicyKnowledge(self.page_size)

    def start_plan(self, obs) -> Plan:
        gold = obs.task.gold if obs.task is not None else None
        return self.plan(S.parse_question(obs.question), gold)

    # -- plan --------------------------------------------------------------------------
    def plan(self, q: ParsedQuestion | None, gold: str | None) -> Plan:
        if q is None or gold is None:
            return
        subject = question_subject(q)
        if subject is None:
            return
        eng = Engine(self.kb, use_indexes=False,
                     budget=lambda: self.steps_left > self.RESERVE + 1)
        answer = yield from eng.evaluate(q)
        if eng.incomplete:
            self.stats["skipped"] += 1
            return
        if f1_score(answer, [gold]) < 1.0 and not (gold == "unknown" and answer == "unknown"):
            self.stats["unverified"] += 1
            return
        yield from eng.dossier(subject)  # a lookup stopped early: the whole dossier
        if eng.incomplete or subject not in eng.complete:
            self.stats["skipped"] += 1
            return
        targets = set(self.kb.about(subject)) | (eng.used & set(self.kb.stmts))
        # the headers that give the titles its indirect references name (what resolves them)
        titled = {self.kb.stmts[n].form for n in targets if self.kb.stmts[n].title
                  and self.kb.stmts[n].kind != "issued"}
        targets |= {n for n, st in self.kb.stmts.items() if st.kind == "issued"
                    and st.doc in titled and st.title}
        targets = sorted(targets, key=id_key)
        index = yield from self._write(S.subject_title(subject, "Index of"), targets)
        if index is not None and self.link_type is not None:
            yield from self._typed_references(index, subject, targets)

    def _write(self, title: str, targets: list[str]) -> Plan:
        if not targets or self.steps_left <= 3:
            self.stats["skipped"] += 1
            return None
        existing = yield from self._find_title(title)
        if existing is not None and existing not in self.kb.links:
            yield {"action": "read", "id": existing}
        if existing is None:
            need = 2 + math.ceil(len(targets) / self.link_batch_max)
            if self.steps_left < need:
                self.stats["skipped"] += 1
                return None
            yield {"action": "add", "text": title}
            existing = added_id(self.last_result)
            if existing is None:
                return None
            self.kb.links.setdefault(existing, [])
            self.stats["added"] += 1
            linked: list[str] = []
        else:
            linked = self.kb.links.get(existing, [])
        missing = [t for t in targets if t not in linked]
        if not missing:
            self.stats["complete"] += 1
            return existing
        if linked:
            self.stats["extended"] += 1
        yield from sync_links(self, existing, missing, [])
        return existing

    def _typed_references(self, index: str, subject: str, targets: list[str]) -> Plan:
        """Typed mode: from each linked statement that refers to the subject, a link to the
        index typed by the reference (``amends``, ``refers_to``, ``cites``, ``supersedes``)."""
        for nid in targets:
            st = self.kb.stmts.get(nid)
            if st is None or self.steps_left <= 2:
                continue
            types = [t for t, target in st.references if target == subject]
            if not types or index in self.kb.links.get(nid, []):
                continue
            yield {"action": "link", "source": nid, "target": index, "type": types[0]}
            if self.last_result.startswith("linked"):
                self.kb.links.setdefault(nid, []).append(index)
                self.stats["typed"] += 1


# ---------------------------------------------------------------------------------------------
# Factories (``kbgym.agents`` entry points)


@agent_factory
def reader(**_) -> PolicyReader:
    """``scripted-policy-reader``: the policies exam reader."""
    return PolicyReader()


@agent_factory
def evidence_reader(**_) -> PolicyEvidenceReader:
    """``scripted-policy-reader-evidence``: the reader on the evidence toolset."""
    return PolicyEvidenceReader()


@agent_factory
def index_trainer(**_):
    """``scripted-policy-index``: the policy reader in forward, the index curator in backward."""
    from kbgym_agents.scripted.train import TrainAgent

    return TrainAgent(PolicyReader(), PolicyIndexCurator())


@agent_factory
def typed_index_trainer(**_):
    """``scripted-policy-index-typed``: the index curator with typed links (``cites`` to its
    members, typed references back to the index); an env with ``typed_links=True``."""
    from kbgym_agents.scripted.train import TrainAgent

    return TrainAgent(PolicyReader(), PolicyIndexCurator(link_type="cites"))
