"""Skills (SPEC §9.5): agent-side prompt files under ``agents/prompts/``, loaded by name.

``retrieval`` is the reader's and the forward phase's system message, byte for byte the same
file for both; ``curation`` is the backward phase's. ``retrieval_small`` and ``curation_small``
are the short skills for small models (the ``small`` skill set, under 300 tokens each). A name
may also be a path to a file.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from pathlib import Path

from kbgym.errors import ConfigError

SKILLS: tuple[str, ...] = ("retrieval", "curation", "judge", "retrieval_small",
                           "curation_small")
#: ``full``: the skills above; ``small``: their ``_small`` versions.
SKILL_SETS: tuple[str, ...] = ("full", "small")


@lru_cache(maxsize=None)
def load_skill(name: str) -> str:
    """The text of skill ``name`` (``agents/prompts/{name}.md``) or of a file path, exactly
    as stored (bytes decoded as UTF-8, no newline translation)."""
    if name in SKILLS or ("/" not in name and not name.endswith(".md")):
        res = resources.files("kbgym_agents").joinpath("prompts", f"{name}.md")
        if not res.is_file():
            raise ConfigError(f"unknown skill {name!r}; known: {', '.join(SKILLS)} "
                              "(or give a path to a .md file)")
        return res.read_bytes().decode("utf-8")
    path = Path(name)
    if not path.is_file():
        raise ConfigError(f"no such skill file: {name}")
    return path.read_bytes().decode("utf-8")


@lru_cache(maxsize=None)
def load_turns(name: str) -> tuple[dict, ...]:
    """Worked chat turns from ``agents/prompts/{name}.md``: each ``=== user`` or
    ``=== assistant`` line opens a message (text before the first one is a comment)."""
    text = load_skill(name)
    turns: list[dict] = []
    for line in text.split("\n"):
        if line.startswith("=== ") and line[4:].strip() in ("user", "assistant"):
            turns.append({"role": line[4:].strip(), "content": []})
        elif turns:
            turns[-1]["content"].append(line)
    return tuple({"role": t["role"], "content": "\n".join(t["content"]).strip("\n")}
                 for t in turns)


def skill_digest(text: str) -> str:
    """``sha256:`` + the first 16 hex digits of the skill text's hash (for meta.json)."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
