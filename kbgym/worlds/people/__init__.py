"""The people world: generated people, families and friendships, their §3 sentences, the 26
question templates and splits (SPEC §2–§5).

Modules: :mod:`.config`, :mod:`.vocab`, :mod:`.people` (the roster), :mod:`.documents`
(facts to notes), :mod:`.questions` (templates' golds and support), :mod:`.templates`,
:mod:`.splits`, :mod:`.generate`, :mod:`.guess`, :mod:`.relations`, :mod:`.summary`,
:mod:`.drift`, and the world's grammar: :mod:`.facts` (the §3 sentences), :mod:`.forms`
(the §4 question texts) and :mod:`.statements` (answer statements).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbgym._lazy import lazy_attributes
from kbgym.types import Fact, Node, Person, Question, Universe

if TYPE_CHECKING:
    from kbgym.worlds.people.config import UniverseConfig
    from kbgym.worlds.people.generate import generate
    from kbgym.worlds.people.guess import answer_shares, guessable

__all__ = ["UniverseConfig", "generate", "Universe", "Person", "Node", "Fact", "Question",
           "answer_shares", "guessable"]

# Imported on first use: the registry loads every world for every command, and the config
# model imports pydantic, which ``kbgym build`` does without (flags.py).
__getattr__ = lazy_attributes(__name__, {
    "UniverseConfig": ".config", "generate": ".generate", "answer_shares": ".guess",
    "guessable": ".guess"})
