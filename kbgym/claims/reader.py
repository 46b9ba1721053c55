"""The claim reader: what a text states, in a closed world (docs/claims.md).

The text is cut into lines (markdown marks, wiki links and part markers taken off; JSON
records and table rows turned into ``field: value`` lines), each line into sentences, each
sentence into items: the names and values of the :class:`~kbgym.claims.vocabulary.Vocabulary`
(longest token window first), dates, relation words, a handful of function words, and
``w`` for any other word. Each item is one character, so a sentence becomes a short string
(``P'F=P,P&P`` for ``Ann Lee's friends are Bob Day, Cy Orr and Di Fox.``) and a few fixed
patterns over that string read its claims. Nothing here depends on the number of names.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from kbgym.worlds.people.facts import DRIFT_PREFIX, MONTHS, PERSON_KINDS, Fact, parse_fact
from kbgym.worlds.people.forms import QUESTION_FORMS, question_slots
from kbgym.worlds.people.statements import parse_statement

# -- the result types ---------------------------------------------------------------------------


class Key(NamedTuple):
    """What a set is about: ``Key("friends", "Felix Abernathy")``, ``Key("job", "baker")``,
    ``Key("hub", "Felix Abernathy")`` (every note naming the person). The same shape as the
    exam reader's ``(relation, key)`` pairs."""

    relation: str
    entity: str


class MemberList(NamedTuple):
    """Members a text lists for one key (names; for value keys, the holders)."""

    key: Key
    members: tuple[str, ...]


class Part(NamedTuple):
    """A part marker: ``(1/2)`` -> ``Part(1, 2)``, ``part 2`` -> ``Part(2, None)``."""

    index: int
    total: int | None


class Answer(NamedTuple):
    """An answer statement found in the text (any prefix before it): the question template,
    its slots in the vocabulary's spelling (sorted ``(slot, value)`` pairs) and the answer as
    written (without the final period)."""

    template: str
    slots: tuple[tuple[str, str], ...]
    answer: str

    @property
    def slot_dict(self) -> dict[str, str]:
        return dict(self.slots)


@dataclass(frozen=True)
class Claims:
    """Everything a text states.

    - ``facts``: §3 facts (:class:`kbgym.worlds.people.facts.Fact`, names and values in the
      vocabulary's spelling, dates ``YYYY-MM-DD``), in order of first statement;
    - ``keys``: the sets the text is about (titles, headings, the keys of its member lists);
    - ``lists``: member lists stated for a key;
    - ``parts``: part markers (``(1/2)``, ``part 2 of 3``);
    - ``answers``: answer statements, with any prefix (``Verified: The job of X is baker.``);
    - ``pointers``: keys named only as a cross-reference (``See also: X's children.``);
    - ``names``: every known person the text names.
    """

    facts: tuple[Fact, ...] = ()
    keys: tuple[Key, ...] = ()
    lists: tuple[MemberList, ...] = ()
    parts: tuple[Part, ...] = ()
    answers: tuple[Answer, ...] = ()
    pointers: tuple[Key, ...] = ()
    names: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.facts or self.keys or self.lists or self.parts or self.answers
                    or self.pointers)

    def members(self, key: Key | tuple[str, str]) -> tuple[str, ...]:
        """Every member the text's lists give ``key``, in order."""
        key = Key(*key)
        return tuple(dict.fromkeys(m for lst in self.lists if lst.key == key
                                   for m in lst.members))

    @property
    def part(self) -> Part | None:
        """The first part marker, or None."""
        return self.parts[0] if self.parts else None


EMPTY = Claims()
#: Tests set this to see a reader bug as an error instead of an empty reading.
STRICT = False

# -- words --------------------------------------------------------------------------------------

#: word -> its item character. Person relations: F friends, K children, R parents, A father,
#: O mother, S spouse, G grandchildren, Z siblings, U brothers, V sisters; Y married; j job words, e hobby words,
#: L city words, B birth words; o of, = is/are/include, & and, t to, v with, x has,
#: ! a negation, z a cross-reference, n a name field, k a key field, N a members field, m among.
_WORDS: dict[str, str] = {}
for _chars, _words in (
    ("F", "friend friends friendship friendships pal pals buddy buddies circle knows bff "
          "bffs"),
    ("K", "child children kid kids offspring son sons daughter daughters"),
    ("R", "parent parents"),
    ("A", "father fathers dad"),
    ("O", "mother mothers mom mum"),
    ("S", "spouse spouses husband wife partner marriage"),
    ("Y", "married wed wedded weds"),
    ("G", "grandchild grandchildren grandkid grandkids grandson grandsons granddaughter "
          "granddaughters"),
    ("Z", "sibling siblings"),
    ("U", "brother brothers"),
    ("V", "sister sisters"),
    ("j", "job jobs occupation occupations profession trade work works working worker "
          "career employed employment"),
    ("e", "hobby hobbies pastime pastimes interest interests enjoys enjoy likes loves plays "
          "practises practices"),
    ("L", "city town lives live living resides reside resident residents based hometown "
          "residence location"),
    ("B", "born birth birthday dob birthdate"),
    ("o", "of for involving"),
    ("=", "is are was were include includes including"),
    ("&", "and plus"),
    ("t", "to"),
    ("v", "with"),
    ("x", "has have had"),
    ("!", "not never no nor neither former formerly ex isn aren wasn weren t used moved "
          "relocated previously originally once until retired visit visits visited visiting "
          "travels travelled traveled trip trips vacation vacations holiday holidays "
          "commutes commute met meet meets meeting grew want wants wanted hope hopes hoping "
          "dream dreams dreaming wish wishes aspires aspiring would become becoming trained "
          "training learning learns studying studies gave quit quits introduced introduces"),
    ("z", "see cf"),
    ("m", "among amongst"),
    ("n", "name person subject entity"),
    ("y", "who whose"),
    ("k", "key topic index title about set"),
    ("N", "members member list people items entries names everyone listed holders "
          "enthusiasts fans practitioners content contents appears appear featured mentioned"),
):
    for _w in _words.split():
        _WORDS[_w] = _chars
#: Words dropped before matching: articles, numbers and fillers.
_SKIP = frozenset(
    "a an the one some all also both each only currently now being just very well "
    "that which these those following below above here there "
    "two three four five six seven eight nine ten eleven twelve".split())
#: Words setting the person after them against the clause's subject.
_CONTRAST = frozenset("unlike except besides than".split())
_ABBREV = frozenset("mr mrs ms dr st jr sr vs etc eg ie no mt".split())
_PRONOUN = {"he": "h", "she": "h", "they": "h", "him": "h",
            "his": "q", "their": "q", "hers": "q", "her": "?"}
_ROLE_CHARS = "FKRAOSGZUV"
_ROLE = {"F": "friends", "K": "children", "R": "parents", "A": "father", "O": "mother",
         "S": "spouse", "G": "grandchildren", "Z": "siblings", "U": "brothers",
         "V": "sisters"}
_ATTR = {"job": "j", "hobby": "e", "city": "L"}
_VALUE_CHAR = {"job": "J", "hobby": "H", "city": "T"}
_CHAR_VALUE = {c: k for k, c in _VALUE_CHAR.items()}

# -- dates --------------------------------------------------------------------------------------
_MONTH_NUM = {m.casefold(): i for i, m in enumerate(MONTHS, start=1)}
_MONTH_NUM.update({m.casefold()[:3]: i for i, m in enumerate(MONTHS, start=1)})
_MONTH_NUM["sept"] = 9
_MON = r"(?P<{g}>" + "|".join(sorted(_MONTH_NUM, key=len, reverse=True)) + r")\.?"
_DATE = re.compile(
    r"\b(?:" + _MON.format(g="m1") + r"\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y1>\d{4})"
    r"|(?P<d2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON.format(g="m2") + r",?\s+(?P<y2>\d{4})"
    r"|(?P<y3>\d{4})-(?P<m3>\d{1,2})-(?P<d3>\d{1,2}))\b", re.IGNORECASE)


def _iso(m: re.Match) -> str | None:
    g = m.groupdict()
    if g["y3"]:
        y, mo, d = int(g["y3"]), int(g["m3"]), int(g["d3"])
    elif g["y1"]:
        y, mo, d = int(g["y1"]), _MONTH_NUM[g["m1"].casefold()], int(g["d1"])
    else:
        y, mo, d = int(g["y2"]), _MONTH_NUM[g["m2"].casefold()], int(g["d2"])
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return None
    return f"{y:04d}-{mo:02d}-{d:02d}"


# -- part markers -------------------------------------------------------------------------------
_NUMS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten "
                                   "eleven twelve".split())}
_NUM = r"(?:\d{1,3}|" + "|".join(_NUMS) + ")"
_PART = re.compile(
    r"[(\[]\s*(?:part\s+)?(?P<a>\d{1,3})\s*(?:/|of)\s*(?P<b>\d{1,3})\s*[)\]]"
    r"|\bpart\s+(?P<c>" + _NUM + r")(?:\s*(?:/|of)\s*(?P<d>" + _NUM + r"))?\b"
    r"|\bpage\s+(?P<e>\d{1,3})\s*(?:/|of)\s*(?P<f>\d{1,3})\b",
    re.IGNORECASE)


#: A part given as a record's field (``"part": "1/2"``, ``part: 2`` with ``"of": 3`` or
#: ``"total_parts": 3``, ``"page": "1 of 2"``): read, never taken out of the text (it would
#: break the record).
_FIELD_PART = re.compile(
    r"(?<![\w-])[\"']?(?:part|page)(?:[ _-]?(?:number|index|no|num))?[\"']?\s*[:=]\s*[\"']?"
    r"(?P<a>\d{1,3})(?:\s*(?:/|of)\s*(?P<b>\d{1,3}))?(?![\w/])", re.IGNORECASE)
_FIELD_TOTAL = re.compile(
    r"(?<![\w-])[\"']?(?:of|out[ _-]?of|total|total[ _-]?(?:parts|pages)|parts|pages|"
    r"(?:part|page)[ _-]?count|num[ _-]?(?:parts|pages)|of[ _-]?parts)[\"']?\s*[:=]\s*[\"']?"
    r"(?P<n>\d{1,3})(?![\w/])", re.IGNORECASE)


def _num(s: str | None) -> int | None:
    if s is None:
        return None
    s = s.casefold()
    return int(s) if s.isdigit() else _NUMS.get(s)


def find_parts(text: str) -> tuple[Part, ...]:
    """Every part marker in ``text``: ``(1/2)``, ``[2/3]``, ``(part 1 of 2)``, ``part two``,
    ``page 1/2``, and a record's part field (``"part": 1, "of": 2``)."""
    out = []
    for m in _PART.finditer(text):
        a = _num(m.group("a") or m.group("c"))
        b = _num(m.group("b") or m.group("d") or m.group("f"))
        if m.group("e"):
            a = _num(m.group("e"))
        if a is not None and a > 0 and (b is None or a <= b):
            out.append(Part(a, b))
    if ":" in text or "=" in text:
        fields = list(_FIELD_PART.finditer(text))
        t = _FIELD_TOTAL.search(text) if fields else None
        for m in fields:
            a, b = int(m.group("a")), m.group("b") or (t.group("n") if t else None)
            total = int(b) if b is not None else None
            if a > 0 and (total is None or a <= total):
                out.append(Part(a, total))
    return tuple(dict.fromkeys(out))


# -- lines --------------------------------------------------------------------------------------
_WIKI = re.compile(r"\[\[([^\]|]*)(?:\|[^\]]*)?\]\]")
_MDLINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MARKS = re.compile(r"\*\*|__|`|<[^>]{0,40}>|~~")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s*")
_BULLET = re.compile(r"^\s*(?:[-*+\u2022>\u2192\u2713\u2714\u25aa\u25cf\u2023]|\d{1,3}[.)])\s+")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")


_MARKUP = re.compile(r"[\[*_`<~]")
_DIGIT = re.compile(r"\d")


def _clean(line: str) -> str:
    if not _MARKUP.search(line):
        return line
    line = _WIKI.sub(r"\1", line)
    line = _MDLINK.sub(r"\1", line)
    return _MARKS.sub("", line)


@dataclass
class _Line:
    text: str
    heading: bool = False
    bullet: bool = False
    level: int = 0  # heading depth, or indentation of a bullet
    outer: bool = False  # the outer record again, after a list of records on one line


def _nests(v) -> bool:
    return isinstance(v, dict) or (isinstance(v, list)
                                   and any(isinstance(x, (dict, list)) for x in v))


def _json_lines(obj, depth: int = 0) -> list[_Line] | None:
    """A JSON value as ``field: value`` lines (``None`` for a scalar at the top): each record
    opens with a blank heading so that it starts a context of its own."""
    out: list[_Line] = []
    if isinstance(obj, list):
        for x in obj:
            if isinstance(x, (dict, list)):
                out += _json_lines(x, depth + 1) or []
            else:
                out.append(_Line(str(x), bullet=True, level=depth))
        return out
    if isinstance(obj, dict):
        out.append(_Line("", heading=True, level=min(depth + 1, 6)))
        edge = _edge(obj)
        if edge is not None:
            return out + [_Line(edge, level=depth)]
        tie = _tie(obj)
        if tie is not None:  # {"type": "friend", "name": A} in X's record: A is X's friend
            return out + [_Line(tie, bullet=True, level=depth)]  # a bullet: never a title
        # the name first, then the record's own values, then what nests (a nested record
        # opens a context of its own, which the lines after it would stay in)
        first = sorted(obj, key=lambda k: (str(k).casefold() not in _FIRST_FIELDS,
                                           _nests(obj[k])))
        keyed = _keyed(obj)
        if keyed is not None:  # {"entity": X, "relation": "friends", "members": [...]}
            out.append(_Line(f"key: {keyed[0]}", level=depth))
            first = [k for k in first if k not in keyed[1]]
        for k in first:
            v = obj[k]
            if isinstance(v, dict):
                out.append(_Line(str(k), heading=True, level=min(depth + 2, 6)))
                out += _json_lines(v, depth + 2) or []
            elif isinstance(v, list) and any(isinstance(x, (dict, list)) for x in v):
                out.append(_Line(str(k), heading=True, level=min(depth + 2, 6)))
                out += _json_lines(v, depth + 2) or []
            elif isinstance(v, list):
                out.append(_Line(f"{k}: " + ", ".join(str(x) for x in v), level=depth))
            elif v is not None:
                out.append(_Line(f"{k}: {v}", level=depth))
        return out
    return None


_FIRST_FIELDS = frozenset("name person subject entity key topic title index about id".split())
#: An edge record's fields (``{"source": X, "relation": "friend_of", "target": A}``, or a
#: table with the same columns): who, how, to whom.
_EDGE_FROM = frozenset("source from subject person name head src a".split())
_EDGE_REL = frozenset("relation rel type predicate edge label kind relationship".split())
_EDGE_TO = frozenset("target to object other of tail dst b".split())


def _keyed(record) -> tuple[str, tuple[str, str]] | None:
    """A record naming a set by two fields, whose and which (``{"entity": X, "relation":
    "friends", "members": [...]}``, ``{"relation": "job", "value": "baker", ...}``), as the
    set's title (``friends of X``) and the two fields; None for any other record."""
    rel = anchor = None
    for k, v in record.items():
        key = str(k).strip().casefold()
        if not isinstance(v, str) or not v.strip():
            continue
        if key in _EDGE_REL and rel is None and any(
                _WORDS.get(w, "w") in _ROLE_CHARS + "jeL" for w in _WORD.findall(v.casefold())):
            rel = (k, v.strip())
        elif key in _KEYED_ANCHOR and anchor is None:
            anchor = (k, v.strip())
    if rel is None or anchor is None or not any(isinstance(v, list) for v in record.values()):
        return None
    return f"{rel[1]} of {anchor[1]}", (rel[0], anchor[0])


_WORD = re.compile(r"[^\W\d_]+")
#: The field naming whose set a record is (:func:`_keyed`).
_KEYED_ANCHOR = frozenset("entity person subject name of value about for anchor owner".split())


def _edge(record) -> str | None:
    """An edge record as the sentence it stands for: ``X is child of A.`` for a relation
    ending in ``of`` (``child_of``), else ``X: friend: A.`` (read as arrows are); None for
    any other record."""
    got: dict[str, str] = {}
    of = False  # the object's field is ``of``: {"name": A, "relation": "child", "of": X}
    for k, v in record.items():
        key = str(k).strip().casefold()
        for role, names in (("from", _EDGE_FROM), ("rel", _EDGE_REL), ("to", _EDGE_TO)):
            if key in names and isinstance(v, str) and v.strip() and role not in got:
                got[role] = v.strip()
                of |= key == "of"
    if len(got) != 3 or len(record) > 4:
        return None
    rel = re.sub(r"[_\-\s]+", " ", got["rel"]).strip()
    if of and not rel.casefold().endswith(" of"):
        rel += " of"
    if rel.casefold().endswith(" of"):
        return f"{got['from']} is {rel} {got['to']}."
    return f"{got['from']}: {rel}: {got['to']}."


def _tie(record) -> str | None:
    """A record of two fields, a relation word and a name (``{"type": "friend", "name": A}``
    in X's list of relations), as the field line ``friend: A``: the name is in the enclosing
    record's person's set. None for any other record."""
    if len(record) != 2 or not all(isinstance(v, str) for v in record.values()):
        return None
    rel = who = None
    for k, v in record.items():
        key = str(k).strip().casefold()
        if key in _EDGE_REL:
            rel = v.strip()
        elif key in _EDGE_FROM or key in _EDGE_TO:
            who = v.strip()
    if rel is None or who is None or _WORDS.get(rel.casefold(), "w") not in _ROLE_CHARS:
        return None
    return f"{rel}: {who}"


def _table_lines(rows: list[list[str]]) -> list[_Line]:
    """Table rows (the first is the header) as one record per row (an edge per row when the
    header names who, how and to whom: :func:`_edge`)."""
    header = rows[0]
    out: list[_Line] = []
    edges = [_edge(dict(zip(header, cells))) for cells in rows[1:]] if len(header) >= 3 else []
    if len(header) == 3 and header[1].strip().casefold() in _EDGE_REL \
            and header[0].strip().casefold() == header[2].strip().casefold():
        # ``| Person | Relation | Person |``: who, how and to whom by place
        edges = [_edge({"from": c[0], "rel": c[1], "to": c[2]}) if len(c) == 3 else None
                 for c in rows[1:]]
    if edges and all(edges):
        return [ln for e in edges for ln in (_Line("", heading=True, level=6), _Line(e or ""))]
    if len(header) == 1:  # one column: the header titles the list below it
        out.append(_Line(header[0].strip(), heading=True, level=6))
        return out + [_Line(c.strip(), bullet=True) for cells in rows[1:] for c in cells[:1]
                      if c.strip()]
    named = any(h.strip().casefold() in _FIRST_FIELDS for h in header)
    for cells in rows[1:]:
        out.append(_Line("", heading=True, level=6))
        pairs = list(zip(header, cells))
        pairs.sort(key=lambda hc: hc[0].strip().casefold() not in _FIRST_FIELDS)
        for k, (h, c) in enumerate(pairs):
            c = c.strip()
            if c:
                out.append(_Line(f"{h.strip()}: {c}" if h.strip() else c))
                if k == 0 and not named and _WORDS.get(h.strip().casefold(), "w") in _ROLE_CHARS:
                    # ``| Friend | Job |`` under X: the row is about the friend
                    out.append(_Line(f"name: {c}"))
    return out


def _split_cells(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [_clean(c) for c in s.split("|")]


_DECODER = json.JSONDecoder()


_INLINE_HEADING = re.compile(r"\s+(?=#{1,6}\s)")
_INLINE_BULLET = re.compile(r"\s+([-*+\u2022])\s+")
#: Items numbered ``1)``, ``2)`` on one line (two at least, so that ``(age 45)`` stays).
_FIRST_ITEMS = re.compile(r"(?:^|\s)1\)\s.*\s2\)\s")
_NUMBERED = re.compile(r"(?:^|\s+)\d{1,2}\)\s+")
_INLINE_RULE = re.compile(r"\|\s*:?-{2,}:?\s*\|")
#: A field opening a bullet list (``friends: - A - B``, YAML on one line) starts a line, and
#: so does a record's field after a bullet (``- B hobby: chess``), but not a grouping
#: (``- friends by city: ...``).
_INLINE_FIELD = re.compile(r"(?<!\b[bB][yY])\s+(?=[^\W\d_][\w-]{0,30}:\s+[-*+\u2022]\s)")
#: The groups of a one-line grouping (``by city: Oakhaven - A, B; Dunmere - C``, to the end
#: of its sentence): their dashes are separators, not bullets.
_GROUPING = re.compile(
    r"\b[bB][yY]\s+[^\W\d_]+\s*:\s+(?![-*+\u2022]\s)[^\n.]*;[^\n.]*")
_FIELD_AFTER_ITEM = re.compile(
    r"(?m)^([-*+\u2022] [^:\n]*?)(?<!\bby)\s+(?=(?:name|person|job|occupation|hobby|city|born|birthday|"
    r"friends|children|parents|spouse|siblings|grandchildren):\s)", re.IGNORECASE)
_JSON_START = re.compile(r"(?m)^[ \t]*(?=[{\[])|\{")


def _relines(text: str) -> str:
    """A note the library stored on one line (it collapses every whitespace run) with its
    line breaks back where markdown had them: before headings, bullets and table rows."""
    if _INLINE_RULE.search(text):
        first, last = text.index("|"), text.rindex("|")
        cells = [c.strip() for c in text[first + 1:last].split("|")]
        cells = [c for c in cells if c]  # a row break reads as an empty cell
        is_rule = [bool(re.fullmatch(r":?-{2,}:?", c)) for c in cells]
        runs = []  # (start, width) of each rule row
        i = 0
        while i < len(cells):
            if is_rule[i]:
                j = i
                while j < len(cells) and is_rule[j]:
                    j += 1
                runs.append((i, j - i))
                i = j
            else:
                i += 1
        tables = []
        for k, (r, n) in enumerate(runs):
            stop = runs[k + 1][0] - runs[k + 1][1] if k + 1 < len(runs) else len(cells)
            head, body = cells[max(0, r - n):r], cells[r + n:max(r + n, stop)]
            # cells short of a row are text between two tables (``... | prose | Name | ...``)
            whole = len(body) - len(body) % n if len(runs) > k + 1 else len(body)
            rows = [head, ["---"] * n] + [body[i:i + n] for i in range(0, whole, n)]
            tables.append("\n".join("| " + " | ".join(row) + " |" for row in rows)
                          + "".join("\n" + _relines(c) for c in body[whole:]))
        lead = cells[:max(0, runs[0][0] - runs[0][1])]
        return (_relines(text[:first]) + ("\n" + " ".join(lead) if lead else "") + "\n"
                + "\n\n".join(tables) + "\n" + _relines(text[last + 1:]))
    text = _INLINE_HEADING.sub("\n", text)
    text = _INLINE_FIELD.sub("\n", text)
    if _FIRST_ITEMS.search(text):  # ``Friends 1) A 2) B``: numbered items are bullets
        text = _NUMBERED.sub("\n- ", text)
    text = _GROUPING.sub(lambda m: re.sub(r"\s+-\s+", " : ", m.group()), text)
    text = _INLINE_BULLET.sub(lambda m: "\n" + m.group(1) + " ", text)
    if _EAGER.get():  # read the other way round: a nested record ends after its name
        text = _NESTED_RECORD.sub(lambda m: m.group(1) + ": ", text)
    return _end_records(_FIELD_AFTER_ITEM.sub(lambda m: m.group(1) + "\n", text))


_LABEL = re.compile(r"(?<!\S)([^\W\d_][\w-]{0,30}):\s")
_OUTER = "\u2063"  # (invisible) marks a line that is the outer record's again
_RECORD_ITEM = re.compile(r"[-*+\u2022] name:\s", re.IGNORECASE)
#: A record nested in a field (``spouse: name: S job: mason``).
_NESTED_RECORD = re.compile(r"\b([^\W\d_][\w-]{0,30}):\s+name:\s", re.IGNORECASE)


#: Set while a one-line text is read the other way round (:func:`read_text`): the last item
#: of a list of records ends right after its name.
_EAGER: ContextVar[bool] = ContextVar("eager_records", default=False)


def _end_records(text: str) -> str:
    """A list of records stored on one line (``friends: - name: A job: baker - name: B job:
    mason hobby: chess job: weaver``) runs the outer record's fields on after its last
    item: the item ends at a field it already had, and what follows is the outer record's
    again (a line of its own). A field the item did not have is the item's, or, read the other
    way round (:data:`_EAGER`), the last item ends right after its name: which record such a
    field belongs to, the line does not say, and :func:`read_text` keeps what both readings
    state."""
    if not _RECORD_ITEM.search(text):
        return text
    lines = text.split("\n")
    eager = _EAGER.get()
    out: list[str] = []
    for i, line in enumerate(lines):
        if not _RECORD_ITEM.match(line):
            out.append(line)
            continue
        labels = list(_LABEL.finditer(line))
        fields = [m.group(1).casefold() for m in labels]  # fields[0] is the item's name
        cut = next((k for k in range(1, len(fields)) if fields[k] in fields[:k]), None)
        if eager and len(labels) > 1 and (
                i + 1 == len(lines) or not _RECORD_ITEM.match(lines[i + 1])):
            # the other reading: the last item keeps its name and the fields it must have
            # had (``job: mason`` before another ``job:``: a record has one job); every other
            # field is the outer record's
            end = len(labels) if cut is None else cut
            again = set(fields[end:])
            bounds = [m.start() for m in labels] + [len(line)]
            segs = [line[bounds[k]:bounds[k + 1]].strip() for k in range(len(labels))]
            item = [segs[k] for k in range(1, end) if fields[k] in again]
            outer = [segs[k] for k in range(1, end) if fields[k] not in again] + segs[end:]
            out.append(" ".join([line[:bounds[1]].rstrip(), *item]))
            line = _OUTER + " ".join(outer) if outer else ""
        elif cut is not None:
            out.append(line[:labels[cut].start()].rstrip())
            line = _OUTER + line[labels[cut].start():]
        if line:
            out.append(line)
    return "\n".join(out)


_HTML = re.compile(r"<(?:h[1-6]|li|ul|ol|p|br|div|tr|td|th|table|dl|dt|dd)\b", re.IGNORECASE)
_HTML_BLOCKS = [(re.compile(p, re.IGNORECASE), r) for p, r in (
    (r"<h([1-6])\b[^>]*>", lambda m: "\n" + "#" * int(m.group(1)) + " "),
    (r"<(?:li|dt|dd)\b[^>]*>", "\n- "),
    (r"<tr\b[^>]*>", "\n|"),
    (r"</t[hd]\s*>", " |"),
    (r"</?(?:h[1-6]|li|ul|ol|p|br|div|tr|table|dl|dt|dd|thead|tbody)\b[^>]*>", "\n"),
    (r"<[^>]*>", ""),
)]


def _from_html(text: str) -> str:
    """HTML as the markdown it stands for: headings, list items and table rows on lines of
    their own (``<h2>Friends of X</h2><ul><li>A</li></ul>`` reads as ``## Friends of X`` /
    ``- A``), other tags dropped, entities decoded."""
    for pattern, repl in _HTML_BLOCKS:
        text = pattern.sub(repl, text)
    return html.unescape(text)


#: Arrows between names and relation words (``X -> friends -> A, B``, ``A → B``) and
#: breadcrumbs (``X > Friends > A, B``; a ``>`` opening a line is a quote, not an arrow) read
#: as the ``:`` of a ``field: value`` line.
_ARROW = re.compile(r"(?<=\S)(?:[ \t]*(?:-+>|=+>|\u2192|\u21d2|\u27f6|\u2794)[ \t]*"
                    r"|[ \t]+[>\u00bb\u203a][ \t]+)(?=\S)")


def _lines(text: str) -> list[_Line]:
    """The text as lines, JSON (a record or list anywhere a line opens with ``{`` or ``[``,
    or at any ``{``) and tables expanded; a one-line note has its markdown breaks back; HTML
    read as its markdown."""
    if "<" in text and _HTML.search(text):
        text = _from_html(text)
    if any(c in text for c in ">\u2192\u00bb\u203a\u21d2\u27f6\u2794"):
        text = _ARROW.sub(": ", text)
    out: list[_Line] = []
    pos = 0
    tries = 0
    for m in _JSON_START.finditer(text):
        if m.end() < pos or tries >= 8:
            continue
        tries += 1
        try:
            obj, end = _DECODER.raw_decode(text, m.start() if m.group() == "{" else m.end())
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, (dict, list)):
            continue
        out += _text_lines(text[pos:m.start()])
        out += _json_lines(obj) or []
        out.append(_Line("", heading=True, level=0))  # the text after it is not in the record
        pos = end
    return out + _text_lines(text[pos:]) if pos else _text_lines(text)


def _text_lines(text: str) -> list[_Line]:
    if "\n" not in text.strip():
        text = _relines(text)
    else:  # a heading opened inside a line still opens a line
        text = _INLINE_HEADING.sub("\n", text)
    raw = text.splitlines()
    out: list[_Line] = []
    i = 0
    while i < len(raw):
        line = raw[i]
        s = line.strip()
        if s.startswith("|") and s.count("|") >= 2:
            rows = []
            while i < len(raw) and raw[i].strip().startswith("|"):
                if not _TABLE_RULE.match(raw[i].replace("|", " ", 1)):
                    rows.append(_split_cells(raw[i]))
                i += 1
            if len(rows) >= 2:
                out += _table_lines(rows)
            elif rows:
                out.append(_Line(" | ".join(rows[0])))
            continue
        h = _HEADING.match(line)
        if h:
            out.append(_Line(_clean(line[h.end():]).strip().rstrip("#").strip(), heading=True,
                             level=len(h.group(1))))
        else:
            b = _BULLET.match(line)
            if b:
                out.append(_Line(_clean(line[b.end():]).strip(), bullet=True,
                                 level=len(line) - len(line.lstrip())))
            elif s:
                outer = s.startswith(_OUTER)
                out.append(_Line(_clean(s.lstrip(_OUTER)), level=len(line) - len(line.lstrip()),
                                 outer=outer))
        i += 1
    return out


# -- items --------------------------------------------------------------------------------------
_TOKEN = re.compile(r"(?P<poss>['\u2019][sS]\b)|(?P<w>[^\W_]+)"
                    r"|(?P<p>[,:;&|=/.!?\u2014\u2013+()\u00b7\u2022\u2713\u2714\u2194\u27f7\u21d4])"
                    r"|(?P<dash>\s-+\s|-{2,})")


#: Punctuation as the item it reads as (``↔`` joins a pair like ``&``).
_PUNCT = {"&": "&", "+": "&", "\u2194": "&", "\u27f7": "&", "\u21d4": "&", "=": "=",
          "/": ",", ";": ",", "|": ":", "\u2014": ":", "\u2013": ":", "!": ".", "?": "?",
          "\u00b7": ",", "\u2022": ",", "\u2713": ",", "\u2714": ","}


class _Item(NamedTuple):
    char: str
    value: object = None  # a name (P), candidates (p), (kind, value) (J H T), iso date (D)
    start: int = 0


def _is(it: _Item, chars: str) -> bool:
    """Whether the item is one of ``chars`` (a skipped word, char ``""``, is none)."""
    return bool(it.char) and it.char in chars


def _items(text: str, vocab) -> list[_Item]:
    """The items of one line, sentence ends (``.``) kept as ``.``."""
    dates = [(m.start(), m.end(), _iso(m)) for m in _DATE.finditer(text)] \
        if _DIGIT.search(text) else []
    toks: list[tuple[str, str, int, int]] = []  # (kind, text, start, end)
    di = 0
    for m in _TOKEN.finditer(text):
        while di < len(dates) and dates[di][1] <= m.start():
            di += 1
        if di < len(dates) and dates[di][0] <= m.start() < dates[di][1]:
            if not toks or toks[-1][0] != "date" or toks[-1][2] != dates[di][0]:
                toks.append(("date", dates[di][2] or "", dates[di][0], dates[di][1]))
            continue
        kind = m.lastgroup or "p"
        if kind == "dash":
            toks.append(("p", ":", m.start(), m.end()))
        else:
            toks.append((kind, m.group(), m.start(), m.end()))
    lex = vocab.lexicon
    maxw = vocab.max_words
    first_words = vocab.first_words
    out: list[_Item] = []
    i = 0
    n = len(toks)
    while i < n:
        kind, t, s, e = toks[i]
        if kind == "date":
            if t:
                out.append(_Item("D", t, s))
            i += 1
            continue
        if kind == "poss":
            out.append(_Item("'", None, s))
            i += 1
            continue
        if kind == "p":
            c = _PUNCT.get(t, t)
            if c == ".":
                prev = toks[i - 1] if i else None
                if prev is not None and prev[0] == "w" and (prev[1].casefold() in _ABBREV
                                                             or (len(prev[1]) == 1
                                                                 and prev[1].isalpha())):
                    i += 1  # ``Dr.``, ``b.``: an abbreviation's dot ends no sentence
                    continue
            out.append(_Item(c, t if t in "|;" else None, s))
            i += 1
            continue
        low = t.casefold()
        if low == "as" and [x[1].casefold() for x in toks[i + 1:i + 3]] == ["well", "as"]:
            out.append(_Item("&", None, s))  # ``A as well as B``
            i += 3
            continue
        if low == "knows" and i + 1 < n and toks[i + 1][1].casefold() in first_words:
            out += [_Item("F", low, s), _Item("v", None, s)]  # ``X knows A``: friends with A
            i += 1
            continue
        # a word: the longest known window of words starting here
        if low not in first_words:
            out.append(_word_item(t, toks, i, s))
            i += 1
            continue
        match = None
        words: list[int] = []
        j = i
        while j < n and len(words) < maxw:
            if toks[j][0] == "w":
                words.append(j)
            elif toks[j][0] == "p" and toks[j][1] in ",." and words:
                pass  # a comma (surname first) or a dot (an initial) may sit inside a name
            else:
                break
            j += 1
        for size in range(len(words), 0, -1):
            key = tuple(toks[w][1].casefold() for w in words[:size])
            entries = lex.get(key)
            if not entries:
                continue
            end = words[size - 1]
            gaps = [toks[g][1] for g in range(i, end + 1) if toks[g][0] == "p"]
            for entry in entries:
                if _fits(entry, gaps, toks, words[:size]):
                    match = (entry, end)
                    break
            if match:
                break
        if match is None:
            out.append(_word_item(t, toks, i, s))
            i += 1
            continue
        entry, end = match
        # an initial's own dot (``F. Abernathy`` / ``Abernathy, F.``) belongs to the name
        if entry.form == "reversed_initial" and end + 1 < n and toks[end + 1][1] == ".":
            end += 1
        if entry.cls == "person":
            if entry.form in ("first", "last"):
                out.append(_Item("f", entry.names, s))
            elif len(entry.names) == 1:
                out.append(_Item("P", entry.names[0], s))
            else:
                out.append(_Item("p", entry.names, s))
        else:
            out.append(_Item(_VALUE_CHAR.get(entry.cls, "V"), (entry.cls, entry.names[0]), s))
        i = end + 1
    for k in range(1, len(out) - 1):  # ``Friends: A | B | C``: after a label, pipes part names
        if out[k].value == "|" and out[k - 1].char in "Pfp" and out[k + 1].char in "Pfp":
            start = next((j for j in range(k - 1, -1, -1) if out[j].char == "."), -1) + 1
            if any(x.char in ":=" and x.value != "|" for x in out[start:k]):
                out[k] = _Item(",", None, out[k].start)
    return out


def _fits(entry, gaps: list[str], toks, words: list[int]) -> bool:
    if entry.form in ("full", "first", "last"):
        return not gaps
    if entry.form == "initial":
        # ``F. Abernathy`` or ``F Abernathy``, the initial a capital or followed by its dot
        return gaps in ([], ["."]) and (bool(gaps) or toks[words[0]][1].isupper())
    return gaps == [","]  # reversed forms: ``Abernathy, Felix`` / ``Abernathy, F.``


def relation_words(relation: str) -> tuple[str, ...]:
    """The words the reader takes for a key's relation (``friends`` -> ``friend``,
    ``friends``, ``pal`` ...; ``parents`` includes ``father`` and ``mother``; ``job`` ->
    ``job``, ``occupation``, ``works`` ...), in table order; () for an unknown relation."""
    chars = {r: c for c, r in _ROLE.items()}
    want = {"job": "j", "hobby": "e", "city": "L"}.get(relation) or chars.get(relation, "")
    if relation == "parents":
        want = "RAO"
    elif relation == "spouse":
        want = "SY"
    return tuple(w for w, c in _WORDS.items() if c and want and c in want)


_KIN_PREFIX = frozenset("step half great grand god foster".split())


def _word_item(t: str, toks, i: int, s: int) -> _Item:
    low = t.casefold()
    if _WORDS.get(low, "w") in _ROLE_CHARS:  # mother-in-law, step-father: other relations
        after = [x[1].casefold() for x in toks[i + 1:i + 3] if x[0] == "w"]
        before = toks[i - 1][1].casefold() if i and toks[i - 1][0] == "w" else ""
        if after[:2] == ["in", "law"] or before in _KIN_PREFIX:
            return _Item("w", low, s)
    pro = _PRONOUN.get(low)
    if pro == "?":  # her: possessive before a relation word, else an object
        nxt = toks[i + 1][1].casefold() if i + 1 < len(toks) else ""
        pro = "q" if _WORDS.get(nxt, "w") in _ROLE_CHARS + "jeLB" or nxt in _SKIP else "h"
    if pro:
        return _Item(pro, low, s)
    if low == "b" and i + 1 < len(toks) and toks[i + 1][1] == ".":
        return _Item("B", low, s)  # ``b. 1957-03-09``
    if low in _SKIP or low.isdigit():
        return _Item("", low, s)  # (the word kept: ``both``, ``the two`` may be a subject)
    return _Item(_WORDS.get(low, "w"), low, s)


# -- the reading --------------------------------------------------------------------------------
_L = r"P(?!')(?:[,&]+P(?!'))*"  # a name run; a possessive (``S's children``) is no member
_R = f"[{_ROLE_CHARS}]"
_CLAUSE_RULES = re.compile("|".join([
    # A is a friend of B / A, a child of B / A and B are the children of C
    # A: listed in Friends of B (a member pointing back to its set says it is a member)
    rf"(?P<r1m>{_L})(?:[=,:]w*|[=,:]?N[wN]*:?w*)(?P<r1r>{_R})w*[ot]:?(?P<r1a>{_L})(?![='])",
    # A is B's friend / A is one of B's friends / A and B are among C's friends / A: listed
    # under B's friends
    # S, X's wife (an apposition closing its clause or between commas)
    rf"(?P<r2m>{_L})(?:=[wNom]*|[=:,]?N[wN]*|m|,(?=P'w*{_R}(?:,|$)))(?P<r2a>P)'w*"
    rf"(?P<r2r>{_R})",
    # X counts A and B among her friends (the pronoun before the set is X's)
    rf"(?P<rFa>P)w+(?P<rFm>{_L})mw?(?P<rFr>{_R})",
    # A and B are married / A and B are friends
    r"(?P<r7a>P)&(?P<r7b>P)[=:]w*(?P<r7r>[YF])",
    # A is married to B / A married B / A is friends with B / A (baker) - friends with B
    # ... and (also) with C
    # X is married to a baker, S / X is friends with a mason named A (the value is theirs)
    r"(?P<r8a>P)[=:]?w*(?:Y[tv]?|Fv)(?:(?P<r8v>[JHT]),?w?)?(?P<r8m>" + _L + r"(?:,*&v" + _L
    + ")*)",
    # the children of a couple: X and Y's children: A, B / Children of X and Y: A, B; the
    # parents of siblings: X and Y's parents: A, B
    rf"(?P<rCa>P&P)'w*(?P<rCr>[KGRAO])w*(?:[wo,]*[=:x]+[w,]*)?(?P<rCm>{_L})?",
    rf"(?P<rDr>[KG])[wN]*o(?P<rDa>P&P)w*(?:[wo,]*[=:x]+[w,]*)?(?P<rDm>{_L})?",
    # X's friends are A, B and C / X's father is A / X's friends.
    # X's friends in Oakhaven: A, B (a value after the relation word qualifies the set)
    rf"(?P<r3a>P)'w*(?P<r3r>{_R})[wN]*(?:w*[JHT])?(?:[wo,]*[=:x]+[w,]*)?(?P<r3m>{_L})?",
    # common friends of X and Y: A / X and Y share one friend: A (read only when the
    # clause says the set is shared: "common", "mutual", "share")
    rf"(?P<rMr>F)[wN]*o(?P<rMa>P&P)w*(?:[wo,]*[=:x]+[w,]*)?(?P<rMm>{_L})?",
    rf"(?P<rSa>P&P)[wx]+(?P<rSr>F)w*[=:,]+w*(?P<rSm>{_L})",
    # the friends of X are A and B / Friends of X: A, B / Friends of X.
    rf"(?P<r4r>{_R})[wN]*o:?(?P<r4a>P)[wN]*(?:[JHT]w*)?(?:[wNo,]*[=:x]+[w,]*)?(?P<r4m>{_L})?",
    # people who are friends with X: A, B (a label: no one before the relation word)
    rf"(?P<rAr>F)v(?P<rAa>P)[=:]+[w,]*(?P<rAm>{_L})",
    # people X is friends with. (a title: the key alone) / X is friends with: A, B
    rf"(?P<r9a>P)=w*(?P<r9r>F)v(?:[:,]+[w,]*(?P<r9m>{_L})w*)?$",
    # Friends - X: A, B / Friends list: X: A, B (the relation first, then whose set)
    rf"(?P<rBr>{_R})[wN]*:+(?P<rBa>P):+[w,]*(?P<rBm>{_L})",
    # X and Y have two children: A and B (the couple's)
    rf"(?P<rEa>P&P)xw*(?P<rEr>[KG])w*[=:,]*w*(?P<rEm>{_L})?",
    # X has two children: A and B / X has two kids, A and B
    rf"(?P<r5a>P)xw*(?P<r5r>{_R})w*[=:,]*w*(?P<r5m>{_L})?",
    # X - friends: A, B / X: children / Index: X / friends
    rf"(?<![,&])(?P<r6a>P)(?:[:,]+w*|(?=[{_ROLE_CHARS}][wN]*(?:[=:]|$)))(?P<r6r>{_R})[wN]*[=:]*"
    rf"(?P<r6m>{_L})?",
]))
#: A role word with no person before it: its anchor is the context's subject.
_BARE_ROLE = re.compile(rf"^[wN]*(?P<r>{_R})[wN]*[=:]*(?P<m>{_L})?$")
_ANCHOR_LIST = re.compile(rf"^Pw+(?P<m>{_L})[wm]*$")
#: A list with no relation of its own: members of the block's key. Words before a separator
#: must say what follows (``Members:``, ``The people on this page are``), else (``Related: A``)
#: the list is not read as members.
_BARE_LIST = re.compile(rf"^(?:w*[Nk][wNk]*[=:]+|[=:]*)[w,]*(?P<m>{_L})[w,]*$")
_ROLE_FIELD = re.compile(rf"(?P<r>{_R})w*[=:]+[w,]*(?P<m>{_L})")
#: A set named, then its members between commas: ``X's husband, A, is a baker``.
_APPOSED = re.compile(rf"P'w*{_R}w*,(?P<m>{_L})(?:,(?=[=xjeL])|$)")  # (or ending the clause)
_ASIDE_ROLE = re.compile(rf"^[wN]*{_R}w*o{_L}$")
_SET_AFTER = re.compile(rf"^(?:x|[:,'])[wN]*{_R}")
#: ``A (baker) - friend of X``: what A is to someone, not A's set
_RELATED = re.compile(rf"^[:,]w*{_R}w*[ot]")
_RELATION_TO = re.compile(rf"^w*t(?P<a>P)[=:]+w*(?P<r>{_R})w*$")
_NAME_FIELD = re.compile(r"^n[=:]+(?P<p>P)(?:w*$|(?=[^P]+$))")  # (then its fields, if any)
#: (a record of X) member of: friends of Y / listed in: Y's children / part of: ...
_MEMBER_OF = re.compile(rf"^w*[Not][wNot]*[=:]+w*(?:(?P<r>{_R})[wN]*o(?P<a>P)|(?P<b>P)'w*"
                        rf"(?P<s>{_R}))[wN]*$")
_KEY_FIELD = re.compile(r"^k[=:]+")
#: Under a person's heading or record, ``Friend of A`` / ``Mother of: A, B`` says what the
#: person is (a plural, ``Friends of A``, names a set).
_WHAT_SUBJECT_IS = re.compile(rf"^(?:w+[=:]+)?(?P<r>{_R})o[=:]*(?P<m>{_L})$")
#: Under a value's heading, its holders under a word of its kind (``# Oakhaven`` /
#: ``Residents: A, B``).
_CUE_LIST = re.compile(rf"^w*(?P<c>[jeL])w*[=:]+[w,]*(?P<m>{_L})[w,]*$")
_CUE_KIND = {"j": "job", "e": "hobby", "L": "city"}
#: A person's set grouped by a value: ``X's friends by city: Oakhaven - A, B; Dunmere - C``
#: (the groups may follow on lines of their own).
_GROUP = re.compile(rf"(?P<v>[JHT])[=:]+(?P<m>{_L})")  # one group: ``Oakhaven: A, B``
#: ``by city: Oakhaven - A, B; Dunmere - none`` (a group may name no one)
_GROUPED = re.compile(rf"w(?P<c>[jeL])[=:,]*(?P<s>(?:[JHT][=:]+(?:{_L}|w),*)*)$")
_GROUPS = re.compile(rf"^(?:{_GROUP.pattern},*)+$")
_PERSON_SETS = frozenset(_ROLE.values())
_WITHIN = frozenset("in from at and".split())
#: A label naming a pair's relation (``Friendship: A & B``, ``Married couple: A and B``).
_PAIR_LABEL = re.compile(r"^(?P<r>[FY])w*:+(?P<a>P)[&,](?P<b>P)$")
_PAIR_WORDS = frozenset("friendship friendships married".split())
#: Several pairs after such a label (``Friendships: A ↔ B; A ↔ C``), or on lines under a label
#: of its own (``Friends:`` over ``A ↔ B`` lines, when the label belongs to no one).
_PAIRS = re.compile(r"^(?P<r>[FY])w*:+(?P<s>(?:[,:]*P&P)+)[,:]*$")
_PAIRS_WORDS = _PAIR_WORDS | frozenset("friends marriages couples".split())
_PAIRS_HEAD = re.compile(r"^[FY]w*:*$")
_ONE_PAIR = re.compile(r"^[,:]*P&P[,:]*$")
#: ``friends(A, B).``, ``married(A, B)``: a symmetric relation written as a predicate
_PREDICATE = re.compile(r"(?<![\w(])(?P<r>friends?|friendship|married|spouses?|FRIENDS?|"
                        r"FRIENDSHIP|MARRIED|SPOUSES?)\((?P<a>[^(),;\n]+)"
                        r",(?P<b>[^(),;\n]+)\)")
_AMONG = re.compile(rf"[JHT]mP'w*{_R}w*[=:]+(?P<m>{_L})$")
_SHARED = frozenset("common mutual share shared".split())
_NAME_RUN = re.compile(_L)
#: A person's values between commas before the clause's verb (``X, a baker, is ...``).
_VALUE_APPOSED = re.compile(r"P,(?P<v>w*[JHT][wJHT&]*)(?:,(?=[=xYF])|,(?=(?P<n>&?P))|(?P<e>$))")
_AS_ARE = re.compile(rf",w=(?P<m>{_L})$")
#: A bullet's name and what is said of them alone (no one else, no relation):
#: ``A — a baker in Oakhaven``, ``A (Dunmere)``
_ANNOTATED = re.compile(rf"^P[^P{_ROLE_CHARS}Y'=xz]*[JHT][^P{_ROLE_CHARS}Y'=xz]*$")
#: A sentence about one person's values alone under a set's heading (``A is a baker from
#: Oakhaven.``)
_DESCRIBED = re.compile(rf"^P[^P{_ROLE_CHARS}Y'xz]*[JHT][^P{_ROLE_CHARS}Y'xz]*$")
_NAME_AFTER = re.compile(r",?w?P(?!')")  # ``a baker, S`` / ``a baker named A``
_PLURAL_ROLES = frozenset("children grandchildren offspring".split())


def _singular(item: _Item) -> bool:
    w = item.value if isinstance(item.value, str) else ""
    return bool(w) and not w.endswith("s") and w not in _PLURAL_ROLES


#: A label naming a person before a list (``Relatives of X:``, ``X's closest people:``).
_LABEL_OF = re.compile(r"^(?:P'[wN]*|[wN]+oP)$")
_VALUE_INDEX = re.compile(rf"(?P<v>[JHT])[^P.{_ROLE_CHARS}]*?[=:]+[w,]*(?P<m>{_L})")


@dataclass
class _Context:
    subject: str | None = None  # the person a block is about (a heading, a name field)
    key: Key | None = None  # the set a block lists (a heading, a key field, a title)
    topic: str | None = None  # the person prose last spoke of (pronouns)
    #: a person's set whose members follow grouped by a value (``X's friends by city:``):
    #: the set and the value's kind, while that set is the block's key
    grouped: tuple[Key, str] | None = None
    #: the group a heading opened under such a set (``## Oakhaven``): its (kind, value)
    group: tuple[str, str] | None = None
    #: the key was named in a sentence that listed its members (``Her friends are A and
    #: B.``): a name standing alone after it is not one more
    listed: Key | None = None
    #: the person a title names alone (``S (potter).``), while still the block's subject
    titled: str | None = None
    #: a label of pairs (``Friends:``, no one's) over lines ``A ↔ B``: F or Y
    pairs: str | None = None
    #: the key a heading, the note's title or a line ending in a colon named: what the
    #: bullets below it list
    intro: Key | None = None
    #: the people an earlier sentence named together (``X's friends are A and B.``): whom
    #: ``they``, ``both``, ``the two`` and ``their`` stand for
    people: tuple[str, ...] = ()


@dataclass
class _Out:
    vocab: object
    facts: dict = field(default_factory=dict)
    keys: dict = field(default_factory=dict)
    lists: dict = field(default_factory=dict)
    pointers: dict = field(default_factory=dict)
    answers: dict = field(default_factory=dict)

    def fact(self, kind: str, subj: str, obj: str) -> None:
        if subj and obj and subj != obj:
            self.facts.setdefault(Fact(kind, subj, obj), None)

    def member(self, key: Key, who: str, role: str | None = None) -> None:
        """``who`` is listed in ``key``'s set (``role``: ``father``/``mother`` when the text
        says which parent)."""
        if who and who != key.entity:
            self.lists.setdefault(key, {}).setdefault(who, None)
            self.keys.setdefault(key, None)
            if role in ("father", "mother"):
                self.fact(f"{role}_of", who, key.entity)
            else:
                self.membership(key, who)

    def membership(self, key: Key, who: str) -> None:
        """The §3 fact a list's member states: ``who`` is in ``key``'s set."""
        rel, x = key
        if rel == "friends":
            self.fact("friend_of", x, who)
        elif rel == "spouse":
            self.fact("married", x, who)
        elif rel == "parents":
            self.fact("child_of", x, who)
        elif rel == "father":
            self.fact("father_of", who, x)
        elif rel == "mother":
            self.fact("mother_of", who, x)
        elif rel == "children":
            g = self.vocab.gender(x)
            if g == "male":
                self.fact("father_of", x, who)
            elif g == "female":
                self.fact("mother_of", x, who)
            else:
                self.fact("child_of", who, x)
        elif rel in ("job", "hobby", "city"):
            self.fact(rel, who, x)

    def surface(self, role: str, member: str, anchor: str) -> None:
        """``member is a <role> of anchor``: the fact in the sentence's own direction."""
        if role == "friends":
            self.fact("friend_of", member, anchor)
        elif role == "children":
            self.fact("child_of", member, anchor)
        elif role == "father":
            self.fact("father_of", member, anchor)
        elif role == "mother":
            self.fact("mother_of", member, anchor)
        elif role == "spouse":
            self.fact("married", member, anchor)
        elif role == "parents":
            g = self.vocab.gender(member)
            kind = {"male": "father_of", "female": "mother_of"}.get(g or "")
            if kind:
                self.fact(kind, member, anchor)
            else:
                self.fact("child_of", anchor, member)

    def key(self, key: Key, pointer: bool = False) -> None:
        (self.pointers if pointer else self.keys).setdefault(key, None)


def _set_key(role: str, anchor: str) -> Key:
    """The key of ``anchor``'s ``role`` set: father and mother are among the parents."""
    return Key("parents" if role in ("father", "mother") else role, anchor)


def _names(items: list[_Item], chars: str, a: int, b: int) -> list[str]:
    return [items[i].value for i in range(a, b) if chars[i] == "P"]


_GENDER = {"he": "male", "him": "male", "his": "male", "she": "female", "her": "female",
           "hers": "female"}


def _referent(want: str | None, before: list[_Item], ctx: _Context, vocab) -> str | None:
    """Whom a pronoun stands for: the clause's first person, once a verb has followed them
    (``X is a baker, and his wife ...``; ``X's friend B is a baker, and her child ...``), else
    the person prose last spoke of, else the block's subject; the first of them of the
    gender ``want`` (``she`` is no man; None: either); None when none is."""
    at = next((k for k, it in enumerate(before) if it.char == "P"), None)
    # the clause's first person, once a verb has said something of them (``X is a joiner,
    # and his ...``; not ``Children: A, B He is ...``, a new sentence run on)
    first = before[at].value if at is not None and any(
        it.char in _VERBISH for it in before[at + 1:]) else None
    for who in (first, ctx.topic, ctx.subject):
        if who is not None and (want is None or vocab.gender(who) in (None, want)):
            return who
    return None


#: Words standing for several people named before, at the head of a clause (``they``,
#: ``both``, ``each``, ``the two``, ``all of them``), and those that deny it of all of them
#: (``none of them``, ``neither``).
_PLURAL = frozenset("they both each all two three four five six seven eight nine ten eleven "
                    "twelve".split())
_PLURAL_HEAD = _PLURAL | frozenset("the of them none neither".split())
_PLURAL_NOT = frozenset("none neither".split())
_PLURAL_WORDS = _PLURAL | _PLURAL_NOT
_PLURAL_ANY = _PLURAL_WORDS | {"their"}  # (a clause with none: nothing to do)
#: A verb or a value's word (``is``, ``has``, ``works``, ``lives``, ``married``, ``born``):
#: what follows a plural subject (``they live``), and what tells a title from a sentence.
_VERBISH = frozenset("=xjeLYB")
_BACK = re.compile(rf"[P{_ROLE_CHARS}Y][^P{_ROLE_CHARS}Y]*$")
_RUN = re.compile(r"P(?:[,&]+P)+(?!')")  # people named together (not ``X and S's``)
_RUN_END = re.compile(_RUN.pattern + "$")
#: A verb in the plural: a relative clause after several people is about all of them.
_PLURAL_VERBS = frozenset("are were live work enjoy play have reside practise practice "
                          "love like".split())


def _people(items: list[_Item]) -> tuple[str, ...]:
    """The people ``items`` last name together (``A, B and C``), or ()."""
    kept = [it for it in items if it.char]
    runs = list(_RUN.finditer("".join(it.char for it in kept)))
    if not runs:
        return ()
    return tuple(dict.fromkeys(kept[i].value for i in range(*runs[-1].span())
                               if kept[i].char == "P"))


def _plural_head(items: list[_Item], k: int) -> int:
    """The end of a plural subject starting at ``items[k]`` (``both``, ``all of them``) that
    a verb or a value's word follows; ``k`` when there is none."""
    e = k
    while e < len(items) and items[e].value in _PLURAL_HEAD \
            and items[e].char in ("", "h", "w", "o", "!"):
        e += 1
    if e == k or e == len(items) or {it.value for it in items[k:e]}.isdisjoint(_PLURAL_WORDS):
        return k
    nxt = items[e]
    if nxt.char in _VERBISH or (nxt.value in _WITHIN and e + 1 < len(items)
                                  and _is(items[e + 1], "JHT")):
        return e
    return k


def _as_items(people: tuple[str, ...], at: int) -> list[_Item]:
    """``A, B and C`` as items."""
    out: list[_Item] = []
    for n, name in enumerate(people):
        if n:
            out.append(_Item("&" if n == len(people) - 1 else ",", None, at))
        out.append(_Item("P", name, at))
    return out


def _couple(people: tuple[str, ...], out: _Out) -> bool:
    """Whether the text so far says these two are married (so their children are both's)."""
    return len(people) == 2 and any(Fact("married", a, b) in out.facts
                                    for a, b in (people, people[::-1]))


#: Words saying the values after them are not one's own: places one is near (``lives near
#: Oakhaven``, ``close to``, ``outside``) and values set against one's own (``chess rather
#: than golf``, ``unlike bakers``).
_NOT_OWN = {**dict.fromkeys("near nearby outside beyond around neighbouring neighboring close "
                            "next far between".split(), "T"),
            **dict.fromkeys("than unlike except besides instead rather".split(), "JHT")}


def _not_own(items: list[_Item]) -> list[_Item]:
    """``items`` without the values they say are not one's own (:data:`_NOT_OWN`)."""
    out: list[_Item] = []
    drop = ""
    for it in items:
        if it.char and it.char in drop:
            continue  # (``between A and B``: both)
        if it.value in _NOT_OWN:
            drop = _NOT_OWN[it.value]  # type: ignore[index]
        elif it.char not in ("", "t", "o", "&", ",") and it.value not in ("from", "and"):
            drop = ""
        out.append(it)
    return out


def _plural(items: list[_Item], ctx: _Context, out: _Out) -> list[_Item] | None:
    """``They``/``both``/``the two``/``their`` as the people they stand for: those the clause
    named together before them, else those an earlier sentence did (``X's friends are A and
    B. Both live in Oakhaven.``: A and B live there, not X). A plural subject whose people
    are not known, or that the clause denies of them (``none of them``), makes its clause
    read as nothing; ``their`` before a child is read only for a couple the text married.
    None: the clause is read as nothing. ``they`` with no people named together before it
    stays a pronoun (a person's ``they``)."""
    e = _plural_head(items, 0)
    if e:
        words = {it.value for it in items[:e]}
        group = ctx.people
        if words & _PLURAL_NOT:
            return None
        if len(group) < 2:
            return items if words <= {"they"} else None
        rest = "".join(it.char for it in items[e:])
        if (set(rest) & set("KG") and not _couple(group, out)) or (
                len(group) > 2 and set(rest) & set("YSF") and "P" not in rest):
            return None  # whose children, or who is married to whom, is not said
        items = _as_items(group, items[0].start) + items[e:]
    k = 0
    while k < len(items):
        it = items[k]
        if it.char == "h" and it.value == "they":  # ``they`` inside the clause
            group = _people(items[:k])
            if not group and not set("KGYS") & {x.char for x in items}:
                group = ctx.people  # (an earlier sentence's people have no children here)
            if len(group) >= 2:
                items = items[:k] + _as_items(group, it.start) + items[k + 1:]
            k += 1
            continue
        if it.char == "q" and it.value == "their":
            group = _people(items[:k]) or ctx.people
            if len(group) >= 2:
                role = next((x.char for x in items[k + 1:] if x.char), "w")
                married = _couple(group, out) or (len(group) == 2 and any(
                    x.char == "Y" for x in items[:k]))  # ``A and B are married; their ...``
                if role not in "KGRAO" or (role in "KG" and not married):
                    return None  # their friends, their jobs: whose is not said
                items = items[:k] + _as_items(group, it.start) + [_Item("'", None, it.start)] \
                    + items[k + 1:]
            k += 1
            continue
        sep = items[k - 1] if k else None
        if sep is not None and _is(sep, ",(:") and (e := _plural_head(items, k)) > k:
            # ``A and B, both from Oakhaven``, ``(both in Oakhaven)``, ``; both live in ...``
            end = next((j for j in range(e, len(items)) if _is(items[j], ").:")
                        or items[j].value == ";"), len(items))
            group = _people(items[:k - 1])
            if len(group) >= 2 and not {x.value for x in items[k:e]} & _PLURAL_NOT:
                _clause(_as_items(group, it.start) + items[e:end], _Context(), out,
                        title=False, heading=False, bullet=False)
            tail = items[end + 1:] if end < len(items) and items[end].char == ")" \
                else items[end:]
            items = items[:k - 1] + tail
            continue
        k += 1
    return items


def _clause(items: list[_Item], ctx: _Context, out: _Out, *, title: bool, heading: bool,
            bullet: bool, later: bool = False) -> None:
    """Read one sentence's items into ``out`` (updating ``ctx``); ``later``: not the first
    sentence of its line (a bullet's second sentence is prose)."""
    if any(it.char == "!" for it in items):
        if items[0].char == "P":  # ``X is not a baker. He ...``: X is still who ``he`` is
            ctx.topic = items[0].value
        return
    words = {it.value for it in items}
    if not words.isdisjoint(_PLURAL_ANY):
        plural = _plural(items, ctx, out)
        if not plural:
            return
        items = plural
    if not words.isdisjoint(_NOT_OWN):
        items = _not_own(items)
    # pronouns stand for the clause's subject, else the topic (or the block's subject), of
    # the pronoun's gender
    expanded: list[_Item] = []
    said: dict[str | None, str] = {}  # gender -> whom an earlier pronoun of it stood for
    for k, it in enumerate(items):
        if _is(it, "hq") and k >= 2 and _is(items[k - 2], "hq") and items[k - 1].value == "or":
            expanded.pop()  # ``she or he``: one person, either gender (read at ``she``)
            continue
        if _is(it, "hq"):
            either = k + 2 < len(items) and items[k + 1].value == "or" \
                and _is(items[k + 2], "hq")
            want = None if either else _GENDER.get(it.value or "")
            who = said.get(want) or _referent(want, expanded, ctx, out.vocab)
            if who is None:
                expanded.append(_Item("w", "?", it.start))  # a pronoun of no one known
                words.add("?")
                continue
            said.setdefault(want, who)  # ``His friend B ..., and his child C``: his is his
            expanded.append(_Item("P", who, it.start))
            if it.char == "q":
                expanded.append(_Item("'", None, it.start))
        elif it.char:
            expanded.append(it)
    items = expanded
    if not items:
        return
    if items[0].char == "z":  # a cross-reference: the keys it names, and nothing it states
        sub = _Out(out.vocab)
        _clause(items[1:], _Context(ctx.subject, None, ctx.topic), sub, title=True,
                heading=True, bullet=False)
        for k in (*sub.keys, *sub.lists):
            out.key(k, pointer=True)
        return
    # a relative clause (``A, who is a baker, ...``, ``A, whose job is ...``) is about the
    # person just before it: read apart, with that person as its subject
    for k, it in enumerate(items):
        if it.char != "y":
            continue
        j = k - 1 if k >= 1 and items[k - 1].char == "P" else (
            k - 2 if k >= 2 and items[k - 1].char == "," and items[k - 2].char == "P" else -1)
        if j < 0 and k >= 1 and items[k - 1].char in _ROLE_CHARS:
            # "X's friends who are bakers: A": the clause qualifies the set, its members
            # hold its values
            end = next((e for e in range(k + 1, len(items)) if items[e].char in ":="
                        and e > k + 1), None)
            if end is not None:
                _qualified(items, k, end, ctx, out, title=title, heading=heading,
                           bullet=bullet)
                return
        if j < 0:
            continue
        # it ends at the first comma or colon not inside a list of names (``X, whose friends
        # are A, B and C, is a baker``)
        end = next((e for e in range(k + 1, len(items)) if items[e].char == ":"
                    or (items[e].char == "," and items[e + 1:e + 2] != []
                        and items[e + 1].char not in "Pp")), len(items))
        if j >= 2 and items[j - 1].char == "o" and items[j - 2].char in _ROLE_CHARS:
            # "Friends of X who are bakers: A": the clause qualifies the set, not X
            _qualified(items, k, end, ctx, out, title=title, heading=heading, bullet=bullet)
            return
        who = [items[j]]
        verb = next((x.value for x in items[k + 1:end] if x.char), None)
        if verb in _PLURAL_VERBS and it.value == "who":  # ``A and B, who live in T``: both
            run = _RUN_END.search("".join(x.char for x in items[:j + 1]))
            if run is not None:
                who = items[run.start():j + 1]
        rel = who + ([_Item("'", None, it.start)] if it.value == "whose" else []) \
            + items[k + 1:end]
        _clause(rel, ctx, out, title=False, heading=False, bullet=False)
        _clause(items[:k] + items[end + 1:], ctx, out, title=title, heading=heading,
                bullet=bullet)
        return
    items = [it for it in items if it.char != "y"]
    if not items:
        return
    # an ellipsis (``A and X are friends, as are B and X``; ``A is a baker, as is B``): the
    # clause again with the new people in its first people's place
    m = _AS_ARE.search("".join(it.char for it in items))
    if m is not None and items[m.start() + 1].value == "as":
        left = items[:m.start()]
        lead = _NAME_RUN.match("".join(it.char for it in left))
        if lead is not None:
            _clause(left, ctx, out, title=title, heading=heading, bullet=bullet)
            _clause(items[m.start("m"):] + left[lead.end():], ctx, out, title=False,
                    heading=False, bullet=False)
            return
    # coordinated relation words: "father and mother" are the parents, "brothers and sisters"
    # the siblings; any other pair is read as nothing
    for k in range(len(items) - 2):
        a, b = items[k].char, items[k + 2].char
        if items[k + 1].char == "&" and a and b and a in _ROLE_CHARS and b in _ROLE_CHARS:
            pair = {a, b}
            merged = "R" if pair == {"A", "O"} else ("Z" if pair == {"U", "V"} else "")
            if not merged:
                return
            items = items[:k] + [_Item(merged, None, items[k].start)] + items[k + 3:]
            break
    # asides in parentheses after a person are about that person (``A (baker, Oakhaven)``;
    # ``A (friend)`` under a person's heading: A is in that person's set); others are dropped
    if any(it.char == "(" for it in items):
        # "Relatives of X: S (spouse), K (child)": the label's person is whom the asides
        # relate the names to (else the block's subject)
        colon = next((k for k, it in enumerate(items) if it.char == ":"), 0)
        label = _LABEL_OF.match("".join(it.char for it in items[:colon]))
        related = next(it.value for it in items[:colon] if it.char == "P") if label \
            else ctx.subject
        kept: list[_Item] = []
        k = 0
        while k < len(items):
            it = items[k]
            if it.char != "(":
                if it.char != ")":
                    kept.append(it)
                k += 1
                continue
            end = next((e for e in range(k + 1, len(items)) if items[e].char == ")"),
                       len(items))
            inner = [x for x in items[k + 1:end] if x.char != "("]
            owner = kept[-1] if kept and kept[-1].char == "P" else None
            rest = "".join(x.char for x in items[end + 1:end + 6])
            if owner is not None and ((len(kept) >= 3 and kept[-2].char == "o"
                                       and kept[-3].char in _ROLE_CHARS)
                                      or (_SET_AFTER.match(rest) and not _RELATED.match(rest))
                                      or (title and not rest and len(kept) == 1
                                          and len([x for x in inner if x.char != ","]) <= 1)):
                # "friends of X (Oakhaven)", "X (Oakhaven) has 2 friends", "X (Oakhaven) -
                # friends", a title "X (Oakhaven)": the aside qualifies X's set, it says
                # nothing of X ("X (baker, Oakhaven)" alone is X's card)
                k = end + 1
                continue
            inner_chars = "".join(x.char for x in inner)
            if inner and inner[0].char == "z":  # (see also: ...): a cross-reference
                _clause(inner, ctx, out, title=False, heading=False, bullet=False)
            elif owner is not None and inner_chars in ("F", "Y") \
                    and "".join(x.char for x in kept) == "P&P":
                kept += [_Item(":", None, it.start), inner[0]]  # A ↔ B (friends)
            elif owner is not None and inner and inner_chars in _ROLE_CHARS and len(inner) == 1:
                if related is not None and related != owner.value:
                    out.surface(_ROLE[inner_chars], owner.value, related)
            elif owner is not None and _ASIDE_ROLE.match(inner_chars):
                # "X (mother of A and B)": X is what the aside says, of them
                _clause([owner, _Item("=", None, it.start)] + inner,
                        _Context(owner.value, None, owner.value), out, title=False,
                        heading=False, bullet=False)
            elif owner is not None and re.match(rf"{_R}w*[=:]+[w,]*P", inner_chars):
                # "X (friends: A, B; children: C)": X's sets
                _clause([owner, _Item(":", None, it.start)] + inner,
                        _Context(owner.value, None, owner.value), out, title=False,
                        heading=False, bullet=False)
            elif owner is not None and inner and "P" not in inner_chars:
                _clause([owner] + inner, _Context(owner.value, None, owner.value), out,
                        title=False, heading=False, bullet=False)
            elif owner is None and inner_chars == "P" and kept and kept[-1].char in _ROLE_CHARS:
                kept += [_Item("o", None, it.start), inner[0]]  # Friends (X): A, B
            elif (owner is None and kept and kept[-1].char in _ROLE_CHARS
                  and re.fullmatch(_L, inner_chars)):
                kept += [_Item(":", None, it.start), *inner]  # Friends (A, B) under X
            elif owner is None:
                kept.extend(inner)  # an aside after no one: read as if unmarked
            k = end + 1
        items = kept
    if not items:
        return
    m = _APPOSED.search("".join(it.char for it in items))
    if m is not None:
        # "X's husband, A, is a baker": X's husband is A, and A is a baker
        eq = _Item("=", None, items[m.start("m")].start)
        _clause(items[m.start():m.start("m") - 1] + [eq] + items[m.start("m"):m.end("m")],
                ctx, out, title=False, heading=False, bullet=False)
        items = items[:m.start()] + items[m.start("m"):m.end("m")] + items[m.end():]
    # "X, a baker from Oakhaven, is married to S": X's values, and X is married to S;
    # "friends include A, a baker from Oakhaven, and B": A's values, in a list of names
    at = 0
    while (m := _VALUE_APPOSED.search("".join(it.char for it in items), at)) is not None:
        at = m.start() + 1
        listed = m.group("n") is not None
        before_verb = not listed and m.group("e") is None
        job_first = m.group("v").lstrip("w")[:1] == "J"  # in a list or at its end: a job
        plain = all(items[i].value in _WITHIN for i in range(*m.span("v"))
                    if items[i].char == "w")  # ``a baker from Oakhaven``, not ``unlike A``
        # in a list, a place after ``from``/``in`` alone: ``A, from Oakhaven, and B``
        placed = listed and m.group("v") == "wT" and items[m.start("v")].value in ("from", "in")
        if not plain or not (before_verb or job_first or placed):
            continue
        for i in range(*m.span("v")):
            if items[i].char in "JHT":
                out.fact(items[i].value[0], items[m.start()].value, items[i].value[1])
        items = items[:m.start() + 1] + items[m.end() - listed:]
    if items[0].char == "Y" and (ctx.topic or ctx.subject):  # ``Married to B.`` of the topic
        items = [_Item("P", ctx.topic or ctx.subject, items[0].start)] + items
    # "X is a baker; married to S; friends with A", "X: married to S": a clause after a
    # semicolon or colon with no one before its relation word is the sentence's first
    # person's
    lead = next((it.value for it in items if it.char == "P"), None)
    k = 1 if any(it.char == ":" or it.value == ";" for it in items) else len(items)
    while lead is not None and k < len(items) - 1:
        nxt = "".join(it.char for it in items[k + 1:k + 3])
        sep = items[k].value == ";" or items[k].char == ":"
        pos = items[k + 1].start
        # the separator becomes a clause's end, so that no list of names runs across it
        if sep and (nxt[:1] == "Y" or nxt == "Fv"):
            items = items[:k] + [_Item(".", None, pos), _Item("P", lead, pos)] + items[k + 1:]
        elif sep and nxt[:1] in _ROLE_CHARS and nxt[1:] == "o" and _singular(items[k + 1]) \
                and items[k].value == ";":  # "X: friends with A; parent of B": X is B's parent
            items = items[:k] + [_Item(".", None, pos), _Item("P", lead, pos),
                                 _Item("=", None, pos)] + items[k + 1:]
        k += 1
    pointer = False
    chars = "".join(it.char for it in items)

    m = _GROUPED.search(chars)
    if m is not None and items[m.start()].value == "by":
        kind = _CUE_KIND[m.group("c")]
        if any(c in _ROLE_CHARS for c in chars[:m.start()]) or (
                ctx.key is not None and ctx.key.relation in _PERSON_SETS):
            if m.start():
                _clause(items[:m.start()], ctx, out, title=title, heading=heading,
                        bullet=bullet)
            if ctx.key is not None and ctx.key.relation in _PERSON_SETS:
                ctx.grouped, ctx.group, ctx.listed = (ctx.key, kind), None, ctx.key
                _groups(items, chars, m.start("s"), kind, ctx.key, out)
            return
        if "P" not in chars[:m.start()]:  # ``People by city: Oakhaven - A, B; ...``
            _groups(items, chars, m.start("s"), kind, None, out)
            return
    grouped = ctx.grouped is not None and ctx.grouped[0] == ctx.key
    if grouped and _GROUPS.match(chars):  # ``Oakhaven: A, B`` under ``X's friends by city``
        ctx.listed = ctx.key  # the groups list the set: a name alone after them is not one more
        _groups(items, chars, 0, ctx.grouped[1], ctx.key, out)
        return
    if grouped and len(items) == 1 and items[0].char in "JHT":
        # ``## Oakhaven`` under ``# X's friends by city``: a group; the set is still the key
        if heading and items[0].value[0] == ctx.grouped[1]:
            ctx.group = items[0].value
        return

    if ctx.pairs and _ONE_PAIR.match(chars):  # ``A ↔ B`` under ``Friends:``
        pair = [it.value for it in items if it.char == "P"]
        out.fact("married" if ctx.pairs == "Y" else "friend_of", *pair)
        return
    ctx.pairs = None
    unowned = ctx.subject is None and ctx.topic is None and ctx.key is None
    if unowned and _PAIRS_HEAD.match(chars) and items[0].value in _PAIRS_WORDS:
        ctx.pairs = items[0].char  # ``Friends:`` over lines of pairs
        return
    m = _PAIRS.match(chars)
    if m is not None and (items[0].value in _PAIR_WORDS or (
            unowned and items[0].value in _PAIRS_WORDS and chars.count("&") > 1)):
        rel = "married" if m.group("r") == "Y" else "friend_of"
        for p in re.finditer("P&P", chars):
            out.fact(rel, items[p.start()].value, items[p.end() - 1].value)
        return
    m = _PAIR_LABEL.match(chars)
    if m is not None and items[0].value in _PAIR_WORDS:  # Friendship: A & B; Married: A, B
        a, b = items[m.start("a")].value, items[m.start("b")].value
        out.fact("married" if m.group("r") == "Y" else "friend_of", a, b)
        return

    m = _KEY_FIELD.match(chars)
    if m is not None:  # key: friends of X
        sub = _Out(out.vocab)
        sub_ctx = _Context(subject=ctx.subject)
        _clause(items[m.end():], sub_ctx, sub, title=True, heading=True, bullet=False)
        for k in sub.keys:
            out.key(k)
            ctx.key = ctx.key if ctx.key in sub.keys else k
        for k, ms in sub.lists.items():
            for x in ms:
                out.member(k, x)
        return
    m = _RELATION_TO.match(chars)
    if m is not None and ctx.subject is not None:  # (a record of X) relation to Y: friend
        out.surface(_ROLE[m.group("r")], ctx.subject, items[m.start("a")].value)
        return
    m = _MEMBER_OF.match(chars)
    if m is not None and ctx.subject is not None:  # (a record of X) member of: friends of Y
        anchor = items[m.start("a") if m.group("a") else m.start("b")].value
        out.surface(_ROLE[m.group("r") or m.group("s")], ctx.subject, anchor)
        return
    m = _NAME_FIELD.match(chars)
    if m is not None:  # name: X
        name = items[m.start("p")].value
        if ctx.key is not None and ctx.key.relation != "hub" and ctx.subject in (
                None, ctx.key.entity) and name != ctx.key.entity:
            out.member(ctx.key, name)  # a record under a set's heading is one of its members
        ctx.subject = ctx.topic = name
        if ctx.key is not None and ctx.key.relation == "hub":
            ctx.key = None
        if m.end() < len(items):  # ``name: A job: baker`` (a record on one line): A's fields
            _clause(items[m.end():], ctx, out, title=False, heading=False, bullet=False)
        return

    m = _WHAT_SUBJECT_IS.match(chars)
    if m is not None and ctx.subject is not None and not heading \
            and _singular(items[m.start("r")]) \
            and m.group("r") != "S" and (ctx.key is None or ctx.key.relation == "hub") \
            and ctx.subject not in _names(items, chars, *m.span("m")):
        for x in _names(items, chars, *m.span("m")):
            out.surface(_ROLE[m.group("r")], ctx.subject, x)
        return

    used = [False] * len(chars)
    anchors: set[int] = set()  # a key phrase's person: no subject of the clause's values
    qualifies = len(chars)  # values after a key phrase's relation word qualify its set
    unknown = next((k for k, it in enumerate(items) if it.value == "?"), -1) \
        if "?" in words else -1  # someone unknown, from here
    for k in range(unknown + 1, len(chars)) if unknown >= 0 else ():
        if chars[k] in _ROLE_CHARS and items[k - 1].value == "?":  # so do values after a set
            qualifies = k  # whose owner is not known (``his friends live in ...``)
            break
    got_key = False
    subject_found: list[str] = []
    for m in _CLAUSE_RULES.finditer(chars):
        d = {k: v for k, v in m.groupdict().items() if v is not None}
        for i in range(m.start(), m.end()):
            used[i] = True
        rule = next(k for k in d)[:2]
        if rule == "r1":
            if any(items[i].value == ";" for i in range(m.end("r1m"), m.start("r1r"))):
                continue  # "friends with A and B; parent of C": a new clause, no apposition
            members = _names(items, chars, *m.span("r1m"))
            of = _names(items, chars, *m.span("r1a"))
            role = _ROLE[d["r1r"]]
            for a in of:
                for x in members:
                    out.surface(role, x, a)
            subject_found = members
        elif rule == "r2":
            members = _names(items, chars, *m.span("r2m"))
            a = items[m.start("r2a")].value
            anchors.add(m.start("r2a"))
            for x in members:
                out.surface(_ROLE[d["r2r"]], x, a)
            subject_found = members
        elif rule == "r7":
            a, b = items[m.start("r7a")].value, items[m.start("r7b")].value
            out.fact("married" if d["r7r"] == "Y" else "friend_of", a, b)
            subject_found = [a, b]
        elif rule == "r8":
            a = items[m.start("r8a")].value
            for x in _names(items, chars, *m.span("r8m")):
                out.fact("friend_of" if "F" in m.group() else "married", a, x)
            if d.get("r8v"):
                out.fact(*items[m.start("r8v")].value[:1], items[m.start("r8m")].value,
                         items[m.start("r8v")].value[1])
            subject_found = [a]
        else:  # r3 .. r6, r9, rA .. rF: an anchored set (a couple's: two), maybe with members
            if rule in ("rM", "rS") and not any(it.value in _SHARED for it in items):
                continue  # "friends of X and Y: A": whose friend A is, is not said
            span = m.span(f"{rule}a")
            whose = _names(items, chars, *span)
            if rule == "r6" and lead is not None and any(
                    items[i].value == ";" for i in range(span[1], m.start("r6r"))):
                whose = [lead]  # "X: married to S; children: A": X's children, not S's
            anchors.update(i for i in range(*span) if chars[i] == "P")
            role = _ROLE[d[f"{rule}r"]]
            members = _names(items, chars, *m.span(f"{rule}m")) if f"{rule}m" in d else []
            # "X's friend A works as a baker", "X's wife S is a mason": the one set member
            # named right after the relation word is what the rest of the clause is about
            named = rule == "r3" and _singular(items[m.start("r3r")]) and len(members) == 1 \
                and not set(chars[m.end("r3r"):m.start("r3m")]) - set("wN")
            # ``X's friends A and B live in Oakhaven``: the members named right after a plural
            # relation word, then a verb: what the rest says is about them
            named = named or (rule == "r3" and len(members) > 1 and "r3m" in d
                              and m.start("r3m") == m.end("r3r")
                              and chars[m.end():m.end() + 1] in tuple("=xjeL"))
            if not named:
                qualifies = min(qualifies, m.start(f"{rule}r"))
            for a in whose:
                key = _set_key(role, a)
                for x in members:
                    out.member(key, x, role)
                out.key(key, pointer)
            # a set named at the end of a list of names (``friends include A and S's
            # children``) is not what the lines after it list
            listed = m.start() >= 1 and chars[m.start() - 1] in ",&" and "P" in chars[:m.start()]
            if not pointer and not listed:
                ctx.key = _set_key(role, whose[0])
                # a set whose members the sentence gives, or named by a singular relation
                # (``friend of X``: what the subject is, no label)
                ctx.listed = ctx.key if members or (
                    _singular(items[m.start(f"{rule}r")]) and not (title or heading)) else None
                ctx.topic = whose[0]  # "Friends of X: A. Children: B": X's children
                got_key = True
            if named:
                subject_found = members
            elif rule in ("r3", "r5", "rC", "rE"):
                subject_found = whose

    # a role word with no one before it: the block's subject's set
    if not any(used) and ctx.key is not None and items[0].value == ctx.key.entity:
        m = _ANCHOR_LIST.match(chars)  # after "X has 3 friends.": "He counts A and B among them"
        if m is not None:
            for x in _names(items, chars, *m.span("m")):
                out.member(ctx.key, x)
            return
    if not any(used):
        m = _BARE_ROLE.match(chars)
        anchor = ctx.subject or ctx.topic
        if m is not None and anchor is None and ctx.key is None and title and not bullet \
                and m.group("m") and m.group("m") == "P":  # a title: FRIENDS - X
            key = _set_key(_ROLE[m.group("r")], items[m.start("m")].value)
            out.key(key)
            ctx.key, ctx.subject = key, key.entity
            return
        if m is not None and (anchor is not None or ctx.key is not None):
            role = _ROLE[m.group("r")]
            if ctx.key is not None and anchor is None:
                # under ``Index: X`` (or ``Friends of X``), ``Children: A`` is X's set; under
                # a value's index (``Bakers``) a person's set has no one to belong to
                if ctx.key.relation in _CHAR_VALUE.values():
                    return
                key = _set_key(role, ctx.key.entity)
            else:
                key = _set_key(role, anchor)
            if ctx.key is not None and ctx.key.relation == _set_key(role, "").relation:
                key = ctx.key
            if m.group("m"):
                for x in _names(items, chars, *m.span("m")):
                    out.member(key, x, role)
            out.key(key, pointer)
            if not pointer and (heading or not m.group("m")):
                ctx.key = key
            return
        m = _BARE_LIST.match(chars)
        cue = _CUE_LIST.match(chars)
        if m is None and cue is not None and ctx.key is not None \
                and _CUE_KIND[cue.group("c")] == ctx.key.relation:
            m = cue  # "Residents: A, B" under "# Oakhaven"
        alone = ctx.listed == ctx.key and not set(chars) & set(":=Nk")
        if m is not None and ctx.key is not None and ctx.key.relation != "hub" \
                and not (title and not bullet) and not alone:
            group = ctx.group if grouped else None
            for x in _names(items, chars, *m.span("m")):
                out.member(ctx.key, x)
                if group is not None:
                    out.fact(group[0], x, group[1])
            return
        if (bullet or not title) and ctx.key is not None and ctx.key == ctx.intro \
                and not alone and ctx.key.relation in _PERSON_SETS \
                and (_ANNOTATED if bullet else _DESCRIBED).match(chars) \
                and items[0].value != ctx.key.entity:
            # ``- A — a baker in Oakhaven``, ``2. A (Dunmere)`` under a set's heading: a
            # member, with the values said of them (read below)
            out.member(ctx.key, items[0].value)

    # values: an index (``Bakers: A, B``) or attributes of the clause's subject
    for m in _VALUE_INDEX.finditer(chars):
        if any(used[m.start():m.end()]) or "P" in chars[:m.start("v")]:
            continue
        kind, value = items[m.start("v")].value
        key = Key(kind, value)
        for x in _names(items, chars, *m.span("m")):
            out.member(key, x)
            # ``Bakers in Oakhaven: A``, ``Oakhaven bakers: A``: A holds the values named
            # side by side or joined by ``in``/``from``/``at`` (not ``outside Oakhaven``)
            for i in range(m.start("v") + 1, m.start("m")):
                if chars[i] not in "JHT":
                    if chars[i] not in "jeL" and items[i].value not in _WITHIN:
                        break
                    continue
                if items[i].value[0] != kind:
                    out.fact(items[i].value[0], x, items[i].value[1])
        out.key(key, pointer)
        for i in range(m.start(), m.end()):
            used[i] = True
    subj: list[str] = list(subject_found)
    born = "B" in chars
    cue = any(ch in chars for ch in "jeLB")
    values_alone: list[Key] = []
    kinds_seen = Counter(items[j].value[0] for j, ch in enumerate(chars) if ch in "JHT")
    held: dict[tuple[str, str], dict[str, None]] = {}  # (person, kind) -> values, in order
    i = 0
    while i < len(chars):
        c = chars[i]
        if c == "P" and i and items[i - 1].value in _CONTRAST:
            i += 1  # "Unlike A, X lives in T": A is set against the subject, not one with it
            continue
        if c == "P":
            j = i  # a run of people: names joined by commas and "and" (not side by side)
            while True:
                k = j + 1
                while k < len(chars) and chars[k] in ",&" and items[k].value != ";":
                    k += 1
                if k > j + 1 and k < len(chars) and chars[k] == "P" \
                        and chars[k + 1:k + 2] != "'" and used[k] == used[i]:
                    # not "S, A's spouse" (an apposition), nor a rule's last name joined to
                    # the next clause's first ("friend of X and A is a mason")
                    j = k
                    continue
                break
            run = _names(items, chars, i, j + 1)
            nxt = chars[j + 1] if j + 1 < len(chars) else ""
            after = chars[j + 2] if j + 2 < len(chars) else ""
            if i in anchors and not (nxt and nxt in "=xjeLBJHTD"):
                pass
            elif nxt and nxt in "jeLB" and after == ":" and i >= 2 and chars[i - 1] == ":" \
                    and chars[i - 2] in _ROLE_CHARS:
                pass  # ``spouse: S hobby: chess``: the record's next field, not S's
            elif i == 0 or (nxt and nxt in "='xjeLB:JHTD") \
                    or (i >= 2 and chars[i - 2:i] in ("J,", "H,", "T,")) \
                    or (nxt == "," and after and after in "JHTD") or (nxt == "w" and not subj):
                subj = run
            i = j + 1
            continue
        if c in "JHT" and not used[i]:
            kind, value = items[i].value
            if kind == "city" and born:  # born in a city is no place one lives
                i += 1
                continue
            # "the baker Felix", "a baker, Felix.": the value describes the person after it
            after = chars[i + 1:i + 4]
            if after[:2] == ":P" and i and chars[i - 1] in ",:":
                # "friends by city: Elmstead - A, B; Fenmarch - C": a label of the names after
                run = _NAME_RUN.match(chars, i + 2)
                for x in _names(items, chars, i + 2, run.end() if run else i + 2):
                    out.fact(kind, x, value)
                i += 1
                continue
            if chars[i + 1:i + 2] == "m" or (i >= 2 and chars[i - 2:i] == "P,"
                                              and items[i - 1].value == ";"):
                # "Bakers among X's friends" qualifies the set, and the set's members named
                # after it hold the value ("... : A", "... is A"); "A; Fenmarch - B" (a
                # one-line list whose dashes read as bullets) is not A's
                among = _AMONG.match(chars, i)
                if among is not None:
                    for x in _names(items, chars, *among.span("m")):
                        out.fact(kind, x, value)
                i += 1
                continue
            if i >= 2 and chars[i - 2] == "P" and items[i - 1].value in ("from", "of") \
                    and i - 2 not in anchors and not _NAME_RUN.fullmatch(chars, 0, i - 1):
                out.fact(kind, items[i - 2].value, value)  # ``friends with A from Oakhaven``
                i += 1
                continue
            if (i == 0 or chars[i - 1] in "ovt") and (
                    after[:1] == "P" or (after[:2] == ",P" and len(after) == 2)):
                holder = items[i + 1 if after[:1] == "P" else i + 2].value
                out.fact(kind, holder, value)
                i += 1
                continue
            near = _BACK.search(chars, 0, i)  # the nearest person or relation word before it
            back = near.start() if near is not None else -1
            if back >= 0 and chars[back] != "P" and not used[back] and (
                    items[back].value == "knows" or set(chars[back + 1:i]) & set("vto")):
                # ``X is friends with a baker``, ``X is married to a mason, S``, ``X knows a
                # baker named A``: the value is the other person's (named after it), not X's
                named_after = _NAME_AFTER.match(chars, i + 1)
                if named_after is not None:
                    out.fact(kind, items[named_after.end() - 1].value, value)
                i += 1
                continue
            # a value with no subject in its clause is the block's subject's only behind a
            # field or verb (``Job: baker``, ``Lives in Oakhaven``), never alone (``(Oakhaven)``)
            semi = max((k for k in range(qualifies, i) if items[k].value == ";"), default=-1)
            holders = subj if i < qualifies or semi >= 0 else []
            if semi >= 0:  # after a semicolon: the one person named since, else the first
                # (``X: spouse: S; job: baker``; ``X's friends: A, from T; B, from U``)
                since = set(_names(items, chars, semi, i))
                holders = list(since) if len(since) == 1 else (
                    [lead] if not since and lead is not None else holders)
            if not holders and cue and i < qualifies \
                    and not 0 <= unknown < i:  # (not ``Victor
                holders = [x for x in (ctx.subject or ctx.topic,) if x]  # is a baker``)
            if pointer:
                holders = []
            # several people and as many values of one kind (``A and B are a baker and a
            # mason``): which is whose is not said, so none is read
            ambiguous = len(holders) > 1 and kinds_seen[kind] > 1
            if holders and not ambiguous:
                for h in holders:
                    held.setdefault((h, kind), {})[value] = None
            elif not holders and not 0 <= unknown < i:
                values_alone.append(Key(kind, value))  # (someone unknown's is no index)
        elif c == "D" and born and not used[i]:
            holders = subj or [x for x in (ctx.subject or ctx.topic,) if x]
            for h in holders:
                out.fact("born", h, items[i].value)
        i += 1
    for (h, kind), values in held.items():
        # one job and one city each: two for one person say neither is theirs (``S and
        # child K work as a baker and a mason``); hobbies may be several (``plays chess and
        # practises yoga``)
        if len(values) == 1 or kind == "hobby":
            for v in values:
                out.fact(kind, h, v)
    # ``... friends: A, B`` inside a record on one line: the record's subject's set
    for m in _ROLE_FIELD.finditer(chars):
        if any(used[m.start():m.end()]):
            continue
        before = [items[i].value for i in range(m.start()) if chars[i] == "P"]
        anchor = before[0] if before else (ctx.subject or ctx.topic)
        if anchor is None:
            continue
        role = _ROLE[m.group("r")]
        key = _set_key(role, anchor)
        for x in _names(items, chars, *m.span("m")):
            out.member(key, x, role)
        out.key(key, pointer)
    answer = items[0].value in ("answer", "answers")  # ``Answer: baker.`` indexes no one
    for k in values_alone:
        out.key(k, pointer)
        if not pointer and (title or heading) and not got_key and not answer:
            ctx.key = k
            got_key = True
    named = [it.value for it in items if it.char == "P"]
    if len(set(named)) == 1 and not got_key and not values_alone and (title or heading) \
            and not out.facts and not any(used) and not set(chars) - set("Pw:,.'ko"):
        key = Key("hub", named[0])
        out.key(key, pointer)
        ctx.subject = ctx.topic = named[0]
        ctx.key = key
        if title and not heading:
            ctx.titled = named[0]
        return
    if heading and len(set(named)) == 1 and not got_key:
        ctx.subject = named[0]
    if len(set(subj)) == 1:
        if ctx.subject not in (None, subj[0]) and ctx.subject == ctx.titled \
                and ctx.subject not in named and not heading and (later or not bullet):
            # a sentence about someone else, under a title naming only a person (``S
            # (potter). A is a baker. Friends: B``): what follows is about A, not S
            if ctx.key == Key("hub", ctx.subject):
                ctx.key = None
            ctx.subject = ctx.titled = None
        ctx.topic = subj[0]


def _qualified(items: list[_Item], k: int, end: int, ctx: _Context, out: _Out,
               **kw) -> None:
    """A set named with a relative clause from ``k`` to ``end`` (``Friends of X who are
    bakers: A, B``): the set and its members as if unqualified, and the members hold the
    clause's values."""
    _clause(items[:k] + items[end:], ctx, out, **kw)
    values = [it.value for it in items[k + 1:end] if it.char in "JHT"]
    if any(it.char in "P" for it in items[k + 1:end]):
        return  # "friends who know A": not a value of theirs
    for it in items[end:]:
        if it.char == "P":
            for kind, value in values:
                out.fact(kind, it.value, value)


def _groups(items: list[_Item], chars: str, at: int, kind: str, key: Key | None,
            out: _Out) -> None:
    """The groups from ``at`` (``Oakhaven: A, B; Dunmere: C``) of a set grouped by values of
    ``kind``: each group's people hold the group's value (when of that kind) and are members
    of ``key``, the person's set grouped (None: a grouping of everyone, ``People by city``)."""
    for m in _GROUP.finditer(chars, at):
        vkind, value = items[m.start("v")].value
        for x in _names(items, chars, *m.span("m")):
            if key is not None:
                out.member(key, x)
            if vkind == kind and key is None:
                out.member(Key(kind, value), x)  # its holder, and the §3 fact
            elif vkind == kind:
                out.fact(kind, x, value)


def _resolve_partials(items: list[_Item], full: set[str], main: str | None,
                      ctx: _Context) -> list[_Item]:
    """Ambiguous initials: the one candidate the text (or the block's subject) names in full.
    A first name or surname alone: the person the note is about (the first it names in full)
    or the block's subject or topic, when it is theirs. Else a plain word."""
    out = []
    for it in items:
        if it.char == "p" or it.char == "f":
            near = {main, ctx.subject, ctx.topic}
            known = [n for n in it.value if (n in full if it.char == "p" else False)
                     or n in near]
            if it.char == "f" and sum(n in full for n in it.value) > 1:
                known = []  # ``Silas`` where the note names Silas Fenwick and Silas Oakley
            if len(known) == 1:
                out.append(_Item("P", known[0], it.start))
            else:
                out.append(_Item("w", "?", it.start))  # someone, not known who
        else:
            out.append(it)
    return out


def _sentences(items: list[_Item]) -> list[list[_Item]]:
    out, cur = [], []
    depth = 0
    for it in items:
        depth = max(0, depth + (it.char == "(") - (it.char == ")"))
        if it.char == "." or it.char == "?":
            if cur:
                out.append((cur, it.char == "?"))
            cur = []
        elif it.char == "z" and cur and depth == 0:  # ``... See also: X``: a cross-reference
            out.append((cur, False))
            cur = [it]
        else:
            cur.append(it)
    if cur:
        out.append((cur, False))
    return out


_THE = re.compile(r"\bthe\b", re.IGNORECASE)
_IS = re.compile(r"\bis\b", re.IGNORECASE)
_SENT_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


#: Where an answer ends when the note goes on without a full stop (a note stored on one line:
#: ``A: Nora Fenwick Evidence: ...``): a field's label, a word saying why or whence, an aside.
_ANSWER_END = (r"(?=\s+[^\W\d_][\w-]*\s*:|\s+(?:evidence|sources?|support\w*|reason\w*|because|"
               r"since|why|explanation|notes?|path|chain|proof|verified|confidence|links?|see|"
               r"refs?|references?|based|derived|via|facts?|steps?|details?|context|citations?|"
               r"cited|per)\b|\s+[(\[\u2014\u2013]|\s+-+\s)")
_QA = re.compile(r"\bQ(?:uestion)?\s*[:.)]\s*(?P<q>[^?]{5,300}\?)\s*A(?:nswer)?\s*[:.)]\s*"
                 r"(?P<a>[^.;\n]*?)\s*(?:[.;\n]|$|(?=\bQ(?:uestion)?\s*[:.)])|" + _ANSWER_END + ")",
                 re.IGNORECASE)
_QUOTED = re.compile(r"[\'\"\u2018\u201c](?P<q>[^\'\"\u2019\u201d]{5,300}\?)[\'\"\u2019\u201d]\s*"
                     r"(?:is|:|->|=>|\u2192)\s*(?P<a>[^.;\n]*?)\s*(?:[.;\n]|$|" + _ANSWER_END + ")",
                     re.IGNORECASE)


#: A question answered right after it, unlabelled (``Who are X's children? A and B.``).
_BARE_Q = re.compile(r"(?:^|(?<=[.!]\s))\W*(?P<q>(?:who|what|which|where|whom)\b[^?.]{5,300}\?)"
                     r"\s*(?P<a>[^.;\n?]*?)\s*(?:[.;\n]|$|" + _ANSWER_END + ")", re.IGNORECASE)
_VERB = re.compile(r"\b(?:is|are|was|were|has|have)\b", re.IGNORECASE)
_Q_LINE = re.compile(r"^\W*Q(?:uestion)?\s*[:.)].*\?\W*$", re.IGNORECASE)
_A_LINE = re.compile(r"^\W*A(?:nswer)?\s*[:.)]", re.IGNORECASE)


def _asked(line: str, out: _Out) -> str:
    """Questions of the world's shapes given with their answer (``Q: ...? A: baker.``,
    ``the answer to 'What is ...?' is baker``) as answers; the line without them."""
    if "?" not in line:
        return line
    for pattern in (_QA, _QUOTED, _BARE_Q):
        for m in list(pattern.finditer(line)):
            answer = m.group("a").strip().strip("\"'\u2019\u201d").strip().rstrip(",:").strip()
            if not answer or (pattern is _BARE_Q and _VERB.search(answer)):
                continue  # after a bare question, a sentence (an answer statement) is no answer
            for template in QUESTION_FORMS:
                slots = question_slots(template, m.group("q").strip())
                if slots is None:
                    continue
                canon = {k: out.vocab.canonical(k, v) for k, v in slots.items()}
                if all(canon.values()):
                    _answer(Answer(template, tuple(sorted(canon.items())), answer), out)
                    line = line.replace(m.group(), " ")
                break
            else:
                if pattern is not _QUOTED and any(it.char and it.char in "PJHT"
                                                  for it in _items(answer, out.vocab)):
                    # a question of no world shape (``Q: Who are X's friends? A: A, B.``):
                    # what it asks for, then its answer, as one statement
                    line = line.replace(m.group(), f" {m.group('q').strip()[:-1]}: {answer}. ")
    return line


def _answer(ans: Answer, out: _Out) -> None:
    out.answers.setdefault(ans, None)
    x = ans.slot_dict.get("X")
    kind = {"qc1_job": "job", "qc1_hobby": "hobby", "qc1_city": "city"}.get(ans.template)
    if kind and x:
        v = out.vocab.value(kind, ans.answer)
        if v:
            out.fact(kind, x, v)


def _answers(line: str, out: _Out) -> str:
    """Answer statements in ``line`` (after any prefix); returns the line without them."""
    line = _asked(line, out)
    if not _IS.search(line) or not _THE.search(line):
        return line
    keep = []
    for sentence in _SENT_END.split(line):
        found = None
        if _IS.search(sentence):
            for m in _THE.finditer(sentence):
                st = parse_statement(sentence[m.start():])
                if st is None:
                    continue
                template, slots, answer = st
                canon = {k: out.vocab.canonical(k, v) for k, v in slots.items()}
                if all(canon.values()):
                    found = (m.start(), Answer(template, tuple(sorted(canon.items())),
                                                answer.strip().rstrip(".").strip()))
                break
        if found is None:
            keep.append(sentence)
            continue
        start, ans = found
        _answer(ans, out)
        if start:
            keep.append(sentence[:start].rstrip(" :-\u2014") + ".")
    return " ".join(keep)


def read_text(text: str, vocab) -> Claims:
    """What ``text`` states in ``vocab``'s world (see :func:`kbgym.claims.read_claims`)."""
    if not isinstance(text, str) or not text.strip():
        return EMPTY
    fact = parse_fact(text) if len(text) < 200 else None
    if fact is not None:  # the common case, a §3 sentence: what the full reading gives
        got = _sentence(fact, vocab)
        if got is not None:
            return got
    try:
        got = _read(text, vocab)
        if "\n" not in text.strip() and (_RECORD_ITEM.search(text)
                                         or _NESTED_RECORD.search(text)):
            # records nested or listed on one line: where the last one ends, the line does
            # not say; what depends on it is stated only if both readings state it
            token = _EAGER.set(True)
            try:
                other = _read(text, vocab)
            finally:
                _EAGER.reset(token)
            got = _agreed(got, other)
        return got
    except RecursionError:
        return EMPTY
    except Exception:  # a reader bug must not stop a metric or an exam: the text reads empty
        if STRICT:
            raise
        return EMPTY


def _agreed(a: Claims, b: Claims) -> Claims:
    """``a`` with only the facts and member lists ``b`` states too."""
    if a == b:
        return a
    facts, lists = set(b.facts), set(b.lists)
    return replace(a, facts=tuple(f for f in a.facts if f in facts),
                   lists=tuple(lst for lst in a.lists if lst in lists))


def _sentence(fact: Fact, vocab) -> Claims | None:
    """The claims of one §3 sentence whose names and value the vocabulary spells exactly."""
    people = vocab.people_set
    if fact.subj not in people:
        return None
    if fact.kind in PERSON_KINDS:
        if fact.obj not in people or fact.obj == fact.subj:
            return None
        names = tuple(sorted((fact.subj, fact.obj)))
    elif fact.kind == "born" or vocab.value(fact.kind, fact.obj) == fact.obj:
        names = (fact.subj,)
    else:
        return None
    return Claims(facts=(fact,), names=names)


_RUN_ON = re.compile(rf"[PfpJHT{_ROLE_CHARS}](?=[hPfp])")  # where a run-on may be


#: What a block of lines holds that the lines inside it may change: key, subject, topic.
_Held = tuple[Key | None, str | None, str | None]


def _held(ctx: _Context) -> _Held:
    return ctx.key, ctx.subject, ctx.topic


def _restore(ctx: _Context, held: _Held, key: bool = True) -> None:
    """``ctx`` back to what it held (its key too, unless ``key`` is False)."""
    if key:
        ctx.key = held[0]
    ctx.subject, ctx.topic = held[1], held[2]


def _run_on(items: list[_Item], bullet: bool, heading: bool = False) -> list[_Item]:
    """A sentence run on after a field or a bullet, as a note stored on one line runs a
    paragraph on after the list above it (``- Hobby: fishing Greta and Gideon are married``,
    ``- Cedric Fenwick Sylvia Vance, his child, lives in ...``, ``## X She works as ...``): a
    sentence end before the person right after a field's value or a name (when a verb
    follows), after a bullet's lone name, and before a pronoun right after a name."""
    chars = "".join(it.char or "_" for it in items)
    ends = [k for k in (m.start() + 1 for m in _RUN_ON.finditer(chars))
            if chars[k] == "h"
            or (bullet and k == 1 and chars[0] == "P")
            or (chars[k - 1] in "JHT" and k >= 2 and chars[k - 2] in ":," and _says(items, k))
            or (chars[k - 1] in "Pfp" and _says(items, k))
            or (heading and chars[k - 1] in _ROLE_CHARS and _says(items, k))]  # ``# X's
    # children X has 3 children: ...``: a heading run on into the text below it
    if not ends:
        return items
    out: list[_Item] = []
    for k, it in enumerate(items):
        if ends and k == ends[0]:
            out.append(_Item(".", None, it.start))
            ends.pop(0)
        out.append(it)
    return out


def _says(items: list[_Item], k: int) -> bool:
    """Whether the names from ``items[k]`` (``A``, ``A and B``) are followed by a verb."""
    while k < len(items) and _is(items[k], "Pfp,&"):
        k += 1
    return k < len(items) and (items[k].char in _VERBISH or items[k].char == "'")


def _read(text: str, vocab) -> Claims:
    out = _Out(vocab)
    parts = find_parts(text)
    if "(" in text:  # ``friends(A, B).``: the pair under its label
        text = _PREDICATE.sub(lambda m: "{}: {} & {}.".format(
            "Married" if m["r"][0] in "msMS" else "Friendship", m["a"], m["b"]), text)
    if parts:
        text = _PART.sub(" ", text)
    lines = _lines(text)
    if "?" in text:  # ``Q: ...?`` over ``A: ...``: one line
        for k in range(len(lines) - 1, 0, -1):
            if _Q_LINE.match(lines[k - 1].text) and _A_LINE.match(lines[k].text):
                lines[k - 1:k + 1] = [_Line(f"{lines[k - 1].text} {lines[k].text}")]
    itemised: list[tuple[_Line, list[_Item]]] = []
    full: set[str] = set()
    main: str | None = None
    for ln in lines:
        t = ln.text
        if t.startswith(DRIFT_PREFIX):
            t = t[len(DRIFT_PREFIX):]
        if "?" in t:  # questions with their answers, then keep what is not a question
            t = _asked(t, out)
            t = " ".join(s for s in _SENT_END.split(t) if not s.rstrip().endswith("?"))
        t = _answers(t, out)
        its = _run_on(_items(t, vocab), ln.bullet, ln.heading) if t else []
        full.update(it.value for it in its if it.char == "P")
        if main is None:
            main = next((it.value for it in its if it.char == "P"), None)
        itemised.append((ln, its))
    ctx = _Context()
    stack: list[tuple[int, _Context]] = []
    first = True
    # nested bullets (when the note kept its indentation): what a bullet sets holds for the
    # bullets indented under it, not for its siblings
    nested = any(ln.bullet and ln.level > 0 for ln, _ in itemised)
    multiline = "\n" in text.strip()  # (a list's items at its record's indentation: YAML)
    # what held (key, subject, topic; :func:`_held`) at each bullet level of nested bullets
    scopes: list[tuple[int, _Held]] = []
    # indented blocks (a record's nested record, ``spouse:`` over ``  name: S``): what held
    # before each, restored when a line comes back out of it
    blocks: list[tuple[int, _Held]] = []
    last_level = 0
    # what held before a list of bullets: a line after the list that is no bullet is back
    # in the record or page the list is in (``friends: - name: A ... hobby: chess``)
    listing: _Held | None = None
    list_level: int | None = None  # the indentation of the list's bullets, while in one
    for at, (ln, its) in enumerate(itemised):
        if ln.heading and ln.level == 0:  # the end of a record: what follows starts afresh
            stack.clear()
            blocks.clear()
            ctx, listing, list_level, last_level = _Context(), None, None, 0
            continue
        if ln.heading:
            while stack and stack[-1][0] >= ln.level:
                stack.pop()
            parent = stack[-1][1] if stack else _Context()
            page = (ctx.subject or ctx.topic) if ctx.key is None or ctx.key.relation == "hub" \
                else None
            title = its[:next((k for k, it in enumerate(its) if it.char == "."), len(its))]
            if parent.subject is None and page is not None \
                    and not any(_is(it, "Pfp") for it in title):
                # ``## Family`` on a page about X (titled by X alone): a section of X's page
                parent = _Context(page, Key("hub", page))
            ctx = _Context(parent.subject, parent.key, parent.subject, parent.grouped)
            stack.append((ln.level, ctx))
            scopes.clear()
            blocks.clear()
            list_level = None
        else:
            while blocks and ln.level < blocks[-1][0]:  # (first: a list's next item, back
                _restore(ctx, blocks.pop()[1])          # out of its fields' block, restarts it)
            if nested and ln.bullet:
                while scopes and scopes[-1][0] >= ln.level:
                    _restore(ctx, scopes.pop()[1])
                scopes.append((ln.level, _held(ctx)))
            elif nested and not (scopes and ln.level > scopes[-1][0]):  # (not an item's own
                if scopes:  # field, ``    job: baker`` under ``  - name: A``)
                    # a field of the record the list is in (``hobby: chess`` after
                    # ``children:`` and its ``- name: A`` items, back at the list's
                    # indentation): the record's subject and topic
                    _restore(ctx, scopes[0][1], key=False)
                scopes.clear()  # a field line between bullet lists: a new scope
            if ln.bullet and list_level is None:
                listing, list_level = _held(ctx), ln.level
            elif ln.bullet and ln.level == list_level and listing is not None \
                    and _RECORD_ITEM.match("- " + ln.text):
                # each item of a list starts where the list did (``friends: - name: A job:
                # baker - name: B``: B is a friend too, not a record inside A's)
                _restore(ctx, listing)
            elif not ln.bullet and listing is not None and list_level is not None and (
                    ln.level < list_level or ln.outer
                    or (ln.level == list_level and multiline)):
                _restore(ctx, listing)
                list_level = None
            if ln.level > last_level:
                blocks.append((ln.level, _held(ctx)))
            last_level = ln.level
        its = _resolve_partials(its, full, main, ctx)
        for k, (sentence, question) in enumerate(_sentences(its)):
            if not question:
                _clause(sentence, ctx, out, title=first and not ln.bullet, heading=ln.heading,
                        bullet=ln.bullet, later=k > 0)
                # whom a later ``they`` stands for: the people this sentence named together,
                # none once a sentence names someone else alone
                named = [it.value for it in sentence if it.char == "P"]
                together = _people(sentence) if len(named) > 1 else ()
                if together or any(n not in ctx.people for n in named):
                    ctx.people = together
            first = False
        below = itemised[at + 1][0] if at + 1 < len(itemised) else None
        if nested and ln.bullet and below is not None and below.bullet \
                and below.level > ln.level and "".join(it.char for it in its).rstrip(":") == "P":
            ctx.subject = ctx.topic = its[0].value  # ``* X`` over bullets indented under it
        colon = ln.text.rstrip().endswith(":")
        if colon or ln.heading or at == 0:  # (a title: no verb; a colon: one sentence)
            marks = {x.char for x in its[:-1]}
            if "." not in marks and (colon or not (marks | {x.char for x in its[-1:]})
                                     & _VERBISH):
                ctx.intro = ctx.key
        if ln.heading and stack:
            stack[-1] = (ln.level, ctx)
    names = tuple(dict.fromkeys(n for _, its in itemised for it in its if it.char == "P"
                                for n in [it.value]))
    lists = tuple(MemberList(k, tuple(ms)) for k, ms in out.lists.items() if ms)
    # a person's set named beside the bare person (``X - friends``): the set is the key
    anchored = {k.entity for k in out.keys if k.relation != "hub"}
    keys = tuple(k for k in out.keys if k.relation != "hub" or k.entity not in anchored)
    pointers = tuple(k for k in out.pointers if k not in out.keys)
    return Claims(tuple(out.facts), keys, lists, parts, tuple(out.answers), pointers,
                  tuple(sorted(names)))
