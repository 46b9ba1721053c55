"""Misinformation in a library, judged against the hidden truth (analysis side).

Every note the agent wrote (authored notes and edited originals) is read by the closed-world
claim reader (:mod:`kbgym.claims`, docs/claims.md), in whatever form it is written — §3
sentences anywhere in the note, prose with pronouns, markdown headings and bullets, wiki links,
tables, JSON records, ``key: value`` lines, any letter case, initials — and each claim is
checked against the universe:

- **fact** claims: the §3 facts the text states (``Ann Lee's job is baker.``, ``Ann Lee works
  as a baker.``, ``## Friends of Ann Lee / - [[Bob Day]]`` ...). True when the people table
  holds that fact. A ``father``/``mother`` word that contradicts the parent's gender makes it
  false. A member list states one fact per member.
- **answer** claims: the answer statements of :mod:`kbgym.worlds.people.statements` (``The job
  of the spouse of Ann Lee is baker.``, in any letter case, after any prefix such as
  ``Verified:``) and questions given with their answer (``Q: What is the job of Ann Lee? A:
  tanner.``, ``the answer to 'What is the job of Ann Lee?' is tanner``). The slots name a
  question instance; the answer is true when it matches one of that instance's golds exactly
  after answer normalisation (the golds come from :class:`kbgym.worlds.people.questions.World`,
  the code that computes every question's golds). An unanswerable (QC5) instance's gold is
  ``unknown``, so any unanswerable alias is true there.

A statement is **unverifiable** when a §3 sentence or answer statement names someone who is
not on the roster, or when its slots describe no question instance of the universe (e.g. a
"the brother of X" statement where X has brothers, or a job-and-city pair that two people
share). Untouched originals are true by construction and are not scanned.

**Wrong members** (:func:`wrong_members`): a written note that puts a non-member in a set —
listed in its text (``Friends of X: A, B``), or shown by its links (a note whose text names
the set linking a statement that someone not in it is).

**Incomplete sets** are misinformation by omission: a written note whose links (and those of
the written notes it links: the parts of an index of indexes) show two or more members of a
true set (a person's children, parents or friends; everyone with a job, hobby or city) but not
all of its live members presents part of the set as if it were the set, unless the members it
shows are exactly the set's members that share something more (a city, a job, a hobby, being
someone's friend, child or grandchild: a part or an intersection). Parts are judged together:
the written notes it links or that link it, and the other partial notes whose text names the
same set (``X - friends (1/2)`` and ``(2/2)``), count as one index. A note presents as whole
only the sets its text names (read by the claim reader: ``Friends of X``, ``X's circle of
friends``, a JSON record's key; a person named as a whole, ``About X.``, names X's friends,
children and parents): a note that names no set (``Support notes.``, a question with its
answer) links what it links without claiming a set. Links on untouched originals are not
judged (each statement of a chain links the others, not itself).

The forms and golds are those of generated universes. On an imported universe (PhantomWiki:
other templates, other sentence forms; no claim vocabulary) the §3 and answer forms are read
sentence by sentence (``quoted`` counted apart), every recognised sentence is
``unverifiable`` and the result says ``"applies": false``.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict

from kbgym.claims import Key, people_vocabulary, read_claims
from kbgym.claims import memberships as claim_memberships
from kbgym.library.graph import AUTHORED, EDITED, Library
from kbgym.protocol.ids import id_num
from kbgym.scoring import exact_match, is_unanswerable_answer
from kbgym.worlds.people.questions import UNKNOWN, Instance, World
from kbgym.worlds.people.relations import VALUE_KINDS, memberships
from kbgym.worlds.people.facts import parse_fact, render_fact
from kbgym.worlds.people.statements import answer_statement, parse_statement, question_slots
from kbgym.worlds.people.templates import BY_NAME, SWAP, TEMPLATES
from kbgym.types import Universe

#: At most this many false note ids are listed (in id order).
MAX_IDS = 20

TRUE, FALSE, UNVERIFIABLE = "true", "false", "unverifiable"

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_QUOTED = re.compile(r"""['"\u2018\u201c](?P<q>[^'"\u2019\u201d]+\?)['"\u2019\u201d]\s+is\s+"""
                     r"(?P<answer>\S.*?)\s*\.?\s*$", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    """``text`` cut after every ``.``, ``!`` or ``?`` that a space follows; each piece ends in a
    period (one is added when it has no closing mark)."""
    out = []
    for s in _SENTENCE_END.split(text.strip()):
        s = s.strip()
        if s:
            out.append(s if s.endswith((".", "!", "?")) else s + ".")
    return out


class Truth:
    """Verdicts on stated facts and answers for one universe."""

    def __init__(self, universe: Universe):
        self.u = universe
        self.by_pid = {p.pid: p for p in universe.people}
        self.by_name: dict[str, list[str]] = defaultdict(list)
        for p in universe.people:
            self.by_name[p.name].append(p.pid)
        self._folded = {k.casefold(): k for k in self.by_name}
        self._values = {slot: {v.casefold(): v for v in universe.vocab.get(vocab, ())}
                        for slot, vocab in (("job", "jobs"), ("hobby", "hobbies"),
                                            ("city", "cities"))}
        self._world: World | None = None
        self._pools: dict | None = None
        self._index: dict[str, dict[tuple, Instance]] = {}
        templates = universe.vocab.get("templates") or {}
        #: Whether the universe is a generated one, whose forms and golds these are.
        self.applies = bool(templates) and all(t in BY_NAME for t in templates)
        #: The claim reader's vocabulary (generated universes only).
        self.vocab = people_vocabulary(universe) if self.applies else None

    def pid(self, name: str) -> str | None:
        pids = self.by_name.get(name, [])
        return pids[0] if len(pids) == 1 else None

    # -- §3 facts ----------------------------------------------------------------------
    def fact(self, kind: str, subj: str, obj: str, role: str | None = None) -> str:
        """The verdict on ``subj kind obj`` (``obj`` a name, a value or an ISO date)."""
        s = self.pid(subj)
        if s is None:
            return UNVERIFIABLE
        p = self.by_pid[s]
        if kind in ("job", "hobby", "city", "born"):
            return TRUE if getattr(p, kind) == obj else FALSE
        o = self.pid(obj)
        if o is None:
            return UNVERIFIABLE
        if kind == "married":
            ok = p.spouse == o
        elif kind == "child_of":
            ok = o in p.parents
        elif kind == "friend_of":
            ok = o in p.friends
        elif kind == "parent_of":
            want = {"father": "male", "mother": "female"}.get(role or "", p.gender)
            ok = o in p.children and p.gender == want
        else:
            return UNVERIFIABLE
        return TRUE if ok else FALSE

    def member(self, key: Key, name: str) -> str:
        """The verdict on ``name`` being in ``key``'s set (a person's friends, children,
        parents, spouse, grandchildren or siblings; a value's holders)."""
        rel, anchor = key
        m = self.pid(name)
        if m is None:
            return UNVERIFIABLE
        if rel in VALUE_KINDS:
            return TRUE if getattr(self.by_pid[m], rel) == anchor else FALSE
        a = self.pid(anchor)
        if a is None or rel not in _PERSON_SETS:
            return UNVERIFIABLE
        return TRUE if m in self.relation(rel, a) else FALSE

    def relation(self, rel: str, pid: str) -> frozenset[str]:
        """The pids in ``pid``'s ``rel`` set."""
        p, by = self.by_pid[pid], self.by_pid
        if rel == "friends":
            return frozenset(p.friends)
        if rel == "children":
            return frozenset(p.children)
        if rel == "parents":
            return frozenset(p.parents)
        if rel == "spouse":
            return frozenset([p.spouse] if p.spouse else ())
        if rel == "grandchildren":
            return frozenset(g for c in p.children if c in by for g in by[c].children)
        if rel in ("siblings", "brothers", "sisters"):
            sib = frozenset(c for q in p.parents if q in by for c in by[q].children) - {pid}
            if rel == "siblings":
                return sib
            want = "male" if rel == "brothers" else "female"
            return frozenset(c for c in sib if by[c].gender == want)
        return frozenset()

    # -- answer statements -------------------------------------------------------------
    def _instances(self, template: str) -> dict[tuple, Instance]:
        """Slots (as sorted items of the question's surface slots) -> instance, for one template;
        a swap template is indexed under both orders of its two names."""
        if template not in self._index:
            if self._pools is None:
                self._world = World(self.u.people, self.u.nodes, self.u.vocab)
                # The swap coins only decide the order of two names in the text; both orders
                # are indexed, so any fixed coin stream gives the same index.
                self._pools = self._world.pools(random.Random(0))
            index: dict[tuple, Instance] = {}
            for inst in self._pools.get(template, ()):
                variants = [inst]
                if template in SWAP:
                    variants.append(Instance(inst.template, inst.slots, not inst.swap))
                for v in variants:
                    slots = question_slots(template, self._world.text(v))
                    if slots is not None:
                        index.setdefault(tuple(sorted(slots.items())), inst)
            self._index[template] = index
        return self._index[template]

    def canonical(self, slots: dict[str, str]) -> dict[str, str] | None:
        """Slots as the universe writes them (names and values matched ignoring case);
        ``None`` when one names nobody or no value of the vocabulary."""
        out = {}
        for k, v in slots.items():
            table = self._folded if k in ("X", "Y") else self._values.get(k, {})
            found = table.get(" ".join(v.split()).casefold())
            if found is None:
                return None
            out[k] = found
        return out

    def golds(self, template: str, slots: dict[str, str]) -> tuple[str, ...] | None:
        """The golds of the instance these slots describe; ``None`` when there is none."""
        slots = self.canonical(slots)
        if slots is None:
            return None
        inst = self._instances(template).get(tuple(sorted(slots.items())))
        if inst is None:
            return None
        return self._world.answer(inst)[0]

    def answer(self, template: str, slots: dict[str, str], answer: str) -> str:
        golds = self.golds(template, slots)
        if golds is None:
            return UNVERIFIABLE
        if golds == UNKNOWN and is_unanswerable_answer(answer):
            return TRUE
        return TRUE if exact_match(answer, golds) else FALSE

    # -- sentences ---------------------------------------------------------------------
    def sentence(self, text: str) -> tuple[str, str] | None:
        """``(form, verdict)`` for one sentence in a fact, answer or quoted form, else ``None``."""
        fact = parse_fact(text.strip())
        if fact is not None and not self.applies:
            return "fact", UNVERIFIABLE
        if fact is not None:
            role = fact.kind.removesuffix("_of") if fact.relation == "parent_of" else None
            return "fact", self.fact(fact.relation, fact.subj, fact.obj, role)
        st = parse_statement(text)
        if st is not None:
            return "answer", self.answer(*st) if self.applies else UNVERIFIABLE
        m = _QUOTED.search(text)
        if m is not None:
            for t in TEMPLATES:
                slots = question_slots(t.name, m.group("q"))
                if slots is not None:
                    verdict = self.answer(t.name, slots, m.group("answer"))
                    return "quoted", verdict if self.applies else UNVERIFIABLE
        return None


_QC1 = {"qc1_job": "job", "qc1_hobby": "hobby", "qc1_city": "city"}
#: The person sets a member list is checked against (:meth:`Truth.member`).
_PERSON_SETS = frozenset({"friends", "children", "parents", "spouse", "grandchildren",
                          "siblings", "brothers", "sisters"})


def note_verdicts(truth: Truth, text: str) -> list[tuple[str, str, str]]:
    """``(statement, form, verdict)`` for every claim ``text`` states.

    On a generated universe the claim reader (:mod:`kbgym.claims`) reads the text in any
    form — §3 sentences anywhere, prose, markdown, JSON, tables — and each fact it states is
    checked (form ``fact``, the statement written as its §3 sentence), as is each answer
    statement, or question given with its answer (``Q: ...? A: ...``, ``the answer to '...?'
    is ...``; form ``answer``; the fact a QC1 answer implies is not counted twice). §3
    sentences or answer statements naming someone off the roster are ``unverifiable``. (The
    ``quoted`` form is counted apart only on universes the reader has no vocabulary for.)"""
    if truth.vocab is None:
        out = []
        for s in sentences(text):
            verdict = truth.sentence(s)
            if verdict is not None:
                out.append((s, *verdict))
        return out
    claims = read_claims(text, truth.vocab)
    out = []
    implied = set()
    for a in claims.answers:
        slots = a.slot_dict
        out.append((answer_statement(a.template, slots, a.answer), "answer",
                    truth.answer(a.template, slots, a.answer)))
        kind = _QC1.get(a.template)
        if kind:
            implied.add((kind, slots.get("X"), truth.vocab.value(kind, a.answer)))
    for f in claims.facts:
        if tuple(f) in implied:
            continue
        role = f.kind.removesuffix("_of") if f.relation == "parent_of" else None
        out.append((render_fact(f), "fact", truth.fact(f.relation, f.subj, f.obj, role)))
    for s in sentences(text):
        fact = parse_fact(s.strip())
        if fact is not None:
            if any(truth.pid(n) is None for n in fact.names):
                out.append((s, "fact", UNVERIFIABLE))
            continue
        if parse_statement(s) is not None:
            if not any(answer_statement(a.template, a.slot_dict, a.answer).casefold()
                       in s.casefold() for a in claims.answers):
                out.append((s, "answer", UNVERIFIABLE))
    return out


def wrong_members(library: Library, universe: Universe, truth: Truth | None = None
                  ) -> list[tuple[str, Key, str]]:
    """``(note id, set, member)`` for every non-member a written note puts in a set: listed
    in its text (``Friends of X: A, B``, a JSON record, a table), or shown by its links — a
    linked note stating that someone is in a set the note's text names (``Friends of X.``
    linking ``Z is a friend of X.`` where Z is not). In id order; empty on a truthful
    library (every member it lists or links is a true one)."""
    truth = truth or Truth(universe)
    if truth.vocab is None:
        return []
    vocab = truth.vocab
    out: dict[tuple[str, Key, str], None] = {}
    for node in library:
        if node.flag not in (AUTHORED, EDITED):
            continue
        claims = read_claims(node.text, vocab)
        for lst in claims.lists:
            for m in lst.members:
                if truth.member(lst.key, m) == FALSE:
                    out.setdefault((node.id, lst.key, m), None)
        named = {k for k in claims.keys if k.relation != "hub"}
        if not named or not node.links:
            continue
        for target in node.links:
            t = library.get(target)
            if t is None:
                continue
            for f in read_claims(t.text, vocab).facts:
                for key, m in claim_memberships(f):
                    if key in named and truth.member(key, m) == FALSE:
                        out.setdefault((node.id, key, m), None)
    return sorted(out, key=lambda x: (id_num(x[0]), x[1], x[2]))


class _Sets:
    """The universe's sets of people, for :func:`incomplete_sets`: a person's children,
    parents, friends and grandchildren, and everyone with a job, hobby or city
    (:func:`kbgym.worlds.people.relations.memberships`)."""

    def __init__(self, universe: Universe):
        self.by_pid = {p.pid: p for p in universe.people}
        self.of = memberships(universe)
        # a child's statement of its parent places the child among the grandparents'
        # grandchildren too (``C is the father of G.``: G is a grandchild of C's parents)
        self.grand = {o: tuple((("grandchildren", gp), who)
                               for (kind, parent), who in pairs if kind == "children"
                               for gp in getattr(self.by_pid.get(parent), "parents", ()))
                      for o, pairs in self.of.items()}

    def members(self, origins) -> dict[tuple[str, str], set[str]]:
        """set -> the members the facts ``origins`` state."""
        out: dict[tuple[str, str], set[str]] = defaultdict(set)
        for o in origins:
            for key, who in (*self.of.get(o, ()), *self.grand.get(o, ())):
                out[key].add(who)
        return out

    def explained(self, shown: set[str], whole: set[str]) -> bool:
        """Whether the members ``shown`` are exactly the members of ``whole`` that share a
        job, hobby or city, or that are someone's friends, children or grandchildren."""
        first = self.by_pid.get(min(shown))
        if first is None:
            return False
        people = self.by_pid
        groups = [{p for p in whole if getattr(people[p], kind) == getattr(first, kind)}
                  for kind in VALUE_KINDS]
        for other in (people[x] for x in (*first.friends, *first.parents) if x in people):
            groups += [whole & set(other.friends), whole & set(other.children)]
        for grand in (people[g] for p in first.parents if p in people
                      for g in people[p].parents if g in people):  # someone's grandchildren
            groups.append(whole & {k for c in grand.children for k in people[c].children})
        return shown in groups


def _reach(library: Library, node) -> list:
    """The live notes ``node`` links, and those its linked written notes link (the parts of
    an index of indexes)."""
    out = []
    for target in node.links:
        t = library.get(target)
        if t is None:
            continue
        out.append(t)
        if t.flag in (AUTHORED, EDITED):
            out += [u for x in t.links if (u := library.get(x)) is not None]
    return out


#: The sets :func:`incomplete_sets` judges, as the claim reader names their keys.
_SET_RELATIONS = ("children", "parents", "friends", "grandchildren", *VALUE_KINDS)


def _text_sets(claims, truth: Truth) -> set[tuple[str, str]]:
    """The sets (``("friends", pid)``, ``("job", value)``) a note's text names as keys; a
    person named as a whole (``About X.``) names X's friends, children and parents."""
    out = set()
    for rel, anchor in claims.keys:
        if rel in VALUE_KINDS:
            out.add((rel, anchor))
            continue
        pid = truth.pid(anchor)
        if pid is None:
            continue
        if rel in _SET_RELATIONS:
            out.add((rel, pid))
        elif rel == "hub":
            out.update((r, pid) for r in ("friends", "children", "parents"))
    return out


def incomplete_sets(library: Library, universe: Universe, truth: Truth | None = None
                    ) -> list[tuple[str, tuple[str, str]]]:
    """(note id, set) for every written note that links part of a true set and whose parts
    do not make up the rest (see the module docstring), in id order."""
    truth = truth or Truth(universe)
    sets = _Sets(universe)
    live = sets.members(o for node in library for o in node.carried())
    notes = [node for node in library if node.flag in (AUTHORED, EDITED) and node.links]
    shown = {n.id: sets.members(o for t in _reach(library, n) for o in t.carried())
             for n in notes}
    named: dict[str, set] = {}
    judged: dict[str, set | None] = {}  # None: every set its links show
    for n in notes:
        if truth.vocab is None:
            named[n.id], judged[n.id] = set(), None
            continue
        claims = read_claims(n.text, truth.vocab)
        named[n.id] = _text_sets(claims, truth)
        # a note presents as whole only the sets its text names
        judged[n.id] = named[n.id]
    # the parts of a set: partial notes naming it that say they are parts, or that no
    # shared value explains (one that does is an intersection, whole as what it is)
    partial: dict[tuple[str, str], list[str]] = defaultdict(list)
    for n in notes:
        marked = bool(truth.vocab is not None and read_claims(n.text, truth.vocab).parts)
        for key in named[n.id] & set(shown[n.id]):
            got = shown[n.id].get(key, set())
            if got < live[key] and (marked or not (len(got) >= 2
                                                   and sets.explained(got, live[key]))):
                partial[key].append(n.id)
    ids = {n.id for n in notes}
    linked_by: dict[str, set[str]] = defaultdict(set)  # written notes linking each note
    for n in notes:
        for t in n.links:
            linked_by[t].add(n.id)
    out = []
    for node in notes:
        for key in sorted(shown[node.id]):
            got, whole = shown[node.id][key], live[key]
            if judged[node.id] is not None and key not in judged[node.id]:
                continue
            if len(got) < 2 or not got < whole or sets.explained(got, whole):
                continue
            # parts are one index: the written notes it links or that link it, and the other
            # partial notes naming the same set in their text, together
            together = set(got)
            partners = {t for t in node.links if t in ids}
            partners |= linked_by.get(node.id, set())
            partners |= set(partial.get(key, ()))
            for m in partners - {node.id}:
                together |= shown[m].get(key, set())
            if not together >= whole:
                out.append((node.id, key))
    return out


def misinformation(library: Library, universe: Universe, max_ids: int = MAX_IDS) -> dict:
    """Counts of true, false and unverifiable statements in the notes the agent wrote.

    ``notes_written`` = authored notes + edited originals; ``false_notes`` are those with at
    least one false statement, ``false_note_share`` their share of ``notes_written`` (``None``
    when nothing was written); ``false_ids`` lists up to ``max_ids`` of them in id order.
    ``by_form`` splits the three counts by form (fact, answer, quoted); ``applies``
    is false on an imported universe (see the module docstring). ``incomplete_sets`` counts
    the (note, set) pairs of :func:`incomplete_sets`, ``incomplete_ids`` up to ``max_ids``
    of those notes.
    """
    truth = Truth(universe)
    counts = {TRUE: 0, FALSE: 0, UNVERIFIABLE: 0}
    by_form = {f: {TRUE: 0, FALSE: 0, UNVERIFIABLE: 0} for f in ("fact", "answer", "quoted")}
    written = authored = 0
    false_ids: list[str] = []
    for node in library:
        if node.flag not in (AUTHORED, EDITED):
            continue
        written += 1
        authored += node.flag == AUTHORED
        bad = False
        for _, form, v in note_verdicts(truth, node.text):
            counts[v] += 1
            by_form[form][v] += 1
            bad |= v == FALSE
        if bad:
            false_ids.append(node.id)
    partial = incomplete_sets(library, universe, truth) if truth.applies else []
    partial_ids = sorted({nid for nid, _ in partial}, key=id_num)
    wrong = wrong_members(library, universe, truth)
    wrong_ids = sorted({nid for nid, _, _ in wrong}, key=id_num)
    return {
        "applies": truth.applies, "notes_written": written, "authored_notes": authored,
        "true_statements": counts[TRUE], "false_statements": counts[FALSE],
        "unverifiable_statements": counts[UNVERIFIABLE],
        "false_notes": len(false_ids),
        "false_note_share": len(false_ids) / written if written else None,
        "false_ids": false_ids[:max_ids],
        "by_form": by_form,
        "incomplete_sets": len(partial),
        "incomplete_ids": partial_ids[:max_ids],
        "wrong_members": len(wrong),
        "wrong_member_ids": wrong_ids[:max_ids],
    }


__all__ = ["Truth", "incomplete_sets", "misinformation", "note_verdicts", "sentences",
           "wrong_members"]
