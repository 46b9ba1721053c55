"""Renderings: the ways an outside curator (above all a language model) writes the same note.

A generated library (:mod:`kbgym_agents.zoo.generated`) draws one rendering, applied to every
authored note it writes; its twin has the same links under the canonical short titles, so the
audit can tell what the wording alone changes (``scripts/experiments/examiner_audit.py``).

- ``short``: a short title (``Friends of X.``; several wordings), the canonical twin;
- ``long``: the title inside a long sentence of filler words;
- ``markdown``: a heading and one bullet wiki link per member (``## Friends of X`` /
  ``- [[A]]``);
- ``json``: a record (``{"key": "friends of X", "members": [...]}``);
- ``prose``: a page of sentences, the subject named once, then a pronoun;
- ``table``: a markdown table, one row per member;
- ``enumeration``: the title and the members numbered (``(1) A; (2) B.``);
- ``parts``: each set written as two notes that are complete together (``X — friends (1/2)``,
  ``(2/2)``), each linking half of the members;
- ``case``: the short title in upper or lower case;
- ``initials``: the short title with names written ``F. Abernathy``;
- ``pointers``: short titles, and the originals of the keys' own attributes edited to append
  a pointer (``X's job is mason. See also: X's friends.``): each still states its fact;
- ``answers``: short titles followed by a verified answer (``Verified: <answer statement>``);
- ``questions``: short titles followed by a question about the key.

Member lists in text are what the ``wrong_member_text`` harm edits (a non-member named in
the text, the links left right); renderings without one (:data:`LISTS_MEMBERS`) cannot carry
that harm.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

RENDERINGS = ("short", "long", "markdown", "json", "prose", "table", "enumeration", "parts",
              "case", "initials", "pointers", "answers", "questions")
#: The renderings whose text lists the members of a set.
LISTS_MEMBERS = frozenset({"markdown", "json", "prose", "table", "enumeration"})

#: How a set's topic is worded in formats that need one phrase (``{X}`` the key as written,
#: ``{v}`` a value, ``{vs}`` its plural, ``{w}`` a second value).
TOPICS = {
    "friends": "Friends of {X}", "children": "Children of {X}",
    "grandchildren": "Grandchildren of {X}", "parents": "Parents of {X}",
    "spouse": "Spouse of {X}", "hub": "About {X}", "card": "Profile of {X}",
    "job": "People whose job is {v}", "hobby": "People whose hobby is {v}",
    "city": "People who live in the city of {v}", "value": "All the {vs}",
    "intersection": "{Vs} in {W}", "parent": "{Vs}, by group", "part": "{Vs}: part {k}",
}
#: The noun of a person's set in prose (``X has 3 friends``).
PROSE_NOUN = {"friends": ("friend", "friends"), "children": ("child", "children"),
              "grandchildren": ("grandchild", "grandchildren"), "parents": ("parent", "parents"),
              "spouse": ("spouse", "spouses")}
LONG_FILLER = ("This note was written by the curator after going through the records one by one "
               "and it is kept up to date so that anyone looking for it can rely on it; {t}, "
               "every one of them linked below, nothing left out and nothing added.")


def topic(kind: str, slots: dict[str, str]) -> str:
    v = slots.get("v", "")
    vs = slots.get("vs", "")
    w = slots.get("w", "")
    return TOPICS.get(kind, "{X}").format(X=slots.get("X", ""), v=v, vs=vs,
                                          Vs=vs[:1].upper() + vs[1:], w=w,
                                          W=w[:1].upper() + w[1:], k=slots.get("k", ""))


def pronoun(gender: str | None) -> str:
    return {"male": "He", "female": "She"}.get(gender or "", "They")


def render(rendering: str, kind: str, slots: dict[str, str], short_title: str,
           members: Sequence[str], rng: random.Random, gender: str | None = None) -> str:
    """The text of one authored note: ``kind`` is its set's relation (``friends``, ``job``)
    or its shape (``hub``, ``card``, ``intersection``, ``parent``, ``part``); ``members`` the
    names its text lists (as the library writes names); ``short_title`` the canonical text."""
    t = topic(kind, slots)
    ms = list(members)
    if rendering == "long":
        return LONG_FILLER.format(t=t[:1].lower() + t[1:])
    if rendering == "markdown":
        return f"## {t}\n" + "".join(f"- [[{m}]]\n" for m in ms).rstrip("\n")
    if rendering == "json":
        return json.dumps({"key": t[:1].lower() + t[1:], "members": ms})
    if rendering == "table":
        head = f"| {t} |\n|---|"
        return head + "".join(f"\n| {m} |" for m in ms)
    if rendering == "enumeration":
        listed = "; ".join(f"({i}) {m}" for i, m in enumerate(ms, 1))
        return f"{t}: {listed}." if ms else f"{t}."
    if rendering == "prose":
        x = slots.get("X", "")
        if kind in PROSE_NOUN and x:
            one, many = PROSE_NOUN[kind]
            noun = one if len(ms) == 1 else many
            first = f"{x} has {len(ms)} {noun} on record."
            if not ms:
                return first
            names = ms[0] if len(ms) == 1 else ", ".join(ms[:-1]) + " and " + ms[-1]
            return f"{first} {pronoun(gender)} counts {names} among them. Each is linked below."
        if ms:
            names = ms[0] if len(ms) == 1 else ", ".join(ms[:-1]) + " and " + ms[-1]
            return f"{t}. The people on this page are {names}. Each is linked below."
        return f"{t}. The notes are linked below."
    return short_title


__all__ = ["LISTS_MEMBERS", "RENDERINGS", "render", "topic"]
