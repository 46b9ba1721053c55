"""The search queries of the scripted agents, shared by the reader and the curator (so the
curator can reuse the pages the reader already turned in forward).

Each set query is the wording of the notes that hold the set (``Felix Abernathy is a friend
of``), with the :class:`Tier` that tells on-topic hits from the rest. Words that only index
titles would hold (``friends``) are left out on purpose: with BM25 such a word makes every
other index that has it (``Friends of Felix Kingsley.``) outrank the notes being paged, which
costs unseen questions steps. The curator's titles repeat the notes' wording instead
(``Friends of Felix Abernathy: everyone Felix Abernathy is a friend of.``), so an index for the
key ranks first under these very queries and indexes for other keys stay below the set.
"""

from __future__ import annotations

from kbgym_agents.scripted.knowledge import Tier
from kbgym_agents.scripted.text import gender_of, tokens


def friends_query(x: str) -> tuple[str, Tier]:
    return f"{x} is a friend of", Tier(tokens(x) + ["friend"])


def parent_word(x: str) -> str:
    """``father``, ``mother``, or ``father or mother`` when the first name does not tell."""
    return {"male": "father", "female": "mother"}.get(gender_of(x) or "", "father or mother")


def children_query(x: str) -> tuple[str, Tier]:
    """``x``'s children: ``x is the father of``."""
    role = parent_word(x)
    tier = Tier(tokens(x) + [role]) if " " not in role else Tier(tokens(x), ["father", "mother"])
    return f"{x} is the {role} of", tier


def parents_query(x: str) -> tuple[str, Tier]:
    return f"{x} is a child of", Tier(tokens(x) + ["child"])


def parent_query(x: str, role: str) -> tuple[str, Tier]:
    """``role`` is ``father`` or ``mother``."""
    return f"the {role} of {x}", Tier(tokens(x) + [role])


def spouse_query(x: str) -> tuple[str, Tier]:
    return f"{x} is married to spouse", Tier(tokens(x) + ["married"])


def value_query(value: str) -> tuple[str, Tier]:
    """Everyone with a job, hobby or city value: the value alone (only its notes hold it)."""
    return value, Tier(tokens(value))


def hub_query(x: str) -> tuple[str, Tier]:
    """Every note naming ``x``."""
    return x, Tier(tokens(x))
