"""Every string of the casebook world that carries a fact, in one table: the generator renders
paragraphs from it and readers, compilers and the gold checker parse paragraphs back with it.
Standard library only.

A paragraph note starts with its locator, ``[CP-10 (2019 edition) § 3.2]`` or ``[CP-E04
§ 2.1]`` (document, section, paragraph), then sentences: fact sentences rendered from
:data:`FORMS` (several wordings per fact kind) and boilerplate that sets nothing. A value is
written in digits or words (``$5,000``, ``5,000 dollars``, ``five thousand dollars``; ``60
days``, ``sixty (60) days``; ``2%``, ``two percent``), a date three ways, a form by its code
(``form CP-10 (2019 edition)``) or by its title (``the Builders Risk Coverage Form (2019
edition)``), a concept by its name or a synonym. The paragraph that changes a provision never
names it: an amendment gives its place (``Paragraph § 3.2 of the Coverage Form …``), a
revision the amendment it revises, a bulletin a regulatory class (``Class A limit``).

:func:`parse_paragraph` returns the :class:`Statement` s of a paragraph; a statement's fields
are raw (a concept id, a value as an int, a date as ``YYYY-MM-DD``, a form by code *or* title:
resolving a title to a code takes the form's header, which is another paragraph).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from kbgym.worlds.casebook.vocab import (CLASS_LETTERS, CLASS_NOUN, CONCEPTS, LINES, MONTHS,
                                         ROMAN, STATES)

# -- numbers, values and dates ---------------------------------------------------------------
_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen")
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_WORD_VALUE = {w: i for i, w in enumerate(_ONES)} | {w: 10 * i for i, w in enumerate(_TENS) if w}


def words(n: int) -> str:
    """``n`` (0 ≤ n < 10^6) in English words: 12500 -> ``twelve thousand five hundred``."""
    if not 0 <= n < 1_000_000:
        raise ValueError(f"words() takes 0..999999, not {n}")
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _ONES[n % 10])
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + ("" if rest == 0 else " " + words(rest))
    rest = n % 1000
    return words(n // 1000) + " thousand" + ("" if rest == 0 else " " + words(rest))


def from_words(text: str) -> int | None:
    """The inverse of :func:`words` (None when ``text`` is not a number in words)."""
    total, current = 0, 0
    for w in re.split(r"[ -]", text.strip()):
        if w in _WORD_VALUE:
            current += _WORD_VALUE[w]
        elif w == "hundred" and current:
            current *= 100
        elif w == "thousand" and current:
            total, current = total + current * 1000, 0
        else:
            return None
    return total + current


_NUMWORD = r"(?:" + "|".join(sorted(set(_ONES) | {t for t in _TENS if t} | {"hundred",
                                   "thousand"}, key=len, reverse=True)) + r")"
_WORDS_RE = _NUMWORD + r"(?:[ -]" + _NUMWORD + r")*"
_DIGITS = r"\d{1,3}(?:,\d{3})*"
VALUE_RE = (rf"\${_DIGITS}|{_DIGITS} dollars|{_WORDS_RE} dollars|{_WORDS_RE} \(\d+\) days"
            rf"|\d+ days|{_WORDS_RE} days|\d+%|\d+ percent|{_WORDS_RE} percent")
VALUE_VOICES = ("digits", "plain", "words")
UNIT_WORD = {"dollars": "dollars", "days": "days", "percent": "percent"}


def format_value(unit: str, value: int, voice: str = "digits") -> str:
    """A value in one of three voices: ``digits`` ($5,000 / 60 days / 2%), ``plain`` (5,000
    dollars / sixty (60) days / 2 percent) or ``words``."""
    if unit == "dollars":
        return {"digits": f"${value:,}", "plain": f"{value:,} dollars",
                "words": f"{words(value)} dollars"}[voice]
    if unit == "days":
        return {"digits": f"{value} days", "plain": f"{words(value)} ({value}) days",
                "words": f"{words(value)} days"}[voice]
    if unit == "percent":
        return {"digits": f"{value}%", "plain": f"{value} percent",
                "words": f"{words(value)} percent"}[voice]
    raise ValueError(f"unknown unit {unit!r}")


def value_forms(unit: str, value: int) -> tuple[str, ...]:
    """Every way the world writes a value (the gold list; canonical first)."""
    out = [format_value(unit, value, v) for v in VALUE_VOICES]
    if unit == "dollars":
        out += [f"{value:,}", f"{words(value)}"]
    elif unit == "days":
        out += [f"{words(value)} days"] if out[2] != f"{words(value)} days" else []
    return tuple(dict.fromkeys(out))


def parse_value(text: str) -> tuple[str, int] | None:
    """(unit, value) of a value string written by :func:`format_value`."""
    t = text.strip()
    m = re.fullmatch(r"\$(" + _DIGITS + r")", t) or re.fullmatch(r"(" + _DIGITS + r") dollars", t)
    if m:
        return "dollars", int(m.group(1).replace(",", ""))
    m = re.fullmatch(r"(.+) \((\d+)\) days", t) or re.fullmatch(r"(\d+) days", t)
    if m:
        return "days", int(m.groups()[-1])
    m = re.fullmatch(r"(\d+)(?:%| percent)", t)
    if m:
        return "percent", int(m.group(1))
    for unit in ("dollars", "days", "percent"):
        if t.endswith(" " + unit):
            n = from_words(t[: -len(unit) - 1])
            if n is not None:
                return unit, n
    return None


DATE_VOICES = ("us", "eu", "iso")
DATE_RE = (r"(?:" + "|".join(MONTHS) + r") \d{1,2}, \d{4}|\d{1,2} (?:" + "|".join(MONTHS)
           + r") \d{4}|\d{4}-\d{2}-\d{2}")


def format_date(iso: str, voice: str = "us") -> str:
    y, m, d = (int(x) for x in iso.split("-"))
    if voice == "us":
        return f"{MONTHS[m - 1]} {d}, {y}"
    if voice == "eu":
        return f"{d} {MONTHS[m - 1]} {y}"
    return iso


def parse_date(text: str) -> str | None:
    t = text.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", t):
        return t
    m = re.fullmatch(r"(\w+) (\d{1,2}), (\d{4})", t)
    if m and m.group(1) in MONTHS:
        return f"{m.group(3)}-{MONTHS.index(m.group(1)) + 1:02d}-{int(m.group(2)):02d}"
    m = re.fullmatch(r"(\d{1,2}) (\w+) (\d{4})", t)
    if m and m.group(2) in MONTHS:
        return f"{m.group(3)}-{MONTHS.index(m.group(2)) + 1:02d}-{int(m.group(1)):02d}"
    return None


def date_forms(iso: str) -> tuple[str, ...]:
    return tuple(format_date(iso, v) for v in DATE_VOICES)


# -- names -----------------------------------------------------------------------------------
def form_title(line: int, k: int) -> str:
    """The title of the k-th form of a line (titles repeat with a Roman numeral after the
    line's list runs out)."""
    titles = LINES[line][2]
    return titles[k % len(titles)] + ROMAN[(k // len(titles)) % len(ROMAN)]


def _alt(names) -> str:
    return "(?:" + "|".join(re.escape(n) for n in sorted(set(names), key=len, reverse=True)) + ")"


_TITLES = _alt(t for _, _, ts in LINES for t in ts)
TITLE_RE = _TITLES + r"(?: (?:XII|XI|X|IX|VIII|VII|VI|V|IV|III|II))?"
CONCEPT_OF_NAME: dict[str, str] = {n.lower(): c.id for c in CONCEPTS for n in c.names}
CONCEPT_RE = _alt(CONCEPT_OF_NAME)
STATE_RE = _alt(STATES)
LINE_RE = _alt(name for _, name, _ in LINES)
#: A regulatory class: ``Class A limit``, ``Class B waiting period`` (vocab.class_label).
KLASS_RE = (r"(?P<klass>Class (?:" + "|".join(CLASS_LETTERS) + r") "
            + _alt(CLASS_NOUN.values()) + r")")
FORM_CODE = r"[A-Z]{2}-\d{2,}"
#: Every document code: form, endorsement, state form, bulletin, memo, FAQ, manual.
DOC_CODE = (r"(?:[A-Z]{2}-E\d{2,}|[A-Z]{2}-S\d{2,}|[A-Z]{2}-B\d{2}-\d{2,}|M-\d{4}-\d{2,}"
            r"|FAQ-[A-Z]{2}-\d+|GM-\d+|[A-Z]{2}-\d{2,})")
KIND_WORD = {"form": "form", "endorsement": "Endorsement", "state_form":
             "State Amendatory Endorsement", "bulletin": "Bulletin", "memo": "Memo",
             "faq": "FAQ", "manual": "Manual"}
KIND_OF_WORD = {v: k for k, v in KIND_WORD.items()}
_KINDWORDS = _alt(KIND_WORD.values())


def kind_of_code(code: str) -> str | None:
    """The kind of document a code names, from its shape alone (``CP-E04`` an endorsement,
    ``CP-S02`` a state amendatory endorsement, …), or None."""
    for kind, pat in (("endorsement", r"[A-Z]{2}-E\d{2,}"), ("state_form", r"[A-Z]{2}-S\d{2,}"),
                      ("bulletin", r"[A-Z]{2}-B\d{2}-\d{2,}"), ("memo", r"M-\d{4}-\d{2,}"),
                      ("faq", r"FAQ-[A-Z]{2}-\d+"), ("manual", r"GM-\d+"),
                      ("form", r"[A-Z]{2}-\d{2,}")):
        if re.fullmatch(pat, code):
            return kind
    return None


def form_label(code: str, edition: int | None) -> str:
    """A form edition's document label ``CP-10 (2019 edition)``; other codes as they are."""
    return code if edition is None else f"{code} ({edition} edition)"


def form_ref(code: str, edition: int, title: str, by_title: bool) -> str:
    return (f"the {title} ({edition} edition)" if by_title
            else f"form {code} ({edition} edition)")


def doc_ref(kind: str, code: str, edition: int | None = None) -> str:
    """A cross-reference to a document: ``Endorsement CP-E04``, ``form CP-10 (2019 edition)``."""
    return f"{KIND_WORD[kind]} {form_label(code, edition)}"


# -- the sentence table ----------------------------------------------------------------------
@dataclass(frozen=True)
class Form:
    """One wording of a fact kind. ``text`` holds slots: {concept} {value} {date} {state}
    {line} {section} {para} {title} {edition} {doc} {ref} {target} {item}; {target} is a form
    reference (by code or title), {ref} a document reference with its kind word, and
    ``§ {section}.{para}`` a provision's place in a form (its paragraph's locator)."""

    name: str
    kind: str
    text: str


FORMS: tuple[Form, ...] = tuple(Form(*r) for r in (
    # headers (the first paragraph of every document)
    ("h_form", "header_form", "{title}, form {doc} ({edition} edition), {line} line. This "
     "edition takes effect on {date}."),
    ("h_form2", "header_form", "Form {doc} ({edition} edition) is the {title} for the {line} "
     "line, effective {date}."),
    ("h_end", "header_endorsement", "Endorsement {doc} modifies insurance provided under "
     "{target} and takes effect on {date}."),
    ("h_end2", "header_endorsement", "This endorsement, {doc}, changes {target}. It applies "
     "from {date}."),
    ("h_state", "header_state_form", "State Amendatory Endorsement {doc} applies in {state} to "
     "{target} from {date}."),
    ("h_state2", "header_state_form", "For policies written in {state}, {doc} amends {target} "
     "with effect from {date}."),
    # … and the headers that leave the date to the manual's filing schedule
    ("h_end3", "header_endorsement", "Endorsement {doc} modifies insurance provided under "
     "{target}; it takes effect on the date Manual GM-1 gives for it."),
    ("h_end4", "header_endorsement", "This endorsement, {doc}, changes {target}. It applies "
     "from the date given for it in Manual GM-1."),
    ("h_state3", "header_state_form", "State Amendatory Endorsement {doc} applies in {state} "
     "to {target} from the date given for it in Manual GM-1."),
    # … and the headers that leave the form to the document's own Schedule (§ 1)
    ("h_end5", "header_endorsement", "Endorsement {doc} modifies insurance provided under the "
     "form shown in the Schedule and takes effect on {date}."),
    ("h_end6", "header_endorsement", "Endorsement {doc} modifies insurance provided under the "
     "form shown in the Schedule; it takes effect on the date Manual GM-1 gives for it."),
    ("h_state4", "header_state_form", "State Amendatory Endorsement {doc} applies in {state} "
     "to the form shown in the Schedule from {date}."),
    ("h_state5", "header_state_form", "State Amendatory Endorsement {doc} applies in {state} "
     "to the form shown in the Schedule from the date given for it in Manual GM-1."),
    ("att", "attaches", "Form shown in the Schedule: {target}."),
    ("att2", "attaches", "This endorsement applies to {target} only."),
    # … or the form alone: the edition in force on the date the document takes effect
    ("att3", "attaches_current", "Form shown in the Schedule: {formonly}, the edition in force "
     "on the date this endorsement takes effect."),
    ("att4", "attaches_current", "This endorsement applies to the edition of {formonly} in "
     "force when it takes effect."),
    ("h_bull", "header_bulletin", "Bulletin {doc} of the {state} Department of Insurance "
     "applies to {line} policies from {date}."),
    ("h_bull2", "header_bulletin", "The {state} Department of Insurance issues Bulletin {doc} "
     "to all insurers writing {line} policies; it is effective {date}."),
    ("h_memo", "header_memo", "Interpretive Memo {doc}, dated {date}, from the underwriting "
     "department."),
    ("h_faq", "header_faq", "FAQ {doc}, published {date}, answers common questions from "
     "agents."),
    ("h_manual", "header_manual", "Manual {doc}, Rules of Construction, effective {date}."),
    # an entry of the manual's table of effective dates (GM-1 § 3, the filing schedule)
    ("filed", "filed", "{refkind} {doc}: {date}."),
    # a base form's provision, and its row in the form's schedule table
    ("s1", "sets", "Subject to the Declarations, the {concept} under this form is {value}."),
    ("s2", "sets", "Under this form the {concept} is set at {value}."),
    ("s3", "sets", "This form fixes the {concept} at {value}."),
    ("row", "row", "| {concept} | § {section}.{para} | {value} |"),
    # an endorsement's amendment names the provision it replaces by its place in the form
    # (§ 3.2: section 3, paragraph 2), never by name: what it amends takes the form's own
    # paragraph, and which form the endorsement's header or Schedule (as real ones do)
    ("a8", "amends_ref", "Paragraph § {section}.{para} of the Coverage Form is replaced by the "
     "following: the figure shown there is {value}."),
    ("a9", "amends_ref", "The entry in § {section}.{para} of the Coverage Form is changed to "
     "{value}."),
    # … and a revision of an earlier amendment names only that amendment: which provision it
    # changes takes following the reference (to the amendment that gives the place)
    ("a11", "amends_ref_chain", "The figure inserted by {ref}, § {item} is further changed "
     "to {value}."),
    ("a12", "amends_ref_chain", "The entry as amended by {ref}, § {item} is further changed "
     "to {value}."),
    # the compiled wiki's wording of an amendment (documents never use it)
    ("a2", "amends", "With respect to {target}, § {section} is amended so that the {concept} "
     "becomes {value}."),
    # a state amendatory endorsement's replacement, by place as well
    ("r5", "replaces_ref", "The entry in § {section}.{para} of the form shown in the Schedule "
     "is {value} in this state."),
    ("r6", "replaces_ref", "In this state, delete the figure in § {section}.{para} of the form "
     "shown in the Schedule and insert {value}."),
    # the compiled wiki's wording of a replacement (documents never use it)
    ("r2", "replaces", "For policies in {state}, the {concept} stated in § {section} of {target} "
     "is {value}."),
    # a bulletin's bound
    ("b1", "bound", "No {line} policy issued in {state} may provide a {klass} {side} "
     "{value}."),
    ("b2", "bound", "The {bound} {klass} for {line} policies in {state} is {value}."),
    # a form's regulatory classes (§ 1): which of its provisions a bulletin's class bounds
    ("cls", "classifies", "For regulatory purposes the {concept} is a {klass} under this "
     "form."),
    ("sup", "supersedes", "This document supersedes {ref} from its effective date."),
    ("sup2", "supersedes", "{ref} is withdrawn and replaced by this document once this "
     "document takes effect."),
    # memos and FAQs
    ("st1", "states", "Our reading is that the {concept} of {target} is {value}."),
    ("st2", "states", "Q: What is the {concept} under {target}? A: It is {value}."),
    ("rf1", "refers", "For the {concept} under {target}, see {ref}, § {item}."),
    ("rf2", "refers", "The {concept} of {target} is addressed in {ref}, § {item}."),
    ("rf3", "refers", "Q: Where is the {concept} of {target} set? A: See {ref}, § {item}."),
    # a compiled wiki's claim about a reference chain (documents never use it)
    ("chain", "chain", "{refkind} {doc}, § {item} refers, in {section} steps, to the provision "
     "that sets the {concept} of {target} at {value}."),
    # the manual's rule of precedence (one fact, parsed by readers that look for it)
    ("prec", "precedence", "Order of precedence: a regulatory bound in force prevails over "
     "every form; a state amendatory endorsement in force prevails over other endorsements; "
     "among endorsements in force the one most recently effective prevails; an endorsement "
     "prevails over the base form; memos and FAQs never alter coverage."),
))
FORM_BY_NAME: dict[str, Form] = {f.name: f for f in FORMS}
FORMS_OF: dict[str, tuple[Form, ...]] = {}
for _f in FORMS:
    FORMS_OF[_f.kind] = FORMS_OF.get(_f.kind, ()) + (_f,)

_TARGET = (r"(?:form (?P<form>" + FORM_CODE + r")|the (?P<title>" + TITLE_RE + r")) "
           r"\((?P<edition>\d{4}) edition\)")
_REF = (r"(?P<refkind>" + _KINDWORDS + r") (?P<ref>" + DOC_CODE + r")(?: \((?P<refedition>"
        r"\d{4}) edition\))?")
_SLOTS = {
    "concept": r"(?P<concept>" + CONCEPT_RE + r")", "value": r"(?P<value>" + VALUE_RE + r")",
    "date": r"(?P<date>" + DATE_RE + r")", "state": r"(?P<state>" + STATE_RE + r")",
    "line": r"(?P<line>" + LINE_RE + r")", "section": r"(?P<section>\d+)",
    "item": r"(?P<item>\d+)", "para": r"(?P<para>\d+)",
    "title": r"(?P<title>" + TITLE_RE + r")",
    "edition": r"(?P<edition>\d{4})", "doc": r"(?P<doc>" + DOC_CODE + r")",
    "target": _TARGET, "ref": _REF, "side": r"(?P<side>below|above)",
    "formonly": r"(?:form (?P<form>" + FORM_CODE + r")|the (?P<title>" + TITLE_RE + r"))",
    "klass": KLASS_RE,
    "refkind": r"(?P<refkind>" + _KINDWORDS + r")",
    "bound": r"(?P<bound>minimum|maximum)",
}


def _compile(text: str, slots: dict[str, str]) -> re.Pattern:
    """``text`` with each ``{slot}`` replaced by its pattern in ``slots``, the rest literal."""
    out, pos = [], 0
    for m in re.finditer(r"\{(\w+)\}", text):
        out.append(re.escape(text[pos:m.start()]))
        out.append(slots[m.group(1)])
        pos = m.end()
    out.append(re.escape(text[pos:]))
    return re.compile("".join(out))


@functools.cache
def _patterns() -> tuple[tuple[Form, re.Pattern], ...]:
    """The sentence patterns, compiled on the first parse rather than at import: every
    command loads every world, and compiling these took ~0.3 s of each one's start-up."""
    return tuple((f, _compile(f.text, _SLOTS)) for f in FORMS)


def render(form: Form, **slots) -> str:
    """One sentence of ``form`` (every slot of its text given)."""
    text = form.text.format(**slots)
    return text[0].upper() + text[1:]


# -- paragraphs ------------------------------------------------------------------------------
LOCATOR_RE = re.compile(r"\[(?P<doc>" + DOC_CODE + r")(?: \((?P<edition>\d{4}) edition\))? "
                        r"§ (?P<section>\d+)\.(?P<para>\d+)\]")


def locator(code: str, edition: int | None, section: int, para: int) -> str:
    """A paragraph's locator: ``[CP-10 (2019 edition) § 3.2]`` (section 0 is the header)."""
    return f"[{form_label(code, edition)} § {section}.{para}]"


def parse_locator(text: str) -> tuple[str, int | None, int, int] | None:
    """(code, edition or None, section, paragraph) of a paragraph's opening locator."""
    m = LOCATOR_RE.match(text)
    if m is None:
        return None
    ed = m.group("edition")
    return m.group("doc"), int(ed) if ed else None, int(m.group("section")), int(m.group("para"))


@dataclass(frozen=True)
class Statement:
    """One fact sentence found in a paragraph: its kind (``sets``, ``amends``, …), the
    wording's name and its fields (``concept`` as an id, ``value`` as an int with ``unit``,
    ``date`` ISO, ``form``/``title``/``edition`` of a target, ``ref``/``refkind``/``item`` of
    a reference, ``section``, ``state``, ``line``, ``bound``, ``doc``)."""

    kind: str
    form: str
    fields: dict = field(default_factory=dict)

    def get(self, key: str, default=None):
        return self.fields.get(key, default)


def _fields(m: re.Match) -> dict:
    out = {}
    for k, v in m.groupdict().items():
        if v is None:
            continue
        if k == "concept":
            out[k] = CONCEPT_OF_NAME[v.lower()]
        elif k == "value":
            parsed = parse_value(v)
            if parsed is None:
                continue
            out["unit"], out["value"] = parsed
        elif k == "date":
            out[k] = parse_date(v)
        elif k in ("section", "item", "edition", "refedition", "para"):
            out[k] = int(v)
        elif k == "refkind":
            out[k] = KIND_OF_WORD[v]
        elif k == "side":
            out["bound"] = "minimum" if v == "below" else "maximum"
        else:
            out[k] = v
    return out


def parse_sentences(text: str) -> list[Statement]:
    """Every fact sentence in ``text`` (in order of position)."""
    found = []
    for form, pat in _patterns():
        for m in pat.finditer(text):
            found.append((m.start(), form, _fields(m)))
    found.sort(key=lambda t: t[0])
    return [Statement(f.kind, f.name, d) for _, f, d in found]


def parse_paragraph(text: str) -> tuple[tuple[str, int | None, int, int] | None, list[Statement]]:
    """A paragraph note's locator (or None) and its statements."""
    return parse_locator(text), parse_sentences(text)


# -- questions -------------------------------------------------------------------------------
#: Every question shape: rendered by :mod:`.questions`, parsed back by readers.
QUESTIONS: dict[str, str] = {
    "cb_form_value": "What {concept} does § {section} of form {form} set?",
    "cb_endorsement_value": "What {concept} (§ {section}.{para}) does Endorsement {doc} set for "
                            "form {form}?",
    "cb_bound": "What {bound} {klass} does Bulletin {doc} set?",
    "cb_date": "When does {refkind} {doc} take effect?",
    "cb_effective": "As of {date}, what {concept} applies under form {form}{where}?",
    "cb_controls": "As of {date}, which document controls the {concept} of form {form}{where}?",
    "cb_chain": "What {concept} does the provision that Memo {doc}, § {item} refers to set?",
    "cb_amenders": "Which endorsements amend the {concept} of form {form}?",
}
_Q_SLOTS = {
    "concept": r"(?P<concept>" + CONCEPT_RE + r")", "section": r"(?P<section>\d+)",
    "form": r"(?P<form>" + FORM_CODE + r" \(\d{4} edition\))", "doc": r"(?P<doc>" + DOC_CODE + r")",
    "bound": r"(?P<bound>minimum|maximum)", "refkind": r"(?P<refkind>" + _KINDWORDS + r")",
    "date": r"(?P<date>" + DATE_RE + r")", "where": r"(?: in (?P<state>" + STATE_RE + r"))?",
    "item": r"(?P<item>\d+)", "para": r"(?P<para>\d+)", "klass": KLASS_RE,
}


@functools.cache
def _q_patterns() -> dict[str, re.Pattern]:
    """The question patterns, compiled on first use (as :func:`_patterns`)."""
    return {name: _compile(text, _Q_SLOTS) for name, text in QUESTIONS.items()}


def render_question(shape: str, **slots) -> str:
    """A question of ``shape``; ``where`` is given as a state or None."""
    state = slots.pop("state", None)
    return QUESTIONS[shape].format(where=f" in {state}" if state else "", **slots)


def parse_question(text: str) -> tuple[str, dict] | None:
    """(shape, fields) of a question this world asks (``concept`` as an id, ``date`` ISO,
    ``section``/``item`` ints, ``form`` a form edition's label), or None."""
    for shape, pat in _q_patterns().items():
        m = pat.fullmatch(text.strip())
        if m:
            fields = {k: v for k, v in m.groupdict().items() if v is not None}
            fields["concept"] = CONCEPT_OF_NAME[fields["concept"].lower()] \
                if "concept" in fields else None
            if "date" in fields:
                fields["date"] = parse_date(fields["date"])
            for k in ("section", "item", "para"):
                if k in fields:
                    fields[k] = int(fields[k])
            if "refkind" in fields:
                fields["refkind"] = KIND_OF_WORD[fields["refkind"]]
            return shape, fields
    return None


__all__ = [
    "FORMS", "FORMS_OF", "Form", "QUESTIONS", "Statement", "date_forms", "doc_ref", "form_label",
    "form_ref", "form_title", "format_date", "format_value", "locator", "parse_date",
    "parse_locator", "parse_paragraph", "parse_question", "parse_sentences", "parse_value",
    "render", "render_question", "value_forms", "words",
]
