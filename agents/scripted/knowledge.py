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
from collections.abc import Iterable

from kbgym.protocol.results import parse_expand
from kbgym_agents.scripted.text import (
    VALUE_KINDS,
    Fact,
    Observation,
    fact_names,
    index_keys,
    embeds_question,
    mentions,
    names_in,
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

    def __init__(self, required: Iterable[str], any_of: Iterable[str] = ()):
        self.required = frozenset(required)
        self.any_of = frozenset(any_of)

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
        self.results: list[tuple[str, dict | None, str]] = []  # every entry seen, in order
        self._seen_entries = 0

    # -- ingest ------------------------------------------------------------------------
    def note(self, nid: str, text: str) -> None:
        if nid not in self.notes:
            self.order.append(nid)
        self.notes[nid] = text
        f = parse_fact(text)
        if f is not None:
            self.facts[nid] = f
        else:
            self.facts.pop(nid, None)

    def ingest(self, obs: Observation) -> None:
        for e in obs.entries:
            self.ingest_entry(e.name, e.args, e.result)

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
        # above on-topic ones, so it proves nothing. Authored notes are not part of the set.
        words = set(tokens(query))
        after_last_on_topic = []
        for nid, text in hits:
            if nid not in self.facts:
                continue
            if tier.holds(text):
                after_last_on_topic = []
            else:
                after_last_on_topic.append(text)
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
        return sorted((nid for nid, f in self.facts.items() if pred(f)), key=_id_key)

    def naming(self, name: str) -> list[str]:
        """Ids of §3 notes that name ``name``, in id order."""
        return self.fact_notes(lambda f: name in fact_names(f))

    # -- indexes -----------------------------------------------------------------------
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


def _id_key(nid: str) -> tuple[int, str]:
    digits = "".join(ch for ch in nid if ch.isdigit())
    return (int(digits) if digits else -1, nid)


def _repeats(text: str, words: set[str]) -> bool:
    """Whether ``text`` holds some query word more than once."""
    seen: set[str] = set()
    for t in tokens(text):
        if t in words:
            if t in seen:
                return True
            seen.add(t)
    return False


#: Fact kinds that state a person's own attributes; an entity page links them (§3).
ATTR_KINDS = ("job", "hobby", "city", "born")
#: The most candidate notes read for one (relation, key) before falling back to paging.
MAX_CANDIDATE_READS = 3


class LinkJudgedKnowledge(Knowledge):
    """Knowledge for the curator-agnostic reader: an authored note is an index for a key when
    its *links* show it, whatever its wording.

    - **Candidates** (:meth:`index_candidates`): every authored note shown so far whose text
      names the key — the person's full name, or the job/hobby/city value or its plural — in
      any phrasing (``About X.``, ``X's circle of friends.``, ``Children of A and B.``,
      ``Coopers.``). No relation word is needed.
    - **Judgement** (:meth:`absorb_index`), from the links a ``read`` showed:
      1. the members of ``(rel, key)`` the linked notes state (:func:`member_of` on linked
         facts; a linked authored note naming exactly one other person is a member hub);
      2. at least half of the links must concern the key (name the person or state the value,
         or be a member), else the note is not about it (random links, a question's notes);
      3. any other person or value the note names must index the *same* set (a couple's
         children), else the note mixes several sets (``Notes for: which friend of X is also a
         friend of Y``) and promises none of them;
      4. an **entity page** — links to the person's own attribute notes and to notes of at least
         three kinds about them — is complete for every relation of that person, empty ones
         included; any other accepted note is complete for ``(rel, key)`` when it has members.
    - **Statements** are taken at their word, whatever note holds them: of two §3 sentences
      giving one person's job (hobby, city, birthdate), the newest note (highest id) wins, so a
      curator's correction — or its misinformation — is what the reader uses.
    """

    def __init__(self, page_size: int = 5, rng: random.Random | None = None):
        super().__init__(page_size)
        self.judged: set[tuple[str, str, str]] = set()
        self.rng = rng  # a repeated exam's tie-break shuffle; None keeps the shown order

    # -- statements: the newest wins ---------------------------------------------------
    def attr(self, name: str, kind: str) -> str | None:
        best = None
        for nid, f in self.all_facts(kind):
            if f.subj == name and (best is None or _id_key(nid) > _id_key(best[0])):
                best = (nid, f.obj)
        return best[1] if best else None

    # -- indexes -----------------------------------------------------------------------
    def index_candidates(self, rel: str, key: str, values=()) -> list[str]:
        """Unjudged authored notes naming ``key``, at most :data:`MAX_CANDIDATE_READS`.

        Notes that hold a question (of any of the 26 shapes) or state an answer are about that
        question, not indexes for a key. When several qualify, those whose words belong to the
        set's own sentences (``friend``, ``mother``, ``kids``) are read first, and a person's
        note whose words name only *other* relations (``X's kids`` when friends are wanted) is
        not read at all. Reading order and that skip are the only uses of wording; whether a
        note is an index is judged by its links alone."""
        out = []  # (not hinted for rel, id)
        for nid in self.order:
            if nid in self.facts or nid not in self.notes or (nid, rel, key) in self.judged:
                continue
            text = self.notes[nid]
            if (not names_key(text, key) or parse_statement(text) is not None
                    or embeds_question(text)):
                continue
            hinted = hinted_relations(text)
            if rel in REL_HINTS and hinted and rel not in hinted:
                continue  # plainly about another of the key's sets: not worth a step
            out.append((rel not in hinted, nid))
        if self.rng is not None:
            self.rng.shuffle(out)
        out.sort(key=lambda item: item[0])  # stable: shown (or shuffled) order within a rank
        return [nid for _, nid in out[:MAX_CANDIDATE_READS]]

    def absorb_index(self, nid: str, rel: str, key: str) -> bool:
        self.judged.add((nid, rel, key))
        linked = self.links.get(nid)
        if not linked:
            return False
        members, about = self._link_members(linked, rel, key)
        if 2 * about < len(linked):
            return False
        for other, kind in note_keys(self.notes.get(nid, "")):
            if other == key:
                continue
            theirs, _ = self._link_members(linked, kind or rel, other)
            if theirs and theirs != members:
                return False
        if rel in HUB_RELS and self._entity_page(linked, key):
            for r in HUB_RELS:
                self.complete.add((r, key))
            return True
        if not members:
            return False
        self.index_members[(rel, key)] = self.index_members.get((rel, key), set()) | members
        self.complete.add((rel, key))
        return True

    def _link_members(self, linked: list[str], rel: str, key: str) -> tuple[set[str], int]:
        """The members of ``(rel, key)`` the linked notes state, and how many links concern
        the key at all."""
        members: set[str] = set()
        about = 0
        value_key = rel in ("job", "hobby", "city")
        for lid in linked:
            f = self.facts.get(lid)
            if f is None:  # an authored note: a member hub names exactly one other person
                people = names_in(self.notes.get(lid, ""))
                if len(people) == 1 and people[0] != key:
                    members.add(people[0])
                    about += 1
                continue
            m = member_of(f, rel, key)
            if m is not None:
                members.add(m)
            if m is not None or (f.obj == key if value_key else key in fact_names(f)):
                about += 1
        return members, about

    def _entity_page(self, linked: list[str], key: str) -> bool:
        kinds = {f.kind for f in (self.facts.get(lid) for lid in linked)
                 if f is not None and key in fact_names(f)}
        return bool(kinds & set(ATTR_KINDS)) and len(kinds) >= 3


#: Words of a set's own sentences and their common variants: a reading-order hint only.
REL_HINTS = {
    "friends": frozenset({"friend", "friends", "friendship", "friendships"}),
    "children": frozenset({"child", "children", "kids", "sons", "daughters", "father",
                           "mother", "parent", "offspring"}),
    "grandchildren": frozenset({"grandchildren", "grandchild", "grandkids", "grandsons",
                                "granddaughters"}),
    "parents": frozenset({"parent", "parents", "father", "mother"}),
    "spouse": frozenset({"spouse", "married", "husband", "wife"}),
}


def hinted_relations(text: str) -> set[str]:
    """The person relations whose words (:data:`REL_HINTS`) ``text`` uses."""
    toks = set(tokens(text))
    return {rel for rel, words in REL_HINTS.items() if words & toks}


def plural_forms(value: str) -> tuple[str, ...]:
    """``cooper`` -> (``cooper``, ``coopers``); the last word of a phrase takes the plural."""
    head, _, last = value.rpartition(" ")
    pl = last + ("es" if last.endswith(("s", "sh", "ch", "x")) else "s")
    return value, (f"{head} {pl}" if head else pl)


def names_key(text: str, key: str) -> bool:
    """Whether ``text`` names ``key``: a person's full name, or a value or its plural."""
    if key in names_in(text):
        return True
    if key[:1].isupper() and " " in key:  # a person not named here
        return False
    return any(mentions(text, form) for form in plural_forms(key))


def note_keys(text: str) -> list[tuple[str, str | None]]:
    """Every person (kind ``None``) and job/hobby/city value (its kind) ``text`` names; values
    also as plurals."""
    out: list[tuple[str, str | None]] = [(p, None) for p in names_in(text)]
    words = set(tokens(text))
    for kind, v, forms, form_words in _VALUE_FORMS:
        if words & form_words and any(mentions(text, f) for f in forms):
            out.append((v, kind))
    return out


#: (kind, value, its forms, their words) for every job, hobby and city, computed once.
_VALUE_FORMS = tuple((kind, v, plural_forms(v), frozenset(tokens(" ".join(plural_forms(v)))))
                     for kind, vocab in VALUE_KINDS for v in vocab)
