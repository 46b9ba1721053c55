"""The casebook world: a generated library of long insurance documents — base forms,
endorsements, state amendatory endorsements, regulator bulletins, memos, FAQs and a manual —
that reference, amend, supersede and contradict each other, split into paragraph notes, with
a ledger of every fact as the truth (docs/casebook.md).

    from kbgym.worlds.casebook import CasebookConfig, generate
    u = generate(CasebookConfig(seed=0))   # ~170 documents, ~1,500 facts, ~1,800 paragraphs

Modules: :mod:`.vocab` (concepts, states, lines, boilerplate), :mod:`.grammar` (the one table
every fact sentence is rendered from and parsed with), :mod:`.config`, :mod:`.ledger`,
:mod:`.rules` (the order of precedence), :mod:`.documents` (facts to paragraphs),
:mod:`.questions`, :mod:`.generate` and :mod:`.drift` (edited documents, for staleness).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbgym._lazy import lazy_attributes

if TYPE_CHECKING:
    from kbgym.worlds.casebook.config import CasebookConfig
    from kbgym.worlds.casebook.generate import generate, ledger_of, summarize, where_of

# Imported on first use: every command loads every world (the registry lists them), and a
# people build must not pay for this world's grammar and generator.
_WHERE = {"CasebookConfig": ".config", "generate": ".generate", "ledger_of": ".generate",
          "summarize": ".generate", "where_of": ".generate"}

__all__ = ["CasebookConfig", "generate", "ledger_of", "summarize", "where_of"]

__getattr__ = lazy_attributes(__name__, _WHERE)
