"""Typed keys of a text (SPEC §4.3): roster names and vocabulary values it mentions."""

from __future__ import annotations

from collections.abc import Iterable

from kbgym.protocol.tokens import tokenize


class KeyFinder:
    """Finds ``person:``, ``job:``, ``hobby:`` and ``city:`` keys in a text.

    Matching ignores case and respects word boundaries: the text is cut into words and every
    run of up to ``max_words`` consecutive words is looked up, so multi-word hobbies match as
    phrases and a name never matches inside a longer word.
    """

    def __init__(self, names: Iterable[str], jobs: Iterable[str], hobbies: Iterable[str],
                 cities: Iterable[str]):
        self._lookup: dict[tuple[str, ...], str] = {}
        for kind, values in (("person", names), ("job", jobs), ("hobby", hobbies),
                             ("city", cities)):
            for v in values:
                self._lookup[tuple(tokenize(v))] = f"{kind}:{v}"
        self._max_words = max((len(k) for k in self._lookup), default=0)  # a corpus: no roster

    @classmethod
    def for_universe(cls, people, vocab: dict) -> "KeyFinder":
        return cls((p.name for p in people), vocab["jobs"], vocab["hobbies"], vocab["cities"])

    def mentions(self, text: str) -> list[str]:
        """Every key occurrence in ``text``, in order of position (repeats kept)."""
        words = tokenize(text)
        found = []
        for i in range(len(words)):
            for n in range(1, self._max_words + 1):
                key = self._lookup.get(tuple(words[i:i + n]))
                if key is not None:
                    found.append(key)
        return found

    def __call__(self, text: str) -> tuple[str, ...]:
        """The sorted, distinct keys of ``text`` (SPEC §4.3)."""
        return tuple(sorted(set(self.mentions(text))))
