"""The note sentences of a PhantomWiki universe (docs/protocol.md §17): the table of
PhantomWiki 1.0.3's article sentence forms, written and read from one table.

PhantomWiki renders each (predicate, subject) group as one sentence: ``The sisters of X are A,
B.``, ``The occupation of X is baker.``. :data:`SENTENCE_FORMS` lists every form it can write
(its family, friendship and attribute templates, singular and plural); :func:`render_sentence`
writes one and :func:`parse_sentence` inverts them. A note parsed this way yields one fact
``(predicate, subject, object)`` per listed object.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: (predicate, singular form, plural form or None); ``<subject>`` marks the subject. The object
#: list follows the form and is joined with ``", "``. Order is irrelevant: no sentence matches
#: two forms.
SENTENCE_FORMS: tuple[tuple[str, str, str | None], ...] = (
    # family (phantom_wiki.facts.family.constants FAMILY_FACT_TEMPLATES / _PL)
    ("brother", "The brother of <subject> is", "The brothers of <subject> are"),
    ("sister", "The sister of <subject> is", "The sisters of <subject> are"),
    ("sibling", "<subject>'s sibling is", "<subject>'s siblings are"),
    ("parent", "The parent of <subject> is", "The parents of <subject> are"),
    ("father", "The father of <subject> is", None),
    ("mother", "The mother of <subject> is", None),
    ("spouse", "<subject>'s spouse is", None),
    ("child", "The child of <subject> is", "The children of <subject> are"),
    ("son", "The son of <subject> is", "The sons of <subject> are"),
    ("daughter", "The daughter of <subject> is", "The daughters of <subject> are"),
    ("wife", "The wife of <subject> is", None),
    ("husband", "The husband of <subject> is", None),
    ("stepfather", "The stepfather of <subject> is", None),
    ("stepmother", "The stepmother of <subject> is", None),
    ("uncle", "The uncle of <subject> is", "The uncles of <subject> are"),
    ("aunt", "The aunt of <subject> is", "The aunts of <subject> are"),
    ("father_in_law", "The father-in-law of <subject> is", None),
    ("mother_in_law", "The mother-in-law of <subject> is", None),
    ("brother_in_law", "The brother-in-law of <subject> is",
     "The brothers-in-law of <subject> are"),
    ("sister_in_law", "The sister-in-law of <subject> is", "The sisters-in-law of <subject> are"),
    ("son_in_law", "The son-in-law of <subject> is", "The sons-in-law of <subject> are"),
    ("daughter_in_law", "The daughter-in-law of <subject> is",
     "The daughters-in-law of <subject> are"),
    # friendship
    ("friend", "The friend of <subject> is", "The friends of <subject> are"),
    # attributes (values, not people)
    ("dob", "The date of birth of <subject> is", None),
    ("job", "The occupation of <subject> is", None),
    ("hobby", "The hobby of <subject> is", None),
    ("gender", "The gender of <subject> is", None),
)

#: Predicates whose objects are values rather than people.
ATTRIBUTE_PREDICATES = frozenset({"dob", "job", "hobby", "gender"})


def _branch(i: int, form: str) -> str:
    head, tail = form.split("<subject>")
    return (f"(?P<f{i}>" + re.escape(head) + f"(?P<s{i}>.+?)" + re.escape(tail)
            + f" (?P<o{i}>.+)\\.)")


_FORMS: tuple[str, ...] = tuple(
    pred for pred, one, many in SENTENCE_FORMS for form in (one, many) if form)
#: Every form as one anchored alternation, tried in table order: the first form that matches
#: the whole sentence wins, as a loop over the forms would (one C-level match per sentence).
_PATTERN = re.compile("^(?:" + "|".join(
    _branch(i, form) for i, form in enumerate(
        form for _, one, many in SENTENCE_FORMS for form in (one, many) if form)) + ")$")


@dataclass(frozen=True, slots=True)
class ParsedSentence:
    predicate: str
    subject: str
    objects: tuple[str, ...]


def parse_sentence(text: str) -> ParsedSentence | None:
    """The sentence's predicate, subject and objects, or None for a form not in the table."""
    m = _PATTERN.match(text)
    if m is None:
        return None
    i = str(m.lastgroup)[1:]  # the outer group f{i} closes last
    objects = tuple(o.strip() for o in m.group("o" + i).split(", ") if o.strip())
    return ParsedSentence(_FORMS[int(i)], m.group("s" + i), objects) if objects else None


def render_sentence(predicate: str, subject: str, objects: tuple[str, ...] | list[str]) -> str:
    """The sentence stating ``objects`` of ``subject`` (the plural form for several, where
    the predicate has one)."""
    for pred, one, many in SENTENCE_FORMS:
        if pred == predicate:
            form = many if len(objects) > 1 and many else one
            return f"{form.replace('<subject>', subject)} {', '.join(objects)}."
    raise ValueError(f"unknown PhantomWiki predicate {predicate!r}")
