"""B3, HippoRAG-style entity index (SPEC §14): synapse cliques between statements that
mention the same person, plus one entity index note per entity with backlinks. No PageRank:
only the structure is evaluated, and it costs 0 tokens."""

from __future__ import annotations

from kbgym.library.graph import Library

from kbgym.baselines.common import BuildMeta, Builder, positive_int, with_gc_paused
from kbgym.baselines.extract import Entity, Parser, mentions_of

NAME = "b3"
DEFAULTS = {"synapse_cap": 40, "no_entity_index": False}


def entity_text(e: Entity) -> str:
    """The §14 text of an entity index note."""
    if e.kind == "person":
        return (f"Entity index for {e.name}: every note that mentions {e.name} is linked "
                f"from this note.")
    if e.kind == "job":
        return (f"Entity index for the job {e.name}: every note about someone whose job is "
                f"{e.name} is linked from this note.")
    if e.kind == "hobby":
        return (f"Entity index for the hobby {e.name}: every note about someone whose hobby "
                f"is {e.name} is linked from this note.")
    if e.kind == "city":
        return (f"Entity index for the city of {e.name}: every note about someone who lives "
                f"in {e.name} is linked from this note.")
    raise ValueError(f"unknown entity kind {e.kind!r}")


@with_gc_paused
def build_b3(library: Library, *, synapse_cap: int = 40, no_entity_index: bool = False,
             parser: Parser | None = None) -> BuildMeta:
    """Build B3 on a copy of ``library`` (node text only, read by ``parser``,
    :func:`kbgym.baselines.extract.parser_of`; None: the default world's).

    1. Synapses: for each person with 2 to ``synapse_cap`` mentioning statements, in
       first-mention order, link every ordered pair of those statements (i != j, id order),
       skipping links that already exist.
    2. Entity index (unless ``no_entity_index``): each entity with >= 2 mentions, in
       first-mention order, gets a note linking to every mentioning statement, and each of
       those statements links back to it.
    """
    synapse_cap = positive_int("synapse_cap", synapse_cap, 2)
    if not isinstance(no_entity_index, bool):
        raise TypeError(f"no_entity_index must be a bool, got {no_entity_index!r}")
    b = Builder(library)
    m = mentions_of(b.lib, parser)
    for e, ids in m.by_entity.items():
        if e.kind == "person" and 2 <= len(ids) <= synapse_cap:
            for a in ids:
                b.link_all(a, ids)  # link_many skips a -> a and existing links
    if not no_entity_index:
        for e, ids in m.by_entity.items():
            if len(ids) < 2:
                continue
            node = b.add(entity_text(e))
            b.link_all(node, ids)
            for i in ids:
                b.link(i, node)
    params = {"synapse_cap": synapse_cap, "no_entity_index": no_entity_index}
    return b.finish(NAME, params)
