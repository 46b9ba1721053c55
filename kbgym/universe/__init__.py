"""The generated world: people, documents, questions and splits (SPEC §2–§5)."""

from kbgym.universe.config import UniverseConfig
from kbgym.universe.generate import generate
from kbgym.universe.guess import answer_shares, guessable
from kbgym.universe.types import Fact, Node, Person, Question, Universe

__all__ = ["UniverseConfig", "generate", "Universe", "Person", "Node", "Fact", "Question",
           "answer_shares", "guessable"]
