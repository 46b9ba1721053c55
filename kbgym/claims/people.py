"""The people world's claim vocabulary lives with its world
(:mod:`kbgym.worlds.people.claims`); this name is kept for the API of :mod:`kbgym.claims`."""

from kbgym.worlds.people.claims import people_vocabulary

__all__ = ["people_vocabulary"]
