"""Entity extraction from note text (SPEC §14): the world's one-fact sentences.

Builders read node *text* only. The universe's world reads it
(:meth:`kbgym.worlds.World.statement_parser`; the people world's §3 shapes, the one table
in its ``facts`` module): each text that is one of its sentences yields a :class:`Statement`
(subject name, relation, object); any other text is ignored, so the same code runs on
untrained and trained libraries. A world without such sentences gives no statements; a
library without a universe is read by the default world.

Mentions of a statement are its subject, the object person of a person relation and the job,
hobby or city value, in that order; dates are never entities. First-mention order is the
order in which entities are first mentioned when the nodes are scanned in id order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from kbgym.worlds.interface import StatementParser

#: The relations of a world's statements, named like the people universe's fact kinds
#: (SPEC §3): what a :meth:`kbgym.worlds.World.statement_parser` returns.
PERSON_RELATIONS = ("married", "child_of", "parent_of", "friend_of")
VALUE_RELATIONS = ("job", "hobby", "city")
RELATIONS = ("job", "hobby", "city", "born", "married", "child_of", "parent_of", "friend_of")

#: text -> (subject, relation, object) or None
Parser = StatementParser


def _reads_nothing(text: str) -> None:
    return None


def parser_of(universe: Any = None) -> Parser:
    """The statement parser of ``universe``'s world (None: the default world's); a world
    without one reads nothing."""
    from kbgym.worlds.registry import default_world, world_of

    w = default_world() if universe is None else world_of(universe)
    return w.statement_parser(universe) or _reads_nothing


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


def parse(text: str, parser: Parser | None = None) -> tuple[str, str, str] | None:
    """(subject, relation, object) of one of the world's sentences (``parser``; None: the
    default world's), or None when the text is none of them."""
    return (parser or parser_of())(text)


def extract(nodes: Iterable, parser: Parser | None = None) -> list[Statement]:
    """The statements among ``nodes`` (objects with ``id`` and ``text``), in the given order,
    read by ``parser`` (:func:`parser_of`; None: the default world's).

    Pass the library itself to scan in id order.
    """
    parser = parser or parser_of()
    out = []
    for n in nodes:
        parsed = parser(n.text)
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


def mentions_of(library: Iterable, parser: Parser | None = None) -> Mentions:
    """Parse ``library`` (id order) with ``parser`` and index its mentions."""
    return Mentions(extract(library, parser))


__all__ = ["Entity", "Mentions", "PERSON_RELATIONS", "Parser", "RELATIONS", "Statement",
           "VALUE_RELATIONS", "extract", "mentions_of", "parse", "parser_of"]
