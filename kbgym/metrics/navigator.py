"""The ideal navigator (docs/protocol.md §12.6): what a frozen library offers its reader, in
exam steps, measured without any reader.

For one question on one frozen library, the navigator counts the steps a reader would need
that knows the question's support from the hidden truth and acts only through the exam's own
actions, costs and budget M:

- **Shown.** A support origin ``o`` is shown when a live note that *carries* it (SPEC §6.2:
  ``origin == o`` and not edited, or ``o`` in ``absorbed``; an edited original counts only
  while its text still states its fact, read by the claim reader, :mod:`kbgym.claims`)
  appears in a search page, or in a read result (the read note, or a linked note on the page
  of links shown).
- **Proven.** A reader that does not know the support must also see that a set is
  complete. The support of a set-kind relation (World.navigator_hints) (``X``'s friends, ``X``'s children)
  is grouped into sets by relation and subject (:meth:`Navigator.sets`); a set is *proven*
  by a read whose page of links shows every member, or by the search page after the one
  holding the set's last member in that query's ranking (a page with no member: BM25
  interleaves members with other hits), or by the last member's own page when the ranking
  ends there (a short page), or by reading every part of an index split into parts that
  say so (``(1/2)``, ``(2/2)``: :meth:`Navigator.part_groups`) whose links together show
  every member. Members the proving query ranks are proven; the others need a
  proof of their own. Every other support origin is proven once shown.
- **Ways.** A question may be answered in more than one way (:meth:`Navigator.goals`); the
  navigator takes the cheapest. Besides the support, each value the question names
  (``job:cooper``) gives a way in which that value's holders (:meth:`Navigator.holders`),
  a set to prove complete, stand in for the support's statements of that kind: the friends
  who are coopers are the friends among the coopers. A join or a reverse lookup
  (a join class of the world) names nobody to look up, so it has only these ways: a reader finds
  the one person with every value by scanning the holders of one of them; and, where the
  library has one, a note about all its values (:meth:`Navigator.joint`): reading it proves
  the answer's statements it links (a :class:`Joint`).
- **Actions.** ``search(query, page)`` shows page ``page`` (1..``max_page``, ``page_size``
  hits) of the library's own search backend, exactly as ``env.step`` does; ``read(id,
  links_page)`` shows the note and one page of ``links_per_page`` links (100, as the env).
  Each is one step; ``answer`` is one more. A query's pages are turned in order (page p
  only after page p - 1), as only ids already shown are read: knowing the support says
  what to look for, not where a ranking puts it.
- **Vocabulary.** It searches only :func:`base_vocabulary` (the question's text; each key's
  name or value; each key followed by each relation word of the question's class,
  the world's relation words, singular and plural: :mod:`kbgym.metrics.vocabulary`) plus, for
  every person name shown so far (:func:`roster_names`), :func:`name_queries` (the bare
  name, and for a person the support names, the name followed by each relation word,
  singular and plural). It reads only ids already shown.
- **Choice.** Each step it takes the action worth most per step: the support it newly shows
  plus the support it newly *settles* (shown and proven). A query's next page is valued by
  the best page p at or below it: what pages next..p show and prove plus the best read of
  a note they newly show (one read of look-ahead; none when p is the last step before the
  answer), over the steps to get there; only the next page is turned, then it chooses
  again. An unread part is worth at least its share of reading all the unread parts of its
  group in sight (parts prove their set only together). Ties go to the larger immediate
  gain per step, then reads before searches, then id order for reads (and links page),
  vocabulary order and page for searches.
- **End.** With all of one way's origins settled it answers (1 step, F1 1). It fails (F1 0,
  M steps, like a reader that runs out of budget) when the budget would end first, when no
  step settles any more support, or when support is gone (an origin no live note carries). A
  question with empty support (QC5, unanswerable) is answered at once: 1 step. A question
  whose support is ``unavailable`` gets no figure (None).

:meth:`Navigator.optimum` is the exhaustive reference: the fewest steps over *all* plans in
the same action space (a part group proving its sets once all its parts are read; branch
and bound, for small universes), used to check the greedy choice.

Each query's full ranked list (``page_size * max_page`` hits) is cached per navigator, i.e.
per frozen library: the library does not change during an exam.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from kbgym.claims import Key, facts_of, read_claims, states, vocabulary_of
from kbgym.claims import part_groups as claim_part_groups
from kbgym.collector import gc_paused
from kbgym.library.graph import EDITED, Library, id_num
from kbgym.library.search import BM25Index
from kbgym.metrics.vocabulary import key_queries, plural, relation_forms
from kbgym.protocol.limits import MAX_PAGE, PAGE_SIZE, READ_LINKS_PER_PAGE
from kbgym.protocol.tokens import tokenize
from kbgym.keys import KeyFinder
from kbgym.types import Question, Universe
from kbgym.worlds import NavigatorHints, world_of

# What differs between worlds comes from the universe's world (World.navigator_hints): the
# relation words per question class (queries), the fact kinds that form sets a reader must
# see complete (a person's friends) and the classes answered by scanning a value's holders
# (joins). A world without them (imported sentences) gets plain queries and no sets.

#: Why a navigation ended.
SHOWN = "shown"  # all one way needs shown and proven, then answer
NO_SUPPORT = "no_support"  # empty support (unanswerable): answer at once
BUDGET = "budget"  # the budget ended first
STUCK = "stuck"  # no step shows any more support
SUPPORT_GONE = "support_gone"  # an origin no live note carries
UNAVAILABLE = "unavailable"  # support unknown: no figure

#: One action: ("search", query, page) or ("read", id, links_page or None).
Action = tuple

_DIGITS = re.compile(r"\d+")


class Joint(frozenset):
    """A join's answer statements (the one person's statement of each value the question
    names), a set proven complete only by reading one of ``provers``: the authored notes
    about every one of those values (:meth:`Navigator.joint_notes`). A join names one
    person, so a reader that reads such a note and sees someone with every value has its
    answer; any other note showing that person's statements (their card) proves nothing, as
    a reader cannot know it is the one to read."""

    provers: frozenset[str]

    def __new__(cls, origins: Iterable[str], provers: Iterable[str]) -> "Joint":
        out = super().__new__(cls, origins)
        out.provers = frozenset(provers)
        return out


def proven_by(fam: frozenset[str], nid: str | None) -> bool:
    """Whether showing every member of ``fam`` in a read of ``nid`` (None: a search page or a
    part group) proves it: always, except a :class:`Joint`, which only its provers prove."""
    return not isinstance(fam, Joint) or nid in fam.provers


@dataclass(frozen=True)
class NavResult:
    """One question's navigation: ``steps`` (answer included) and ``f1`` (1.0 answered, 0.0
    failed), both None without a figure; ``reason`` one of the constants above; ``plan``
    the actions before the answer."""

    steps: int | None
    f1: float | None
    reason: str
    plan: tuple[Action, ...] = ()


def relation_words(universe: Universe) -> Mapping[str, tuple[str, ...]]:
    """The relation words of the universe's world per question class (none: the question
    text carries the relation)."""
    return world_of(universe).navigator_hints(universe).relation_words


def key_parts(key: str) -> tuple[str, str]:
    """``person:Ada Byron`` -> (``person``, ``Ada Byron``)."""
    kind, _, value = key.partition(":")
    return (kind, value) if value else ("", kind)


def base_vocabulary(question: Question, words: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The question's own queries, in order: its text; each key's name or value (keys in
    sorted order); each key's value followed by each relation word of the question's class
    (``words[category]``) in its singular and plural forms (:func:`~kbgym.metrics.vocabulary.
    relation_forms`: ``Felix Vance friend``, ``Felix Vance friends``); each value key with
    its plural (``cooper coopers``), where the question's class has relation words; and,
    for a question naming two or more people, each relation word form followed by all of
    them (``born Ada Byron Ivor Vance``)."""
    values = [key_parts(k)[1] for k in question.keys]
    forms = relation_forms(words.get(question.category, ()))
    # a value's set is also searched by the value and its plural (``cooper coopers``),
    # the reader's query for it
    held = [f"{v} {plural(v)}" for k, v in zip(question.keys, values)
            if words and key_parts(k)[0] not in ("person", "")]
    # the people a question names, together, after each relation word (``born Ada Byron
    # Ivor Vance``): the reader asks about several people in one query
    people = [v for k, v in zip(question.keys, values) if key_parts(k)[0] == "person"]
    joint = [" ".join([w, *people]) for w in forms] if len(people) > 1 else []
    return [question.text] + values + [f"{v} {w}" for v in values for w in forms] + held + joint


def name_queries(name: str, question: Question, words: Mapping[str, tuple[str, ...]],
                 in_support: bool) -> list[str]:
    """The queries a person name shown so far adds: the bare name, and, for a person a
    support fact names (``in_support``), the name followed by each relation word of the
    question's class in its singular and plural forms (``Rupert Thistlewood father``), as a
    key's queries are built (:func:`~kbgym.metrics.vocabulary.key_queries`)."""
    return key_queries(name, words.get(question.category, ())) if in_support else [name]


def roster_names(universe: Universe) -> list[str]:
    """The names the navigator recognises in shown text: the universe's people (generated
    and PhantomWiki universes), else the entity names of its questions' keys (corpora)."""
    if universe.people:
        return [p.name for p in universe.people]
    return sorted({key_parts(k)[1] for q in universe.questions for k in q.keys})


def cut_chains(library: Library) -> tuple[Library, int]:
    """A fork of ``library`` with its *chains* cut: every link from one original note (a
    note with an origin, edited or not) to another removed; and how many links that was.
    The texts, and so the search, are unchanged. The ideal navigator follows chains and the
    exam reader seldom does, so navigating both says what a library's chains alone save
    (docs/protocol.md §12.6)."""
    pairs = [] if not library.n_links else [
        (node.id, t) for node in library if node.origin is not None and node.links
        for t in node.links if getattr(library.get(t), "origin", None) is not None]
    if not pairs:
        return library, 0
    out = library.fork()
    for source, target in pairs:
        out.unlink(source, target)
    return out, len(pairs)


def _lexical(backend: Any) -> bool:
    """Whether ``backend`` (or the index it wraps, as a concurrent exam's shared view does)
    is the BM25 index, whose ranking depends only on a query's distinct tokens."""
    for _ in range(4):
        if isinstance(backend, BM25Index):
            return True
        backend = getattr(backend, "backend", None)
        if backend is None:
            return False
    return False


class Navigator:
    """The ideal navigator of one frozen library (see the module docstring).

    ``m``, ``page_size``, ``max_page`` and ``links_per_page`` are the exam's; the library's
    search backend ranks the queries. :meth:`run` gives a question's :class:`NavResult`.
    """

    def __init__(self, library: Library, universe: Universe, *, m: int = 15,
                 page_size: int = PAGE_SIZE, max_page: int = MAX_PAGE,
                 links_per_page: int = READ_LINKS_PER_PAGE):
        if library.search_backend is None:
            raise ValueError("the navigator needs a library with a search backend "
                             "(attach_search)")
        self.library = library
        self.m = int(m)
        self.page_size = int(page_size)
        self.max_page = int(max_page)
        self.links_per_page = int(links_per_page)
        self.hints: NavigatorHints = world_of(universe).navigator_hints(universe)
        self.words = self.hints.relation_words
        self._finder_names = roster_names(universe)
        self._finder = KeyFinder(self._finder_names, (), (), ())
        # ranking by distinct tokens: queries are deduplicated and filtered by their tokens
        self._lexical = _lexical(library.search_backend) and not library.dirty
        self._ranked: dict[Any, list[str]] = {}
        self._positions: dict[Any, dict[str, int]] = {}
        self._keys: dict[str, tuple[str, ...]] = {}
        self._names: dict[str, tuple[str, ...]] = {}
        self._tokens: dict[str, frozenset[str]] = {}
        self._carriers: dict[str, list[str]] | None = None
        self._name_queries: dict[tuple[str, str, bool], tuple[tuple[str, Any], ...]] = {}
        self._results: dict[tuple, NavResult] = {}
        # sets and mirrors are the world's notions: read only where it has them
        self._origin_names: dict[str, tuple[str, ...]] = {}
        self._universe = universe if self.hints.reads_facts else None
        self._mirror = (dict(self.hints.mirrors(universe))
                        if self._universe is not None and self.hints.mirrors else {})
        # what a note's text states (an edited original may still state its fact)
        self._vocab = vocabulary_of(universe) if self._universe is not None else None
        self._parts: list[tuple[str, ...]] | None = None
        self._about: dict[Any, set[str]] | None = None
        self.universe = universe

    @cached_property
    def unchained(self) -> "Navigator | None":
        """The navigator of the same library with its chains cut (:func:`cut_chains`: every
        link from one original note to another removed), or None when it has none. The
        texts are the same, so it shares this navigator's rankings and text caches."""
        cut, n = cut_chains(self.library)
        if not n:
            return None
        other = Navigator(cut, self.universe, m=self.m, page_size=self.page_size,
                          max_page=self.max_page, links_per_page=self.links_per_page)
        for name in ("_ranked", "_positions", "_keys", "_names", "_tokens", "_name_queries",
                     "_origin_names"):
            setattr(other, name, getattr(self, name))
        return other

    # -- what the exam's actions show (mirrors kbgym.library.apply) -------------------------
    def query_key(self, query: str) -> Any:
        """Queries with the same key rank alike: their sorted distinct tokens under BM25."""
        if not self._lexical:
            return query
        key = self._keys.get(query)
        if key is None:
            key = self._keys[query] = tuple(sorted(set(tokenize(query))))
        return key

    def ranked(self, query: str) -> list[str]:
        """The ids of ``query``'s ranking, as far as the last page reaches."""
        key = self.query_key(query)
        hit = self._ranked.get(key)
        if hit is None:
            k = self.page_size * self.max_page
            hit = [i for i, _ in self.library.search(query, k)] if query.strip() else []
            self._ranked[key] = hit
        return hit

    def positions(self, query: str) -> dict[str, int]:
        """id -> 0-based rank of the ids in ``query``'s ranking."""
        key = self.query_key(query)
        hit = self._positions.get(key)
        if hit is None:
            hit = self._positions[key] = {nid: i for i, nid in enumerate(self.ranked(query))}
        return hit

    def search_shows(self, query: str, page: int) -> list[str]:
        """The ids ``search(query, page)`` shows, in page order."""
        if not 1 <= page <= self.max_page:
            return []
        return self.ranked(query)[(page - 1) * self.page_size: page * self.page_size]

    def link_pages(self, node_id: str) -> int:
        """How many pages of links ``read`` has for this note (1 for at most 100 links)."""
        n = len(self.library[node_id].links)
        return max(1, -(-n // self.links_per_page))

    def read_shows(self, node_id: str, links_page: int | None = None) -> list[str]:
        """The ids ``read(node_id, links_page)`` shows: the note, then its links on that
        page; [] for a note that does not exist or a page it does not have."""
        node = self.library.get(node_id)
        if node is None:
            return []
        p = 1 if links_page is None else links_page
        if not 1 <= p <= self.link_pages(node.id):
            return []
        links = node.links
        if len(links) > self.links_per_page:
            links = links[(p - 1) * self.links_per_page: p * self.links_per_page]
        return [node.id, *links]

    def name_queries(self, name: str, question: Question, in_support: bool
                     ) -> tuple[tuple[str, Any], ...]:
        """:func:`name_queries`, each with its :meth:`query_key` (kept per name, class and
        support: every question and way asks them again)."""
        key = (name, question.category, in_support)
        hit = self._name_queries.get(key)
        if hit is None:
            hit = self._name_queries[key] = tuple(
                (query, self.query_key(query))
                for query in name_queries(name, question, self.words, in_support))
        return hit

    def names_in(self, node_id: str) -> tuple[str, ...]:
        """Roster names a note's text shows, in order of first mention."""
        hit = self._names.get(node_id)
        if hit is None:
            found = self._finder.mentions(self.library[node_id].text)
            hit = tuple(dict.fromkeys(key_parts(k)[1] for k in found))
            self._names[node_id] = hit
        return hit

    def tokens_of(self, node_id: str) -> frozenset[str]:
        hit = self._tokens.get(node_id)
        if hit is None:
            hit = self._tokens[node_id] = frozenset(tokenize(self.library[node_id].text))
        return hit

    def support_names(self, question: Question) -> frozenset[str]:
        """The people the question's support facts name (none in imported universes, which
        have no relation words to pair them with)."""
        if self._universe is None:
            return frozenset()
        out: set[str] = set()
        for o in question.support:
            hit = self._origin_names.get(o)
            if hit is None:
                node = self._node(o)
                if node is None:
                    continue
                hit = self._origin_names[o] = tuple(
                    key_parts(k)[1] for k in self._finder.mentions(node.text))
            out.update(hit)
        return frozenset(out)

    def sets(self, question: Question) -> list[frozenset[str]]:
        """The sets a reader must see complete: the question's support of a
        set-kind relation (World.navigator_hints) grouped by relation and subject (``X``'s friends, ``X``'s
        children), in the order of their first origin."""
        if self._universe is None:
            return []
        groups: dict[tuple[str, str], set[str]] = {}
        for o in question.support:
            node = self._node(o)
            if node is not None and node.fact.kind in self.hints.set_kinds:
                groups.setdefault((node.fact.kind, node.fact.subject), set()).add(o)
        return [frozenset(g) for g in groups.values()]

    def _node(self, origin: str) -> Any:
        """The universe's original of a support origin; None when the universe file does not
        hold it (drift)."""
        try:
            return self._universe.node(origin)  # type: ignore[union-attr]
        except KeyError:
            return None

    def holders(self, kind: str, value: str) -> frozenset[str]:
        """The origins stating ``kind`` = ``value`` of someone (``X's job is cooper.``) that a
        live note carries: the holders a reader scanning the value can see."""
        if (self._universe is None or kind not in self.hints.value_kinds
                or self.hints.value_statements is None):
            return frozenset()
        carriers = self.carriers()
        return frozenset(o for o in self.hints.value_statements(self._universe).get(
            (kind, value), ()) if carriers.get(o))

    def goals(self, question: Question) -> list[tuple[frozenset[str], list[frozenset[str]]]]:
        """What a reader must see, as (origins to show, sets to prove complete), one entry per
        way of answering; the navigator takes the cheapest. The support and its :meth:`sets`
        are one way. For each value the question names (``job:cooper``) there is one more:
        the value's :meth:`holders` as a set to prove complete, in place of the support's
        statements of that value's kind (the friends who are coopers are the friends among
        the coopers). A join or a reverse lookup (a join class of the world) has only these: it
        names nobody to look up, so a reader finds the one person with every value by
        scanning the holders of one of them."""
        support, sets = frozenset(question.support), self.sets(question)
        if self._universe is None:
            return [(support, sets)]
        ways = [] if question.category in self.hints.join_classes else [(support, sets)]
        joint = self.joint(question)
        if joint is not None:
            ways.append((support, [*sets, joint]))
        for key in question.keys:
            kind, value = key_parts(key)
            fam = self.holders(kind, value)
            if fam:
                rest = frozenset(o for o in support
                                 if (n := self._node(o)) is None or n.fact.kind != kind)
                ways.append((rest | fam, [*sets, fam]))
        return ways or [(support, sets)]

    def joint(self, question: Question) -> Joint | None:
        """A join's (or reverse lookup's) answer statements as a :class:`Joint`, proven by
        reading a note about all the values the question names; None for other questions,
        or without such a note."""
        if question.category not in self.hints.join_classes or self._vocab is None \
                or self.hints.value_statements is None:
            return None
        values = [key_parts(k) for k in question.keys]
        values = [(kind, v) for kind, v in values if kind in self.hints.value_kinds]
        if len(values) < 2:
            return None
        provers = self.joint_notes(tuple(sorted(values)))
        if not provers:
            return None
        stating = self.hints.value_statements(self._universe)
        answer = frozenset(o for o in question.support
                           if any(o in stating.get(kv, ()) for kv in values))
        return Joint(answer, provers) if answer else None

    def joint_notes(self, values: tuple[tuple[str, str], ...]) -> frozenset[str]:
        """The live authored notes with links whose own claims are about every one of
        ``values`` (``(kind, value)``: the claim reader's keys, which a question the note
        asks does not give: ``brewer + bowling.``, ``Brewers whose hobby is bowling.``)."""
        if self._about is None:  # every authored note with links, by the keys it is about
            self._about = {}
            for n in self.library:
                if n.origin is None and n.links:
                    for key in read_claims(n.text, self._vocab).keys:
                        self._about.setdefault(key, set()).add(n.id)
        notes = [self._about.get(Key(kind, v), set()) for kind, v in values]
        return frozenset(set.intersection(*notes)) if notes else frozenset()

    def closes(self, query: str, sets: list[frozenset[str]]) -> dict[int, frozenset[str]]:
        """page -> the members whose set ``search(query, page)`` proves complete. For each of
        ``sets`` the query ranks, that is the page after the one holding the set's last
        member in the query's ranking (a page with no member), or that member's own page
        when the ranking ends there (a short page), if the exam's pages reach it; the members
        the query ranks are proven there."""
        if not sets:
            return {}
        where = self.positions(query)
        carriers = self.carriers()
        provable = [f for f in sets if proven_by(f, None)]
        first: dict[str, int] = {}  # a member -> its first place in the ranking
        for o in set().union(*provable):
            pos = [where[n] for n in carriers.get(o, ()) if n in where]
            if pos:
                first[o] = min(pos)
        return self.proving_pages(first, provable, len(where))

    def proving_pages(self, first: Mapping[str, int], sets: Iterable[frozenset[str]],
                      n_ranked: int) -> dict[int, frozenset[str]]:
        """:meth:`closes` from the members' first places in a ranking of ``n_ranked`` ids
        (``first``: member -> 0-based place; the members it lacks are not ranked), for
        ``sets`` a search page can prove."""
        out: dict[int, set[str]] = {}
        for fam in sets:
            ranked = [o for o in fam if o in first]
            if not ranked:
                continue
            page = max(first[o] for o in ranked) // self.page_size + 1  # the last member's
            if n_ranked >= page * self.page_size:
                page += 1  # a full page may go on: the next one must show no member
            if page <= self.max_page:
                out.setdefault(page, set()).update(ranked)
        return {p: frozenset(v) for p, v in out.items()}

    def carriers(self) -> dict[str, list[str]]:
        """origin -> the live notes that state it, in id order: those that carry it (SPEC
        §6.2) or carry its mirror (the same relation stated from its other end: ``X is the
        father of C.`` and ``C is a child of X.``, a friendship or a marriage from either
        side)."""
        if self._carriers is None:
            out: dict[str, list[str]] = {}
            for node in self.library:
                for o in node.carried():
                    out.setdefault(o, []).append(node.id)
                if self._states_origin(node):  # an edited original that still states it
                    out.setdefault(node.origin, []).append(node.id)
            both = {}
            for o, m in self._mirror.items():
                if o in out or m in out:
                    both[o] = sorted({*out.get(o, ()), *out.get(m, ())}, key=id_num)
            self._carriers = out | both
        return self._carriers

    def part_groups(self) -> list[tuple[str, ...]]:
        """Notes that say they are the parts of one index: authored notes with links that
        name one key and carry part markers (``X - friends (1/2)``, ``(2/2)``; grouped by
        :func:`kbgym.claims.part_groups`), kept when parts 1..n of one n are all there. A
        reader that reads every part of a group sees the union of their links as one index."""
        if self._parts is None:
            self._parts = []
            if self._vocab is not None:
                notes = [n for n in self.library if n.links and n.origin is None]
                for ids in claim_part_groups(notes, self._vocab).values():
                    group = self._part_group(ids)
                    if group:
                        self._parts.append(group)
                        continue
                    # two split indexes under one key (``X (1/2)`` and ``About X (1/2)``):
                    # the parts of each are the notes worded alike but for their numbers,
                    # and of those, the ones written one after another
                    alike: dict[str, list[str]] = {}
                    for i in ids:
                        stem = _DIGITS.sub("#", " ".join(self.library[i].text.casefold().split()))
                        alike.setdefault(stem, []).append(i)
                    for same in alike.values():
                        self._parts.extend(self._written_together(same))
        return self._parts

    def _marks(self, ids: Iterable[str]) -> list[tuple[str, Any]]:
        """(id, its first part marker) of each of ``ids``."""
        return [(i, read_claims(self.library[i].text, self._vocab).parts[0]) for i in ids]

    def _part_group(self, ids: list[str]) -> tuple[str, ...]:
        """The parts 1..n of one n among ``ids`` when they are all there, else ()."""
        if len(ids) < 2:
            return ()
        marks = self._marks(ids)
        n = marks[0][1].total
        if n >= 2 and sorted(m.index for _, m in marks if m.total == n) == list(range(1, n + 1)):
            return tuple(i for i, m in marks if m.total == n)
        return ()

    def _written_together(self, ids: list[str]) -> list[tuple[str, ...]]:
        """``ids`` (worded alike) as groups of parts 1..n: one group when they are exactly
        that, else the k-th note of each part number in the order written (ids), when every
        number 1..n is there equally often; none otherwise."""
        group = self._part_group(ids)
        if group or len(ids) < 4:
            return [group] if group else []
        marks = self._marks(sorted(ids, key=id_num))
        n = marks[0][1].total
        by_index: dict[int, list[str]] = {}
        for i, m in marks:
            if m.total == n:
                by_index.setdefault(m.index, []).append(i)
        counts = {len(v) for v in by_index.values()}
        if n < 2 or sorted(by_index) != list(range(1, n + 1)) or len(counts) != 1:
            return []
        return [tuple(by_index[j][k] for j in range(1, n + 1)) for k in range(counts.pop())]

    def _states_origin(self, node: Any) -> bool:
        """Whether ``node`` is an edited original whose text still states its origin's fact
        (read by the claim reader, docs/claims.md: ``X's job is mason. See also: X's
        children.``): it carries it, as a reader reading it learns it. Worlds without a claim
        vocabulary: never."""
        if node.origin is None or node.flag != EDITED or self._vocab is None:
            return False
        original = self._node(node.origin) if self._universe is not None else None
        if original is None:
            return False
        want = facts_of(original.text, self._vocab)
        return bool(want) and all(states(node.text, f, self._vocab) for f in want)

    # -- one question ------------------------------------------------------------------------
    def _trivial(self, q: Question) -> NavResult | None:
        if q.support_status == "unavailable":
            return NavResult(None, None, UNAVAILABLE)
        if not q.support:
            return NavResult(1, 1.0, NO_SUPPORT)
        carriers = self.carriers()
        if any(not carriers.get(o) for o in q.support):
            return NavResult(self.m, 0.0, SUPPORT_GONE)
        return None

    def run(self, question: Question) -> NavResult:
        """The greedy navigation of ``question`` (cached per text, support and keys)."""
        key = (question.text, question.support, question.keys, question.support_status)
        hit = self._results.get(key)
        if hit is None:
            # a navigation allocates tens of thousands of small acyclic objects (sets,
            # rankings) beside the universe's and library's ~10^5 tracked ones: with the
            # collector on, a quarter of its CPU went to collections (docs/performance.md)
            with gc_paused():
                hit = self._trivial(question) or self._cheapest(question)
            self._results[key] = hit
        return hit

    def _cheapest(self, question: Question) -> NavResult:
        """The greedy navigation of each way (fewest origins first: ties go to it), each
        stopped as soon as it can no longer answer in fewer steps than the best so far."""
        best: NavResult | None = None
        for goal, sets in sorted(self.goals(question), key=lambda w: len(w[0])):
            cap = best.steps if best is not None and best.f1 == 1.0 else None
            res = _Greedy(self, question, goal, sets).run(cap)
            best = res if best is None else _fewest((best, res))
        assert best is not None  # goals() gives at least one way
        return best

    def optimum(self, question: Question, *, max_states: int = 200_000) -> NavResult | None:
        """The fewest steps over every plan of the navigator's actions (branch and bound,
        states deduplicated; for small universes); None when more than ``max_states`` states
        would be needed."""
        trivial = self._trivial(question)
        if trivial is not None:
            return trivial
        greedy = self.run(question)
        ways = [_optimum(self, question, goal, sets, greedy, max_states)
                for goal, sets in self.goals(question)]
        return None if any(w is None for w in ways) else _fewest(ways)  # type: ignore[arg-type]


@dataclass(slots=True)
class _Entry:
    """One vocabulary query and the pages on which it shows or proves support (None until its
    ranking is needed)."""

    query: str
    key: Any
    pages: list[tuple[int, list[str], frozenset[str]]] | None  # (page, relevant ids, proven)
    reach: frozenset[str]  # the support its ranking could show: carried by notes it can rank
    via: tuple[str, ...]  # the notes linking to support it can rank
    page_cap: int  # the most support one page can show (page_size notes, each at its most)
    cand: tuple[str, ...]  # the relevant notes it can rank (all of them off BM25)
    vi: int  # its place in the vocabulary (the tie-break)


class _Greedy:
    """One greedy navigation of one way of answering (:meth:`Navigator.goals`): ``support``
    the origins to show, ``families`` the sets to prove complete. Only two kinds of notes
    can show support: the carriers of an origin (shown by any page or read that shows them)
    and the notes linking to one (a read of the right links page shows it); every other note
    matters only through the names it shows, or, on a search page, as the hit that proves a
    set ended.

    An origin is *settled* when it was shown and, if it belongs to a set, its set was
    proven complete. A step is worth the support it newly shows plus the support it newly
    settles.

    Under BM25 a query can rank only notes sharing one of its tokens, so a query's value is
    bounded by what the relevant notes holding its tokens could show and settle; its ranking
    is fetched only when that bound could beat the best step found so far (the same choice,
    fewer rankings)."""

    def __init__(self, nav: Navigator, q: Question, support: frozenset[str],
                 families: list[frozenset[str]]):
        self.nav, self.q = nav, q
        lib, lpp = nav.library, nav.links_per_page
        self.families = families
        self.unshown = set(support)
        self.open = set().union(*self.families)  # in a set not yet proven complete
        carried: dict[str, set[str]] = {}
        for o in support:
            for nid in nav.carriers()[o]:
                carried.setdefault(nid, set()).add(o)
        self.carried = {k: frozenset(v) for k, v in carried.items()}
        via: dict[str, dict[int, set[str]]] = {}
        for target, origins in self.carried.items():
            for src in lib.in_links(target):
                page = lib[src].links.index(target) // lpp + 1
                via.setdefault(src, {}).setdefault(page, set()).update(origins)
        self.via = {s: {p: (frozenset(o), self._whole(o, s)) for p, o in pages.items()}
                    for s, pages in via.items()}
        self.relevant = set(self.carried) | set(self.via)
        # the sets a search page can prove, when all their members are support (then a
        # ranking's carriers of them are among the notes a query can rank: _rank reads
        # their places as it pages, instead of Navigator.closes)
        self.closable = ([f for f in families if proven_by(f, None)]
                         if all(f <= support for f in families) else None)
        self.holding: dict[str, list[str]] | None = None  # token -> relevant notes with it
        if nav._lexical:
            self.holding = {}
            for nid in sorted(self.relevant, key=id_num):
                for t in nav.tokens_of(nid):
                    self.holding.setdefault(t, []).append(nid)
        self.shown: set[str] = set()
        self.readable: list[str] = []  # shown notes linking to support: reads worth weighing
        self.read: set[str] = set()  # notes read so far (parts prove their set together)
        # a part (``(1/2)``) -> the sets its group's links show whole together
        self.part_whole: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        for group in nav.part_groups():
            if not all(n in self.via for n in group):
                continue
            shown = frozenset().union(*(o for n in group for o, _ in self.via[n].values()))
            whole = self._whole(set(shown))
            if whole:
                for n in group:
                    self.part_whole[n] = (frozenset(group) - {n}, whole)
        self.names: set[str] = set()
        self.keys_seen: set = set()
        self.support_names = nav.support_names(q)
        self.vocab: list[_Entry] = []  # the queries that may still be worth a step
        self.added = 0  # queries added to the vocabulary so far
        self.paged: dict[int, int] = {}  # vocabulary entry -> the last page turned
        for query in base_vocabulary(q, nav.words):
            self._add_query(query, nav.query_key(query))

    def _with_parts(self, nid: str, whole: frozenset[str]) -> frozenset[str]:
        """``whole``, plus the sets ``nid``'s part group shows whole when ``nid`` is the last
        of its parts still unread (parts are one index: docs/examiner.md)."""
        hit = self.part_whole.get(nid)
        if hit is None or not hit[0] <= self.read:
            return whole
        return whole | hit[1]

    def _whole(self, origins: set[str], nid: str | None = None) -> frozenset[str]:
        """The sets whose every member a links page of ``nid`` shows (None: a part group's
        pages together): reading it proves them complete."""
        return frozenset().union(*(f for f in self.families
                                   if f <= origins and proven_by(f, nid)))

    @property
    def remaining(self) -> set[str]:
        """The support not yet settled."""
        return self.unshown | self.open

    def _gain(self, shows: frozenset[str] | set[str], proves: frozenset[str] | set[str],
              unshown: set[str] | None = None, open_: set[str] | None = None) -> int:
        """What a step showing ``shows`` and proving ``proves`` is worth from the given state
        (the current one by default): support newly shown plus support newly settled."""
        unshown = self.unshown if unshown is None else unshown
        open_ = self.open if open_ is None else open_
        gain = 0
        for x in (shows | proves) if proves else shows:  # only these can change state
            unseen, unproven = x in unshown, x in open_
            if unseen and x in shows:
                gain += 1  # newly shown
            if (unseen or unproven) and (not unseen or x in shows) \
                    and (not unproven or x in proves):
                gain += 1  # newly settled
        return gain

    def _add_query(self, query: str, key: Any) -> None:
        """Adds ``query`` (its :meth:`Navigator.query_key` ``key``) to the vocabulary, unless
        a query of the same key was added or it can rank no relevant note."""
        if key in self.keys_seen or not query.strip():
            return
        self.keys_seen.add(key)
        hold = self.holding
        if hold is None:
            cand: Iterable[str] = sorted(self.relevant, key=id_num)
        else:
            cand = {nid for t in key for nid in hold.get(t, ())}
            if not cand:
                return  # it ranks no note that matters: never a step worth taking
        carried = [self.carried[nid] for nid in cand if nid in self.carried]
        reach = frozenset().union(*carried)
        via = tuple(nid for nid in cand if nid in self.via)
        cap = self.nav.page_size * max(map(len, carried), default=0)
        self.vocab.append(_Entry(query, key, None, reach, via, cap, tuple(cand), self.added))
        self.added += 1

    def _rank(self, entry: _Entry) -> list[tuple[int, list[str], frozenset[str]]]:
        """The pages on which the query shows relevant notes or proves a set complete: only
        the notes it can rank (``entry.cand``) are looked up in its ranking."""
        nav = self.nav
        where = nav.positions(entry.query)
        ps = nav.page_size
        by_page: dict[int, list[str]] = {}
        first: dict[str, int] = {}  # support origin -> its first place in the ranking
        carried = self.carried
        for pos, nid in sorted((where[nid], nid) for nid in entry.cand if nid in where):
            by_page.setdefault(pos // ps + 1, []).append(nid)
            for o in carried.get(nid, ()):
                first.setdefault(o, pos)
        if self.closable is None:
            proven = nav.closes(entry.query, self.families)
        else:  # Navigator.closes, from the places just found (the same pages)
            proven = nav.proving_pages(first, self.closable, len(where))
        pages = [(p, by_page.get(p, []), proven.get(p, frozenset()))
                 for p in sorted(set(by_page) | set(proven))]
        entry.pages = pages
        return pages

    def _group_value(self, nid: str, unshown: set[str] | None = None,
                     open_: set[str] | None = None,
                     in_sight: Iterable[str] | None = ()) -> float:
        """Per read, what reading every unread part of ``nid``'s part group is worth: parts
        prove their set only together, which one read of look-ahead never sees. Only while
        the other unread parts are shown already or in ``in_sight`` (None: assume they are,
        for a bound); 0 for a note that is not an unread part."""
        hit = self.part_whole.get(nid)
        if hit is None or nid in self.read:
            return 0.0
        unread = [n for n in hit[0] | {nid} if n not in self.read]
        if in_sight is not None and any(n != nid and n not in self.shown and n not in in_sight
                                        for n in unread):
            return 0.0  # a part not in sight yet: reads alone cannot get it
        shows: set[str] = set()
        for n in unread:
            for origins, _ in self.via[n].values():
                shows |= origins
        return self._gain(shows, hit[1], unshown, open_) / len(unread)

    def _read_value(self, nid: str, unshown: set[str] | None = None,
                    open_: set[str] | None = None,
                    in_sight: Iterable[str] | None = ()) -> tuple[float, int]:
        """(value, links page) of the best read of linking note ``nid``; for an unread part,
        at least its share of reading its whole group (:meth:`_group_value`)."""
        best: tuple[float, int] = (0, 0)
        for page, (origins, whole) in sorted(self.via[nid].items()):
            gain = self._gain(origins, self._with_parts(nid, whole), unshown, open_)
            if gain > best[0]:
                best = (gain, page)
        group = self._group_value(nid, unshown, open_, in_sight)
        if group > best[0]:
            best = (group, min(self.via[nid]))
        return best

    def _show(self, ids: Iterable[str], proves: frozenset[str] = frozenset()) -> None:
        nav = self.nav
        for nid in ids:
            self.unshown.difference_update(self.carried.get(nid, ()))
            if nid in self.via and nid not in self.shown:
                self.readable.append(nid)
            self.shown.add(nid)
            for name in nav.names_in(nid):
                if name not in self.names:
                    self.names.add(name)
                    for query, key in nav.name_queries(name, self.q, name in self.support_names):
                        self._add_query(query, key)
        self.open.difference_update(proves)

    def _choose(self, left: int) -> tuple[Action, tuple] | None:
        best: tuple | None = None
        action: Action | None = None
        self.readable.sort(key=id_num)
        for nid in self.readable:
            group = self._group_value(nid)
            for page, (origins, whole) in sorted(self.via[nid].items()):
                whole = self._with_parts(nid, whole)
                gain = max(self._gain(origins, whole), group)
                if gain:
                    score = (gain, gain, 1, -id_num(nid), -page)
                    if best is None or score > best:
                        best = score
                        pages = self.nav.link_pages(nid)
                        action = ("read", nid, page if pages > 1 else None, whole)
        # the most a read of each linking note not yet shown could be worth now (on demand)
        gains: dict[str, float] = {}

        def read_gain(nid: str) -> float:
            if nid in self.shown:
                return 0
            got = gains.get(nid)
            if got is None:
                got = gains[nid] = self._read_value(nid, in_sight=None)[0]
            return got
        rem = self.remaining
        unshown_now, via, shown, carried = self.unshown, self.via, self.shown, self.carried
        bounds = []
        live = []
        for entry in self.vocab:
            # a bound on this query's (value, immediate gain): all it could rank, at best
            if entry.reach:
                reach = len(entry.reach & unshown_now)
                settle = len(entry.reach & rem)
            else:
                reach = settle = 0
            imm = min(reach, entry.page_cap) + settle
            look = max(map(read_gain, entry.via)) if entry.via and left > 1 else 0
            if imm + look:
                # and on what any run of its pages could be worth, whatever their number
                most = reach + settle + look
                bounds.append(((imm + look, imm, 0, -entry.vi, -1), entry.vi, entry, most))
                live.append(entry)
        # a bound of 0 stays 0 (support left and steps left only shrink): drop the query
        self.vocab = live
        bounds.sort(key=lambda b: b[0], reverse=True)  # the most promising first
        for bound, vi, entry, most in bounds:
            if best is not None and bound <= best:
                break  # neither this query nor any after it can beat the best step
            entry_pages = entry.pages if entry.pages is not None else self._rank(entry)
            last = self.paged.get(vi, 0)
            nxt = last + 1  # pages are turned in order: the next one is the only one to take
            got: set[str] = set()
            proved: set[str] = set()
            readable: list[str] = []  # linking notes these pages newly show
            for page, ids, proves in entry_pages:
                if page <= last:
                    continue
                cost = page - last
                if cost > left or (best is not None and most / cost < best[0]):
                    break  # past the budget, or no deeper page can beat the best per step
                for nid in ids:
                    if nid in carried:
                        got.update(carried[nid])
                    if nid in via and nid not in shown:
                        readable.append(nid)
                proved |= proves
                now = self._gain(got, proved)
                look = 0
                if left > cost and readable:
                    unshown, open_ = unshown_now - got, self.open - proved
                    for nid in readable:
                        look = max(look, self._read_value(nid, unshown, open_, readable)[0])
                value = now + look
                if value:
                    score = (value / cost, now / cost, 0, -vi, -page)
                    if best is None or score > best:
                        best = score
                        first_proves = next((pr for pg, _, pr in entry_pages if pg == nxt),
                                            frozenset())
                        action = ("search", entry.query, nxt, vi, first_proves)
        return None if action is None else (action, best)

    def run(self, cap: int | None = None) -> NavResult:
        """The navigation; with ``cap``, given up (as a failure) once it cannot answer in
        fewer than ``cap`` steps: another way already does as well."""
        nav = self.nav
        plan: list[Action] = []
        while self.remaining:
            left = nav.m - 1 - len(plan)  # steps before the one the answer needs
            if left <= 0 or (cap is not None and len(plan) + 2 >= cap):
                return NavResult(nav.m, 0.0, BUDGET, tuple(plan))
            chosen = self._choose(left)
            if chosen is None:
                return NavResult(nav.m, 0.0, STUCK, tuple(plan))
            action = chosen[0]
            if action[0] == "read":
                _, nid, page, whole = action
                plan.append(("read", nid, page))
                self._show(nav.read_shows(nid, page), whole)
                self.read.add(nid)
            else:
                _, query, page, vi, proves = action
                self.paged[vi] = page
                plan.append(("search", query, page))
                self._show(nav.search_shows(query, page), proves)
        return NavResult(len(plan) + 1, 1.0, SHOWN, tuple(plan))


def _fewest(results: Iterable[NavResult]) -> NavResult:
    """The first answered result with the fewest steps, else the first failure."""
    return min(results, key=lambda r: (-(r.f1 or 0.0), r.steps or 0))


def _optimum(nav: Navigator, q: Question, goal: frozenset[str], families: list[frozenset[str]],
             greedy: NavResult, max_states: int) -> NavResult | None:
    """Branch and bound over every plan of the navigator's actions.

    The actions are every search of a base query; every search of a roster name's queries
    (:func:`name_queries`), available once the name is shown; and every read (each links
    page) of a linked note, available once its id is shown (a note without links shows
    nothing when read that its id's appearance did not already show). Page p of a query is
    available once its page p - 1 was searched. Searches include the page just past a
    query's last hit, which can prove a set ended. An action is *useful* when it shows or
    proves support or shows a name or id that a useful action needs (a fixpoint); no other
    action can shorten a plan. States (support shown, support proven, needed names and ids
    shown) are searched breadth first with duplicates dropped, up to one action fewer than
    ``greedy``'s plan (its length bounds the optimum), pruning states whose unsettled
    support needs more steps than are left even at the best single action's gain. ``goal``
    and ``families`` are one way of answering (:meth:`Navigator.goals`); a way that finds
    no shorter plan returns ``greedy``."""
    support = sorted(goal, key=id_num)
    bit = {o: 1 << i for i, o in enumerate(support)}
    full = (1 << len(support)) - 1
    free = full
    for fam in families:
        for o in fam:
            free &= ~bit[o]

    def bits(origins: Iterable[str]) -> int:
        return sum(bit[o] for o in set(origins))

    carriers = nav.carriers()
    carried: dict[str, int] = {}
    for o in support:
        for nid in carriers[o]:
            carried[nid] = carried.get(nid, 0) | bit[o]
    lib = nav.library

    # (action, what it needs, ids shown, support proven, what it gives besides its ids)
    acts: list[tuple[Action, Any, list[str], int, tuple]] = []
    seen: set = set()

    def searches(query: str, needs: Any) -> None:
        key = nav.query_key(query)
        if key in seen or not query.strip():
            return
        seen.add(key)
        proven = nav.closes(query, families)
        last = max(_pages(nav, query), max(proven, default=0))
        # pages are turned in order: page p needs page p - 1 of the same query
        acts.extend((("search", query, p), needs if p == 1 else ("page", key, p - 1),
                     nav.search_shows(query, p), bits(proven.get(p, ())), (("page", key, p),))
                    for p in range(1, last + 1))

    for query in base_vocabulary(q, nav.words):
        searches(query, None)
    named = nav.support_names(q)
    for name in sorted(set(nav._finder_names)):
        for query in name_queries(name, q, nav.words, name in named):
            searches(query, ("name", name))
    parts = {nid for group in nav.part_groups() for nid in group}
    for node in lib:
        if node.links:
            pages = nav.link_pages(node.id)
            for p in range(1, pages + 1):
                ids = nav.read_shows(node.id, p)
                linked = 0
                for nid in ids[1:]:
                    linked |= carried.get(nid, 0)
                whole = [f for f in families
                         if bits(f) & ~linked == 0 and proven_by(f, node.id)]
                read = (("read", node.id),) if node.id in parts else ()  # a part read
                acts.append((("read", node.id, p if pages > 1 else None), ("id", node.id),
                             ids, bits(o for f in whole for o in f), read))
    # parts that say so prove together the sets their links show whole together
    groups: list[tuple[tuple[tuple[str, str], ...], int]] = []
    for group in nav.part_groups():
        linked = 0
        for nid in group:
            for p in range(1, nav.link_pages(nid) + 1):
                for lid in nav.read_shows(nid, p)[1:]:
                    linked |= carried.get(lid, 0)
        proves = bits(o for f in families if bits(f) & ~linked == 0 and proven_by(f, None)
                      for o in f)
        if proves:
            groups.append((tuple(("read", nid) for nid in group), proves))

    def enables(ids: list[str]) -> set:
        out = set()
        for nid in ids:
            if lib[nid].links:
                out.add(("id", nid))
            out.update(("name", n) for n in nav.names_in(nid))
        return out

    sup = [0] * len(acts)
    ena = [set()] * len(acts)
    for i, (_, _, ids, _, gives) in enumerate(acts):
        for nid in ids:
            sup[i] |= carried.get(nid, 0)
        ena[i] = enables(ids) | set(gives)
    in_groups = {token for tokens, _ in groups for token in tokens}
    useful = {i for i in range(len(acts)) if sup[i] or acts[i][3] or ena[i] & in_groups}
    needed = ({acts[i][1] for i in useful} - {None}) | in_groups
    while True:
        more = {i for i in range(len(acts)) if i not in useful and ena[i] & needed}
        if not more:
            break
        useful |= more
        needed |= {acts[i][1] for i in more} - {None}
    order = sorted(useful)
    need_bit = {e: 1 << i for i, e in enumerate(sorted(needed, key=str))}
    moves = [(i, 0 if acts[i][1] is None else need_bit[acts[i][1]], sup[i], acts[i][3],
              sum(need_bit[e] for e in ena[i] if e in need_bit)) for i in order]
    group_bits = [(sum(need_bit[t] for t in tokens), proves) for tokens, proves in groups]
    def most(move: tuple) -> int:
        """The most ``move`` can settle (the read of a group's last part: what it proves)."""
        got = move[2] | move[3]
        for mask, proves in group_bits:
            if move[4] & mask:
                got |= proves
        return bin(got).count("1")
    best_gain = max(map(most, moves), default=0)

    limit = (len(greedy.plan) - 1) if greedy.reason == SHOWN else nav.m - 1
    if best_gain == 0 or limit < 1:
        return greedy
    start = (0, 0, 0)
    parent: dict[tuple[int, int, int], tuple | None] = {start: None}
    frontier = [start]
    for depth in range(limit):
        left = limit - depth - 1  # actions still allowed after this one
        nxt = []
        for state in frontier:
            shown, proven, have = state
            for i, needs, gain, proves, gives in moves:
                if needs and not have & needs:
                    continue
                new = (shown | gain, proven | proves, have | gives)
                for mask, together in group_bits:
                    if have & mask != mask and (have | gives) & mask == mask:
                        new = (new[0], new[1] | together, new[2])
                if new in parent:
                    continue
                rem = bin(full & ~(new[0] & (new[1] | free))).count("1")
                if rem == 0:
                    parent[new] = (state, acts[i][0])
                    plan: list[Action] = []
                    s: Any = new
                    while parent[s] is not None:
                        s, act = parent[s]
                        plan.append(act)
                    return NavResult(depth + 2, 1.0, SHOWN, tuple(reversed(plan)))
                if -(-rem // best_gain) > left:
                    continue
                parent[new] = (state, acts[i][0])
                nxt.append(new)
                if len(parent) > max_states:
                    return None
        frontier = nxt
        if not frontier:
            break
    return greedy


def _pages(nav: Navigator, query: str) -> int:
    """The non-empty pages of a query."""
    return min(nav.max_page, -(-len(nav.ranked(query)) // nav.page_size))


def navigate_all(library: Library, universe: Universe, questions: Iterable[Question], *,
                 m: int = 15, page_size: int = PAGE_SIZE, max_page: int = MAX_PAGE
                 ) -> dict[str, NavResult]:
    """qid -> :class:`NavResult` for each question on one library (one shared cache)."""
    nav = Navigator(library, universe, m=m, page_size=page_size, max_page=max_page)
    return {q.qid: nav.run(q) for q in questions}
