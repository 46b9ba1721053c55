"""Deprecated: the people world moved to :mod:`kbgym.worlds.people`, the shared value types
to :mod:`kbgym.types` (docs/worlds.md). Old paths work for one release, with a warning."""

from kbgym._moved import alias

_PEOPLE = ("config", "documents", "drift", "generate", "guess", "people", "questions",
           "relations", "splits", "summary", "templates", "vocab")
__getattr__ = alias(__name__, {"types": "kbgym.types", "keys": "kbgym.keys",
                               **{m: f"kbgym.worlds.people.{m}" for m in _PEOPLE}},
                    names={"UniverseConfig": "kbgym.worlds.people", "generate": "kbgym.worlds.people",
                           "answer_shares": "kbgym.worlds.people",
                           "guessable": "kbgym.worlds.people",
                           **dict.fromkeys(("Universe", "Person", "Node", "Fact", "Question"),
                                           "kbgym.types")})
