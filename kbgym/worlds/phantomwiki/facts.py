"""Facts of a PhantomWiki universe, indexed with the note that states them; the sentences
themselves are read by :mod:`kbgym.worlds.phantomwiki.grammar`."""

from __future__ import annotations

from collections import defaultdict

from kbgym.worlds.phantomwiki.grammar import (  # noqa: F401  (the adapter's names)
    ATTRIBUTE_PREDICATES,
    SENTENCE_FORMS,
    ParsedSentence,
    parse_sentence,
)


class FactStore:
    """Base facts ``pred(subject, object)``, each with the node that states it."""

    def __init__(self):
        self._all: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
        self._by_s: dict[tuple[str, str], list[tuple[str, str, str]]] = defaultdict(list)
        self._by_o: dict[tuple[str, str], list[tuple[str, str, str]]] = defaultdict(list)

    def add(self, pred: str, subject: str, obj: str, node_id: str) -> None:
        row = (subject, obj, node_id)
        self._all[pred].append(row)
        self._by_s[(pred, subject)].append(row)
        self._by_o[(pred, obj)].append(row)

    @classmethod
    def from_nodes(cls, nodes) -> "FactStore":
        """Parse ``(node id, text)`` pairs; unparsed sentences add nothing."""
        return cls.from_parsed((node_id, parse_sentence(text)) for node_id, text in nodes)

    @classmethod
    def from_parsed(cls, rows) -> "FactStore":
        """``(node id, ParsedSentence or None)`` pairs, already parsed."""
        store = cls()
        for node_id, parsed in rows:
            if parsed is not None:
                for obj in parsed.objects:
                    store.add(parsed.predicate, parsed.subject, obj, node_id)
        return store

    @property
    def predicates(self) -> frozenset[str]:
        return frozenset(self._all)

    def match(self, pred: str, subject: str | None, obj: str | None):
        """``(subject, object, node id)`` rows; a None argument matches anything."""
        if subject is not None:
            rows = self._by_s.get((pred, subject), ())
            return [r for r in rows if obj is None or r[1] == obj]
        if obj is not None:
            return list(self._by_o.get((pred, obj), ()))
        return list(self._all.get(pred, ()))
