"""The universe file's notes written a batch at a time (kbgym/types.py ``_nodes_text``) are
the canonical JSON of each note, whatever their strings hold."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from kbgym.types import Fact, Node, Source, _node_text, _nodes_text

text = st.text(alphabet=st.sampled_from('ab "\\\n\t\x00\x1f\x7fé\u2028\U0001f600'), max_size=8)
nodes = st.builds(Node, id=text, text=text, fact=st.builds(Fact, kind=text, subject=text,
                                                           object=text),
                  source=st.none() | st.builds(Source, path=text, first_line=st.integers(1, 9),
                                                last_line=st.integers(1, 9), hash=text))


@settings(max_examples=300, deadline=None)
@given(st.lists(nodes, max_size=6))
def test_a_batch_is_its_notes_canonical_json(batch):
    got = _nodes_text(batch)
    assert got == ",".join(map(_node_text, batch))
    assert json.loads(f"[{got}]") == [n.to_json() for n in batch]


def test_plain_notes_take_the_fast_path():
    plain = [Node(f"s{i}", "Ann Lee's job is baker.", Fact("job", "p1", "baker"))
             for i in range(3)]
    assert _nodes_text(plain) == ",".join(map(_node_text, plain))
