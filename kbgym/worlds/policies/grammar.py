"""The policies world's strings: one table from which every sentence, question and answer of
the world is both rendered and parsed.

- **Vocabulary**: the concepts (each with its synonyms, unit and the values documents give
  it), the states, the document kinds and how their codes are spelled (``HO-3``, ``HE-12``,
  ``RB-21-04``), provision sections (``§I.B``).
- **Values** in two voices (``$10,000`` / ``ten thousand dollars``, ``60 days`` / ``sixty
  days``, ``2%`` / ``two percent``), dates (``March 1, 2023``) and the answer aliases of a
  value (every voice a reader may write).
- **Sentence forms** (:data:`SENTENCES`): one row per form, ``(name, kind, template)``. A note
  of the world is exactly one rendered row; :func:`parse_sentence` reads any row back into a
  :class:`Statement`, whoever wrote the text.
- **Question forms** (:data:`QUESTIONS`) and their parser, and the **subjects** a text names
  (provisions, documents, bulletin series: what an index note is about).

Part of the protocol package: standard library only (docs/protocol.md §21).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace

# ---------------------------------------------------------------------------------------------
# Vocabulary


@dataclass(frozen=True)
class Concept:
    """One quantity a document can set. ``unit`` is ``usd``, ``days`` or ``pct``; ``values``
    the amounts documents draw from; ``regulated`` concepts also get regulator bulletins that
    set a minimum."""

    id: str
    name: str
    synonyms: tuple[str, ...]
    unit: str
    values: tuple[int, ...]
    regulated: bool = False

    @property
    def phrases(self) -> tuple[str, ...]:
        return (self.name, *self.synonyms)


CONCEPTS: tuple[Concept, ...] = (
    Concept("water_backup", "water backup limit", ("sewer backup limit",), "usd",
            (2500, 5000, 10000, 15000, 25000)),
    Concept("mold", "mold remediation limit", ("fungi remediation limit",), "usd",
            (5000, 10000, 25000, 50000)),
    Concept("jewelry", "jewelry theft sublimit", ("jewelry theft limit",), "usd",
            (1000, 1500, 2500, 5000)),
    Concept("deductible", "all-peril deductible", ("standard deductible",), "usd",
            (500, 1000, 2500, 5000)),
    Concept("windstorm", "windstorm deductible", ("wind and hail deductible",), "pct",
            (1, 2, 5, 10)),
    Concept("ordinance", "ordinance or law limit", ("building ordinance limit",), "pct",
            (10, 25, 50)),
    Concept("debris", "debris removal limit", ("debris removal allowance",), "pct",
            (5, 10, 25)),
    Concept("trees", "trees and shrubs limit", ("landscaping limit",), "pct", (3, 5, 10)),
    Concept("loss_of_use", "loss of use period", ("additional living expense period",), "days",
            (180, 365, 730)),
    Concept("claim_notice", "notice of claim period", ("claim reporting period",), "days",
            (30, 60, 90, 180), regulated=True),
    Concept("cancellation", "cancellation notice period", ("notice of cancellation period",),
            "days", (10, 20, 30, 45, 60), regulated=True),
    Concept("suit", "suit limitation period", ("legal action period",), "days",
            (365, 730, 1095)),
    Concept("appraisal", "appraisal demand period", ("appraisal request period",), "days",
            (30, 60, 90), regulated=True),
    Concept("fire_service", "fire department service charge", ("fire service charge",), "usd",
            (500, 1000, 2500)),
    Concept("identity", "identity fraud limit", ("identity theft limit",), "usd",
            (5000, 15000, 25000)),
    Concept("dog_bite", "dog bite liability sublimit", ("animal liability sublimit",), "usd",
            (25000, 50000, 100000)),
    Concept("glass", "glass breakage deductible", ("glass deductible",), "usd",
            (100, 250, 500)),
    Concept("grace", "premium grace period", ("payment grace period",), "days", (10, 15, 30),
            regulated=True),
)
CONCEPT_BY_ID = {c.id: c for c in CONCEPTS}
#: Every phrase (name or synonym, casefolded) -> its concept.
CONCEPT_BY_PHRASE = {p.casefold(): c for c in CONCEPTS for p in c.phrases}

STATES: tuple[str, ...] = ("Texas", "Florida", "Ohio", "Oregon", "Georgia", "Maine", "Nevada",
                           "Utah", "Iowa", "Vermont", "Kansas", "Idaho")
_STATE_BY_FOLD = {s.casefold(): s for s in STATES}

MONTHS: tuple[str, ...] = ("January", "February", "March", "April", "May", "June", "July",
                           "August", "September", "October", "November", "December")
_MONTH_NUM = {m.casefold(): i + 1 for i, m in enumerate(MONTHS)}

#: (form prefix, endorsement prefix, line of business). Endorsements of a form carry its
#: family's endorsement prefix.
FORM_FAMILIES: tuple[tuple[str, str, str], ...] = (
    ("HO", "HE", "homeowners"), ("DP", "DE", "dwelling"), ("CP", "CE", "commercial property"),
    ("BP", "BE", "businessowners"), ("MH", "ME", "mobile home"), ("FR", "FE", "farm"),
)
ENDORSEMENT_PREFIX = {f: e for f, e, _ in FORM_FAMILIES}
#: Forms also have titles (``the Homeowners Special Form``): the k-th form of a family is
#: ``{Line} {TITLE_VARIANTS[k % 12]} Form``, numbered (``... Form No. 2``) past twelve.
TITLE_VARIANTS: tuple[str, ...] = ("Special", "Broad", "Basic", "Comprehensive", "Standard",
                                   "Select", "Premier", "Classic", "Plus", "Advantage",
                                   "Essential", "Preferred")
_LINES = {f: line.title() for f, _, line in FORM_FAMILIES}


def form_title(prefix: str, k: int) -> str:
    """The title of the ``k``-th form (from 0) of the family with form prefix ``prefix``."""
    title = f"{_LINES[prefix]} {TITLE_VARIANTS[k % len(TITLE_VARIANTS)]} Form"
    return title if k < len(TITLE_VARIANTS) else f"{title} No. {k // len(TITLE_VARIANTS) + 1}"

#: Document kind -> (the noun a sentence calls it by, its code prefix; forms and endorsements
#: take their family's prefixes).
DOC_KINDS: dict[str, tuple[str, str | None]] = {
    "form": ("form", None),
    "endorsement": ("Endorsement", None),
    "state_form": ("State Form", "SA"),
    "bulletin": ("Bulletin", "RB"),
    "guideline": ("Underwriting Guideline", "UG"),
    "manual": ("Claims Manual", "CM"),
    "memo": ("Memo", "IM"),
    "glossary": ("Glossary", "GL"),
    "training": ("Training Note", "TN"),
}
_KIND_OF_PREFIX = {prefix: kind for kind, (_, prefix) in DOC_KINDS.items() if prefix}
_KIND_OF_PREFIX.update({f: "form" for f, _, _ in FORM_FAMILIES})
_KIND_OF_PREFIX.update({e: "endorsement" for _, e, _ in FORM_FAMILIES})
_KIND_OF_NOUN = {noun.casefold(): kind for kind, (noun, _) in DOC_KINDS.items()}

CODE = r"[A-Z]{2}-\d{1,3}(?:-\d{2})?"
_CODE_RE = re.compile(rf"^{CODE}$", re.IGNORECASE)


def kind_of(code: str) -> str | None:
    """The document kind a code spells (``HE-12`` -> ``endorsement``), or None."""
    if not _CODE_RE.match(code):
        return None
    kind = _KIND_OF_PREFIX.get(code[:2].upper())
    if kind == "bulletin" and code.count("-") != 2:
        return None
    if kind not in (None, "bulletin") and code.count("-") != 1:
        return None
    return kind


def noun_of(code: str) -> str:
    """The noun a sentence puts before a document code (``Endorsement``, ``form``)."""
    return DOC_KINDS[kind_of(code) or "form"][0]


def doc_ref(code: str) -> str:
    """``Endorsement HE-12``, ``form HO-3``, ``Bulletin RB-21-04``."""
    return f"{noun_of(code)} {code}"


#: Section labels ``§I.A`` … : parts in order, six lettered sections each.
_PARTS = ("I", "II", "III", "IV", "V", "VI")
_LETTERS = "ABCDEF"


def section_labels(n: int) -> list[str]:
    """The first ``n`` section labels of a form: ``I.A`` … ``I.F``, ``II.A`` …"""
    if not 0 <= n <= len(_PARTS) * len(_LETTERS):
        raise ValueError(f"a form holds 0-{len(_PARTS) * len(_LETTERS)} sections, not {n}")
    return [f"{_PARTS[i // len(_LETTERS)]}.{_LETTERS[i % len(_LETTERS)]}" for i in range(n)]


def provision_key(form: str, section: str) -> str:
    """The provision's name: ``HO-3 §I.B``."""
    return f"{form} §{section}"


def provision_ref(form: str, section: str) -> str:
    """How a sentence names a provision: ``form HO-3 §I.B``."""
    return f"form {provision_key(form, section)}"


# ---------------------------------------------------------------------------------------------
# Numbers, values, dates

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
         "fourteen fifteen sixteen seventeen eighteen nineteen").split()
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SCALES = ((10 ** 9, "billion"), (10 ** 6, "million"), (1000, "thousand"))
_WORD_VALUE = {w: i for i, w in enumerate(_ONES)} | {w: 10 * i for i, w in enumerate(_TENS) if w}


def number_words(n: int, hyphen: bool = True) -> str:
    """``2500`` -> ``two thousand five hundred``, ``65`` -> ``sixty-five`` (``sixty five``
    without ``hyphen``). Integers 0 to 10^12 - 1."""
    if not 0 <= n < 10 ** 12:
        raise ValueError(f"number words cover 0 to 10^12 - 1, not {n}")
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + (("-" if hyphen else " ") + _ONES[ones] if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{_ONES[hundreds]} hundred" + (f" {number_words(rest, hyphen)}" if rest else "")
    for size, word in _SCALES:
        if n >= size:
            q, rest = divmod(n, size)
            return (f"{number_words(q, hyphen)} {word}"
                    + (f" {number_words(rest, hyphen)}" if rest else ""))
    raise AssertionError("unreachable")


def parse_number_words(text: str) -> int | None:
    """The integer ``text`` spells in words (hyphens or spaces), or None. Only the canonical
    spelling of :func:`number_words` is accepted, so ``ten ten`` is not a number."""
    words = text.casefold().replace("-", " ").split()
    if not words:
        return None
    total = current = 0
    for w in words:
        if w in _WORD_VALUE:
            current += _WORD_VALUE[w]
        elif w == "hundred":
            current *= 100
        elif w in ("thousand", "million", "billion"):
            size = {"thousand": 1000, "million": 10 ** 6, "billion": 10 ** 9}[w]
            total += current * size
            current = 0
        else:
            return None
    n = total + current
    if n >= 10 ** 12 or number_words(n, hyphen=False) != " ".join(words):
        return None
    return n


UNIT_WORDS = {"usd": "dollars", "days": "days", "pct": "percent"}
VALUE_VOICES = ("digits", "words")


def format_value(unit: str, n: int, voice: str = "digits") -> str:
    """A value in one voice: ``$10,000`` / ``ten thousand dollars``; ``60 days`` / ``sixty
    days``; ``2%`` / ``two percent``."""
    if voice not in VALUE_VOICES:
        raise ValueError(f"voice must be one of {VALUE_VOICES}, not {voice!r}")
    if unit == "usd":
        return f"${n:,}" if voice == "digits" else f"{number_words(n)} dollars"
    if unit == "days":
        word = "day" if n == 1 else "days"
        return f"{n} {word}" if voice == "digits" else f"{number_words(n)} {word}"
    if unit == "pct":
        return f"{n}%" if voice == "digits" else f"{number_words(n)} percent"
    raise ValueError(f"unknown unit {unit!r}")


_VALUE = (r"\$\d[\d,]*|\d[\d,]* days?|\d+%|\d+ percent"
          r"|[a-z]+(?:[ -][a-z]+)* (?:dollars|days?|percent)")
_VALUE_RE = re.compile(rf"^(?:{_VALUE})$", re.IGNORECASE)


def parse_value(text: str) -> tuple[str, int] | None:
    """``(unit, amount)`` of a value in any voice, or None."""
    text = " ".join(text.strip().split())
    if not _VALUE_RE.match(text):
        return None
    low = text.casefold()
    if low.startswith("$"):
        digits = low[1:]
        unit = "usd"
    elif low.endswith("%"):
        digits, unit = low[:-1], "pct"
    else:
        number, _, word = low.rpartition(" ")
        unit = {"dollars": "usd", "days": "days", "day": "days", "percent": "pct"}[word]
        if number[:1].isdigit():
            digits = number
        else:
            n = parse_number_words(number)
            return None if n is None else (unit, n)
    if not re.fullmatch(r"\d{1,3}(?:,\d{3})*|\d+", digits):
        return None
    return unit, int(digits.replace(",", ""))


def value_aliases(unit: str, n: int) -> tuple[str, ...]:
    """Every way a reader may write the value, canonical (digits) first: ``$10,000``,
    ``10,000``, ``10,000 dollars``, ``ten thousand dollars``, ``ten thousand``, …"""
    words, spaced = number_words(n), number_words(n, hyphen=False)
    if unit == "usd":
        out = [f"${n:,}", f"{n:,}", f"{n:,} dollars", f"{words} dollars", words,
               f"{spaced} dollars", spaced, f"{n} dollars"]
    elif unit == "days":
        word = "day" if n == 1 else "days"
        out = [f"{n} {word}", f"{words} {word}", str(n), words, f"{spaced} {word}", spaced]
    elif unit == "pct":
        out = [f"{n}%", f"{n} percent", f"{words} percent", f"{spaced} percent", words,
               f"{n} percentage points"]
    else:
        raise ValueError(f"unknown unit {unit!r}")
    return tuple(dict.fromkeys(out))


def format_date(iso: str) -> str:
    """``2023-03-01`` -> ``March 1, 2023``."""
    y, m, d = (int(x) for x in iso.split("-"))
    return f"{MONTHS[m - 1]} {d}, {y}"


def parse_date(text: str) -> str | None:
    """``March 1, 2023`` -> ``2023-03-01`` (None for anything else)."""
    m = re.fullmatch(r"\s*([A-Za-z]+) (\d{1,2}), (\d{4})\s*", text)
    if m is None or m.group(1).casefold() not in _MONTH_NUM:
        return None
    month, day, year = _MONTH_NUM[m.group(1).casefold()], int(m.group(2)), int(m.group(3))
    if not 1 <= day <= 31:
        return None
    return f"{year:04d}-{month:02d}-{day:02d}"


def date_aliases(iso: str) -> tuple[str, ...]:
    y, m, d = (int(x) for x in iso.split("-"))
    return (format_date(iso), iso, f"{d} {MONTHS[m - 1]} {y}")


def join_codes(codes) -> str:
    """A set of documents as an answer: codes sorted, joined with ``, ``."""
    return ", ".join(sorted(set(codes)))


# ---------------------------------------------------------------------------------------------
# Sentence forms


@dataclass(frozen=True)
class Form:
    """One sentence form: ``kind`` is the ledger fact kind it states; ``template`` has slots
    ``{doc}`` (the document the sentence belongs to), ``{noun}`` (that document's noun),
    ``{target}`` / ``{tnoun}`` (a document it names), ``{form}``, ``{edition}``,
    ``{section}``, ``{concept}``, ``{value}``, ``{date}`` and ``{state}``."""

    name: str
    kind: str
    template: str


#: Every sentence a policies universe writes. ``kind`` -> what the note states:
#:
#: - ``issued``: a document's date (forms: per edition; endorsements and state forms also
#:   name the edition of the form they attach to, a state form its state);
#: - ``sets`` / ``reserves`` / ``describes``: a form edition's provision sets a value, sets
#:   none yet, or only explains the concept (no value);
#: - ``amends``: an endorsement sets a provision's value;
#: - ``replaces``: a state form replaces a provision for one state;
#: - ``minimum`` / ``supersedes``: a bulletin sets a regulatory minimum / supersedes an older
#:   bulletin;
#: - ``refers`` / ``refers_doc``: a guideline or manual refers to a provision / a document;
#: - ``states``: a memo states a provision's value (some misstate it);
#: - ``mentions``: a glossary or training note names a concept (no value).
SENTENCES: tuple[Form, ...] = (
    Form("form_issued", "issued",
         "Form {form} ({edition} edition), the {title}, takes effect on {date}."),
    Form("form_issued_2", "issued",
         "The {edition} edition of form {form}, the {title}, takes effect on {date}."),
    Form("endorsement_issued", "issued",
         "Endorsement {doc} attaches to the {edition} edition and takes effect on {date}."),
    Form("endorsement_issued_2", "issued",
         "Endorsement {doc} takes effect on {date} for the {edition} edition."),
    Form("state_issued", "issued",
         "State Form {doc} applies in {state} to the {edition} edition from {date}."),
    Form("doc_issued", "issued", "{noun} {doc} was issued on {date}."),
    Form("sets", "sets", "Form {form} ({edition} edition) §{section} sets the {concept} at {value}."),
    Form("sets_2", "sets", "Under form {form} ({edition} edition) §{section}, the {concept} is {value}."),
    Form("sets_3", "sets", "The {concept} of form {form} ({edition} edition) §{section} is {value}."),
    Form("reserves", "reserves",
         "Form {form} ({edition} edition) §{section} reserves the {concept} for a later endorsement."),
    Form("describes", "describes", "Form {form} §{section} explains when the {concept} applies."),
    Form("amends", "amends", "Under Endorsement {doc}, the {concept} of form {form} §{section} is {value}."),
    Form("amends_2", "amends", "Endorsement {doc} amends form {form} §{section} to set the {concept} at {value}."),
    Form("amends_3", "amends", "Endorsement {doc} changes the {concept} of form {form} §{section} to {value}."),
    Form("amends_title", "amends", "Endorsement {doc} sets the {concept} of the {title} at {value}."),
    Form("replaces", "replaces",
         "For {state}, State Form {doc} replaces form {form} §{section}: the {concept} is {value}."),
    Form("replaces_2", "replaces",
         "State Form {doc} replaces form {form} §{section} in {state}, setting the {concept} at {value}."),
    Form("replaces_title", "replaces",
         "For {state}, State Form {doc} sets the {concept} of the {title} at {value}."),
    Form("minimum", "minimum", "Under Bulletin {doc}, the minimum {concept} is {value}."),
    Form("minimum_2", "minimum", "Bulletin {doc} sets the minimum {concept} at {value}."),
    Form("supersedes", "supersedes", "Bulletin {doc} supersedes Bulletin {target}."),
    Form("supersedes_2", "supersedes", "Bulletin {target} is superseded by Bulletin {doc}."),
    Form("refers", "refers", "{noun} {doc} refers to form {form} §{section} for the {concept}."),
    Form("refers_2", "refers", "{noun} {doc} applies the {concept} of form {form} §{section}."),
    Form("refers_title", "refers", "{noun} {doc} applies the {concept} of the {title}."),
    Form("refers_doc", "refers_doc", "{noun} {doc} refers to {tnoun} {target}."),
    Form("refers_doc_2", "refers_doc", "{noun} {doc} follows {tnoun} {target}."),
    Form("states", "states", "Memo {doc} states that the {concept} of form {form} §{section} is {value}."),
    Form("states_2", "states", "According to Memo {doc}, form {form} §{section} sets the {concept} at {value}."),
    Form("states_title", "states", "Memo {doc} states that the {title} sets the {concept} at {value}."),
    Form("mentions", "mentions", "{noun} {doc} defines the {concept}."),
    Form("mentions_2", "mentions", "{noun} {doc} discusses the {concept}."),
)
FORM_BY_NAME = {f.name: f for f in SENTENCES}
#: Forms that name a provision by its form's title and its concept, not by code and section
#: (an indirect reference: resolving it takes the form's header, which gives the title, and
#: the form's own notes, which give the section of the concept: :func:`resolve`).
TITLE_FORMS = frozenset(f.name for f in SENTENCES if f.name.endswith("_title"))
#: Fact kind -> its forms (the voices a generator draws from), in table order.
VOICES: dict[str, tuple[Form, ...]] = {}
for _f in SENTENCES:
    VOICES.setdefault(_f.kind, ())
    VOICES[_f.kind] += (_f,)
#: Fact kind -> the document kinds whose notes state it (``{noun}`` slots range over these).
OWNERS: dict[str, tuple[str, ...]] = {
    "issued": tuple(DOC_KINDS), "sets": ("form",), "reserves": ("form",), "describes": ("form",),
    "amends": ("endorsement",), "replaces": ("state_form",), "minimum": ("bulletin",),
    "supersedes": ("bulletin",), "refers": ("guideline", "manual"),
    "refers_doc": ("guideline", "manual"), "states": ("memo",),
    "mentions": ("glossary", "training"),
}
#: Fact kind -> how a sentence of it refers to another document or provision (the typed link
#: the evidence graph derives from it).
REFERENCE_TYPE: dict[str, str] = {
    "amends": "amends", "replaces": "amends", "supersedes": "supersedes", "refers": "refers_to",
    "refers_doc": "refers_to", "states": "cites",
}


def _alternation(phrases) -> str:
    return "|".join(re.escape(p) for p in sorted(set(phrases), key=lambda p: (-len(p), p)))


_NOUNS = [noun for noun, _ in DOC_KINDS.values() if noun != "form"]
_SLOT = {
    "doc": rf"(?P<doc>{CODE})",
    "target": rf"(?P<target>{CODE})",
    "form": r"(?P<form>[A-Z]{2}-\d{1,3})",
    "edition": r"(?P<edition>\d{4})",
    "edition2": r"(?P<edition2>\d{4})",
    "section": r"(?P<section>[IVX]+\.[A-Z])",
    "concept": f"(?P<concept>{_alternation(CONCEPT_BY_PHRASE)})",
    "value": f"(?P<value>{_VALUE})",
    "date": r"(?P<date>[A-Za-z]+ \d{1,2}, \d{4})",
    "state": f"(?P<state>{_alternation(STATES)})",
    "title": (f"(?P<title>(?:{_alternation(_LINES.values())}) "
              f"(?:{_alternation(TITLE_VARIANTS)}) Form(?: No\\. \\d+)?)"),
    "noun": f"(?P<noun>{_alternation(_NOUNS)})",
    "tnoun": f"(?P<tnoun>{_alternation(_NOUNS)})",
}
_SLOT_SPLIT = re.compile(r"(\{[a-z0-9]+\})")


def _pattern(template: str) -> str:
    out = []
    for part in _SLOT_SPLIT.split(template):
        if part.startswith("{") and part.endswith("}"):
            out.append(_SLOT[part[1:-1]])
        elif part:
            out.append(r"\s+".join(re.escape(w) for w in part.split(" ")))
    return "".join(out)


@functools.cache
def _parse_table() -> tuple[tuple[Form, re.Pattern], ...]:
    """The sentence patterns, compiled on the first parse rather than at import (every
    command loads every world; compiling them took ~80 ms of each one's start-up)."""
    return tuple((f, re.compile(r"^\s*" + _pattern(f.template) + r"\s*$", re.IGNORECASE))
                 for f in SENTENCES)


@dataclass(frozen=True)
class Statement:
    """What one sentence states. ``doc`` is the document the sentence belongs to; the other
    fields are None where the form has no such slot. ``concept`` is the concept id, ``value``
    an amount in ``unit``, ``date`` ISO (``YYYY-MM-DD``)."""

    kind: str
    form_name: str
    doc: str
    form: str | None = None
    edition: int | None = None
    section: str | None = None
    concept: str | None = None
    unit: str | None = None
    value: int | None = None
    date: str | None = None
    state: str | None = None
    target: str | None = None
    title: str | None = None

    @property
    def indirect(self) -> bool:
        """Whether the sentence names its provision by the form's title and the concept only
        (``... of the Homeowners Special Form``): until :func:`resolve` fills in the form and
        the section, it is about no provision."""
        return self.title is not None and self.kind != "issued" and self.section is None

    @property
    def provision(self) -> str | None:
        """``HO-3 §I.B`` for a sentence about a provision."""
        return provision_key(self.form, self.section) if self.form and self.section else None

    @property
    def references(self) -> tuple[tuple[str, str], ...]:
        """``(link type, subject)`` for every other document or provision the sentence refers
        to: the typed edges the evidence graph derives (``amends`` to a provision, ``refers_to``
        a document, ``supersedes`` a bulletin, ``cites`` a provision)."""
        ltype = REFERENCE_TYPE.get(self.kind)
        if ltype is None:
            return ()
        target = self.target if self.kind in ("supersedes", "refers_doc") else self.provision
        return ((ltype, target),) if target else ()

    def subjects(self) -> tuple[str, ...]:
        """The subjects this sentence is about: its provision (form sentences and provision
        references, indirect ones once resolved), its own document (a form only by its header)
        and any document it names, and for a bulletin minimum the bulletin series of its
        concept."""
        out = []
        if self.provision:
            out.append(self.provision)
        if kind_of(self.doc) != "form" or self.kind == "issued":  # a form's header: the form
            out.append(self.doc)
        if self.target:
            out.append(self.target)
        if self.kind == "minimum" and self.concept:
            out.append(series_key(self.concept))
        return tuple(dict.fromkeys(out))


def resolve(st: Statement, form_of_title, section_of) -> Statement:
    """An indirect statement with its provision filled in, when ``form_of_title`` (title ->
    form code, from the forms' headers) and ``section_of`` ((form, concept id) -> section,
    from the forms' own sentences) know it; any other statement unchanged."""
    if not st.indirect:
        return st
    form = form_of_title.get(st.title)
    section = section_of.get((form, st.concept)) if form else None
    if section is None:
        return st
    return replace(st, form=form, section=section)


def render(sentence_form: Form | str, /, **slots) -> str:
    """The sentence of ``sentence_form`` (a :class:`Form` or its name) with ``slots``
    (``concept`` the phrase to write, ``value`` the value already in its voice, ``date`` ISO or
    already written)."""
    f = FORM_BY_NAME[sentence_form] if isinstance(sentence_form, str) else sentence_form
    values = dict(slots)
    if "date" in values and re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(values["date"])):
        values["date"] = format_date(values["date"])
    if "doc" in values and "noun" not in values:
        values["noun"] = noun_of(values["doc"])
    if "target" in values and "tnoun" not in values:
        values["tnoun"] = noun_of(values["target"])
    text = f.template.format(**values)
    return text[:1].upper() + text[1:]


def parse_sentence(text: str) -> Statement | None:
    """The statement of a note written in one of the :data:`SENTENCES` forms (any letter case,
    any voice), or None for any other text. A sentence whose value's unit is not its concept's,
    or whose nouns do not match its document codes, is not a statement."""
    for f, pattern in _parse_table():
        m = pattern.match(text)
        if m is None:
            continue
        g = {k: v for k, v in m.groupdict().items() if v is not None}
        st = _statement(f, g)
        if st is not None:
            return st
    return None


def _statement(f: Form, g: dict[str, str]) -> Statement | None:
    doc = (g.get("doc") or g.get("form") or "").upper()
    kind = kind_of(doc)
    if kind is None or kind not in OWNERS[f.kind]:
        return None
    if "noun" in g and _KIND_OF_NOUN.get(g["noun"].casefold()) != kind:
        return None
    target = g.get("target", "").upper() or None
    if target is not None:
        tkind = kind_of(target)
        if tkind in (None, "form") or ("tnoun" in g
                                       and _KIND_OF_NOUN.get(g["tnoun"].casefold()) != tkind):
            return None
        if f.kind == "supersedes" and tkind != "bulletin":
            return None
    form = g.get("form", "").upper() or None
    if form is not None and kind_of(form) != "form":
        return None
    concept = unit = value = None
    if "concept" in g:
        c = CONCEPT_BY_PHRASE[g["concept"].casefold()]
        concept = c.id
        if "value" in g:
            parsed = parse_value(g["value"])
            if parsed is None or parsed[0] != c.unit:
                return None
            unit, value = parsed
    date = None
    if "date" in g:
        date = parse_date(g["date"])
        if date is None:
            return None
    state = _STATE_BY_FOLD[g["state"].casefold()] if "state" in g else None
    section = g.get("section", "").upper() or None
    title = _title_case(g["title"]) if "title" in g else None
    return Statement(f.kind, f.name, doc, form, int(g["edition"]) if "edition" in g else None,
                     section, concept, unit, value, date, state, target, title)


def _title_case(title: str) -> str:
    """A title as forms write it, whatever the letter case it was read in."""
    words = title.split(" ")
    return " ".join("No." if w.lower() == "no." else w[:1].upper() + w[1:].lower()
                    for w in words)


# ---------------------------------------------------------------------------------------------
# Subjects: what a text (an index note, a question) is about


def series_key(concept_id: str) -> str:
    """The subject of the bulletins that set a minimum for a concept: ``minimum cancellation
    notice period``."""
    return f"minimum {CONCEPT_BY_ID[concept_id].name}"


_SUBJECT_RE = re.compile(
    rf"(?P<form>\b[A-Z]{{2}}-\d{{1,3}})(?: \(\d{{4}} edition\))? §(?P<section>[IVX]+\.[A-Z])\b"
    rf"|(?P<code>\b{CODE}\b)"
    rf"|\bminimum (?P<concept>{_alternation(CONCEPT_BY_PHRASE)})",
    re.IGNORECASE)


def subjects_in(text: str) -> list[str]:
    """The subjects a text names, in order of appearance: provisions (``HO-3 §I.B``, written
    with or without ``form`` and an edition), documents other than forms (``HE-12``), and
    bulletin series (``minimum cancellation notice period``, named by any synonym)."""
    out: list[str] = []
    for m in _SUBJECT_RE.finditer(text):
        if m.group("form"):
            form = m.group("form").upper()
            if kind_of(form) == "form":
                out.append(provision_key(form, m.group("section").upper()))
        elif m.group("code"):
            code = m.group("code").upper()
            if kind_of(code) not in (None, "form"):
                out.append(code)
        else:
            out.append(series_key(CONCEPT_BY_PHRASE[m.group("concept").casefold()].id))
    return list(dict.fromkeys(out))


def subject_title(subject: str, lead: str = "Evidence for") -> str:
    """A note naming one subject: ``Evidence for form HO-3 §I.B.``, ``Evidence for
    Endorsement HE-12.``, ``Evidence for the minimum cancellation notice period.``"""
    if subject.startswith("minimum "):
        return f"{lead} the {subject}."
    if " §" in subject:
        return f"{lead} form {subject}."
    return f"{lead} {doc_ref(subject)}."


# ---------------------------------------------------------------------------------------------
# Question forms


#: Question shape -> its text. ``pl_abstain`` questions are worded as ``pl_effective`` ones
#: (a reader cannot tell from the text that the value is not set).
QUESTIONS: dict[str, str] = {
    "pl_form_value": "What {concept} does form {form} ({edition} edition) §{section} set?",
    "pl_endorsement_value": "What {concept} does Endorsement {doc} set for form {form} §{section}?",
    "pl_effective_date": "When does {noun} {doc} take effect?",
    "pl_bulletin_value": "What minimum {concept} does Bulletin {doc} set?",
    "pl_effective": "What is the effective {concept} of form {form} §{section}?",
    "pl_state_effective": "In {state}, what is the effective {concept} of form {form} §{section}?",
    "pl_controls": "Which document controls the {concept} of form {form} §{section}?",
    "pl_state_controls":
        "In {state}, which document controls the {concept} of form {form} §{section}?",
    "pl_bulletin_current": "Which bulletin currently sets the minimum {concept}?",
    "pl_bulletin_current_value": "What is the current minimum {concept} set by bulletin?",
    "pl_depends": "Which documents depend on form {form} §{section}?",
    "pl_affected": "Which documents are affected if form {form} §{section} changes?",
    "pl_edition": "By how much did the effective {concept} of form {form} §{section} change "
                  "when the {edition2} edition replaced the {edition} edition?",
    "pl_contradiction":
        "Which memos contradict the controlling text on the {concept} of form {form} §{section}?",
}
@functools.cache
def _question_table() -> tuple[tuple[str, re.Pattern], ...]:
    """The question patterns, compiled on first use (as :func:`_parse_table`)."""
    return tuple((name, re.compile(r"^\s*" + _pattern(t) + r"\s*$", re.IGNORECASE))
                 for name, t in QUESTIONS.items())


@dataclass(frozen=True)
class ParsedQuestion:
    """A question's shape and slots: ``provision`` (``HO-3 §I.B``), ``doc``, ``concept`` (id),
    ``state``, ``editions`` (the pair compared) where the shape has them."""

    shape: str
    form: str | None = None
    section: str | None = None
    doc: str | None = None
    concept: str | None = None
    state: str | None = None
    editions: tuple[int, ...] = field(default=())

    @property
    def provision(self) -> str | None:
        return provision_key(self.form, self.section) if self.form and self.section else None


def question_text(shape: str, /, **slots) -> str:
    """The question of ``shape`` (``concept`` as a phrase; ``noun`` filled from ``doc``)."""
    values = dict(slots)
    if "doc" in values and "noun" not in values:
        values["noun"] = noun_of(values["doc"])
    return QUESTIONS[shape].format(**values)


def parse_question(text: str) -> ParsedQuestion | None:
    """The shape and slots of a question of this world, or None."""
    for name, pattern in _question_table():
        m = pattern.match(" ".join(text.split()))
        if m is None:
            continue
        g = {k: v for k, v in m.groupdict().items() if v is not None}
        doc = g.get("doc", "").upper() or None
        if doc is not None and ("noun" in g and _KIND_OF_NOUN.get(g["noun"].casefold())
                                != kind_of(doc)):
            continue
        form = g.get("form", "").upper() or None
        concept = CONCEPT_BY_PHRASE[g["concept"].casefold()].id if "concept" in g else None
        editions = tuple(int(g[k]) for k in ("edition", "edition2") if k in g)
        return ParsedQuestion(name, form, g.get("section", "").upper() or None, doc, concept,
                              _STATE_BY_FOLD[g["state"].casefold()] if "state" in g else None,
                              editions)
    return None


__all__ = [
    "CONCEPTS", "CONCEPT_BY_ID", "CONCEPT_BY_PHRASE", "Concept", "DOC_KINDS",
    "ENDORSEMENT_PREFIX", "FORM_BY_NAME", "FORM_FAMILIES", "Form", "MONTHS", "OWNERS",
    "ParsedQuestion", "QUESTIONS", "REFERENCE_TYPE", "SENTENCES", "STATES", "Statement",
    "TITLE_FORMS", "TITLE_VARIANTS", "UNIT_WORDS", "VALUE_VOICES", "VOICES", "date_aliases",
    "doc_ref", "form_title", "format_date", "resolve",
    "format_value", "join_codes", "kind_of", "noun_of", "number_words", "parse_date",
    "parse_number_words", "parse_question", "parse_sentence", "parse_value",
    "provision_key", "provision_ref", "question_text", "render", "section_labels", "series_key",
    "subject_title", "subjects_in", "value_aliases",
]
