"""A world's closed vocabulary, compiled for reading: every name and value it knows, and the
token sequences that name each one (full names, initials, surname-first, first names and
surnames alone, plural values), looked up one token window at a time.

A :class:`Vocabulary` is built once per universe (for generated people universes by
:func:`kbgym.claims.people.people_vocabulary`) and reused for every note read; it keeps a
bounded cache of the claims of each text it has read (:meth:`Vocabulary.read`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from kbgym.protocol.tokens import tokenize

#: The kinds of value a person holds one of (``X's job is baker.``).
VALUE_KINDS = ("job", "hobby", "city")
#: How many texts' claims a vocabulary remembers (the reader reads the same notes often).
CACHE_SIZE = 1 << 16


class Entry(NamedTuple):
    """What one token sequence may name. ``cls`` is ``person`` or a value kind; ``form`` is
    ``full`` (a whole name or value), ``initial`` (``F. Abernathy``), ``reversed``
    (``Abernathy, Felix``), ``reversed_initial`` (``Abernathy, F.``), ``first`` or ``last``
    (one word of a name: resolved from the other names of the same text)."""

    cls: str
    names: tuple[str, ...]  # canonical names or values it may stand for
    form: str


def plural(value: str) -> str:
    """``cooper`` -> ``coopers``, ``glass`` -> ``glasses``: the last word takes the plural."""
    head, _, last = value.rpartition(" ")
    pl = last + ("es" if last.endswith(("s", "sh", "ch", "x")) else "s")
    return f"{head} {pl}" if head else pl


class Vocabulary:
    """A world's names and values, compiled into a token-window lookup table.

    ``people``: full names (``Felix Abernathy``); ``values``: kind -> values (``{"job":
    ["baker", ...], "hobby": [...], "city": [...]}``); ``genders``: name -> ``male`` /
    ``female`` (which parent word a person's children list takes). ``world`` names the world
    the vocabulary is of (``people`` for generated universes); ``nouns``: kind -> value ->
    nouns for its holders (``cyclist`` for ``cycling``), read as the value."""

    def __init__(self, people: Iterable[str] = (), values: Mapping[str, Iterable[str]] | None = None,
                 genders: Mapping[str, str] | None = None, *, world: str = "people",
                 nouns: Mapping[str, Mapping[str, Iterable[str]]] | None = None):
        self.world = world
        #: kind -> value -> nouns for its holders (``{"hobby": {"cycling": ["cyclist"]}}``):
        #: read as the value, singular and plural, unless the words already name something.
        self.nouns = {kind: {v: tuple(ns) for v, ns in by.items()}
                      for kind, by in (nouns or {}).items()}
        self.people: tuple[str, ...] = tuple(dict.fromkeys(p for p in people if p.strip()))
        self.people_set = frozenset(self.people)
        self.values: dict[str, tuple[str, ...]] = {
            kind: tuple(dict.fromkeys(v for v in vs if v.strip()))
            for kind, vs in (values or {}).items()}
        self.genders: dict[str, str] = dict(genders or {})
        self.lexicon: dict[tuple[str, ...], tuple[Entry, ...]] = {}
        self._by_fold: dict[str, str] = {}
        self._value_fold: dict[str, dict[str, str]] = {}
        self._compile()
        self._cache: dict[str, object] = {}

    # -- compiling ---------------------------------------------------------------------------
    def _compile(self) -> None:
        table: dict[tuple[str, ...], dict[tuple[str, str], list[str]]] = {}

        def add(toks, cls, form, name):
            toks = tuple(toks)
            if toks:
                table.setdefault(toks, {}).setdefault((cls, form), []).append(name)

        for name in self.people:
            toks = tokenize(name)
            self._by_fold[" ".join(toks)] = name
            add(toks, "person", "full", name)
            if len(toks) >= 2:
                first, last = toks[0], toks[-1]
                add((first[0], *toks[1:]), "person", "initial", name)
                add((last, first), "person", "reversed", name)
                add((last, first[0]), "person", "reversed_initial", name)
                add((first,), "person", "first", name)
                add((last,), "person", "last", name)
        for kind, vs in self.values.items():
            fold = self._value_fold.setdefault(kind, {})
            for v in vs:
                toks = tokenize(v)
                fold[" ".join(toks)] = v
                add(toks, kind, "full", v)
                if kind == "job":
                    add(tokenize(plural(v)), kind, "full", v)
        named = set(table)  # a holder noun never shadows a name or value (``Archer``, ``bakers``)
        for kind, by_value in self.nouns.items():
            for v in set(self.values.get(kind, ())) & set(by_value):
                for noun in by_value[v]:
                    for toks in (tuple(tokenize(noun)), tuple(tokenize(plural(noun)))):
                        if toks not in named:
                            add(toks, kind, "full", v)
        rank = {"full": 0, "initial": 1, "reversed": 2, "reversed_initial": 3, "first": 4,
                "last": 5}
        for toks, by in table.items():
            entries = sorted(by.items(), key=lambda kv: (rank[kv[0][1]], kv[0][0] != "person"))
            self.lexicon[toks] = tuple(Entry(cls, tuple(dict.fromkeys(names)), form)
                                       for (cls, form), names in entries)
        self.max_words = max((len(k) for k in self.lexicon), default=0)
        #: The words some entry starts with: any other word is looked up no further.
        self.first_words = frozenset(k[0] for k in self.lexicon)

    # -- lookups -----------------------------------------------------------------------------
    def person(self, text: str) -> str | None:
        """The canonical full name ``text`` spells, ignoring case and spacing, or None."""
        return self._by_fold.get(" ".join(tokenize(text)))

    def value(self, kind: str, text: str) -> str | None:
        """The canonical ``kind`` value ``text`` spells (ignoring case), or None."""
        return self._value_fold.get(kind, {}).get(" ".join(tokenize(text)))

    def canonical(self, slot: str, text: str) -> str | None:
        """A question slot (``X``/``Y``: a name; ``job``/``hobby``/``city``: a value) in the
        vocabulary's own spelling, or None when it names nothing known."""
        if slot in ("X", "Y"):
            return self.person(text)
        return self.value(slot, text)

    def gender(self, name: str) -> str | None:
        return self.genders.get(name)

    # -- reading -----------------------------------------------------------------------------
    def read(self, text: str):
        """The :class:`kbgym.claims.Claims` of ``text`` (memoised per text)."""
        got = self._cache.get(text)
        if got is None:
            from kbgym.claims.reader import read_text

            got = read_text(text, self)
            if len(self._cache) >= CACHE_SIZE:
                self._cache.clear()
            self._cache[text] = got
        return got

    def __repr__(self) -> str:
        return (f"Vocabulary(world={self.world!r}, people={len(self.people)}, "
                f"values={ {k: len(v) for k, v in self.values.items()} })")


__all__ = ["CACHE_SIZE", "Entry", "VALUE_KINDS", "Vocabulary", "plural"]
