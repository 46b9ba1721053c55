"""The claim reader's vocabulary (:mod:`kbgym.claims`, docs/claims.md) of a people universe
(docs/protocol.md §2): its roster's full names and genders, its job, hobby and city values,
and nouns for a hobby's holders (``cyclist``). The world's ``vocabulary(universe)`` hook
returns it; PhantomWiki universes (a roster, jobs and hobbies) use it too.
"""

from __future__ import annotations

from kbgym.claims.vocabulary import Vocabulary
from kbgym.worlds.people.vocab import HOBBY_NOUNS

_KEY = "claims.vocabulary"


def people_vocabulary(universe) -> Vocabulary:
    """The :class:`Vocabulary` of a generated universe (``universe.people`` and
    ``universe.vocab``), built once and kept with the universe."""

    def build() -> Vocabulary:
        people = universe.people
        vocab = universe.vocab
        return Vocabulary(
            (p.name for p in people),
            {"job": vocab.get("jobs", ()), "hobby": vocab.get("hobbies", ()),
             "city": vocab.get("cities", ())},
            {p.name: p.gender for p in people}, nouns={"hobby": HOBBY_NOUNS},
            world=(getattr(universe, "meta", None) or {}).get("source") or "people")

    index = getattr(universe, "_index", None)
    return index(_KEY, build) if callable(index) else build()


__all__ = ["people_vocabulary"]
