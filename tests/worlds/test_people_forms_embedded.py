"""embeds_question searches one combined pattern: it answers as searching each of the 26
question shapes in turn would."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from kbgym.worlds.people import forms as F

_EACH = [re.compile(F.form_pattern(f, loose=True).replace(r"\?", r"\??"), re.IGNORECASE)
         for f in F.QUESTION_FORMS.values()]
_SLOTS = {"X": "Mara Fenwick", "Y": "Felix Oakley", "job": "cooper", "hobby": "origami",
          "city": "Thornbury"}
QUESTIONS = [f.format(**_SLOTS) for f in F.QUESTION_FORMS.values()]


@settings(max_examples=300)
@given(st.sampled_from(QUESTIONS), st.text(max_size=12), st.text(max_size=12),
       st.sampled_from([str.lower, str.upper, lambda s: s, lambda s: s.rstrip("?")]),
       st.integers(0, 40))
def test_embeds_question_agrees_with_each_shape(question, before, after, case, cut):
    for text in (before + case(question) + after, case(question)[cut:], before + after):
        assert F.embeds_question(text) == any(p.search(text) for p in _EACH)
