"""What a scripted agent has learnt in one episode, from the text it was shown and nothing else.

``Knowledge.ingest(observation)`` folds every remembered search page and read into:

- ``notes``: id -> text of every note shown (search hits, read notes and their links);
- ``facts``: id -> the §3 fact a note states (authored notes have none);
- ``pages``: (query, page) -> the hits shown, or ``[]`` for an empty page / no hits;
- ``links``: id -> the linked ids a read showed.

On top of that it answers the relational questions (spouse, parents, children, friends,
holders of a value) from the facts seen, and keeps which sets are known to be *complete*: a
search paged to its end (``exhausted``), or an index note read and trusted.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from functools import cache

from kbgym.claims import Vocabulary, find_parts, read_claims
from kbgym.metrics.misinformation import sentences
from kbgym.protocol.ids import id_key
from kbgym.protocol.results import parse_expand
from kbgym.worlds.people.forms import question_slots
from kbgym.worlds.people.vocab import (CITIES, FEMALE_FIRST, HOBBIES, HOBBY_NOUNS, JOBS, MALE_FIRST,
                                       SURNAMES)
from kbgym_agents.scripted.text import (
    VALUE_KINDS,
    Fact,
    Observation,
    embeds_question,
    fact_names,
    id_order,
    index_keys,
    mentions,
    names_in,
    names_person,
    newest,
    parse_fact,
    parse_read,
    parse_statement,
    result_hits,
    tokens,
)

#: The relations a person's name hub (every note naming them) is complete for.
HUB_RELS = ("friends", "children", "parents", "spouse")


class Tier:
    """Which hits of a search are "on topic": they hold every ``required`` token and, when
    ``any_of`` is given, at least one of those. BM25 ranks such hits above the rest, so a page
    whose last §3 hit is off topic ends the set (§7)."""

    def __init__(self, required: Iterable[str], any_of: Iterable[str] = (), *,
                 statements_first: bool = False):
        self.required = frozenset(required)
        self.any_of = frozenset(any_of)
        #: Whether the set's statements rank above every authored note that is not an index
        #: of it (a value's sentences hold its one word in a few; a note that repeats the
        #: value in a longer text ranks lower): then authored notes after the last on-topic
        #: statement end the set as off-topic statements do. Not so for a person's sets,
        #: where notes repeating the name outrank statements.
        self.statements_first = statements_first

    def holds(self, text: str) -> bool:
        toks = set(tokens(text))
        return self.required <= toks and (not self.any_of or bool(self.any_of & toks))


class ResultLedger:
    """Notes, search pages and links learnt from action results (search, read, add,
    delete, link_many, unlink). Subclasses hold ``notes``, ``pages`` and ``links`` and
    refine :meth:`note` and :meth:`forget`; ``record_search_errors`` keeps an erroring
    search's page as ``None`` (asked, nothing to get)."""

    record_search_errors = True
    notes: dict[str, str]
    pages: dict
    links: dict[str, list[str]]

    def note(self, nid: str, text: str) -> None:
        self.notes[nid] = text

    def forget(self, nid: str) -> None:
        self.notes.pop(nid, None)
        self.links.pop(nid, None)

    def ingest(self, obs: Observation) -> None:
        """Fold every remembered action of an observation (a new phase or episode)."""
        for e in obs.entries:
            self.ingest_entry(e.name, e.args, e.result)

    def ingest_entry(self, name: str, args: dict | None, result: str) -> None:
        if name == "search" and args is not None:
            query, page = args.get("query"), args.get("page", 1)
            if not isinstance(query, str) or not isinstance(page, int):
                return
            if result.startswith("page "):
                hits = result_hits(result)
                for nid, text in hits:
                    self.note(nid, text)
                self.pages[(query, page)] = hits
            elif result.startswith("(no hits)") or result.startswith("(page "):
                self.pages[(query, page)] = []
            elif result.startswith("ERROR") and self.record_search_errors:
                self.pages.setdefault((query, page), None)
        elif name == "read":
            r = parse_read(result)
            if r is None:
                return
            self.note(r.id, r.text)
            for nid, text in r.links:
                self.note(nid, text)
            self.links[r.id] = [nid for nid, _ in r.links]
        elif name == "add" and args is not None and result.startswith("added "):
            nid = result.split()[1]
            text = args.get("text")
            if isinstance(text, str):
                self.note(nid, " ".join(text.split()))
                self.links.setdefault(nid, [])
        elif name == "locate" and not result.startswith("ERROR"):
            for nid, text in result_hits(result):
                self.note(nid, text)
        elif name == "expand" and args is not None:
            shown = parse_expand(result)
            if shown is None:
                return
            node = args.get("node")
            for e in shown.edges:
                self.note(e.id, e.text)
            if isinstance(node, str) and not args.get("edges") and args.get("hops", 1) == 1:
                self.links[node] = [e.id for e in shown.edges]
        elif name == "delete" and result.startswith("deleted "):
            self.forget(result.split()[1])
        elif name == "link_many" and args is not None and " -> " in result \
                and not result.startswith(("ERROR", "no links")):
            src = args.get("source")
            if isinstance(src, str) and src in self.links:
                skipped = result.split(" | skipped: ", 1)[1] if " | skipped: " in result else ""
                bad = {part.split(" ", 1)[0] for part in skipped.split("; ") if part}
                for t in args.get("targets") or []:
                    if t not in bad and t not in self.links[src]:
                        self.links[src].append(t)
        elif name == "unlink" and args is not None and result.startswith("unlinked"):
            src, tgt = args.get("source"), args.get("target")
            if src in self.links:
                self.links[src] = [x for x in self.links[src] if x != tgt]


class Knowledge(ResultLedger):
    def __init__(self, page_size: int = 5):
        self.page_size = page_size
        self.notes: dict[str, str] = {}
        self.order: list[str] = []  # ids in the order first shown
        self.facts: dict[str, Fact] = {}
        self.pages: dict[tuple[str, int], list[tuple[str, str]] | None] = {}
        self.links: dict[str, list[str]] = {}
        self.tiers: dict[str, Tier] = {}
        self.complete: set[tuple[str, str]] = set()
        self.index_members: dict[tuple[str, str], set[str]] = {}
        # people with a grandchildren candidate read whose statements name a parent not yet
        # known to be their child: it is judged again once their children are complete
        self.awaiting_children: set[str] = set()
        self.results: list[tuple[str, dict | None, str]] = []  # every entry seen, in order
        self._seen_entries = 0
        # whether a set was taken as ended by an authored note after its statements, and
        # whether that inference is off (see :meth:`exhausted`)
        self.shortcut_used = self.strict = False

    # -- ingest ------------------------------------------------------------------------
    def note(self, nid: str, text: str) -> None:
        if nid not in self.notes:
            self.order.append(nid)
        self.notes[nid] = text
        f = parse_fact(text)
        if f is None:
            f = stated_fact(text)
        if f is not None:
            self.facts[nid] = f
        else:
            self.facts.pop(nid, None)

    def forget(self, nid: str) -> None:
        super().forget(nid)
        self.facts.pop(nid, None)

    # -- searches ----------------------------------------------------------------------
    def has_page(self, query: str, page: int) -> bool:
        return (query, page) in self.pages

    def exhausted(self, query: str, page: int) -> bool:
        """Whether page ``page`` of ``query`` shows the end of the query's on-topic hits."""
        hits = self.pages.get((query, page))
        if hits is None:
            return (query, page) in self.pages  # an error page: nothing more to get
        if len(hits) < self.page_size:
            return True
        tier = self.tiers.get(query)
        if tier is None:
            return False
        # After the last on-topic §3 hit, an off-topic one ends the set, unless it repeats a
        # query word (``Milo Quimby is a child of Milo Abernathy``): BM25 can rank such a note
        # above on-topic ones, so it proves nothing. Authored notes are not part of the set;
        # under a statements-first query one after the set's statements ends it too, unless
        # ``strict``: an edited statement (``X's job is mason. See also: ...``) is longer
        # and can rank below a short authored note.
        words = set(tokens(query))
        after_last_on_topic = []
        authored_after = on_topic = False
        for nid, text in hits:
            if nid not in self.facts:
                authored_after = True
                continue
            if tier.holds(text):
                after_last_on_topic, authored_after, on_topic = [], False, True
            else:
                after_last_on_topic.append(text)
        if tier.statements_first and authored_after and not after_last_on_topic \
                and not self.strict and (
                on_topic or any(nid in self.facts and tier.holds(text) for p in range(1, page)
                                for nid, text in self.pages.get((query, p)) or ())):
            self.shortcut_used = True
            return True
        return any(not _repeats(text, words) for text in after_last_on_topic)

    # -- facts -------------------------------------------------------------------------
    def all_facts(self, kind: str | None = None) -> Iterable[tuple[str, Fact]]:
        for nid in self.order:
            f = self.facts.get(nid)
            if f is not None and (kind is None or f.kind == kind):
                yield nid, f

    def attr(self, name: str, kind: str) -> str | None:
        for _, f in self.all_facts(kind):
            if f.subj == name:
                return f.obj
        return None

    def holders(self, kind: str, value: str) -> set[str]:
        out = {f.subj for _, f in self.all_facts(kind) if f.obj == value}
        return out | self.index_members.get((kind, value), set())

    def spouses(self, x: str) -> set[str]:
        out = set()
        for _, f in self.all_facts("married"):
            if f.subj == x:
                out.add(f.obj)
            elif f.obj == x:
                out.add(f.subj)
        return out | self.index_members.get(("spouse", x), set())

    def friends(self, x: str) -> set[str]:
        out = set()
        for _, f in self.all_facts("friend_of"):
            if f.subj == x:
                out.add(f.obj)
            elif f.obj == x:
                out.add(f.subj)
        return out | self.index_members.get(("friends", x), set())

    def children(self, x: str) -> set[str]:
        out = set()
        for _, f in self.all_facts():
            if f.kind in ("father_of", "mother_of") and f.subj == x:
                out.add(f.obj)
            elif f.kind == "child_of" and f.obj == x:
                out.add(f.subj)
        return out | self.index_members.get(("children", x), set())

    def parents(self, x: str) -> set[str]:
        out = set()
        for _, f in self.all_facts():
            if f.kind in ("father_of", "mother_of") and f.obj == x:
                out.add(f.subj)
            elif f.kind == "child_of" and f.subj == x:
                out.add(f.obj)
        return out | self.index_members.get(("parents", x), set())

    def parent_role(self, x: str, role: str) -> set[str]:
        """Parents of ``x`` stated to be its father (``role="father"``) or mother."""
        kind = f"{role}_of"
        return {f.subj for _, f in self.all_facts(kind) if f.obj == x}

    def fact_notes(self, pred) -> list[str]:
        """Ids of the notes whose fact satisfies ``pred``, in id order."""
        return sorted((nid for nid, f in self.facts.items() if pred(f)), key=id_key)

    def naming(self, name: str) -> list[str]:
        """Ids of §3 notes that name ``name``, in id order."""
        return self.fact_notes(lambda f: name in fact_names(f))

    # -- indexes -----------------------------------------------------------------------
    def unread_subnotes(self, nid: str, rel: str, key: str) -> list[str]:
        """Linked notes to read before judging ``nid`` (none: this reader judges a note by its
        own links)."""
        return []

    def exploration(self, rel: str, key: str) -> str | None:
        """An original to read to learn whether originals carry links (never, here)."""
        return None

    def note_candidate_read(self, rel: str, key: str) -> None:
        """A candidate for ``(rel, key)`` is about to be read (no budget here)."""

    def joint_candidates(self, keys: list[str]) -> list[str]:
        """Notes that may be a whole join (none: this reader indexes one key at a time)."""
        return []

    def shows_parts(self, query: str, key: str) -> bool:
        """Whether ``query``'s first page shows the key's set split into parts (never
        looked for here: this reader trusts titles, not parts)."""
        return False

    def parts_split_by(self, query: str, key: str) -> set[str]:
        """The kinds of value the key's parts are split by (none here)."""
        return set()

    def note_index_of_parts(self, nid: str, key: str) -> bool:
        """Whether a read note is an index of the key's parts (never, here)."""
        return False

    def note_rejected(self, nid: str, rel: str, key: str) -> None:
        """A candidate was read and was not the set (nothing learnt here)."""

    def note_join(self, values: tuple[str, ...]) -> None:
        """The question is a join of ``values`` (nothing learnt here)."""

    def note_split_apart(self, value: str) -> None:
        """``value``'s page showed its set split into parts by a kind the join does not ask
        for (nothing learnt here)."""

    def index_candidates(self, rel: str, key: str, values=()) -> list[str]:
        """Unread authored notes whose text names ``(rel, key)`` (a person's hub counts for
        that person's relations), exact matches first, in the order they were shown."""
        exact, hubs = [], []
        for nid in self.order:
            if nid in self.facts or nid in self.links or nid not in self.notes:
                continue
            found = index_keys(self.notes[nid], values)
            if (rel, key) in found:
                exact.append(nid)
            elif rel in HUB_RELS and ("hub", key) in found:
                hubs.append(nid)
        return exact + hubs

    def absorb_index(self, nid: str, rel: str, key: str) -> bool:
        """Take a read index note as complete for ``(rel, key)``; ``False`` if it had no links.

        Members come from the linked facts (the side of each fact the relation points at) and
        from linked notes that name exactly one person (an index of member hubs)."""
        linked = self.links.get(nid)
        if not linked:
            return False
        found = index_keys(self.notes.get(nid, ""), ((rel, key),))
        if ("hub", key) in found and (rel, key) not in found:
            for r in HUB_RELS:
                self.complete.add((r, key))
            return True
        members = set()
        for lid in linked:
            f = self.facts.get(lid)
            if f is None:
                people = names_in(self.notes.get(lid, ""))
                if len(people) == 1 and people[0] != key:
                    members.add(people[0])
                continue
            m = member_of(f, rel, key)
            if m is not None:
                members.add(m)
        self.index_members[(rel, key)] = self.index_members.get((rel, key), set()) | members
        self.complete.add((rel, key))
        return True


def member_of(f: Fact, rel: str, key: str) -> str | None:
    """The member of ``(rel, key)`` a linked fact names, if it names one."""
    parent = f.kind in ("father_of", "mother_of")
    if rel in ("job", "hobby", "city"):
        return f.subj if f.kind == rel and f.obj == key else None
    if rel == "friends" and f.kind == "friend_of" and key in (f.subj, f.obj):
        return f.obj if f.subj == key else f.subj
    if rel == "spouse" and f.kind == "married" and key in (f.subj, f.obj):
        return f.obj if f.subj == key else f.subj
    if rel == "children":
        if parent and f.subj == key:
            return f.obj
        if f.kind == "child_of" and f.obj == key:
            return f.subj
    if rel == "parents":
        if parent and f.obj == key:
            return f.subj
        if f.kind == "child_of" and f.subj == key:
            return f.obj
    if rel in ("grandchildren", "siblings"):
        if parent and f.subj != key and f.obj != key:
            return f.obj
        if f.kind == "child_of" and f.obj != key and f.subj != key:
            return f.subj
    return None


def _repeats(text: str, words: set[str]) -> bool:
    """Whether ``text`` holds some query word more than once."""
    seen: set[str] = set()
    for t in tokens(text):
        if t in words:
            if t in seen:
                return True
            seen.add(t)
    return False


#: The kinds of statement that give a person's own attributes, not a relation.
ATTR_KINDS = ("job", "hobby", "city", "born")
#: The most unread candidate notes read for one (relation, key) at one look.
MAX_CANDIDATE_READS = 3
#: The most notes naming all of a join's values read before its sets are worked out.
MAX_JOINT_READS = 2
#: The most linked authored notes (sub-notes) read to judge one candidate.
MAX_SUBNOTES = 4
#: The relations of a person; the others (job, hobby, city) are keyed by a value.
PERSON_RELS = ("friends", "children", "grandchildren", "parents", "spouse")
VALUE_RELS = ("job", "hobby", "city")


class LinkJudgedKnowledge(Knowledge):
    """Knowledge for the curator-agnostic reader: what a note is worth is a property of its
    links and of the statements they show, never of its wording (docs/protocol.md §9.6).

    - **Where to look** (:meth:`index_candidates`): any note that names the key in any
      letter case or form (``Felix Abernathy``, ``f. abernathy``, ``Abernathy, F.``, the
      value or its plural) may be read; wording only orders the reads.
    - **What a note shows** (:meth:`closure`): the §3 statements among its links and among
      the links of the linked notes that were read (an index of indexes), never its own text.
    - **Judgement** (:meth:`absorb_index`): a note is the complete set ``(rel, key)`` when
      (1) its links state members of that set, each verified the same way (the statement
      names the key on the relation's side; a grandchild through a known child of the key);
      (2) at least half of the statements it shows concern the key; (3) the key is its only
      centre: no other person is in as many of its relation statements, no other value is
      stated as often, and no other key is stated with every member (a card of one person, an intersection of two sets, a part of a set
      split by city, the single friend of someone else's list are not the set); (4) nothing
      it links is left unread. Nothing else it does (no links, other relations'
      links) says anything about the set. A note marked as one of n parts (``(1/2)``, read
      by the claim reader) with a verified member is judged with its other parts: (1)–(4)
      on the statements they show together, once every part was read (parts are one
      index; docs/examiner.md).
    - **Statements** are believed whoever wrote them, in any note that states one fact and
      nothing else (an edited original with a pointer appended; :func:`stated_fact`), and
      so are notes that are answer statements only, with any prefix; of several statements of one
      single-valued fact the newest note wins (:func:`~kbgym_agents.scripted.text.newest`).
    """

    #: Judge notes written for one set more than once together (:meth:`same_set_notes`);
    #: off, each is judged alone as before 2026-12-07 (scripts/experiments/unmarked_parts.py).
    twins = True

    def __init__(self, page_size: int = 5, rng: random.Random | None = None):
        self._latest: dict[str, dict[str, str]] = {}  # kind -> subject -> newest note
        super().__init__(page_size)
        self.judged: set[tuple[str, str, str]] = set()
        self.rng = rng  # a repeated exam's tie-break shuffle; None keeps the shown order
        self.partial: set[str] = set()  # notes read with more links than one read shows
        self.curated = False  # a note read this episode was some set (the curator indexes)
        self.original_links = False  # a read original showed links
        self.explored = False  # an original was read to learn whether originals carry links
        self.reads_for: dict[tuple[str, str], int] = {}  # candidate reads per set
        self.parts_seen: set[tuple[str, str]] = set()  # sets a note naming a value split
        # (rel, key, n, stem) -> part index -> the statements it shows, for notes marked as
        # parts (``stem``: the note's words without the marker, :func:`part_stem`)
        self.parts: dict[tuple[str, str, int, str], dict[int, list[Fact]]] = {}
        self.part_notes: set[str] = set()  # notes judged to be one part of a set
        # the library splits sets into notes naming another value (a part or an intersection):
        # learnt once in an episode, from a part read or an index of such notes
        self.splits = False
        # values whose set a page showed split into parts by a kind the question does not
        # ask for: a note about the value is then most likely the index of those parts
        self.split_apart: set[str] = set()
        self.join: tuple[str, ...] = ()  # the values of the join asked for, if one is
        # (relation, title shape) of short notes read and rejected for that relation: another
        # key's note of the same shape (``Profile of Y.`` after ``Profile of X.``) is not read
        self.rejected_shapes: set[tuple[str, frozenset[str]]] = set()
        self._twice = False  # a page showed two notes naming a set with the same words

    def ingest_entry(self, name: str, args: dict | None, result: str) -> None:
        super().ingest_entry(name, args, result)
        if name != "read" or args is None or result.startswith("ERROR"):
            return
        nid = result.split(":", 1)[0]
        if "shows the next ones)" in result.rsplit("\n", 1)[-1]:
            self.partial.add(nid)
        if nid in self.facts and self.links.get(nid):
            self.original_links = True
        elif not self.curated and nid not in self.facts and self.is_some_set(nid):
            self.curated = True

    # -- statements: the newest wins ---------------------------------------------------
    def note(self, nid: str, text: str) -> None:
        super().note(nid, text)
        self._latest.clear()

    def forget(self, nid: str) -> None:
        super().forget(nid)
        self._latest.clear()

    def latest(self, kind: str) -> dict[str, str]:
        """subject -> the newest note stating its ``kind`` (the one conflict policy, one pass
        over the facts per kind, kept until a note is seen or forgotten)."""
        hit = self._latest.get(kind)
        if hit is None:
            hit = self._latest[kind] = {}
            for nid, f in self.all_facts(kind):
                best = hit.get(f.subj)
                if best is None or id_order(nid) > id_order(best):
                    hit[f.subj] = nid
        return hit

    def attr(self, name: str, kind: str) -> str | None:
        best = self.latest(kind).get(name)
        return self.facts[best].obj if best else None

    def holders(self, kind: str, value: str) -> set[str]:
        facts = self.facts
        out = {p for p, nid in self.latest(kind).items() if facts[nid].obj == value}
        return out | self.index_members.get((kind, value), set())

    def spouses(self, x: str) -> set[str]:
        best = newest(nid for nid, f in self.all_facts("married") if x in (f.subj, f.obj))
        out = set()
        if best is not None:
            f = self.facts[best]
            out.add(f.obj if f.subj == x else f.subj)
        return out | self.index_members.get(("spouse", x), set())

    def parent_role(self, x: str, role: str) -> set[str]:
        best = newest(nid for nid, f in self.all_facts(f"{role}_of") if f.obj == x)
        return {self.facts[best].subj} if best else set()

    # -- where to look -----------------------------------------------------------------
    def index_candidates(self, rel: str, key: str, values=()) -> list[str]:
        """Notes that may be the set ``(rel, key)``, not yet judged for it: every note read
        already (free to judge), then unread ones while fewer than
        :data:`MAX_CANDIDATE_READS` were read for this set in the episode.

        An authored candidate names ``key`` (:func:`names_key`) outside the questions and
        answer statements it may hold (:func:`own_text`). An original (a §3 sentence)
        is a candidate when it states a member of the set, once this episode has shown that
        originals carry links, at most one per look. Reading order, the only use of wording: notes using the set's own words
        (``friend``, ``kids``) first, then other authored notes, then notes holding a
        question or naming a job, hobby or city value other than the key (a part or an
        intersection of sets, most likely; once one of them showed members and was not the
        set, the others are not read), then originals. Not read for this set: a person's note whose words name only
        *other* relations (``X's kids`` when friends are wanted), and a note that is one answer
        statement and nothing else (it is believed for its own question)."""
        read, unread = [], []
        for nid in self.order:
            if nid not in self.notes or (nid, rel, key) in self.judged:
                continue
            text = self.notes[nid]
            if nid in self.facts:
                if (not self.original_links or (nid in self.links and not self.links[nid])
                        or verified_member(self.facts[nid], rel, key, self.children(key))
                        is None):
                    continue
                rank = 3
            elif not names_key(own_text(text), key):
                continue  # named only inside a question or an answer it holds, if at all
            elif listed_only(text, key):
                continue  # the key is a member of another key's list there, not its subject
            elif rel in VALUE_RELS and person_before(own_text(text), key):
                continue  # a person's set with the value (``L. Bramley (Dunmere)``)
            elif key in self.split_apart and nid not in self.links:
                continue  # an index of parts that each hold another value: no use here
            elif key in self.join and outside(own_text(text), self.join):
                continue  # another set's part or intersection (``Butchers in Pennymoor.``)
            else:
                hinted = hinted_relations(text)
                if about_other_relations(hinted, rel):
                    continue  # plainly about another of the key's sets: not worth a step
                if answers_only(text):
                    continue  # answer statements only: believed for their question (_stated)
                if (rel, title_shape(text, key)) in self.rejected_shapes:
                    continue  # shaped like a note already read and rejected for this relation
                if holds_question(text) and not about_set(text, rel, key):
                    continue  # a question and its answer: its links are the answer's
                    # evidence, not the key's set (docs/examiner.md)
                if names_other_value(own_text(text), key):
                    if (rel, key) in self.parts_seen or self.splits:
                        continue  # such notes were parts: the others are parts too
                    rank = 2  # likely a part or an intersection of two sets
                elif embeds_question(text):
                    rank = 2
                else:
                    rank = 0 if rel in hinted else 1
            (read if nid in self.links else unread).append((rank, nid))
        if self.rng is not None:
            self.rng.shuffle(unread)
        unread.sort(key=lambda item: item[0])  # stable: shown (or shuffled) order within a rank
        picked, originals = [], 0
        left = MAX_CANDIDATE_READS - self.reads_for.get((rel, key), 0)
        for rank, nid in unread:
            if len(picked) >= left:
                break
            if rank == 3:
                if originals:
                    continue
                originals += 1
            picked.append(nid)
        return [nid for _, nid in read] + picked

    def note_candidate_read(self, rel: str, key: str) -> None:
        self.reads_for[(rel, key)] = self.reads_for.get((rel, key), 0) + 1

    def shows_parts(self, query: str, key: str) -> bool:
        """Whether page 1 of ``query`` shows two or more notes naming ``key`` and another
        value (parts or intersections of the key's set): the library splits its sets, and
        such notes are not read as the set this episode (:attr:`splits`)."""
        hits = self.pages.get((query, 1)) or []
        parts = sum(1 for nid, text in hits if nid not in self.facts and names_part(text, key))
        if parts >= 2:
            self.splits = True
        return parts >= 2 and all(nid not in self.facts for nid, _ in hits)

    def parts_split_by(self, query: str, key: str) -> set[str]:
        """The kinds of the other values that the parts of ``key``'s set on page 1 of
        ``query`` name (``Brewers: part Dunmere.``: city): what the library splits it by."""
        return {kind for nid, text in self.pages.get((query, 1)) or []
                if nid not in self.facts and names_part(text, key)
                for kind in other_value_kinds(own_text(text), key)}

    def note_index_of_parts(self, nid: str, key: str) -> bool:
        """Whether ``nid`` (read) links two or more authored notes that all name ``key`` and
        another value (``Friends of X (Oakhaven)``): an index of parts, and the library
        splits its sets (:attr:`splits`)."""
        subs = [lid for lid in self.links.get(nid, ())
                if lid in self.notes and lid not in self.facts]
        if len(subs) >= 2 and all(names_part(self.notes[lid], key) for lid in subs):
            self.splits = True
        return self.splits

    def note_rejected(self, nid: str, rel: str, key: str) -> None:
        """``nid`` was read and judged not to be ``(rel, key)``: remember what it says it is.

        - A note that links notes naming ``key`` and another value (an index of parts by
          city, say) or that is such a part tells that this library splits its sets: no
          more such notes are read in the episode (:attr:`splits`).
        - A short note's title shape (its words without the key's: ``profile of``) is not
          read again for ``rel`` under another key's name (:attr:`rejected_shapes`)."""
        if (nid, rel, key) not in self.judged:
            return  # not judged (links unread, a grandchild awaiting children): no lesson
        if (rel, key) in self.parts_seen:
            self.splits = True
        if self.splits:  # (the reader asked note_index_of_parts right after the read)
            return
        shape = title_shape(self.notes.get(nid, ""), key)
        if shape is not None:
            self.rejected_shapes.add((rel, shape))

    def note_join(self, values: tuple[str, ...]) -> None:
        self.join = tuple(values)

    def note_split_apart(self, value: str) -> None:
        self.split_apart.add(value)

    def joint_candidates(self, keys: list[str]) -> list[str]:
        """Unread authored notes naming every one of ``keys`` (a join's values) outside the
        questions and answers they hold (:func:`own_text`), at most :data:`MAX_JOINT_READS`,
        in the order shown: read first, as they may be the join."""
        out = [nid for nid in self.order if nid not in self.facts and nid not in self.links
               and nid in self.notes
               and all(names_key(own_text(self.notes[nid]), k) for k in keys)]
        return out[:MAX_JOINT_READS]

    def exploration(self, rel: str, key: str) -> str | None:
        """Once per episode, in a library where a note read was a set (an index), an original
        stating a member of ``(rel, key)`` to read in place of turning the set's third page: whether originals carry links is learnt only by
        reading one (the untrained library, which has no authored notes, never pays it)."""
        if self.explored or not self.curated or self.original_links:
            return None
        for nid in self.order:
            if (nid in self.facts and nid not in self.links
                    and verified_member(self.facts[nid], rel, key, self.children(key))):
                self.explored = True
                return nid
        return None

    def unread_subnotes(self, nid: str, rel: str, key: str) -> list[str]:
        """Authored notes in ``nid``'s closure not read yet (their links are unknown), in
        link order; none when ``nid`` shows statements and none of them concerns the key
        (reading on could not make it the set). A linked note whose words name only *other*
        relations of a person (``X's friends`` when grandchildren are wanted) is not read,
        as it would not be read as a candidate either."""
        facts, unread = self.closure(nid)
        if facts and not any(concerns(f, rel, key) for f in facts.values()):
            return []
        return [sub for sub in unread
                if not about_other_relations(hinted_relations(self.notes.get(sub, "")), rel)]

    # -- what a note shows -------------------------------------------------------------
    def closure(self, nid: str) -> tuple[dict[str, Fact], list[str]]:
        """The §3 statements ``nid``'s links show, directly or through linked authored notes
        that were read (any depth), and the linked authored notes not read yet."""
        seen = {nid}
        facts: dict[str, Fact] = {}
        unread: list[str] = []
        frontier = [nid]
        while frontier:
            nxt = []
            for src in frontier:
                for lid in self.links.get(src, ()):
                    if lid in seen:
                        continue
                    seen.add(lid)
                    f = self.facts.get(lid)
                    if f is not None:
                        facts[lid] = f
                    elif lid in self.links:
                        nxt.append(lid)
                    elif lid in self.notes:
                        unread.append(lid)
            frontier = nxt
        return facts, unread

    # -- judgement ---------------------------------------------------------------------
    def absorb_index(self, nid: str, rel: str, key: str) -> bool:
        """Take ``nid`` as the complete set ``(rel, key)`` if its links show it (see the class
        docstring); ``False`` otherwise. A grandchildren candidate whose statements name a
        parent not known to be the key's child is left unjudged until the key's children
        are known complete (the reader asks again then)."""
        facts, unread = self.closure(nid)
        if rel == "grandchildren" and ("children", key) not in self.complete:
            kids = self.children(key) | {m for f in facts.values()
                                         if (m := member_of(f, "children", key))}
            if any(p not in kids for f in facts.values() if (p := _parent_of(f, key))):
                self.awaiting_children.add(key)
                return False
        self.judged.add((nid, rel, key))
        if unread or nid in self.partial or self.partial & set(self.links.get(nid, ())):
            return False
        marks = find_parts(own_text(self.notes.get(nid, "")))
        twins = [] if marks or not self.twins else self.same_set_notes(nid, rel, key)
        if twins and any(verified_member(f, rel, key, self.children(key))
                         for f in facts.values()):
            # more notes written for the same set and nothing else (a second note appended
            # where the first could have been edited): the set is what they link together,
            # judged once every one was read
            self.part_notes.add(nid)
            if any(t not in self.links for t in twins):
                return False
            together = dict(facts)
            for t in twins:
                more, unread_t = self.closure(t)
                if unread_t or t in self.partial:
                    return False
                together.update(more)
            members = judge_set(together.values(), rel, key, self.children(key))
        elif marks and marks[0].total > 1:
            # one of n parts (``(1/2)``): judged with its other parts (the notes marked so
            # whose words are its own but for the marker), once all were read; a part need
            # not show a member itself (``About X (1/2).`` may hold only X's job and city)
            part = marks[0]
            got = self.parts.setdefault((rel, key, part.total, part_stem(self.notes[nid])), {})
            got[part.index] = list(facts.values())
            self.part_notes.add(nid)
            if set(got) != set(range(1, part.total + 1)):
                return False
            members = judge_set([f for fs in got.values() for f in fs], rel, key,
                                self.children(key))
        else:
            members = judge_set(facts.values(), rel, key, self.children(key))
        if not members:
            if names_other_value(own_text(self.notes.get(nid, "")), key) and any(
                    verified_member(f, rel, key, self.children(key)) for f in facts.values()):
                self.parts_seen.add((rel, key))
            return False
        self.index_members[(rel, key)] = self.index_members.get((rel, key), set()) | members
        self.complete.add((rel, key))
        return True

    def same_set_notes(self, nid: str, rel: str, key: str) -> list[str]:
        """The other authored notes seen whose own text names exactly the sets ``nid``'s
        names, one of them ``key``'s, or the very same words, and marks no part (``Friends of
        X.`` twice): one set written as several notes that do not say they are parts
        (docs/examiner.md). Notes naming only ``key``'s hub (``About X.``, ``Profile of X.``)
        must also be short and worded alike (:func:`title_shape`): a hub and a card are two
        notes, not halves. A note that is a person's bare name (``X.``) has twins only in a
        library seen to write sets twice (:meth:`writes_twice`): ``X.`` for X's friends and
        ``X.`` for X's children are two sets (a value has one: ``Bakers.`` twice is one)."""
        text = self.notes.get(nid, "")
        if find_parts(own_text(text)):
            return []
        shape = title_shape(text, key)
        if rel not in VALUE_RELS and shape == frozenset() and not self.writes_twice():
            return []  # ``X.`` several times is several of X's sets, until the library shows
        want = set_keys(text)
        hub = all(r == "hub" for r, _ in want)
        by_keys = any(entity == key for _, entity in want) and (not hub or shape is not None)
        same = " ".join(tokens(own_text(text)))

        def twin(other: str) -> bool:
            if by_keys and set_keys(other) == want and (not hub or title_shape(other, key) == shape):
                return True  # the same sets, however worded
            return " ".join(tokens(own_text(other))) == same  # or the very same words
        return [o for o in self.order if o != nid and o in self.notes and o not in self.facts
                and names_key(own_text(self.notes[o]), key) and twin(self.notes[o])]

    def twin_page(self, nid: str, rel: str, key: str) -> tuple[str, int] | None:
        """The next page to turn before ``nid`` is taken as the set ``(rel, key)`` alone, as
        ``(query, page)``, or None. Only in a library seen to write sets twice
        (:meth:`writes_twice`), for a note that shows verified members, marks no part, has no
        twin in sight (:meth:`same_set_notes`) and is the last hit of a full page whose next
        page was not shown: a note with the same words ranks right after it there."""
        if (not self.twins or find_parts(own_text(self.notes.get(nid, "")))
                or not self.writes_twice()):
            return None
        facts, _ = self.closure(nid)
        if not any(verified_member(f, rel, key, self.children(key)) for f in facts.values()):
            return None
        for (query, page), hits in self.pages.items():
            if (hits and len(hits) >= self.page_size and hits[-1][0] == nid
                    and (query, page + 1) not in self.pages):
                return None if self.same_set_notes(nid, rel, key) else (query, page + 1)
        return None

    def writes_twice(self) -> bool:
        """Whether a page shown in this episode held two authored notes with the very same
        words that name a set (``Friends of Y.`` twice; ``Y.`` twice may be two of Y's
        sets): the library writes some sets as several notes."""
        if not self._twice:
            for hits in self.pages.values():
                texts = [" ".join(tokens(own_text(t))) for nid, t in hits or ()
                         if nid not in self.facts
                         and any(r != "hub" for r, _ in set_keys(t))]
                if len(set(texts)) < len(texts):
                    self._twice = True
                    break
        return self._twice

    def is_some_set(self, nid: str) -> bool:
        """Whether the statements ``nid`` links directly are the complete set of some person
        or value they name (the library holds at least one index)."""
        facts = [f for lid in self.links.get(nid, ()) if (f := self.facts.get(lid))]
        keys = {(r, n) for f in facts for n in fact_names(f) for r in PERSON_RELS}
        keys |= {(f.kind, f.obj) for f in facts if f.kind in VALUE_RELS}
        return any(judge_set(facts, r, k) for r, k in sorted(keys))


def concerns(f: Fact, rel: str, key: str) -> bool:
    """Whether statement ``f`` is about the key of ``(rel, key)``: it states the value, or it
    names the person."""
    if rel in VALUE_RELS:
        return f.kind == rel and f.obj == key
    return key in fact_names(f)


def _parent_of(f: Fact, key: str) -> str | None:
    """The parent a parent/child statement names, unless it names ``key`` at all."""
    if key in (f.subj, f.obj):
        return None
    if f.kind in ("father_of", "mother_of"):
        return f.subj
    if f.kind == "child_of":
        return f.obj
    return None


def verified_member(f: Fact, rel: str, key: str, kids: set[str]) -> str | None:
    """The member of ``(rel, key)`` that statement ``f`` shows, checked the same way for every
    relation: the statement must name the key on the relation's side (``key``'s job is the
    value; ``key`` is the father of the member), and a grandchild must be the child of one of
    ``kids``, the key's known children."""
    if rel == "grandchildren":
        p = _parent_of(f, key)
        if p is None or p not in kids:
            return None
        return f.obj if f.kind != "child_of" else f.subj
    return member_of(f, rel, key)


def judge_set(facts: Iterable[Fact], rel: str, key: str, known_kids: set[str] = frozenset()
              ) -> set[str]:
    """The members of ``(rel, key)`` a note showing ``facts`` is the complete set of, or an
    empty set when it is not that set (rules 1-3 of :class:`LinkJudgedKnowledge`)."""
    facts = list(dict.fromkeys(facts))
    if not facts:
        return set()
    kids = set(known_kids)
    if rel == "grandchildren":
        kids |= {m for f in facts if (m := member_of(f, "children", key))}
    members: set[str] = set()
    concern = 0  # statements about the key (rule 2)
    centre = 0  # those that count for the centre (rule 3)
    others: dict[tuple[str, str], int] = {}
    person_set = rel not in VALUE_RELS
    for f in facts:
        m = verified_member(f, rel, key, kids)
        if m is not None:
            members.add(m)
        about = m is not None or concerns(f, rel, key)
        concern += about
        # A person's centre is counted on relation statements only: one friendship and the
        # friend's city make a note about the friend, not the friend's whole list.
        counts = not person_set or f.kind not in ATTR_KINDS
        centre += about and counts
        if counts:
            for name in fact_names(f):
                if name != key and not (rel == "grandchildren" and name in kids):
                    others[("person", name)] = others.get(("person", name), 0) + 1
        if f.kind in VALUE_RELS and not (f.kind == rel and f.obj == key):
            others[(f.kind, f.obj)] = others.get((f.kind, f.obj), 0) + 1
    if not members or 2 * concern < len(facts):
        return set()
    if any(n >= centre for n in others.values()):
        return set()
    if _shared_key(facts, members, rel, key, kids):
        return set()
    return members


def _shared_key(facts: list[Fact], members: set[str], rel: str, key: str, kids: set[str]) -> bool:
    """Whether some other person or value is stated with *every* member: the note may then be
    the set's intersection with that key (``key``'s friends who live in Fenmarch, a couple's
    children, a card), not the set."""
    shared: set | None = None
    for m in members:
        with_m = set()
        for f in facts:
            names = fact_names(f)
            if m not in names:
                continue
            with_m |= {("person", n) for n in names if n != m}
            if f.kind in VALUE_RELS and f.subj == m:
                with_m.add((f.kind, f.obj))
        shared = with_m if shared is None else shared & with_m
        if not shared:
            return False
    drop = {("person", key), (rel, key)} | {("person", k) for k in kids if rel == "grandchildren"}
    return bool((shared or set()) - drop)


#: Words of a set's own sentences and their common variants: a reading-order hint only.
REL_HINTS = {
    "friends": frozenset({"friend", "friends", "friendship", "friendships", "circle",
                          "social", "knows", "acquaintances", "companions", "pals"}),
    "children": frozenset({"child", "children", "kids", "sons", "daughters", "father",
                           "mother", "parent", "offspring", "descendants"}),
    "grandchildren": frozenset({"grandchildren", "grandchild", "grandkids", "grandsons",
                                "granddaughters", "generations", "descendants"}),
    "parents": frozenset({"parent", "parents", "father", "mother", "parentage"}),
    "spouse": frozenset({"spouse", "married", "husband", "wife", "marriage", "partner",
                         "wedded"}),
}


def about_other_relations(hinted: set[str], rel: str) -> bool:
    """Whether a note whose words name the person relations ``hinted``
    (:func:`hinted_relations`) is plainly about sets other than ``rel``'s: not read for it."""
    return rel in REL_HINTS and bool(hinted) and rel not in hinted


def hinted_relations(text: str) -> set[str]:
    """The person relations whose words (:data:`REL_HINTS`) ``text`` uses, outside any
    sentence that holds a question or an answer statement (those name the question's
    relations, not the note's)."""
    toks = set(tokens(own_text(text)))
    return {rel for rel, words in REL_HINTS.items() if words & toks}


@cache
def own_text(text: str) -> str:
    """``text`` without the sentences that hold a question or an answer statement: what the
    note says about itself (``Friends of X.`` in ``Friends of X. How many friends does X
    have?``)."""
    return " ".join(x for x in sentences(text)
                    if not embeds_question(x) and parse_statement(x) is None
                    and not prefixed_answer(x))


#: The questions whose answer is the size of one set of their ``X``: a note holding one of
#: them (``Q: How many friends does X have? A: 4``) may link that set.
SET_QUESTIONS = {"qc4_children": "children", "qc4_friends": "friends",
                 "qc8_grandchildren": "grandchildren"}
_ASKED = re.compile(r"\b(?:which|who|whose|what|how|in which)\b", re.IGNORECASE)


@cache
def asked_and_answered(text: str) -> tuple:
    """The answers a note gives to questions it asks itself (``Q: <question> A: <answer>``,
    ``Who lives in X? A and B.``, ``the answer to '<question>' is <answer>``; the library
    stores the note on one line): an answer statement in another form, believed for its own
    question like one. ``()`` for a note asking none, and for answers inside other text."""
    if not holds_question(text):
        return ()
    return tuple(a for a in read_claims(text, reader_vocabulary()).answers
                 if any(embeds_question(x) and names_key(x, v)
                        for _, v in a.slots for x in sentences(text))
                 and a.answer.strip().casefold() not in ("", "unknown", "none", "n/a"))


@cache
def holds_question(text: str) -> bool:
    """Whether ``text`` asks one of the world's questions (``Q: Who is older, X or Y?``), not
    only inside an answer statement (``The person whose spouse is the baker ... is X.``)."""
    return embeds_question(text) and any(
        embeds_question(x) and parse_statement(x) is None and not prefixed_answer(x)
        for x in sentences(text))


@cache
def about_set(text: str, rel: str, key: str) -> bool:
    """Whether a note holding a question says it is about the set ``(rel, key)``: its own
    text names the set or the person as a whole (the claim reader's keys and lists:
    ``Friends of X. How many friends does X have?``, ``X. Who is older, X or Y?``), a title
    before its question names the key (``Crosswordses. Who is ...?``), or one of its
    questions asks for that set's size. Otherwise its links
    are the evidence of an answer (``Q: Which friend of A is also a friend of B? A: X
    Evidence: X is a friend of A. ...``, ``Q: Who is older, X or Y? ...``), never a set:
    the evidence names some of X's friends, not all of them."""
    parts = sentences(text)
    if parts and not embeds_question(parts[0]) and names_key(parts[0], key):
        return True  # a title before the question: ``Crosswordses. Who is ...?``, ``X. ...``
    c = read_claims(text, reader_vocabulary())
    if any(k.relation in (rel, "hub") and k.entity == key  # (a bare name ``X.``: any of X's)
           for k in (*c.keys, *(ls.key for ls in c.lists))):
        return True
    for x in parts:
        if not embeds_question(x):
            continue
        for m in _ASKED.finditer(x):
            for template, asked in SET_QUESTIONS.items():
                slots = question_slots(template, x[m.start():])
                if asked == rel and slots and slots.get("X", "").casefold() == key.casefold():
                    return True
    return False


def prefixed_answer(sentence: str) -> bool:
    """Whether ``sentence`` is an answer statement after a label (``Verified: <statement>``,
    ``Answer - <statement>``): the label ends at the first colon or dash and what follows
    is one answer statement (the claim reader's answers, docs/claims.md, read the same)."""
    for sep in (": ", " - ", " — "):
        head, found, rest = sentence.partition(sep)
        if found and head and parse_statement(rest.strip()) is not None:
            return True
    return False


@cache
def reader_vocabulary() -> Vocabulary:
    """The claim vocabulary (:mod:`kbgym.claims`) the reader knows without seeing a
    universe: every full name the generator's name pools make (each first name with each
    surname; genders by first name), the job, hobby and city values and the hobbies' holder
    nouns. A universe whose roster grew surnames beyond the pools (very large ones) has names
    it does not know."""
    firsts = [(n, "male") for n in MALE_FIRST] + [(n, "female") for n in FEMALE_FIRST]
    people = {f"{f} {s}": g for f, g in firsts for s in SURNAMES}
    return Vocabulary(people, {"job": JOBS, "hobby": HOBBIES, "city": CITIES}, people,
                      nouns={"hobby": HOBBY_NOUNS})


def stated_fact(text: str) -> Fact | None:
    """The one fact a note that is not one §3 sentence states about itself, read by the claim
    reader: an edited original that still states its fact (``X's job is mason. See also:
    X's children.``). None when the text states no fact or several, or also names a set,
    lists members, marks a part or holds an answer statement (it is an authored note then,
    judged by its links)."""
    c = read_claims(text, reader_vocabulary())
    if len(c.facts) != 1 or c.keys or c.lists or c.parts or c.answers:
        return None
    return c.facts[0]


def listed_only(text: str, key: str) -> bool:
    """Whether a note names ``key`` only as a member of other keys' lists (a table of Y's
    friends that lists X, a JSON record of the coopers that lists X), read by the claim
    reader: such a note is about those keys, a candidate for none of ``key``'s own sets."""
    c = read_claims(own_text(text), reader_vocabulary())
    if not c.lists or any(k.entity == key for k in (*c.keys, *c.pointers)):
        return False
    return any(key in lst.members for lst in c.lists)


def answers_only(text: str) -> tuple:
    """The answer statements of a note that holds nothing else (any prefix, ``Verified:
    <statement>``; docs/examiner.md): ``()`` when it also says anything of its own."""
    vocab = reader_vocabulary()
    parts = sentences(text)
    if not parts or not all(parse_statement(x) is not None or prefixed_answer(x)
                            for x in parts):
        return ()
    return tuple(a for x in parts for a in read_claims(x, vocab).answers)


def plural_forms(value: str) -> tuple[str, ...]:
    """``cooper`` -> (``cooper``, ``coopers``); the last word of a phrase takes the plural."""
    head, _, last = value.rpartition(" ")
    pl = last + ("es" if last.endswith(("s", "sh", "ch", "x")) else "s")
    return value, (f"{head} {pl}" if head else pl)


def names_part(text: str, key: str) -> bool:
    """Whether a note's own text names ``key`` and another value (``Brewers: part
    Dunmere.``): a part or an intersection of the key's set."""
    own = own_text(text)
    return names_key(own, key) and names_other_value(own, key)


def set_keys(text: str) -> frozenset[tuple[str, str]]:
    """The sets (and hubs) a note's own text names (:func:`own_text`; the claim reader's
    keys, pointers left out), or none when it marks a part."""
    c = read_claims(own_text(text), reader_vocabulary())
    if c.parts:
        return frozenset()
    return frozenset((k.relation, k.entity) for k in c.keys)


_FIRST_TOKENS = frozenset(n.casefold() for n in (*MALE_FIRST, *FEMALE_FIRST))
_SURNAME_TOKENS = frozenset(s.casefold() for s in SURNAMES)


#: Words that number a part (``part one of two``), left out of a part's stem.
_PART_WORDS = frozenset("part parts of one two three four five six seven eight nine ten first "
                        "second third fourth fifth page".split())


def part_stem(text: str) -> str:
    """A part's words without its marker (numbers and number words): ``About X (1/2).`` and
    ``About X (2/2).`` share the stem ``about x``, ``X - parents (2/2)`` has another."""
    return " ".join(t for t in tokens(own_text(text)) if not t.isdigit() and t not in _PART_WORDS)


def person_before(text: str, value: str) -> bool:
    """Whether ``text`` names a person before it first names ``value`` (or its plural): a
    first name or an initial next to a surname, either way round. Such a note is about that
    person: ``L. Bramley. (Dunmere)``, ``Friends of U. Whitlock in Dunmere`` are a part of a
    person's set (its members in Dunmere), never the set of everyone in Dunmere, which a
    note names first (``Dunmere: Lavinia Bramley, Cedric Thistlewood``)."""
    toks = tokens(text)
    forms = [tuple(tokens(f)) for f in plural_forms(value)]

    def given(tok: str) -> bool:
        return tok in _FIRST_TOKENS or len(tok) == 1

    for i, tok in enumerate(toks):
        if any(tuple(toks[i:i + len(f)]) == f for f in forms):
            return False
        if tok in _SURNAME_TOKENS and ((i and given(toks[i - 1]))
                                       or (i + 1 < len(toks) and given(toks[i + 1]))):
            return True
    return False


def outside(text: str, join: tuple[str, ...]) -> bool:
    """Whether a note names a value outside ``join`` and not every value of it: in a join
    (``the butcher who lives in Oakhaven``), ``Butchers in Pennymoor.`` or ``Both florist and
    calligraphy.`` is a part or an intersection of another set, no help in finding the join's
    person; ``Butchers in Oakhaven.`` may be the join itself."""
    return names_other_value(text, *join) and not all(names_key(text, v) for v in join)


def names_other_value(text: str, key: str, *also: str) -> bool:
    """Whether ``text`` names a job, hobby or city value other than ``key`` and ``also``
    (or their plurals)."""
    return bool(other_value_kinds(text, key, *also))


def other_value_kinds(text: str, key: str, *also: str) -> set[str]:
    """The kinds (job, hobby, city) of the values other than ``key`` and ``also`` (or their
    plurals) that ``text`` names: ``Brewers: part Dunmere.`` names a city besides ``brewer``."""
    words = set(tokens(text))
    keep = {key, *also}
    return {kind for kind, v, forms, form_words in _VALUE_FORMS
            if v not in keep and words & form_words and any(mentions(text, f) for f in forms)}


#: (kind, value, its forms, their words) for every job, hobby and city, computed once.
_VALUE_FORMS = tuple((kind, v, plural_forms(v), frozenset(tokens(" ".join(plural_forms(v)))))
                     for kind, vocab in VALUE_KINDS for v in vocab)


#: The most words a title shape keeps: longer notes are not told apart by their wording.
SHAPE_WORDS = 6


def title_shape(text: str, key: str) -> frozenset[str] | None:
    """The words of a short note about ``key`` without the key's own (``Profile of Felix
    Abernathy.`` -> {profile, of}); None for a note that is not short or does not name it."""
    own = tokens(own_text(text))
    if not own or len(own) > SHAPE_WORDS + 4 or not names_key(text, key):
        return None
    drop = set(tokens(key)) | {w for form in plural_forms(key) for w in tokens(form)}
    if key[:1].isupper() and " " in key:
        first = tokens(key)[0]
        drop.add(first[:1])
    words = frozenset(w for w in own if w not in drop)
    return words if len(words) <= SHAPE_WORDS else None


def names_key(text: str, key: str) -> bool:
    """Whether ``text`` names ``key``: a person in any letter case or form
    (:func:`~kbgym_agents.scripted.text.names_person`), or a value or its plural."""
    if key[:1].isupper() and " " in key:
        return names_person(text, key)
    return any(mentions(text, form) for form in plural_forms(key))
