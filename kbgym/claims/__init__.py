"""The closed-world claim reader: what any text states about a world whose vocabulary is
known (every name, value and relation word), whatever its shape — §3 sentences anywhere in a
note, prose with pronouns and first names, markdown headings, bullets, wiki links and tables,
JSON records and ``key: value`` lines, enumerations, any letter case, initials. Unknown text
yields nothing and never raises. docs/claims.md shows what it reads and what it does not.

API (stable: later versions add, never rename)::

    from kbgym.claims import read_claims, people_vocabulary, facts_of

    vocab = people_vocabulary(universe)          # once per universe (kept with it)
    c = read_claims(text, vocab)                 # Claims, memoised per text
    c.facts      # (Fact(kind, subj, obj), ...)  kbgym.worlds.people.facts.Fact, canonical spelling
    c.keys       # (Key("friends", "Ann Lee"), Key("job", "baker"), Key("hub", "Ann Lee"))
    c.lists      # (MemberList(Key(...), ("Bob Day", ...)), ...); c.members(key)
    c.parts      # (Part(1, 2),) for "(1/2)"; c.part -> the first or None
    c.answers    # (Answer(template, slots, answer),) e.g. after "Verified: "
    c.pointers   # keys named only as cross-references ("See also: X's children.")
    c.names      # every known person named

- :class:`Vocabulary` ``(people, values={"job": [...], ...}, genders={name: "male"})``:
  any world can build one; :func:`vocabulary_of` ``(universe)`` returns the world's own, or
  None for a world the reader does not support yet.
- :func:`facts_of` ``(note, vocab)``: the facts a note (its ``.text``, or a string) states.
- :func:`states` ``(note, fact, vocab)``: whether the note states ``fact`` (from either end:
  ``A is a child of B`` states ``B is the father of A``).
- :func:`same_fact` ``(a, b)`` and :func:`fact_key` ``(fact)``: that equivalence.
- :func:`fact_index` ``(notes, vocab)``: fact key -> the ids of the notes stating it.
- :func:`part_groups` ``(notes, vocab)``: key -> the notes naming it that say they are parts.
- :func:`memberships` ``(fact)``: the ``(Key, member)`` pairs a fact places someone in.
- :func:`find_parts` ``(text)``: part markers alone.
- :func:`relation_words` ``(relation)``: the words the reader takes for a key's relation.

Keys' relations: ``friends``, ``children``, ``parents`` (``father``/``mother`` words too),
``spouse``, ``grandchildren``, ``siblings``, ``brothers``, ``sisters`` (anchored at a person),
``job``, ``hobby``, ``city`` (anchored at a value: its holders) and ``hub`` (a person: every
note naming them).

Worlds: generated people universes and PhantomWiki universes (names, jobs, hobbies; its
family words beyond these relations — uncles, in-laws — are read as nothing) have a
vocabulary; policies, casebook and corpus universes do not yet (``vocabulary_of`` -> None).
"""

from __future__ import annotations

from kbgym.worlds.people.claims import people_vocabulary
from kbgym.claims.reader import (
    EMPTY,
    Answer,
    Claims,
    Key,
    MemberList,
    Part,
    find_parts,
    relation_words,
)
from kbgym.claims.vocabulary import VALUE_KINDS, Vocabulary
from kbgym.worlds.people.facts import Fact


def read_claims(text: str, vocab: Vocabulary) -> Claims:
    """What ``text`` states in ``vocab``'s world: a :class:`Claims` (empty for unknown text;
    never raises). Memoised per text on the vocabulary."""
    if not isinstance(text, str) or vocab is None:
        return EMPTY
    return vocab.read(text)


def facts_of(note, vocab: Vocabulary) -> tuple[Fact, ...]:
    """The facts a note states: ``note`` is a string or anything with a ``text`` (a library
    note). An edited original that still states its fact still carries it."""
    text = note if isinstance(note, str) else getattr(note, "text", None)
    return read_claims(text, vocab).facts if isinstance(text, str) else ()


def fact_index(notes, vocab: Vocabulary) -> dict[tuple[str, str, str], list[str]]:
    """:func:`fact_key` -> the ids of the notes stating that fact, in the order given:
    ``notes`` is any iterable of objects with ``id`` and ``text`` (a library's notes), so an
    edited original, a prose page or an index listing members counts as stating it."""
    out: dict[tuple[str, str, str], list[str]] = {}
    for note in notes:
        for f in facts_of(note, vocab):
            ids = out.setdefault(fact_key(f), [])
            if not ids or ids[-1] != note.id:
                ids.append(note.id)
    return out


def part_groups(notes, vocab: Vocabulary) -> dict[Key, list[str]]:
    """Key -> the ids of the notes that name it and say they are parts (``X - friends (1/2)``,
    ``Bakers, part 2 of 3``), in part order then the order given; only keys with two or more
    such notes. ``notes``: objects with ``id`` and ``text``."""
    found: dict[Key, list[tuple[int, int, str]]] = {}
    for i, note in enumerate(notes):
        c = read_claims(getattr(note, "text", None), vocab)
        if not c.parts:
            continue
        for key in c.keys:
            found.setdefault(key, []).append((c.parts[0].index, i, note.id))
    return {k: [nid for _, _, nid in sorted(v)] for k, v in found.items() if len(v) >= 2}


_SYMMETRIC = frozenset({"friend_of", "married"})


def fact_key(fact: Fact) -> tuple[str, str, str]:
    """One key per stated relation, whichever end states it: friendships and marriages as
    sorted pairs, ``A is a child of B`` and ``B is the father of A`` as ``("parent_of", B,
    A)`` (a father/mother word is kept apart from the other parent word only by
    :func:`same_fact`'s ``strict``)."""
    kind, s, o = fact
    if kind in _SYMMETRIC:
        a, b = sorted((s, o))
        return (kind, a, b)
    if kind == "child_of":
        return ("parent_of", o, s)
    if kind in ("father_of", "mother_of"):
        return ("parent_of", s, o)
    return (kind, s, o)


def same_fact(a: Fact, b: Fact) -> bool:
    """Whether two facts state the same relation (:func:`fact_key`)."""
    return fact_key(a) == fact_key(b)


def states(note, fact: Fact, vocab: Vocabulary) -> bool:
    """Whether ``note`` (a string or a note) states ``fact``, from either end."""
    want = fact_key(fact)
    return any(fact_key(f) == want for f in facts_of(note, vocab))


def memberships(fact: Fact) -> tuple[tuple[Key, str], ...]:
    """The ``(set, member)`` pairs ``fact`` states: ``friend_of(A, B)`` puts B among A's
    friends and A among B's; a parent fact a child among the children and a parent among
    the parents; ``job(A, baker)`` A among the bakers. A birth date places no one."""
    kind, s, o = fact
    if kind == "friend_of":
        return ((Key("friends", s), o), (Key("friends", o), s))
    if kind == "married":
        return ((Key("spouse", s), o), (Key("spouse", o), s))
    if kind == "child_of":
        return ((Key("children", o), s), (Key("parents", s), o))
    if kind in ("father_of", "mother_of"):
        return ((Key("children", s), o), (Key("parents", o), s))
    if kind in VALUE_KINDS:
        return ((Key(kind, o), s),)
    return ()


def vocabulary_of(universe) -> Vocabulary | None:
    """The claim vocabulary of ``universe``'s world (its ``vocabulary(universe)`` hook,
    :mod:`kbgym.worlds`), or None where the world has none yet (docs/claims.md lists which)
    or is not known."""
    from kbgym.errors import ConfigError
    from kbgym.worlds.registry import world_of

    try:
        return world_of(universe).vocabulary(universe)
    except ConfigError:
        return None


__all__ = ["Answer", "Claims", "EMPTY", "Fact", "Key", "MemberList", "Part", "VALUE_KINDS",
           "Vocabulary", "fact_index", "fact_key", "facts_of", "part_groups", "find_parts", "memberships",
           "people_vocabulary", "read_claims", "relation_words", "same_fact", "states", "vocabulary_of"]
