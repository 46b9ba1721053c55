"""The question shapes (docs/protocol.md §4): the text of each of the 26 templates, with slots
``{X}`` ``{Y}`` (full names) and ``{job}`` ``{city}`` ``{hobby}`` (vocabulary values).
:func:`render_question` fills one; :func:`parse_question` tells which shape a text has and
reads its slots back, both from :data:`QUESTION_FORMS`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

#: template -> question text, in the table order of §4.2.
QUESTION_FORMS: dict[str, str] = {
    "qc1_job": "What is the job of {X}?",
    "qc1_hobby": "What is the hobby of {X}?",
    "qc1_city": "In which city does {X} live?",
    "qc2_spouse_job": "What is the job of the spouse of {X}?",
    "qc2_father_hobby": "What is the hobby of the father of {X}?",
    "qc2_mother_city": "In which city does the mother of {X} live?",
    "qc3_spouse_father_hobby": "What is the hobby of the father of the spouse of {X}?",
    "qc3_father_spouse_job": "What is the job of the spouse of the father of {X}?",
    "qc3_spouse_mother_city": "In which city does the mother of the spouse of {X} live?",
    "qc4_children": "How many children does {X} have?",
    "qc4_friends": "How many friends does {X} have?",
    "qc5_brother_job": "What is the job of the brother of {X}?",
    "qc5_sister_hobby": "What is the hobby of the sister of {X}?",
    "qc5_spouse_city": "In which city does the spouse of {X} live?",
    "qc6_job_city": "Who is the {job} who lives in the city of {city}?",
    "qc6_job_hobby": "Who is the {job} whose hobby is {hobby}?",
    "qc6_job_city_hobby":
        "Who is the {job} who lives in the city of {city} and whose hobby is {hobby}?",
    "qc7_common_friend": "Which friend of {X} is also a friend of {Y}?",
    "qc7_child_friend": "Which child of {X} is a friend of {Y}?",
    "qc8_grandchildren": "How many grandchildren does {X} have?",
    "qc8_friend_job": "How many friends of {X} have the job of {job}?",
    "qc8_spouse_friends": "How many friends does the spouse of {X} have?",
    "qc9_older_pair": "Who is older, {X} or {Y}?",
    "qc9_oldest_child": "Who is the oldest child of {X}?",
    "qc10_spouse_job_city": "Whose spouse is the {job} who lives in the city of {city}?",
    "qc10_spouse_job": "Whose spouse has the job of {job}?",
}

_SLOT = re.compile(r"(\{[A-Za-z]+\})")

#: How each slot reads when the text is exactly as the environment prints it.
_STRICT = {
    "X": r"(?P<X>[A-Z][A-Za-z-]* [A-Z][A-Za-z-]*)",
    "Y": r"(?P<Y>[A-Z][A-Za-z-]* [A-Z][A-Za-z-]*)",
    "job": r"(?P<job>[a-z]+)",
    "hobby": r"(?P<hobby>[a-z][a-z ]*?)",
    "city": r"(?P<city>[A-Z][A-Za-z-]*)",
}
#: ... and in any letter case, with whitespace runs read loosely (a form quoted in a note).
_LOOSE = {
    "X": r"(?P<X>[A-Za-z][A-Za-z-]* [A-Za-z][A-Za-z-]*)",
    "Y": r"(?P<Y>[A-Za-z][A-Za-z-]* [A-Za-z][A-Za-z-]*)",
    "job": r"(?P<job>[A-Za-z][A-Za-z-]*)",
    "hobby": r"(?P<hobby>[A-Za-z][A-Za-z-]*(?: [A-Za-z][A-Za-z-]*)*?)",
    "city": r"(?P<city>[A-Za-z][A-Za-z-]*)",
}


def form_pattern(form: str, *, loose: bool = False) -> str:
    """A regex source matching ``form`` (a format string with ``{X}``-style slots), one named
    group per slot. ``loose``: slots in any case and whitespace runs matched loosely (compile
    with ``re.IGNORECASE``); otherwise the form's own text, escaped."""
    slots = _LOOSE if loose else _STRICT
    out = []
    for part in _SLOT.split(form):
        if part.startswith("{") and part.endswith("}"):
            out.append(slots[part[1:-1]])
        elif part and not loose:
            out.append(re.escape(part))
        elif part:
            words = [re.escape(w) for w in part.split()]
            lead = r"\s+" if part[:1].isspace() else ""
            tail = r"\s+" if part[-1:].isspace() else ""
            out.append(lead + r"\s+".join(words) + tail if words else r"\s+")
    return "".join(out)


# The patterns are compiled on first use, not at import (every command loads every world;
# compiling the 78 patterns was most of this world's import time).
@cache
def _exact() -> tuple:
    return tuple((t, re.compile("^" + form_pattern(f) + "$")) for t, f in QUESTION_FORMS.items())


@cache
def _any_case() -> dict:
    return {t: re.compile(r"^\s*" + form_pattern(f, loose=True) + r"\s*$", re.IGNORECASE)
            for t, f in QUESTION_FORMS.items()}


@cache
def _embedded() -> re.Pattern:
    """One pattern for all 26 shapes (their groups unnamed): a text is searched once, not 26
    times."""
    alts = (re.sub(r"\(\?P<[A-Za-z]+>", "(?:", form_pattern(f, loose=True)).replace(r"\?", r"\??")
            for f in QUESTION_FORMS.values())
    return re.compile("|".join(f"(?:{a})" for a in alts), re.IGNORECASE)


@dataclass(frozen=True)
class ParsedQuestion:
    """A question's template and its slots (``X``, ``Y``, ``job``, ``city``, ``hobby``)."""

    template: str
    slots: dict = field(default_factory=dict)

    @property
    def category(self) -> str:
        """``QC1`` … ``QC10``, from the template's name."""
        return self.template.split("_", 1)[0].upper()

    @property
    def X(self) -> str | None:
        return self.slots.get("X")

    @property
    def Y(self) -> str | None:
        return self.slots.get("Y")


def render_question(template: str, slots: Mapping[str, str]) -> str:
    """The question text of ``template`` with ``slots`` filled."""
    return QUESTION_FORMS[template].format(**slots)


def parse_question(text: str) -> ParsedQuestion | None:
    """Which of the 26 shapes ``text`` has (as the environment prints it, surrounding
    whitespace aside), and its slots; None for any other text."""
    text = text.strip()
    for template, pattern in _exact():
        m = pattern.match(text)
        if m is not None:
            return ParsedQuestion(template, {k: v for k, v in m.groupdict().items()})
    return None


def question_slots(template: str, text: str) -> dict[str, str] | None:
    """The slots of ``text`` read as a question of ``template`` in any letter case (a
    question quoted in a note), or None when it has another shape."""
    m = _any_case()[template].match(text)
    return None if m is None else {k: v for k, v in m.groupdict().items() if v is not None}


def embeds_question(text: str) -> bool:
    """Whether ``text`` contains one of the 26 question shapes anywhere, in any letter case
    (its ``?`` optional): a question quoted in a note, however the note is cased."""
    return _embedded().search(text) is not None
