"""The universe file written a chunk at a time: the chunks join to the canonical JSON of the
universe for any batch size (unsafe characters escaped the same way), and ``write`` puts those
bytes on disk and remembers the same hash ``dumps`` gives."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from kbgym.jsonio import canonical, sha256_hex
from kbgym.worlds.people import UniverseConfig, generate

U = generate(UniverseConfig(n_people=40, n_cities=6, sizes=(20, 10, 10), eval_sizes=(5, 5)))
# a node text with characters a JSONL reader would split on, and a non-ASCII one
ODD = dataclasses.replace(U, nodes=(dataclasses.replace(U.nodes[0], text="café \u2028 x \u0085"),)
                          + U.nodes[1:])


def fresh(u):
    """A copy with an empty cache (``dataclasses.replace`` would share the cache dict)."""
    return dataclasses.replace(u, _cache={})


@settings(max_examples=30, deadline=None)
@given(batch=st.integers(1, 500), odd=st.booleans())
def test_chunks_join_to_the_canonical_text(batch, odd):
    u = fresh(ODD if odd else U)
    assert "".join(u.text_chunks(batch=batch)) == canonical(u.to_json())


def test_write_is_dumps_on_disk_with_its_hash(tmp_path):
    u = fresh(ODD)
    u.write(tmp_path / "u.json")
    text = canonical(ODD.to_json())
    assert (tmp_path / "u.json").read_bytes() == text.encode("utf-8")
    assert u.hash == "sha256:" + sha256_hex(text) == fresh(ODD).hash
