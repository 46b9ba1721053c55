"""The policies world: a generated library of insurance documents (base forms, endorsements,
state forms, regulator bulletins, guidelines, manuals, memos, distractors) that reference,
amend and supersede each other, with a fact ledger as the truth (docs/protocol.md §21).

    from kbgym.worlds.policies import PolicyConfig, generate
    u = generate(PolicyConfig(seed=0))      # 100 documents, about 950 facts and notes

Modules: :mod:`kbgym.worlds.policies.grammar` (the one table every string of the world is rendered
and parsed from), :mod:`.config`, :mod:`.ledger` (documents, facts and what they
mean), :mod:`.documents` (facts to notes), :mod:`.questions` (templates, golds, support, keys),
:mod:`.generate`, :mod:`.probe`, :mod:`.graph` (the evidence graph) and :mod:`.drift` (new
editions, bulletins and endorsements).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbgym._lazy import lazy_attributes

if TYPE_CHECKING:
    from kbgym.worlds.policies.config import PolicyConfig
    from kbgym.worlds.policies.generate import generate, ledger_of, summarize

# Imported on first use: every command loads every world (the registry lists them), and a
# people build must not pay for this world's grammar and generator.
_WHERE = {"PolicyConfig": ".config", "generate": ".generate", "ledger_of": ".generate",
          "summarize": ".generate"}

__all__ = ["PolicyConfig", "generate", "ledger_of", "summarize"]

__getattr__ = lazy_attributes(__name__, _WHERE)
