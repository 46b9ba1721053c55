"""Properties of the casebook grammar: every value, date and fact sentence it renders parses
back to what was rendered, and every question it asks parses back to its slots."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from kbgym.worlds.casebook import grammar as G
from kbgym.worlds.casebook.vocab import CONCEPTS, LINES, STATES

concepts = st.sampled_from(CONCEPTS)


@given(st.integers(0, 999_999))
def test_numbers_in_words_round_trip(n):
    assert G.from_words(G.words(n)) == n


@given(concepts, st.data(), st.sampled_from(G.VALUE_VOICES))
def test_values_round_trip_in_every_voice(c, data, voice):
    v = data.draw(st.sampled_from(c.grid))
    assert G.parse_value(G.format_value(c.unit, v, voice)) == (c.unit, v)
    assert G.format_value(c.unit, v) in G.value_forms(c.unit, v)


@given(st.dates(dt.date(2010, 1, 1), dt.date(2030, 12, 31)), st.sampled_from(G.DATE_VOICES))
def test_dates_round_trip(d, voice):
    assert G.parse_date(G.format_date(d.isoformat(), voice)) == d.isoformat()


@given(concepts, st.data(), st.sampled_from(STATES), st.integers(0, len(LINES) - 1),
       st.integers(0, 7), st.booleans(), st.integers(2000, 2030))
def test_amendment_sentences_parse_back(c, data, state, line, k, by_title, year):
    v = data.draw(st.sampled_from(c.grid))
    name = data.draw(st.sampled_from(c.names))
    title = G.form_title(line, k)
    code = f"{LINES[line][0]}-{10 * (k + 1)}"
    target = G.form_ref(code, year, title, by_title)
    for form in G.FORMS_OF["amends"] + G.FORMS_OF["replaces"]:
        text = G.render(form, concept=name, value=G.format_value(c.unit, v), target=target,
                        section=c.section, state=state)
        found = [x for x in G.parse_sentences(text) if x.kind == form.kind]
        assert len(found) == 1, text
        f = found[0].fields
        assert (f["concept"], f["value"], f["edition"]) == (c.id, v, year)
        assert f.get("form") == (None if by_title else code)
        assert f.get("title") == (title if by_title else None)


@given(concepts, st.sampled_from(STATES), st.integers(2000, 2030), st.booleans())
def test_questions_parse_back(c, state, year, with_state):
    form = f"CP-10 ({year} edition)"
    text = G.render_question("cb_effective", date=G.format_date(f"{year}-03-01"),
                             concept=c.name, form=form, state=state if with_state else None)
    shape, f = G.parse_question(text)
    assert shape == "cb_effective" and f["concept"] == c.id and f["form"] == form
    assert f.get("state") == (state if with_state else None)
