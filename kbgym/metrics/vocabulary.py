"""The exam's search vocabulary (docs/examiner.md): the queries the ideal navigator
(:mod:`kbgym.metrics.navigator`) may search, from which the scripted reader's discovery search
is drawn, so that both find a note about a key the same way whatever its length or format.

For a key (a person's name, a value) and the relation words of a question's class (the words
of the world's sentences that state those relations, ``friend``, ``father``), the queries are
the bare key and the key followed by each word **in its singular and its plural form**
(``Felix Vance friend``, ``Felix Vance friends``). The plural matters: the world's own
sentences use the singular (``Felix Vance is a friend of Nora Vance.``), while a note about
the key's whole set uses the plural in whatever format it is written (``Friends of Felix
Vance.``, ``## Felix Vance's friends``, ``{"friends of": "Felix Vance", ...}``), so under BM25
the plural query ranks such a note above the key's own ~20 short facts even when the note is
long (a markdown list, a JSON record), where the bare name ranks it on page 6 or later.
"""

from __future__ import annotations

from collections.abc import Iterable

#: English plurals that do not add -s/-es.
IRREGULAR_PLURALS = {"child": "children", "grandchild": "grandchildren", "person": "people",
                     "man": "men", "woman": "women", "wife": "wives"}


def plural(word: str) -> str:
    """The plural of a relation word: ``friend`` -> ``friends``, ``child`` -> ``children``;
    a phrase takes it on its last word."""
    head, _, last = word.rpartition(" ")
    low = last.casefold()
    if low in IRREGULAR_PLURALS:
        pl = IRREGULAR_PLURALS[low]
    elif low.endswith(("s", "sh", "ch", "x", "z")):
        pl = last + "es"
    elif low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        pl = last[:-1] + "ies"
    else:
        pl = last + "s"
    return f"{head} {pl}" if head else pl


def relation_forms(words: Iterable[str]) -> list[str]:
    """Each relation word followed by its plural, in order, without repeats: (``father``,
    ``friend``) -> [``father``, ``fathers``, ``friend``, ``friends``]. A word that is its own
    plural's singular form only (``married``, ``born``) still gets the -s form; it ranks no
    note and so costs the navigator nothing."""
    out: list[str] = []
    for w in words:
        for form in (w, plural(w)):
            if form not in out:
                out.append(form)
    return out


def key_queries(key: str, words: Iterable[str]) -> list[str]:
    """The queries of one key: the bare key, then the key followed by each relation word in
    its singular and plural forms (:func:`relation_forms`)."""
    return [key] + [f"{key} {form}" for form in relation_forms(words)]
