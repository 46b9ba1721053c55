"""Answer statements: the one-sentence form in which a note states the answer to a question.

Every question template (:data:`kbgym.worlds.people.forms.QUESTION_FORMS`) has one statement form, e.g. the answer
to ``What is the job of the spouse of {X}?`` is stated as ``The job of the spouse of {X} is
baker.`` A content-writing agent leaves such sentences in the library; a reader recognises them;
the misinformation metric (``kbgym.metrics.misinformation``) checks them against the universe.

Slots are the template's surface values, as in the question text: ``X`` and ``Y`` are full
names, ``job``/``hobby``/``city`` vocabulary values. Everything here is a pure function of
strings.
"""

from __future__ import annotations

import re
from functools import lru_cache
from collections.abc import Mapping

from kbgym.worlds.people.forms import QUESTION_FORMS, form_pattern, question_slots

#: template name -> the statement's opening, with the template's slots.
STATEMENTS: dict[str, str] = {
    "qc1_job": "The job of {X} is",
    "qc1_hobby": "The hobby of {X} is",
    "qc1_city": "The city where {X} lives is",
    "qc2_spouse_job": "The job of the spouse of {X} is",
    "qc2_father_hobby": "The hobby of the father of {X} is",
    "qc2_mother_city": "The city where the mother of {X} lives is",
    "qc3_spouse_father_hobby": "The hobby of the father of the spouse of {X} is",
    "qc3_father_spouse_job": "The job of the spouse of the father of {X} is",
    "qc3_spouse_mother_city": "The city where the mother of the spouse of {X} lives is",
    "qc4_children": "The number of children of {X} is",
    "qc4_friends": "The number of friends of {X} is",
    "qc5_brother_job": "The job of the brother of {X} is",
    "qc5_sister_hobby": "The hobby of the sister of {X} is",
    "qc5_spouse_city": "The city where the spouse of {X} lives is",
    "qc6_job_city": "The {job} who lives in the city of {city} is",
    "qc6_job_hobby": "The {job} whose hobby is {hobby} is",
    "qc6_job_city_hobby": "The {job} who lives in the city of {city} and whose hobby is {hobby} is",
    "qc7_common_friend": "The friend of {X} who is also a friend of {Y} is",
    "qc7_child_friend": "The child of {X} who is a friend of {Y} is",
    "qc8_grandchildren": "The number of grandchildren of {X} is",
    "qc8_friend_job": "The number of friends of {X} who have the job of {job} is",
    "qc8_spouse_friends": "The number of friends of the spouse of {X} is",
    "qc9_older_pair": "The older of {X} and {Y} is",
    "qc9_oldest_child": "The oldest child of {X} is",
    "qc10_spouse_job_city":
        "The person whose spouse is the {job} who lives in the city of {city} is",
    "qc10_spouse_job": "The person whose spouse has the job of {job} is",
}
assert set(STATEMENTS) == set(QUESTION_FORMS), "one statement form per template"



def fill_pattern(form: str) -> str:
    """A regex source matching ``form`` in any letter case (compile it with
    ``re.IGNORECASE``): :func:`kbgym.worlds.people.forms.form_pattern`, loose."""
    return form_pattern(form, loose=True)


_PARSE = tuple(
    (name, re.compile(r"^\s*" + fill_pattern(STATEMENTS[name])
                      + r"\s+(?P<answer>\S.*?)\s*\.?\s*$", re.IGNORECASE))
    # longest forms first, so that no form is read as a shorter one with a wordier slot
    for name in sorted(STATEMENTS, key=lambda n: (-len(STATEMENTS[n]), n))
)


def statement_prefix(template: str, slots: Mapping[str, str]) -> str:
    """The opening of the answer statement: ``The job of the spouse of Ann Lee is``.

    ``slots`` maps the template's slot names (``X``, ``Y``, ``job``, ``city``, ``hobby``) to
    surface values; extra keys are ignored. ``KeyError`` for an unknown template or a missing
    slot."""
    return STATEMENTS[template].format(**{k: v for k, v in slots.items() if v is not None})


def answer_statement(template: str, slots: Mapping[str, str], answer: str) -> str:
    """The sentence stating ``answer``: ``The job of the spouse of Ann Lee is baker.``"""
    return f"{statement_prefix(template, slots)} {answer.strip().rstrip('.')}."


def parse_statement(text: str) -> tuple[str, dict[str, str], str] | None:
    """``(template, slots, answer)`` when ``text`` is one answer statement, else ``None``.

    The form matches in any letter case (slots are returned as written). The answer is what
    follows the form's closing ``is``, without a final period. (Read once per text: agents
    read the same notes again and again; the caller gets its own slots dict.)
    """
    got = _parse_statement(text)
    return None if got is None else (got[0], dict(got[1]), got[2])


@lru_cache(maxsize=65536)
def _parse_statement(text: str) -> tuple[str, tuple, str] | None:
    for name, pattern in _PARSE:
        m = pattern.match(text)
        if m is not None:
            g = m.groupdict()
            answer = g.pop("answer").strip()
            return name, tuple((k, v) for k, v in g.items() if v is not None), answer
    return None


__all__ = ["STATEMENTS", "answer_statement", "fill_pattern", "parse_statement",
           "question_slots", "statement_prefix"]  # question_slots: kbgym.worlds.people.forms
