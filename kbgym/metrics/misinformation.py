"""Misinformation in a library, judged against the hidden truth (analysis side).

Every note the agent wrote (authored notes and edited originals) is cut into sentences, and each
sentence in one of two families of forms is checked against the universe:

- **fact** forms: the eight sentence shapes the universe renders its documents in (``Ann Lee's
  job is baker.``, ``Ann Lee is the mother of Bob Lee.``, ...; parsed by
  :func:`kbgym.baselines.extract.parse`). True when the people table holds that fact. A
  ``father``/``mother`` word that contradicts the parent's gender makes it false.
- **answer** forms: the answer statements of :mod:`kbgym.worlds.people.statements` (``The job of the
  spouse of Ann Lee is baker.``, in any letter case). The slots name a question instance; the
  answer is true when it matches one of that instance's golds exactly after answer
  normalisation (the golds come from :class:`kbgym.worlds.people.questions.World`, the code that
  computes every question's golds). An unanswerable (QC5) instance's gold is ``unknown``, so
  any unanswerable alias is true there.
- **quoted** forms: a sentence that quotes a question of one of the templates and then says
  what it is (``Word is that the answer to 'What is the job of Ann Lee?' is tanner.``), checked
  like an answer statement.

A sentence is **unverifiable** when it names someone who is not on the roster, or when its
slots describe no question instance of the universe (e.g. a "the brother of X" statement where
X has brothers, or a job-and-city pair that two people share). Untouched originals are true by
construction and are not scanned.

**Incomplete sets** are misinformation by omission, judged from links alone: a written note
whose links (and those of the written notes it links: the parts of an index of indexes) show
two or more members of a true set (a person's children, parents or friends; everyone with a
job, hobby or city) but not all of its live members presents part of the set as if it were
the set, unless the members it shows are exactly the set's members that share something more
(a city, a job, a hobby, being someone's friend, child or grandchild: a part or an
intersection). Links on untouched originals are not judged (each statement of a chain links
the others, not itself).

The forms and golds are those of generated universes. On an imported universe (PhantomWiki:
other templates, other sentence forms) every recognised sentence is ``unverifiable`` and the
result says ``"applies": false``.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict

from kbgym.library.graph import AUTHORED, EDITED, Library
from kbgym.protocol.ids import id_num
from kbgym.scoring import exact_match, is_unanswerable_answer
from kbgym.worlds.people.questions import UNKNOWN, Instance, World
from kbgym.worlds.people.relations import VALUE_KINDS, memberships
from kbgym.worlds.people.facts import parse_fact
from kbgym.worlds.people.statements import parse_statement, question_slots
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


def note_verdicts(truth: Truth, text: str) -> list[tuple[str, str, str]]:
    """``(sentence, form, verdict)`` for every sentence of ``text`` in a recognised form."""
    out = []
    for s in sentences(text):
        verdict = truth.sentence(s)
        if verdict is not None:
            out.append((s, *verdict))
    return out


class _Sets:
    """The universe's sets of people, for :func:`incomplete_sets`: a person's children,
    parents and friends, and everyone with a job, hobby or city
    (:func:`kbgym.worlds.people.relations.memberships`)."""

    def __init__(self, universe: Universe):
        self.by_pid = {p.pid: p for p in universe.people}
        self.of = memberships(universe)

    def members(self, origins) -> dict[tuple[str, str], set[str]]:
        """set -> the members the facts ``origins`` state."""
        out: dict[tuple[str, str], set[str]] = defaultdict(set)
        for o in origins:
            for key, who in self.of.get(o, ()):
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


def incomplete_sets(library: Library, universe: Universe) -> list[tuple[str, tuple[str, str]]]:
    """(note id, set) for every written note that links part of a true set (see the module
    docstring), in id order."""
    sets = _Sets(universe)
    live = sets.members(o for node in library for o in node.carried())
    out = []
    for node in library:
        if node.flag not in (AUTHORED, EDITED) or not node.links:
            continue
        shown = sets.members(o for t in _reach(library, node) for o in t.carried())
        for key in sorted(shown):
            got, whole = shown[key], live[key]
            if len(got) >= 2 and got < whole and not sets.explained(got, whole):
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
    partial = incomplete_sets(library, universe) if truth.applies else []
    partial_ids = sorted({nid for nid, _ in partial}, key=id_num)
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
    }


__all__ = ["Truth", "incomplete_sets", "misinformation", "note_verdicts", "sentences"]
