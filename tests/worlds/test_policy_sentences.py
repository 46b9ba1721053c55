"""The policies sentence table: one table renders and parses every sentence, question and
value of the world; both directions agree, in every voice."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kbgym.scoring import exact_match, f1_score
from kbgym.worlds.policies import grammar as S

CODES = {
    "form": st.builds(lambda f, n: f"{f}-{n}", st.sampled_from([f for f, _, _ in S.FORM_FAMILIES]),
                      st.integers(1, 99)),
    "endorsement": st.builds(lambda e, n: f"{e}-{n}",
                             st.sampled_from([e for _, e, _ in S.FORM_FAMILIES]),
                             st.integers(10, 999)),
    "state_form": st.builds(lambda n: f"SA-{n}", st.integers(1, 999)),
    "bulletin": st.builds(lambda y, n: f"RB-{y:02d}-{n:02d}", st.integers(0, 99),
                          st.integers(1, 99)),
    "guideline": st.builds(lambda n: f"UG-{n}", st.integers(1, 999)),
    "manual": st.builds(lambda n: f"CM-{n}", st.integers(1, 999)),
    "memo": st.builds(lambda n: f"IM-{n}", st.integers(1, 999)),
    "glossary": st.builds(lambda n: f"GL-{n}", st.integers(1, 999)),
    "training": st.builds(lambda n: f"TN-{n}", st.integers(1, 999)),
}
DATES = st.builds(lambda y, m, d: f"{y:04d}-{m:02d}-{d:02d}", st.integers(1990, 2060),
                  st.integers(1, 12), st.integers(1, 28))


@st.composite
def sentences(draw):
    form = draw(st.sampled_from(S.SENTENCES))
    owners = S.OWNERS[form.kind]
    if form.name.startswith("form_issued"):
        owners = ("form",)
    elif form.name.startswith("endorsement_issued"):
        owners = ("endorsement",)
    elif form.name == "state_issued":
        owners = ("state_form",)
    elif form.name == "doc_issued":
        owners = tuple(k for k in owners if k not in ("form", "endorsement", "state_form"))
    kind = draw(st.sampled_from(owners))
    doc = draw(CODES[kind])
    concept = draw(st.sampled_from(S.CONCEPTS))
    value = draw(st.sampled_from(concept.values) | st.integers(1, 10 ** 6))
    target_kind = "bulletin" if form.kind == "supersedes" else draw(
        st.sampled_from(["endorsement", "state_form", "bulletin", "guideline", "manual"]))
    slots = {
        "doc": doc, "form": doc if kind == "form" else draw(CODES["form"]),
        "edition": draw(st.integers(1990, 2060)),
        "section": draw(st.sampled_from(S.section_labels(36))),
        "concept": draw(st.sampled_from(concept.phrases)),
        "value": S.format_value(concept.unit, value, draw(st.sampled_from(S.VALUE_VOICES))),
        "date": draw(DATES), "state": draw(st.sampled_from(S.STATES)),
        "target": draw(CODES[target_kind]),
        "title": S.form_title(draw(st.sampled_from([f for f, _, _ in S.FORM_FAMILIES])),
                              draw(st.integers(0, 40))),
    }
    return form, concept, value, slots


@settings(max_examples=150, deadline=None)
@given(sentences())
def test_every_form_reads_back_what_it_wrote(case):
    form, concept, value, slots = case
    text = S.render(form, **slots)
    st_ = S.parse_sentence(text)
    assert st_ is not None, text
    assert (st_.kind, st_.form_name, st_.doc) == (form.kind, form.name, slots["doc"])
    t = form.template
    if "{concept}" in t:
        assert st_.concept == concept.id
    if "{value}" in t:
        assert (st_.unit, st_.value) == (concept.unit, value)
    for slot in ("edition", "section", "state", "target", "date", "title"):
        if "{" + slot + "}" in t:
            assert getattr(st_, slot) == slots[slot], (slot, text)
    if "{form}" in t:
        assert st_.form == slots["form"]
    if form.name in S.TITLE_FORMS:  # an indirect reference: about its provision once resolved
        assert st_.indirect and st_.provision is None
        done = S.resolve(st_, {slots["title"]: slots["form"]},
                         {(slots["form"], concept.id): slots["section"]})
        assert done.provision == S.provision_key(slots["form"], slots["section"])
        assert done.provision in done.subjects() and done.references[0][1] == done.provision
    # the same sentence in any letter case states the same thing
    assert S.parse_sentence(text.lower()) == st_ or form.kind == "issued"


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10 ** 12 - 1))
def test_number_words_round_trip(n):
    assert S.parse_number_words(S.number_words(n)) == n
    assert S.parse_number_words(S.number_words(n, hyphen=False)) == n


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(S.CONCEPTS), st.integers(1, 500_000))
def test_every_voice_of_a_value_scores_as_the_gold(concept, n):
    golds = S.value_aliases(concept.unit, n)
    for voice in S.VALUE_VOICES:
        written = S.format_value(concept.unit, n, voice)
        assert S.parse_value(written) == (concept.unit, n)
        assert exact_match(written, golds) == 1.0 and f1_score(written, golds) == 1.0
    other = S.value_aliases(concept.unit, n + 1)[0]
    assert exact_match(other, golds) == 0.0


def test_ten_thousand_dollars_is_10000():
    golds = S.value_aliases("usd", 10_000)
    for answer in ("$10,000", "ten thousand dollars", "10,000 dollars", "10000", "$10000"):
        assert f1_score(answer, golds) == 1.0, answer
    assert S.parse_value("ten ten dollars") is None
    assert S.parse_sentence("Form HO-3 (2019 edition) §I.B sets the water backup limit at "
                            "60 days.") is None  # a value in another concept's unit


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(sorted(S.QUESTIONS)), CODES["form"], CODES["endorsement"],
       st.sampled_from(S.CONCEPTS), st.sampled_from(S.STATES),
       st.sampled_from(S.section_labels(36)), st.integers(1990, 2030))
def test_every_question_form_reads_back(shape, form, doc, concept, state, section, year):
    text = S.question_text(shape, form=form, doc=doc, concept=concept.name, state=state,
                           section=section, edition=year, edition2=year + 3)
    q = S.parse_question(text)
    assert q is not None and q.shape in (shape, "pl_effective")
    if "{concept}" in S.QUESTIONS[shape]:
        assert q.concept == concept.id
    if "{section}" in S.QUESTIONS[shape]:
        assert q.provision == S.provision_key(form, section)
    if "{state}" in S.QUESTIONS[shape]:
        assert q.state == state


def test_subjects_are_named_in_any_wording():
    text = ("Everything about HO-3 §I.B (see form HO-3 (2019 edition) §I.B), Endorsement "
            "HE-12, UG-7 and the minimum claim reporting period; HO-3 alone is not a subject.")
    assert S.subjects_in(text) == ["HO-3 §I.B", "HE-12", "UG-7",
                                   "minimum notice of claim period"]
    assert S.subjects_in(S.subject_title("HE-12", "Index of")) == ["HE-12"]


def test_the_table_imports_only_the_standard_library():
    tree = ast.parse(Path(S.__file__).read_text(encoding="utf-8"))
    names = {a.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
             for a in node.names}
    names |= {node.module.split(".")[0] for node in ast.walk(tree)
              if isinstance(node, ast.ImportFrom) and node.module}
    assert names <= set(sys.stdlib_module_names) | {"__future__"}, names
