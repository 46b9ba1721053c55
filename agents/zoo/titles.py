"""Title styles: several ways to word the same index note.

Each style maps an index's relation and key to a title. ``restyle`` rewrites the titles of a
trained library's index notes and leaves every link as it was, so any change in what the
examiner measures comes from wording alone (a metamorphic test of the examiner)."""

from __future__ import annotations

from collections.abc import Callable

from kbgym_agents.scripted.curator import TITLES
from kbgym_agents.scripted.knowledge import plural_forms
from kbgym_agents.scripted.text import index_keys
from kbgym.library.graph import Library


def _plural(value: str) -> str:
    return plural_forms(value)[1]


#: style name -> relation -> title; ``{key}`` is the key, ``{Key}`` the capitalised key,
#: ``{keys}`` its plural, ``{pair}`` a person and their spouse (``A and B``) where they have one.
STYLES: dict[str, dict[str, str]] = {
    "canonical": dict(TITLES),
    "reworded": {
        "hub": "Everything recorded about {key}.",
        "job": "Who works as a {key}.",
        "hobby": "People who enjoy {key}.",
        "city": "People who live in {key}.",
        "friends": "{key}'s circle of friends.",
        "children": "Children of {pair}.",
        "grandchildren": "{key}'s grandkids.",
    },
    "about": {
        "hub": "About {key}.",
        "job": "About the {keys}.",
        "hobby": "About {key}.",
        "city": "About {key}.",
        "friends": "About {key}'s friendships.",
        "children": "About the children of {key}.",
        "grandchildren": "About the grandchildren of {key}.",
    },
    "plural": {
        "hub": "{key} (all notes).",
        "job": "{Keys}.",
        "hobby": "{Key} lovers.",
        "city": "{Key} residents.",
        "friends": "The friends of {key}.",
        "children": "The kids of {key}.",
        "grandchildren": "The grandchildren of {key}.",
    },
    "possessive": {
        "hub": "{key}'s notes.",
        "job": "Every {key}.",
        "hobby": "Fans of {key}.",
        "city": "{Key}'s people.",
        "friends": "{key}'s friends.",
        "children": "{key}'s children.",
        "grandchildren": "{key}'s grandchildren.",
    },
    "dash": {
        "hub": "{key} - index",
        "job": "{key} - who has this job",
        "hobby": "{key} - who has this hobby",
        "city": "{Key} - who lives there",
        "friends": "{key} - friend list",
        "children": "{key} - kids",
        "grandchildren": "{key} - grandkids",
    },
    "bare": {rel: "{key}." for rel in TITLES},
    "slash": {
        "hub": "Index: {key} / everything",
        "job": "Index: job / {key}",
        "hobby": "Index: hobby / {key}",
        "city": "Index: city / {key}",
        "friends": "Index: {key} / friends",
        "children": "Index: {key} / children",
        "grandchildren": "Index: {key} / grandchildren",
    },
    "sentence": {
        "hub": "This note links every note that mentions {key}.",
        "job": "Every person whose job is {key} is linked from here.",
        "hobby": "Everyone who has {key} as a hobby is linked here.",
        "city": "All the residents of the city of {key} are linked here.",
        "friends": "Everyone {key} is friends with is linked here.",
        "children": "All of the children of {pair} are linked here.",
        "grandchildren": "Everyone who is a grandchild of {key} is linked here.",
    },
}


def title(style: str, rel: str, key: str, spouse: str | None = None) -> str:
    pair = f"{key} and {spouse}" if spouse else key
    return STYLES[style][rel].format(key=key, Key=key[:1].upper() + key[1:],
                                     keys=_plural(key), Keys=_plural(key).capitalize(),
                                     pair=pair, role="parent")


def restyle(library: Library, style: str, spouse_of: Callable[[str], str | None]
            ) -> dict[str, str]:
    """Rewrite each canonical index title in ``library`` (in place) in ``style``; links are
    untouched. Returns {node id: new title}. Notes whose title is not a canonical index title
    are left alone; ``canonical`` changes nothing."""
    changed: dict[str, str] = {}
    if style == "canonical":
        return changed
    for node in list(library):
        if not node.is_authored:
            continue
        found = index_keys(node.text)
        if len(found) != 1:
            continue
        rel, key = found[0]
        if rel not in TITLES:
            continue
        new = title(style, rel, key, spouse_of(key) if rel == "children" else None)
        if new != node.text:
            library.edit(node.id, new, dedup=False)
            changed[node.id] = new
    return changed
