"""How the §3 relation facts of a generated universe relate to each other, from the hidden
truth: the same relation stated from its other end (a *mirror*), and the sets of people each
fact places someone in. Both are computed once per universe and kept with it."""

from __future__ import annotations

from kbgym.types import Universe

#: The relations stated from both ends: a fact of the first kind about (A, B) has a mirror of
#: the second kind about (B, A) (``X is the father of C.`` and ``C is a child of X.``).
MIRRORED = {"parent_of": "child_of", "child_of": "parent_of", "friend_of": "friend_of",
            "married": "married"}

#: The attributes whose holders form a set per value (everyone with a job, hobby or city).
VALUE_KINDS = ("job", "hobby", "city")

#: The sets a relation's fact places its people in, each as (set, member): a fact stated from
#: either end puts the same people in the same sets (C is one of X's children and X one of
#: C's parents, whichever of the two sentences states it).
_RELATION_SETS = {
    "parent_of": lambda s, o: ((("children", s), o), (("parents", o), s)),
    "child_of": lambda s, o: ((("children", o), s), (("parents", s), o)),
    "friend_of": lambda s, o: ((("friends", s), o), (("friends", o), s)),
}

Membership = tuple[tuple[str, str], str]  # ((set kind, its person or value), member pid)


def mirrors(universe: Universe) -> dict[str, str]:
    """origin -> the original stating the same relation from its other end."""

    def build() -> dict[str, str]:
        by_fact = {(n.fact.kind, n.fact.subject, n.fact.object): n.id for n in universe.nodes}
        out = {}
        for n in universe.nodes:
            back = MIRRORED.get(n.fact.kind)
            other = by_fact.get((back, n.fact.object, n.fact.subject)) if back else None
            if other is not None:
                out[n.id] = other
        return out

    return universe._index("relations.mirrors", build)


def memberships(universe: Universe) -> dict[str, tuple[Membership, ...]]:
    """origin -> the (set, member) pairs its fact states: a person's children, parents and
    friends (from either end of the relation), everyone with a job, hobby or city."""

    def build() -> dict[str, tuple[Membership, ...]]:
        out: dict[str, tuple[Membership, ...]] = {}
        for n in universe.nodes:
            f = n.fact
            if f.kind in _RELATION_SETS:
                out[n.id] = _RELATION_SETS[f.kind](f.subject, f.object)
            elif f.kind in VALUE_KINDS:
                out[n.id] = (((f.kind, f.object), f.subject),)
        return out

    return universe._index("relations.memberships", build)


def statements(universe: Universe) -> dict[tuple[str, str], frozenset[str]]:
    """set -> the origins stating one of its members (:func:`memberships` inverted): a
    value's holders (``("job", "cooper")``), a person's children, parents or friends."""

    def build() -> dict[tuple[str, str], frozenset[str]]:
        by: dict[tuple[str, str], set[str]] = {}
        for o, pairs in memberships(universe).items():
            for group, _ in pairs:
                by.setdefault(group, set()).add(o)
        return {k: frozenset(v) for k, v in by.items()}

    return universe._index("relations.statements", build)


__all__ = ["MIRRORED", "VALUE_KINDS", "memberships", "mirrors", "statements"]
