"""The §3 sentences (docs/protocol.md §3): every fact of a generated universe is one note in
one of nine forms. :data:`FORMS` is the one table; :func:`render_fact` writes it and
:func:`parse_fact` reads it back, both derived from that table, so they cannot disagree.

A drifted universe (§20) writes a changed fact with :data:`DRIFT_PREFIX` in front
(``As of the latest record, X lives in the city of Y.``); it still states that fact.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

MONTHS: tuple[str, ...] = ("January", "February", "March", "April", "May", "June", "July",
                           "August", "September", "October", "November", "December")
DRIFT_PREFIX = "As of the latest record, "

#: kind -> sentence, with ``{subj}`` and ``{obj}``. ``born``'s object is written as a date
#: (``March 9, 1957``); ``father_of``/``mother_of`` are the two wordings of ``parent_of``.
FORMS: dict[str, str] = {
    "job": "{subj}'s job is {obj}.",
    "hobby": "{subj}'s hobby is {obj}.",
    "city": "{subj} lives in the city of {obj}.",
    "born": "{subj} was born on {obj}.",
    "married": "{subj} is married to {obj}.",
    "child_of": "{subj} is a child of {obj}.",
    "father_of": "{subj} is the father of {obj}.",
    "mother_of": "{subj} is the mother of {obj}.",
    "friend_of": "{subj} is a friend of {obj}.",
}
KINDS: tuple[str, ...] = tuple(FORMS)
#: Kinds whose object is a person.
PERSON_KINDS = frozenset({"married", "child_of", "father_of", "mother_of", "friend_of"})
#: Kinds whose object is a job, hobby or city value.
VALUE_KINDS = frozenset({"job", "hobby", "city"})


class Fact(NamedTuple):
    """What one §3 sentence states. ``obj`` is a name, a value or ``YYYY-MM-DD``."""

    kind: str
    subj: str
    obj: str

    @property
    def relation(self) -> str:
        """The universe's fact kind: ``parent_of`` for both parent wordings."""
        return "parent_of" if self.kind in ("father_of", "mother_of") else self.kind

    @property
    def names(self) -> tuple[str, ...]:
        """The people the fact names."""
        return (self.subj, self.obj) if self.kind in PERSON_KINDS else (self.subj,)


@lru_cache(maxsize=65536)
def render_date(iso: str) -> str:
    """``1957-03-09`` -> ``March 9, 1957``."""
    y, m, d = iso.split("-")
    return f"{MONTHS[int(m) - 1]} {int(d)}, {int(y)}"


def render_fact(fact: Fact, *, latest: bool = False) -> str:
    """The sentence of ``fact`` (``latest``: with the drift prefix)."""
    obj = render_date(fact.obj) if fact.kind == "born" else fact.obj
    text = FORMS[fact.kind].format(subj=fact.subj, obj=obj)
    return DRIFT_PREFIX + text if latest else text


# -- parsing: one alternation built from FORMS --------------------------------------------------
#: A full name: two or more capitalised words (first name and surname).
NAME = r"[A-Z][A-Za-z-]*(?: [A-Z][A-Za-z-]*)+"
_OBJECT = {
    "job": r"[a-z]+(?:[ -][a-z]+)*",
    "hobby": r"[a-z]+(?:[ -][a-z]+)*",
    "city": r"[A-Z][A-Za-z-]*(?: [A-Z][A-Za-z-]*)*",
    "born": rf"(?:{'|'.join(MONTHS)}) [0-9]{{1,2}}, [0-9]{{4}}",
}
_MONTH_NUM = {m: i for i, m in enumerate(MONTHS, start=1)}


def _branch(kind: str) -> str:
    subj, obj = FORMS[kind].split("{subj}")[1].split("{obj}")
    return (f"(?P<{kind}>(?P<{kind}_s>{NAME}){re.escape(subj)}"
            f"(?P<{kind}_o>{_OBJECT.get(kind, NAME)}){re.escape(obj)})")


_SENTENCE = re.compile("|".join(_branch(k) for k in KINDS))


@lru_cache(maxsize=65536)
def parse_fact(text: str, *, drift: bool = True) -> Fact | None:
    """The fact a §3 sentence states, or None for any other text (an authored note, say).

    The whole text must be the sentence. With ``drift`` (the default) a sentence behind the
    drift prefix counts too. (Cached: agents read the same notes again and again; a Fact is
    immutable.)"""
    if drift and text.startswith(DRIFT_PREFIX):
        text = text[len(DRIFT_PREFIX):]
    m = _SENTENCE.fullmatch(text)
    if m is None:
        return None
    kind = str(m.lastgroup)  # the branch: it closes last
    g = m.groupdict()
    obj = g[f"{kind}_o"]
    if kind == "born":
        month, day, year = obj.replace(",", "").split(" ")
        obj = f"{int(year):04d}-{_MONTH_NUM[month]:02d}-{int(day):02d}"
    return Fact(kind, g[f"{kind}_s"], obj)


def baseline_statement(text: str) -> tuple[str, str, str] | None:
    """(subject, relation, object) of a §3 sentence, the relation a universe fact kind
    (``parent_of`` for both parent wordings), or None when the text has no §3 shape: what the
    baselines B2-B4 index (:meth:`World.statement_parser`). Drift notes (``As of the latest
    record, ...``) are not read: the baselines index a universe's sentences as first written."""
    fact = parse_fact(text.strip(), drift=False)
    return None if fact is None else (fact.subj, fact.relation, fact.obj)


def is_latest(text: str) -> bool:
    """Whether ``text`` carries the drift prefix."""
    return text.startswith(DRIFT_PREFIX)
