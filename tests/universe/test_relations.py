"""The set relations of a generated universe (kbgym.worlds.people.relations)."""

from __future__ import annotations

from kbgym.worlds.people import UniverseConfig, generate
from kbgym.worlds.people.relations import memberships, statements


def test_statements_invert_memberships():
    u = generate(UniverseConfig(seed=5, n_people=40))
    of, by = memberships(u), statements(u)
    assert by == {g: frozenset(o for o, pairs in of.items() if any(h == g for h, _ in pairs))
                  for g in {h for pairs in of.values() for h, _ in pairs}}
    # a value's statements are exactly the facts giving someone that value
    job = u.people[0].job
    assert by[("job", job)] == {n.id for n in u.nodes
                                if n.fact.kind == "job" and n.fact.object == job}
    assert statements(u) is by  # kept with the universe, built once
