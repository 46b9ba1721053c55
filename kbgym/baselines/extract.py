"""Entity extraction from note text (SPEC §14): one anchored pattern per §3 sentence shape.

Builders read node *text* only. Each text that has one of the §3 shapes
(:mod:`kbgym.worlds.people.facts`, the one table) yields a
:class:`Statement` (subject name, relation, object); any other text is ignored, so the same
code runs on untrained, trained and PhantomWiki-like libraries.

Mentions of a statement are its subject, the object person of a person relation and the job,
hobby or city value, in that order; dates are never entities. First-mention order is the
order in which entities are first mentioned when the nodes are scanned in id order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from kbgym.worlds.people.facts import MONTHS, parse_fact

#: The relations, named like the universe's fact kinds (SPEC §3).
PERSON_RELATIONS = ("married", "child_of", "parent_of", "friend_of")
VALUE_RELATIONS = ("job", "hobby", "city")
RELATIONS = ("job", "hobby", "city", "born", "married", "child_of", "parent_of", "friend_of")

class Entity(NamedTuple):
    """A mentioned thing: ``kind`` is person, job, hobby or city; ``name`` its text."""

    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"


@dataclass(frozen=True, slots=True)
class Statement:
    """One parsed note. ``object`` is a name, a value or an ISO date (``born``)."""

    id: str
    subject: str
    relation: str
    object: str

    @property
    def mentions(self) -> tuple[Entity, ...]:
        """Subject, then the object person or the job/hobby/city value; never a date."""
        subj = Entity("person", self.subject)
        if self.relation in PERSON_RELATIONS:
            if self.object == self.subject:
                return (subj,)
            return (subj, Entity("person", self.object))
        if self.relation in VALUE_RELATIONS:
            return (subj, Entity(self.relation, self.object))
        return (subj,)


def parse(text: str) -> tuple[str, str, str] | None:
    """(subject, relation, object) of a §3 sentence (:func:`kbgym.worlds.people.facts.parse_fact`), or
    None when the text has no §3 shape. Drift notes (``As of the latest record, ...``) are
    not read: the baselines index a universe's sentences as first written."""
    fact = parse_fact(text.strip(), drift=False)
    return None if fact is None else (fact.subj, fact.relation, fact.obj)


def extract(nodes: Iterable) -> list[Statement]:
    """The statements among ``nodes`` (objects with ``id`` and ``text``), in the given order.

    Pass the library itself to scan in id order.
    """
    out = []
    for n in nodes:
        parsed = parse(n.text)
        if parsed is not None:
            out.append(Statement(n.id, *parsed))
    return out


class Mentions:
    """Entities in first-mention order and, per entity, its mentioning statement ids (in the
    statements' order, each id once)."""

    def __init__(self, statements: Iterable[Statement]):
        self.statements: list[Statement] = list(statements)
        self.by_entity: dict[Entity, list[str]] = {}
        self.by_subject: dict[str, list[str]] = {}
        for st in self.statements:
            for e in st.mentions:
                ids = self.by_entity.get(e)
                if ids is None:
                    self.by_entity[e] = [st.id]
                elif ids[-1] != st.id:
                    ids.append(st.id)
            self.by_subject.setdefault(st.subject, []).append(st.id)

    @property
    def entities(self) -> list[Entity]:
        """Every entity, in first-mention order."""
        return list(self.by_entity)

    @property
    def people(self) -> list[str]:
        """Person names, in first-mention order."""
        return [e.name for e in self.by_entity if e.kind == "person"]

    def of(self, entity: Entity) -> list[str]:
        return self.by_entity.get(entity, [])

    def person_pairs(self) -> Iterable[tuple[str, str]]:
        """(subject, object) of every person-person statement, in statement order."""
        for st in self.statements:
            if st.relation in PERSON_RELATIONS and st.object != st.subject:
                yield st.subject, st.object


def mentions_of(library: Iterable) -> Mentions:
    """Parse ``library`` (id order) and index its mentions."""
    return Mentions(extract(library))


__all__ = ["Entity", "MONTHS", "Mentions", "PERSON_RELATIONS", "RELATIONS",
           "Statement", "VALUE_RELATIONS", "extract", "mentions_of", "parse"]
