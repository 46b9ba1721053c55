"""The claim reader (kbgym.claims): every rendering of the same claims reads back as those
claims; text it does not know yields nothing and never raises."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbgym.claims import (
    Key,
    Part,
    Vocabulary,
    fact_key,
    facts_of,
    find_parts,
    memberships,
    people_vocabulary,
    read_claims,
    states,
)
from kbgym.worlds.people.facts import Fact, parse_fact, render_fact
from kbgym.worlds.people import UniverseConfig, generate

@pytest.fixture(autouse=True)
def strict(monkeypatch):
    """A reader bug fails the test (outside tests it reads as nothing)."""
    import kbgym.claims.reader as reader

    monkeypatch.setattr(reader, "STRICT", True)


PEOPLE = {"Felix Abernathy": "male", "Nora Kingsley": "female", "Ivor Vance": "male",
          "Mabel Quimby": "female", "Beatrice Holloway": "female", "Cedric Langley": "male",
          "Olive Pemberton": "female", "Rupert Yardley": "male"}
JOBS = ["baker", "mason", "cooper", "glassblower", "tailor"]
HOBBIES = ["chess", "kite flying", "rock climbing", "yoga"]
CITIES = ["Oakhaven", "Dunmere", "Stonebridge"]
V = Vocabulary(PEOPLE, {"job": JOBS, "hobby": HOBBIES, "city": CITIES}, PEOPLE)
NAMES = sorted(PEOPLE)


def keys_of(facts) -> set:
    return {fact_key(f) for f in facts}


# -- examples: one per form ----------------------------------------------------------------------
FA, NK, IV, MQ = "Felix Abernathy", "Nora Kingsley", "Ivor Vance", "Mabel Quimby"
FRIENDS = {Fact("friend_of", FA, NK), Fact("friend_of", FA, IV)}


@pytest.mark.parametrize("text", [
    f"## Friends of {FA}\n- [[{NK}]]\n- [[{IV}]]",
    json.dumps({"key": f"friends of {FA}", "members": [NK, IV]}),
    f"{FA} — friends (1/2)\n{NK} and {IV}.",
    f"{FA}'s friends are {NK} and {IV}.",
    f"Friends of {FA}: {NK}, {IV}.",
    f"friends of {FA.lower()}: {NK.lower()}, {IV.lower()}",
    f"FRIENDS OF {FA.upper()}: {NK.upper()} AND {IV.upper()}.",
    f"Friends of F. Abernathy: N. Kingsley, Vance, Ivor.",
    f"# {FA}\n- Friends: {NK}, {IV}",
    f"| Friends of {FA} |\n|---|\n| {NK} |\n| {IV} |",
    f"{FA} is friends with {NK} and {IV}.",
    f"{NK} and {IV} are friends of {FA}.",
    f"{FA} is a friend of {NK}. {FA} is a friend of {IV}.",
    f"Felix Abernathy has two friends: {NK} and {IV}.",
    f"{FA} has 2 friends on record. He counts {NK} and {IV} among them. Each is linked below.",
    f"Friends of {FA}: (1) {NK}; (2) {IV}.",
    f"This note is kept up to date; friends of {FA}, every one of them linked below: {NK} and "
    f"{IV}.",
    f"Friend list for {FA}: {NK}; {IV}.",
    f"People who are friends with {FA}: {NK}, {IV}.",
    f"<h2>Friends of {FA}</h2><ul><li>{NK}</li><li>{IV}</li></ul>",
    f"<tr><th>Friends of {FA}</th></tr><tr><td>{NK}</td></tr><tr><td>{IV}</td></tr>",
    f"{FA} -> friends -> {NK}, {IV}",
    f"{FA} \u2192 friends: {NK} & {IV}",
    f"{FA} \u2014 friends: {NK} \u00b7 {IV}",
    f"Friends of {FA}: \u2713 {NK} \u2713 {IV}",
    f"Friends of {FA}:\n\u2192 {NK}\n\u2192 {IV}",
    f"{FA} is friends with: {NK}, {IV}.",
    f"Everyone {FA} is friends with, part 1 of 2: {NK} and {IV}.",
    f"Friends ({FA}): {NK}; {IV}",
    f"Friends list \u2014 {FA} (page 1/2): {NK}, {IV}",
    json.dumps({"entity": FA, "relation": "friends", "members": [NK, IV], "part": 1}),
])
def test_one_friend_list_in_every_form(text):
    c = read_claims(text, V)
    assert keys_of(c.facts) == keys_of(FRIENDS), text


@pytest.mark.parametrize("text,key", [
    (f"## Friends of {FA}\n- [[{NK}]]\n- [[{IV}]]", Key("friends", FA)),
    (json.dumps({"key": f"friends of {FA}", "members": [NK, IV]}), Key("friends", FA)),
    (f"{FA} — friends (1/2)\n{NK} and {IV}.", Key("friends", FA)),
    (f"Bakers: {NK}, {IV}.", Key("job", "baker")),
    (f"People who live in Oakhaven: {NK} and {IV}", Key("city", "Oakhaven")),
    (f"{FA} is friends with: {NK} and {IV}.", Key("friends", FA)),
    (f"Friends ({FA}): {NK}; {IV}", Key("friends", FA)),
    (f"Children \u2014 {FA}: {NK}, {IV}", Key("children", FA)),
    (json.dumps({"entity": FA, "relation": "friends", "members": [NK, IV]}), Key("friends", FA)),
    (json.dumps({"relation": "job", "value": "baker", "holders": [NK, IV]}), Key("job", "baker")),
    (json.dumps({"type": "relation index", "relation": "friends", "person": FA,
                 "members": [NK, IV]}), Key("friends", FA)),
    # a field that names no relation (``type: person``) names no set: the record is FA's
    (json.dumps({"name": FA, "type": "person", "job": "baker", "friends": [NK, IV]}),
     Key("friends", FA)),
])
def test_member_lists_and_their_key(text, key):
    c = read_claims(text, V)
    assert c.members(key) == (NK, IV)
    assert key in c.keys


def test_prose_with_pronouns_and_first_names():
    text = (f"{FA} is a baker. He lives in Oakhaven and enjoys kite flying. His friends are "
            f"{NK} and {IV}. Felix is married to {MQ}. He was born on March 9, 1957.")
    assert keys_of(read_claims(text, V).facts) == keys_of({
        Fact("job", FA, "baker"), Fact("city", FA, "Oakhaven"), Fact("hobby", FA, "kite flying"),
        *FRIENDS, Fact("married", FA, MQ), Fact("born", FA, "1957-03-09")})


def test_tables_json_and_key_value_records():
    table = (f"| Name | Job | Hobby | City |\n|---|---|---|---|\n| {FA} | baker | chess | Oakhaven |\n"
             f"| {NK} | mason | yoga | Dunmere |")
    want = {Fact("job", FA, "baker"), Fact("hobby", FA, "chess"), Fact("city", FA, "Oakhaven"),
            Fact("job", NK, "mason"), Fact("hobby", NK, "yoga"), Fact("city", NK, "Dunmere")}
    assert set(read_claims(table, V).facts) == want
    records = json.dumps([{"name": FA, "job": "baker", "hobby": "chess", "city": "Oakhaven"},
                          {"name": NK, "job": "mason", "hobby": "yoga", "city": "Dunmere"}])
    assert set(read_claims(records, V).facts) == want
    kv = f"name: {FA}\njob: baker\nhobby: chess\ncity: Oakhaven\nborn: 1957-03-09"
    assert set(read_claims(kv, V).facts) == {Fact("job", FA, "baker"), Fact("hobby", FA, "chess"),
                                             Fact("city", FA, "Oakhaven"),
                                             Fact("born", FA, "1957-03-09")}


def test_sentences_anywhere_and_answer_statements_behind_a_prefix():
    c = read_claims(f"{FA}'s job is mason. See also: {FA}'s children.", V)
    assert c.facts == (Fact("job", FA, "mason"),)
    assert c.pointers == (Key("children", FA),) and c.keys == ()
    c = read_claims(f"Friends of {FA}. Verified: The number of friends of {FA} is 2.", V)
    assert [(a.template, a.slot_dict, a.answer) for a in c.answers] == [
        ("qc4_friends", {"X": FA}, "2")]
    assert Key("friends", FA) in c.keys
    c = read_claims(f"Note - the job of the spouse of {FA.lower()} is baker.", V)
    assert c.answers[0].template == "qc2_spouse_job" and c.answers[0].slot_dict == {"X": FA}
    assert c.facts == ()  # a chain's answer states no fact of X


@pytest.mark.parametrize("text", [
    f"Children of {FA} and {MQ}: {NK}, {IV}",
    f"{FA} and {MQ}'s children: {NK} and {IV}.",
    f"The grandchildren of {FA} and {MQ} are {NK} and {IV}.",
])
def test_a_couples_set_is_each_of_theirs(text):
    c = read_claims(text, V)
    rel = "grandchildren" if "grand" in text else "children"
    for whose in (FA, MQ):
        assert Key(rel, whose) in c.keys, text
        assert c.members(Key(rel, whose)) == (NK, IV), text


def test_holder_nouns_read_as_their_value_and_never_shadow_a_name_or_value():
    from kbgym.worlds.people.vocab import HOBBY_NOUNS

    people = {**PEOPLE, "Ada Archer": "female"}
    v = Vocabulary(people, {"job": JOBS + ["baker"], "hobby": HOBBIES + ["archery", "baking"],
                            "city": CITIES}, people, nouns={"hobby": HOBBY_NOUNS})
    c = read_claims(f"Rock climbers: {NK}, {IV}.", v)
    assert c.members(Key("hobby", "rock climbing")) == (NK, IV)
    assert read_claims(f"{NK} is a keen climber.", v).facts == (
        Fact("hobby", NK, "rock climbing"),)
    assert Key("job", "baker") in read_claims(f"Bakers: {NK}.", v).keys  # a job, not baking
    # the surname Archer stays a name; the plural is the hobby's holders
    assert read_claims(f"Ada Archer is a friend of {NK}.", v).facts == (
        Fact("friend_of", "Ada Archer", NK),)
    assert read_claims(f"Archers: {NK}.", v).members(Key("hobby", "archery")) == (NK,)
    # without nouns, the same words name nothing
    assert not read_claims(f"Rock climbers: {NK}, {IV}.", V).keys


def test_part_markers():
    assert find_parts("Friends of X (1/2)") == (Part(1, 2),)
    assert find_parts("Bakers, part 2 of 3.") == (Part(2, 3),)
    assert find_parts("Bakers: part two") == (Part(2, None),)
    assert find_parts("[3/4] index") == (Part(3, 4),)
    assert find_parts("Born 1957/03") == ()
    assert find_parts("Friends of X, page 1 of 2") == (Part(1, 2),)
    assert find_parts("This page lists 3 friends.") == ()
    # a record's part field, with its total in the same field or another
    assert find_parts('{"key": "friends of X", "part": "1/2"}') == (Part(1, 2),)
    assert find_parts('{"key": "friends of X", "part": 2, "of": 3}') == (Part(2, 3),)
    assert find_parts('{"part_number": 1, "total_parts": 2}') == (Part(1, 2),)
    assert find_parts("key: friends of X\npage: 2 of 2") == (Part(2, 2),)
    assert find_parts('{"part": 3, "of": 2}') == ()  # a part past the total is no part
    assert find_parts('{"counterpart": 2}') == ()
    assert read_claims(f"Friends of {FA} (2/2): {NK}.", V).part == Part(2, 2)


def test_negations_questions_and_unknown_text_state_nothing():
    for text in (f"{FA} is not a friend of {NK}.", f"Is {FA} a friend of {NK}?",
                 "The quick brown fox jumps over the lazy dog.", "Friends of Nobody Known: A B.",
                 f"Who is the baker who lives in the city of Oakhaven?", "", "   ", "{", "[1, 2",
                 "| a |", "#", "- "):
        c = read_claims(text, V)
        assert c.facts == () and c.lists == (), text


# -- the universe's own notes ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def u():
    return generate(UniverseConfig(n_people=60, n_cities=8, sizes=(10, 5, 5), eval_sizes=(2, 2)))


def test_every_original_reads_as_its_one_fact(u):
    vocab = people_vocabulary(u)
    assert people_vocabulary(u) is vocab  # kept with the universe
    for n in u.nodes:
        assert facts_of(n, vocab) == (parse_fact(n.text),), n.text


def test_the_sentence_shortcut_reads_as_the_full_reading(u):
    """A §3 sentence takes a shortcut; it must give what the full reading gives."""
    from kbgym.claims.reader import _read, read_text

    vocab = people_vocabulary(u)
    for n in u.nodes[::3]:
        for text in (n.text, "As of the latest record, " + n.text):
            assert read_text(text, vocab) == _read(text, vocab), text


def test_an_edited_original_still_states_its_fact(u):
    vocab = people_vocabulary(u)
    n = next(x for x in u.nodes if x.fact.kind == "job")
    name = u.person(n.fact.subject).name
    edited = f"{n.text} See also: {name}'s children."
    assert states(edited, parse_fact(n.text), vocab)
    child = next(x for x in u.nodes if x.fact.kind == "child_of")
    f = parse_fact(child.text)  # A is a child of B == B is the father/mother of A
    parent = u.person(child.fact.object)
    word = "father" if parent.gender == "male" else "mother"
    assert states(f"{f.obj} is the {word} of {f.subj}.", f, vocab)
    assert not states(f"{f.subj} is the {word} of {f.obj}.", f, vocab)


def test_fact_index_over_a_library(u):
    """Every live note stating a fact is indexed under it: an edited original that still
    states its fact, and an authored page listing it, beside the original."""
    from kbgym.claims import fact_index
    from kbgym.library.graph import Library

    vocab = people_vocabulary(u)
    lib = Library.from_universe(u)
    n = next(x for x in u.nodes if x.fact.kind == "friend_of")
    f = parse_fact(n.text)
    lib.edit(n.id, f"{n.text} See also: {f.subj}'s children.")
    page = lib.add(f"## Friends of {f.obj}\n- [[{f.subj}]]").id
    index = fact_index(lib, vocab)
    assert index[fact_key(f)][:1] == [n.id] and page in index[fact_key(f)]
    assert sum(map(len, index.values())) >= len(u.nodes)


def test_memberships_from_either_end():
    assert memberships(Fact("child_of", NK, FA)) == ((Key("children", FA), NK),
                                                     (Key("parents", NK), FA))
    assert memberships(Fact("father_of", FA, NK)) == memberships(Fact("child_of", NK, FA))
    assert memberships(Fact("job", FA, "baker")) == ((Key("job", "baker"), FA),)


# -- properties ---------------------------------------------------------------------------------
RELS = {"friends": "friend_of", "spouse": "married", "children": None, "parents": "child_of"}


@st.composite
def claim_sets(draw):
    """A person, their job/hobby/city, and one relation set with 1-4 members."""
    s = draw(st.sampled_from(NAMES))
    rel = draw(st.sampled_from(sorted(RELS)))
    others = [n for n in NAMES if n != s]
    k = 1 if rel == "spouse" else draw(st.integers(1, 4))
    members = draw(st.lists(st.sampled_from(others), min_size=k, max_size=k, unique=True))
    attrs = {"job": draw(st.sampled_from(JOBS)), "hobby": draw(st.sampled_from(HOBBIES)),
             "city": draw(st.sampled_from(CITIES))}
    return s, attrs, rel, members


def expected(s, attrs, rel, members) -> set:
    facts = {Fact(k, s, v) for k, v in attrs.items()}
    for m in members:
        if rel == "friends":
            facts.add(Fact("friend_of", s, m))
        elif rel == "spouse":
            facts.add(Fact("married", s, m))
        elif rel == "parents":
            facts.add(Fact("child_of", s, m))
        else:
            facts.add(Fact("father_of" if PEOPLE[s] == "male" else "mother_of", s, m))
    return keys_of(facts)


def enum(names) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


REL_WORD = {"friends": "friends", "spouse": "spouse", "children": "children",
            "parents": "parents"}


def render(form: str, s, attrs, rel, members, person=lambda n: n, gender=PEOPLE) -> str:
    S, ms = person(s), [person(m) for m in members]
    job, hobby, city = attrs["job"], attrs["hobby"], attrs["city"]
    word = REL_WORD[rel]
    if form == "sentences":
        out = [render_fact(Fact(k, S, v)) for k, v in attrs.items()]
        for m in ms:
            if rel == "friends":
                out.append(render_fact(Fact("friend_of", m, S)))
            elif rel == "spouse":
                out.append(render_fact(Fact("married", S, m)))
            elif rel == "parents":
                out.append(render_fact(Fact("child_of", S, m)))
            else:
                out.append(render_fact(Fact("child_of", m, S)))
        return " ".join(out)
    if form == "prose":
        pro = "He" if gender[s] == "male" else "She"
        pos = "His" if gender[s] == "male" else "Her"
        return (f"{S} works as a {job}. {pro} lives in {city} and enjoys {hobby}. "
                f"{pos} {word} {'is' if len(ms) == 1 else 'are'} {enum(ms)}.")
    if form == "markdown":
        lines = [f"# {S}", f"- Job: {job}", f"- Hobby: {hobby}", f"- City: {city}",
                 f"## {word.capitalize()} of {S}"]
        return "\n".join(lines + [f"- [[{m}]]" for m in ms])
    if form == "json":
        return json.dumps({"name": S, "job": job, "hobby": hobby, "city": city, word: ms})
    if form == "json_key":
        return json.dumps([{"name": S, "job": job, "hobby": hobby, "city": city},
                           {"key": f"{word} of {S}", "members": ms}])
    if form == "key_value":
        return f"name: {S}\njob: {job}\nhobby: {hobby}\ncity: {city}\n{word}: {', '.join(ms)}"
    if form == "table":
        head = f"| Name | Job | Hobby | City |\n|---|---|---|---|\n| {S} | {job} | {hobby} | {city} |"
        return head + f"\n\n| {word.capitalize()} of {S} |\n|---|\n" + "\n".join(
            f"| {m} |" for m in ms)
    if form == "enumeration":
        return (f"{S}'s job is {job}. {S}'s hobby is {hobby}. {S} lives in the city of {city}. "
                f"The {word} of {S} {'is' if len(ms) == 1 else 'are'} {enum(ms)}.")
    if form == "html":
        return (f"<h1>{S}</h1><ul><li>Job: {job}</li><li>Hobby: {hobby}</li>"
                f"<li>City: {city}</li></ul><h2>{word.capitalize()} of {S}</h2><ul>"
                + "".join(f'<li><a href="#n{i}">{m}</a></li>' for i, m in enumerate(ms))
                + "</ul>")
    if form == "html_table":
        return (f"<table><tr><th>Name</th><th>Job</th><th>Hobby</th><th>City</th></tr>"
                f"<tr><td>{S}</td><td>{job}</td><td>{hobby}</td><td>{city}</td></tr></table>"
                f"<p>{word.capitalize()} of {S}: {enum(ms)}.</p>")
    if form == "arrows":
        return "\n".join([f"{S} -> job -> {job}.", f"{S} -> hobby -> {hobby}.",
                          f"{S} \u2192 city \u2192 {city}.", f"{S} => {word} => {'; '.join(ms)}."])
    if form == "yaml":  # a list in the middle: the fields after it are the person's again
        return (f"name: {S}\n{word}:\n" + "".join(f"  - {m}\n" for m in ms)
                + f"job: {job}\nhobby: {hobby}\ncity: {city}")
    edge = {"friends": "friend", "children": "child", "parents": "parent", "spouse": "spouse"}
    if form == "json_edges":
        return json.dumps([{"name": S, "job": job, "hobby": hobby, "city": city}] + [
            {"source": S, "relation": edge[rel], "target": m} for m in ms])
    if form == "edge_table":
        return (f"| Name | Job | Hobby | City |\n|---|---|---|---|\n| {S} | {job} | {hobby} | "
                f"{city} |\n\n| Source | Relation | Target |\n|---|---|---|\n"
                + "\n".join(f"| {S} | {edge[rel]} | {m} |" for m in ms))
    if form == "apposition":  # values between commas, then the set after a colon
        pos = "His" if gender[s] == "male" else "Her"
        return f"{S}, a {job} from {city}, enjoys {hobby}. {pos} {word}: {enum(ms)}."
    if form == "semicolons":  # a label, then clauses with no subject of their own
        phrase = {"friends": "friends with", "spouse": "married to", "children": "parent of",
                  "parents": "child of"}[rel]
        return f"{S}: a {job} in {city} who enjoys {hobby}; {phrase} {enum(ms)}."
    raise ValueError(form)


FORMS = ("sentences", "prose", "markdown", "json", "json_key", "key_value", "table",
         "enumeration", "html", "html_table", "arrows", "yaml", "json_edges", "edge_table",
         "apposition", "semicolons")
PERSONS = {"full": lambda n: n, "initials": lambda n: f"{n[0]}. {n.split()[1]}",
           "surname_first": lambda n: f"{n.split()[1]}, {n.split()[0]}"}
CASES = {"as_is": lambda t: t, "lower": str.lower, "upper": str.upper}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(claim_sets(), st.sampled_from(FORMS), st.sampled_from(sorted(PERSONS)),
       st.sampled_from(sorted(CASES)), st.booleans(), st.booleans())
def test_every_rendering_reads_back_as_the_same_claims(claims, form, person, case, pointer,
                                                       one_line):
    """... also on one line, as the library stores a note (every whitespace run collapsed)."""
    s, attrs, rel, members = claims
    if form in ("json", "json_key") and case != "as_is":
        case = "as_is"  # JSON field names are the format, not the text
    if form == "prose" and rel == "spouse":
        rel = "friends"
    text = render(form, s, attrs, rel, members, PERSONS[person])
    if pointer:
        text += f"\nSee also: {PERSONS[person](s)}'s children."
    text = CASES[case](text)
    if one_line:
        text = " ".join(text.split())
    c = read_claims(text, V)
    assert keys_of(c.facts) == expected(s, attrs, rel, members), text


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_random_text_never_raises_and_states_nothing(text):
    c = read_claims(text, V)
    assert c.facts == () and c.lists == () and c.answers == ()


WORDS = st.sampled_from("the of is a friend friends and , : . - # | [[ ]] { } \n job hobby "
                        "city lives born with to see also part (1/2) 1957 March 9 who whose "
                        "his her he they 's father mother ( ) married has are Q: A: ? name: "
                        "members: key: 1. * --- |---| not brothers sisters in law step "
                        "Verified: The number".split(" "))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(WORDS, st.sampled_from(NAMES + JOBS + HOBBIES + CITIES)), max_size=40))
def test_word_salad_never_raises(words):
    c = read_claims(" ".join(words), V)
    for f in c.facts:  # whatever it reads is in the vocabulary's spelling
        assert f.subj in PEOPLE
        assert f.obj in PEOPLE or f.obj in JOBS + HOBBIES + CITIES or f.kind == "born"


def test_questions_given_with_their_answer_and_relation_tables():
    c = read_claims(f"Q: What is the job of {FA}? A: baker. Q: How many children does {FA} "
                    f"have? A: 2", V)
    assert [(a.template, a.answer) for a in c.answers] == [("qc1_job", "baker"),
                                                          ("qc4_children", "2")]
    assert c.facts == (Fact("job", FA, "baker"),)
    c = read_claims(f"The answer to 'What is the job of the spouse of {FA}?' is mason.", V)
    assert [(a.template, a.slot_dict, a.answer) for a in c.answers] == [
        ("qc2_spouse_job", {"X": FA}, "mason")]
    table = f"| Person | Relation to {FA} |\n|---|---|\n| {NK} | friend |\n| {IV} | child |"
    assert set(read_claims(table, V).facts) == {Fact("friend_of", NK, FA),
                                                Fact("child_of", IV, FA)}


@pytest.mark.parametrize("tail", ["Evidence: {NK} is a friend of {FA}.", "Source: [[{NK}]]",
                                  "because {NK} said so", ", because {NK} said so",
                                  "(verified)", "- see {NK}",
                                  "Reasoning: {FA} is a baker.", "\u2014 checked"])
@pytest.mark.parametrize("one_line", [False, True])
def test_an_answer_ends_where_the_note_goes_on(tail, one_line):
    """``Q: ... A: <answer>`` followed by evidence, a source or a reason on the next line:
    stored on one line (as the library stores every note), the answer is still only what
    follows ``A:`` up to the label; before, every such note counted as a false answer."""
    text = f"Q: What is the job of {FA}?\nA: baker\n" + tail.format(NK=NK, FA=FA)
    if one_line:
        text = " ".join(text.split())
    c = read_claims(text, V)
    assert [(a.template, a.answer) for a in c.answers] == [("qc1_job", "baker")], text
    text = f"Q: Who is older, {FA} or {NK}? A: {FA} " + tail.format(NK=NK, FA=FA)
    assert [a.answer for a in read_claims(text, V).answers] == [FA], text


@pytest.mark.parametrize("text,facts", [
    (f"- {FA}\n  - job: baker\n  - friends:\n    - {NK}\n    - {IV}\n- {MQ}\n  - job: mason",
     {Fact("job", FA, "baker"), *FRIENDS, Fact("job", MQ, "mason")}),
    (f"{NK} \u2014 friend of {FA}", {Fact("friend_of", NK, FA)}),
    (f"# {FA}\n- {NK} (friend)\n- {IV} (child)",
     {Fact("friend_of", NK, FA), Fact("child_of", IV, FA)}),
    (f"{FA} is friends with {NK}, who is a baker.",
     {Fact("friend_of", FA, NK), Fact("job", NK, "baker")}),
    (f"{FA}, whose job is mason, lives in Oakhaven.",
     {Fact("job", FA, "mason"), Fact("city", FA, "Oakhaven")}),
    (f"{FA}: baker (Oakhaven), enjoys chess. Married to {MQ}. Kids: {IV}, {NK}.",
     {Fact("job", FA, "baker"), Fact("city", FA, "Oakhaven"), Fact("hobby", FA, "chess"),
      Fact("married", FA, MQ), Fact("father_of", FA, IV), Fact("father_of", FA, NK)}),
    (f"{FA} plays chess and practises yoga.", {Fact("hobby", FA, "chess"),
                                                Fact("hobby", FA, "yoga")}),
    (f"{FA} - plays chess", {Fact("hobby", FA, "chess")}),
    (f"{FA} (baker, Oakhaven) - plays chess", {Fact("job", FA, "baker"),
                                               Fact("city", FA, "Oakhaven"),
                                               Fact("hobby", FA, "chess")}),
    (f"{FA} (Oakhaven) - plays chess", {Fact("hobby", FA, "chess")}),
])
def test_nested_bullets_relative_clauses_and_asides(text, facts):
    assert set(read_claims(text, V).facts) == facts


@pytest.mark.parametrize("text,facts", [
    (f"{FA}'s father and mother are {IV} and {NK}.",
     {Fact("child_of", FA, IV), Fact("child_of", FA, NK)}),
    (f"Friends of {FA} who are bakers: {NK}.", {Fact("friend_of", FA, NK), Fact("job", NK, "baker")}),
    (f"{FA} has friends and children: {IV}.", set()),
    (f"{FA} (baker, Oakhaven) is friends with {NK} (mason, Dunmere).",
     {Fact("job", FA, "baker"), Fact("city", FA, "Oakhaven"), Fact("job", NK, "mason"),
      Fact("city", NK, "Dunmere"), Fact("friend_of", FA, NK)}),
    (f"# {FA}\n- Friends: {NK} (mason), {IV} (baker)",
     {*FRIENDS, Fact("job", NK, "mason"), Fact("job", IV, "baker")}),
    (json.dumps({"name": FA, "friends": [{"name": NK, "job": "mason"}, {"name": IV}]}),
     {*FRIENDS, Fact("job", NK, "mason")}),
    (f"{FA} (b. 1957-03-09) is a baker.", {Fact("born", FA, "1957-03-09"),
                                          Fact("job", FA, "baker")}),
    (f"Bakers (see also: {NK}): {IV}.", {Fact("job", IV, "baker")}),
    (f"Friends of {FA} (Oakhaven): {NK}.", {Fact("friend_of", FA, NK)}),
    (f"{FA} (Oakhaven) has 1 friend on record. He counts {NK} among them.",
     {Fact("friend_of", FA, NK)}),
    (f"{FA} (Oakhaven) - friends: {NK}", {Fact("friend_of", FA, NK)}),
    (f"| About {FA} | |---| | {NK} | | {IV} |", set()),
    (f"{NK} is a friend of the baker {FA}.", {Fact("job", FA, "baker")}),
    (f"{FA} moved from Dunmere to Oakhaven.", set()),
    (f"{FA} was born in Oakhaven.", set()),
    (f"{FA} used to be a baker; now he is a mason.", set()),
    (f"{FA} is a baker, {NK} is a mason.", {Fact("job", FA, "baker"), Fact("job", NK, "mason")}),
    (f"Key: friends of {FA} Members: 1. {NK} 2. {IV}", FRIENDS),
    (f"{FA} is a friend of {NK} and {IV}'s friends are {MQ}.",
     {Fact("friend_of", FA, NK), Fact("friend_of", IV, MQ)}),
    (f"{FA} is married to {MQ} and lives in Oakhaven.",
     {Fact("married", FA, MQ), Fact("city", FA, "Oakhaven")}),
])
def test_coordinated_relations_and_conditions(text, facts):
    assert set(read_claims(text, V).facts) == facts


@pytest.mark.parametrize("text,facts", [
    (f"{NK}: listed in Friends of {FA}.", {Fact("friend_of", NK, FA)}),
    (f"{NK} is listed in Friends of {FA}.", {Fact("friend_of", NK, FA)}),
    (f"{NK} is one of {FA}'s friends.", {Fact("friend_of", NK, FA)}),
    (f"{NK} is one of the people in {FA}'s friends list.", {Fact("friend_of", NK, FA)}),
    (f"{NK} and {IV} are among {FA}'s friends.", {Fact("friend_of", NK, FA),
                                                   Fact("friend_of", IV, FA)}),
    (json.dumps({"name": NK, "member_of": f"friends of {FA}"}), {Fact("friend_of", NK, FA)}),
    (json.dumps({"person": IV, "listed_in": f"{FA}'s children"}), {Fact("child_of", IV, FA)}),
    (f"{FA} counts {NK} and {IV} among his friends.", FRIENDS),
    (f"{FA} is a baker. He counts {NK} and {IV} among his friends.",
     {*FRIENDS, Fact("job", FA, "baker")}),
    (f"{FA} > Friends > {NK}, {IV}", FRIENDS),
    (f"{FA} \u00bb friends \u00bb {NK}; {IV}", FRIENDS),
    (f"> {NK} is a friend of {FA}.", {Fact("friend_of", NK, FA)}),
    (f"{NK} - see also: Friends of {FA}.", set()),
])
def test_a_member_pointing_back_to_its_set_and_breadcrumbs(text, facts):
    """A note for a member that names the set it is listed in states that membership (and is
    no second note of that set: it names no set of its own); ``>`` between words is an arrow,
    at the start of a line a quote. A cross-reference states nothing."""
    c = read_claims(text, V)
    assert keys_of(c.facts) == keys_of(facts)
    if "listed in" in text or "member_of" in text or "one of" in text:
        assert c.keys == ()


@pytest.mark.parametrize("text,facts", [
    (f"{FA}\nFriends: {NK} | {IV}", FRIENDS),
    (f"{FA} | friends | {NK}, {IV}", FRIENDS),
    (f"{FA} | baker | Oakhaven", {Fact("job", FA, "baker"), Fact("city", FA, "Oakhaven")}),
    (f"{FA} has two pals, {NK} and {IV}.", FRIENDS),
    (f"Hobby: chess. Enthusiasts: {NK}, {IV}.", {Fact("hobby", NK, "chess"),
                                                 Fact("hobby", IV, "chess")}),
    (f"{NK} (friend of {FA}) is a mason.", {Fact("friend_of", NK, FA),
                                            Fact("job", NK, "mason")}),
    (f"{FA}'s wife, {MQ}, is a mason.", {Fact("married", FA, MQ), Fact("job", MQ, "mason")}),
    (f"{FA} is a baker. His pals, {NK} and {IV}, live in Oakhaven.",
     {Fact("job", FA, "baker"), *FRIENDS, Fact("city", NK, "Oakhaven"),
      Fact("city", IV, "Oakhaven")}),
    (f"Q: Who are {FA}'s friends? A: {NK} and {IV}.", FRIENDS),
    (f"Q: Who are {FA}'s friends?\nA: {NK} and {IV}.", FRIENDS),
    (f"Q: Is {NK} a friend of {FA}? A: yes.", set()),
    (f"Q: Who is {FA}'s father? A: unknown.", set()),
])
def test_pipes_after_a_label_asides_and_questions_of_no_world_shape(text, facts):
    """Pipes after a label part its names (with no label they part fields); an aside naming
    a relation and people is about its owner, and names between commas after a set are its
    members and the subject of what follows; a question of no world shape given with an
    answer that names someone or something states what it asks for (an answer naming no
    one, or a negation, states nothing)."""
    assert keys_of(read_claims(text, V).facts) == keys_of(facts)


CL = "Cedric Langley"


@pytest.mark.parametrize("text,facts", [
    (f"name: {FA}\nfriends:\n  - {NK}\n  - {IV}\nchildren:\n  - {MQ}\n  - {CL}",
     {*FRIENDS, Fact("father_of", FA, MQ), Fact("father_of", FA, CL)}),
    (f"name: {FA} friends: - {NK} - {IV} children: - {MQ} - {CL}",
     {*FRIENDS, Fact("father_of", FA, MQ), Fact("father_of", FA, CL)}),
    (f"Index \u2014 {FA}\nFriends ({NK}, {IV})\nKids ({MQ}, {CL})",
     {*FRIENDS, Fact("father_of", FA, MQ), Fact("father_of", FA, CL)}),
    (f"{FA}: 2 children ({MQ}, {CL}); 2 friends ({NK}, {IV})",
     {*FRIENDS, Fact("father_of", FA, MQ), Fact("father_of", FA, CL)}),
    (f"{FA}'s friend list includes: {NK}, {IV}", FRIENDS),
    (f"{FA}'s BFFs: {NK} and {IV}", FRIENDS),
    (f"{FA} & {NK}: friends", {Fact("friend_of", FA, NK)}),
    # several people, several values of one kind: which is whose is not said
    (f"{NK} and {IV} are a baker and a mason.", set()),
    (f"{NK} and {IV} are bakers.", {Fact("job", NK, "baker"), Fact("job", IV, "baker")}),
    # a relation word straight before names, in a list: read as nothing, never as the
    # previous name's set
    (f"{FA} \u2014 related people: friends {NK}, {IV}; children {MQ}, {CL}", set()),
])
def test_records_over_several_lines_and_lists_in_asides(text, facts):
    """A field line between two bullet lists closes the first (``children:`` after the
    friends' bullets); a set named in a title (``Index — X``) owns the lists under it."""
    assert keys_of(read_claims(text, V).facts) == keys_of(facts)


@pytest.mark.parametrize("text,facts", [
    # under a person's record, a singular relation of someone says what the person is
    (f"{FA}\nFriend of: {NK}, {IV}", FRIENDS),
    (f"* {FA}\n  * friend of {NK}\n  * friend of {IV}", FRIENDS),
    (f"- name: {NK}\n  relation: friend of {FA}\n- name: {IV}\n  relation: friend of {FA}",
     FRIENDS),
    (f"# {FA}\n## Family\nFather of {MQ} and {CL}.",
     {Fact("father_of", FA, MQ), Fact("father_of", FA, CL)}),
    # a plural names a set, a heading is a title: no one is said to be in it
    (f"# {FA}\n## Friends of {NK}", set()),
    # the relation's field in a list of X's relations
    (f'{{"person": "{FA}", "relations": [{{"type": "friend", "name": "{NK}"}}]}}',
     {Fact("friend_of", FA, NK)}),
    # ... and with no X, no one's
    (f'[{{"name": "{NK}", "relation": "friend"}}]', set()),
    # a value's holders under its heading, in a word of its kind
    (f"# Oakhaven\nResidents: {NK}, {IV}",
     {Fact("city", NK, "Oakhaven"), Fact("city", IV, "Oakhaven")}),
    (f"# Bakers\nResidents: {NK}", set()),
])
def test_what_a_record_says_its_person_is(text, facts):
    assert keys_of(read_claims(text, V).facts) == keys_of(facts)
    if not facts:
        assert read_claims(text, V).keys != (Key("friends", NK),)


@pytest.mark.parametrize("text, facts", [
    # the last friend's fields: his, or Felix's? on one line, the line does not say
    (f"name: {FA} friends: - name: {NK} job: baker - name: {IV} job: mason hobby: chess",
     {Fact("friend_of", FA, NK), Fact("friend_of", FA, IV), Fact("job", NK, "baker")}),
    # a field repeated ends the item, so the first job is Ivor's; the hobby before the
    # second job could be either's
    (f"name: {FA} friends: - name: {IV} job: mason hobby: chess job: weaver",
     {Fact("friend_of", FA, IV), Fact("job", IV, "mason")}),
])
def test_a_record_stored_on_one_line_states_only_what_both_readings_state(text, facts):
    """The library stores every note on one line, so a YAML record's nested records lose
    their indentation: where the last one ends, the line does not say. The reader reads it
    both ways (the last item keeps every field it did not have twice; or it ends after its
    name and the fields it must have had) and states only what both readings state: never a
    false fact about a truthful record, at the price of the facts that depend on it."""
    assert keys_of(read_claims(text, V).facts) == keys_of(facts)


def test_a_record_nested_in_a_field_on_one_line_gives_no_one_its_later_fields():
    """``spouse: name: S hobby: rowing friends: - I`` on one line: the hobby and the friend
    may be S's or the outer record's, so neither is read for anyone; over several lines the
    indentation says, and the friendship is Felix's."""
    one = read_claims(f"name: {FA} spouse: name: {NK} hobby: rowing friends: - {IV}", V)
    assert not {f.kind for f in one.facts} & {"hobby", "friend_of"}, one.facts
    spread = read_claims(f"name: {FA}\nspouse:\n  name: {NK}\n  hobby: rowing\nfriends:\n"
                         f"  - {IV}", V)
    assert keys_of(spread.facts) >= keys_of({Fact("married", FA, NK), Fact("friend_of", FA, IV)})


def test_every_item_of_an_indented_list_of_records_is_a_member():
    """Over several lines, the second item of a list of records is a member too: it used to
    be read inside the first item's block of fields, so only the first friend was listed;
    a field back at the record's indentation after the list is the record's."""
    for indent in ("  ", ""):
        text = (f"name: {FA}\nfriends:\n{indent}- name: {NK}\n{indent}  job: baker\n"
                f"{indent}- name: {IV}\n{indent}  job: mason\nhobby: chess")
        c = read_claims(text, V)
        assert c.members(("friends", FA)) == (NK, IV), text
        assert keys_of(c.facts) == keys_of(FRIENDS | {
            Fact("job", NK, "baker"), Fact("job", IV, "mason"), Fact("hobby", FA, "chess")})


def test_kin_words_of_other_relations_state_nothing():
    for text in (f"The mother-in-law of {FA} is {NK}.", f"{FA} is the step-father of {IV}.",
                 f"Great-grandchildren of {FA}: {IV}."):
        assert read_claims(text, V).facts == (), text
    c = read_claims(f"The brothers of {FA} are {IV} and {MQ}.", V)
    assert c.members(("brothers", FA)) == (IV, MQ) and c.facts == ()


def test_phantomwiki_notes_read_true():
    """A PhantomWiki universe has a vocabulary too: every fact read from its own articles'
    sentences is true of its people, and its relation sentences read as keys."""
    from pathlib import Path

    from kbgym.claims import vocabulary_of
    from kbgym.worlds.phantomwiki.adapt import adapt_phantomwiki

    src = Path(__file__).parents[1] / "adapters" / "data" / "phantomwiki_seed1"
    u = adapt_phantomwiki(src, seed=0, sizes=(24, 12, 12), eval_sizes=(6, 4))
    vocab = vocabulary_of(u)
    assert vocab is not None and vocab.world == "phantomwiki"
    by = {p.name: p for p in u.people}
    pid = {p.name: p.pid for p in u.people}
    read = keys = 0
    for n in u.nodes:
        c = read_claims(n.text, vocab)
        keys += bool(c.keys)
        for f in c.facts:
            read += 1
            s = by[f.subj]
            if f.kind == "friend_of":
                assert pid[f.obj] in s.friends, n.text
            elif f.kind in ("father_of", "mother_of"):
                assert pid[f.obj] in s.children, n.text
            elif f.kind == "child_of":
                assert pid[f.obj] in s.parents, n.text
            elif f.kind == "married":
                assert s.spouse == pid[f.obj], n.text
            elif f.kind in ("job", "hobby"):
                assert f.obj in getattr(s, f.kind), n.text
    assert read > len(u.people) and keys > len(u.people)


def test_part_groups():
    from types import SimpleNamespace as N

    from kbgym.claims import part_groups

    notes = [N(id="s2", text=f"{FA} - friends (2/2)"), N(id="s1", text=f"{FA} - friends (1/2)"),
             N(id="s3", text=f"Friends of {FA}."), N(id="s4", text="Bakers, part 1 of 2."),
             N(id="s5", text=f"{NK} - friends (1/2)")]
    assert part_groups(notes, V) == {Key("friends", FA): ["s1", "s2"]}
    # parts written as records: the part field orders them
    records = [N(id=f"j{k}", text=json.dumps({"key": f"friends of {NK}", "part": f"{k}/2",
                                               "members": [m]}))
               for k, m in ((2, IV), (1, FA))]
    assert part_groups(records, V) == {Key("friends", NK): ["j1", "j2"]}


def test_relation_words_are_the_words_the_reader_takes():
    from kbgym.claims import relation_words

    assert {"friend", "friends"} <= set(relation_words("friends"))
    assert {"father", "mother", "parents"} <= set(relation_words("parents"))
    assert {"married", "wife"} <= set(relation_words("spouse"))
    assert relation_words("hub") == () and relation_words("nonsense") == ()
    for rel in ("friends", "children", "parents", "spouse"):
        for w in relation_words(rel):  # each word, as a key title, names that relation
            title = f"{FA}'s {w}." if w not in ("married", "wed", "wedded", "weds") \
                else None
            if title:
                assert Key(rel, FA) in read_claims(title, V).keys, title


@pytest.fixture(scope="module")
def crowded():
    """A universe whose names share first names and surnames."""
    u = generate(UniverseConfig(n_people=120, n_cities=8, sizes=(10, 5, 5), eval_sizes=(2, 2)))
    return u, people_vocabulary(u)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.data(), st.sampled_from(FORMS), st.sampled_from(["full", "surname_first"]),
       st.sampled_from(sorted(CASES)))
def test_true_facts_of_a_universe_read_back_in_every_form(crowded, data, form, person, case):
    """On a generated universe (shared first names and surnames), a person's true job, hobby,
    city and one true relation set, rendered in any form, read back as exactly those facts."""
    u, vocab = crowded
    by = {p.pid: p for p in u.people}
    p = data.draw(st.sampled_from([q for q in u.real_people if q.friends and q.parents]))
    rel = data.draw(st.sampled_from(["friends", "parents"] + (["children"] if p.children
                                                              else [])))
    members = [by[x].name for x in {"friends": p.friends, "parents": p.parents,
                                     "children": p.children}[rel]]
    attrs = {"job": p.job, "hobby": p.hobby, "city": p.city}
    if form in ("json", "json_key"):
        case = "as_is"
    gender = {q.name: q.gender for q in u.people}
    text = CASES[case](render(form, p.name, attrs, rel, members, PERSONS[person],
                              gender=gender))
    want = {Fact(k, p.name, v) for k, v in attrs.items()}
    for m in members:
        want.add({"friends": Fact("friend_of", p.name, m), "parents": Fact("child_of", p.name, m),
                  "children": Fact("child_of", m, p.name)}[rel])
    assert keys_of(read_claims(" ".join(text.split()), vocab).facts) == keys_of(want), text


#: Truthful sentences about several people, each with the facts it must state (a subset of
#: what it says; the property is that nothing read is false).
TRUE_SENTENCES = (
    "{A} and {B} are friends.",
    "{A}, who works as a {jobA}, is friends with {B}.",
    "{A} ({jobA}, {cityA}) is a friend of {B} ({jobB}).",
    "The {jobB} {B} lives in {cityB}.",
    "Among the friends of {A} is {B}.",
    "{A}'s friend {B} enjoys {hobbyB}.",
    "{B} is a friend of the {jobA} {A}.",
    "{A} lives in {cityA}; {B}, a {jobB}, lives in {cityB}.",
    "- {A}: {jobA}, {hobbyA}\n- {B}: {jobB}, {hobbyB}",
    "{A} is a {jobA}. {B} is a {jobB}. She or he enjoys {hobbyB}.",
    "{A} is a {jobA}. Friends: {B}.",
    "{A}'s friends include {B}, who lives in {cityB}.",
    "## {A}\n- Job: {jobA}\n- Friend: [[{B}]] ({jobB})",
    '{{"name": "{A}", "job": "{jobA}", "friends": [{{"name": "{B}", "city": "{cityB}"}}]}}',
    "{A} is married to {S}, who works as a {jobS}.",
    "{S}, {A}'s spouse, lives in {cityS}.",
    "{C} is a child of {A} and lives in {cityC}.",
    "{A} has a child, {C}, and a friend, {B}.",
    "{C}'s parent {A} is a {jobA}.",
    "The children of {A}: {C}. The friends of {A}: {B}.",
    "| Name | Job | City |\n|---|---|---|\n| {A} | {jobA} | {cityA} |\n| {B} | {jobB} | {cityB} |",
    "{jobA}s: {A}. {jobB}s: {B}.",
    "People in {cityB}: {B}.",
    "Q: What is the job of {A}? A: {jobA}.",
    "Verified: The job of {B} is {jobB}.",
    "{A} is a {jobA} and {B}'s friend.",
    "{B} and {A} ({hobbyA}) are friends; {B} is a {jobB} in {cityB}.",
    "{A}: friends with {B}; married to {S}; parent of {C}.",
    "{A}'s relationships: friends with {B}; parent of {C}.",
    "Unlike {B}, {A} lives in {cityA}.",
    "{jobB}s among {A}'s friends: {B}.",
    "{A}'s friends by city: {cityB} - {B}; {cityS} - none.",
    "{A}, whose friends include {B}, works as a {jobA}.",
    "Answer: {jobB}. Because {B} is a friend of {A} and {B} is a {jobB}.",
    "{B} is in {cityB}, {C} in {cityC}.",
    "Relatives of {A}: {S} (spouse), {C} (child).",
    "{A}'s friend {B} works as a {jobB} in {cityB}.",
    "{S} ({jobS})",
    "{B} ({jobB}, {cityB}) - friend of {A}",
    "{A}'s friends are {B}; {B} lives in {cityB}.",
    "{A}, a {jobA}, is married to {S}.",
    "{A}: married to {S}; children: {C}.",
    "{A}'s friends include {B}, a {jobB} from {cityB}, and {S}'s children.",
    # they, both, their: the people named together, never the sentence's subject
    "{A} and {S} are married. They have a child, {C}.",
    "{A} and {S} are married; their children include {C}.",
    "{A} is friends with {B}. Their children include {C}.",
    "{A} and {B} are friends. They live in {cityA} and {cityB}.",
    "{A}'s friends include {B}. The two are friends.",
    "{C} and {S} are related to {A}; none of them lives in {cityB}.",
    # pronouns of a gender, within a clause and after another person's sentence
    "{A} is a {jobA} in {cityA}, and {hisA} spouse {S} is a {jobS}.",
    "{A} is married to {S}, and together they have a child, {C}.",
    "{A} lives in {cityA}, while {hisA} friend {B} lives in {cityB}.",
    "{A} is a {jobA}. {HisA} friend {B} is a {jobB}, and {hisA} child {C} lives in {cityC}.",
    "{A} is a {jobA}. {HeA} is friends with {B}, a {jobB} in {cityB}.",
    "{A} ({jobA}) lives in {cityA} with {hisA} spouse, {S}.",
    "{A}'s friend {B} enjoys {hobbyB}, and {hisA} spouse {S} lives in {cityS}.",
    "{A} works as a {jobA}, while {B} works as a {jobB}.",
    "{A} and {B}, a {jobA} and a {jobB} respectively, are friends.",
    "{A} lives in {cityA}. {B} lives in {cityB}. They are friends.",
    "Family: {A} is married to {S}. {S} works as a {jobS}. Their child is {C}.",
    "{A} is friends with a {jobB}, {B}.",
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.data(), st.lists(st.sampled_from(TRUE_SENTENCES), min_size=1, max_size=4),
       st.booleans(), st.sampled_from(sorted(CASES)))
def test_truthful_prose_about_several_people_reads_nothing_false(crowded, data, sentences,
                                                                  one_line, case):
    """Sentences that mix several people's true relations and values (appositions, asides,
    relative clauses, possessives) read no false fact."""
    from kbgym.metrics.misinformation import Truth

    u, vocab = crowded
    by = {p.pid: p for p in u.people}
    a = data.draw(st.sampled_from([q for q in u.real_people
                                   if q.friends and q.spouse and q.children]))
    b = by[data.draw(st.sampled_from(sorted(a.friends)))]
    c = by[data.draw(st.sampled_from(sorted(a.children)))]
    text = several_people(a, b, c, by[a.spouse], sentences, case, one_line)
    assert false_readings(text, vocab, Truth(u)) == [], text


def several_people(a, b, c, spouse, sentences, case: str, one_line: bool) -> str:
    """``sentences`` (of ``TRUE_SENTENCES``) about A, A's friend B, child C and spouse S as
    paragraphs, each ending in a period so that joined on one line they stay apart; in
    ``case`` (JSON keeps its own), on one line as the library stores a note if ``one_line``.
    Also used by scripts/experiments/claim_sampler.py."""
    slots = {"A": a.name, "B": b.name, "jobA": a.job, "jobB": b.job, "cityA": a.city,
             "cityB": b.city, "hobbyA": a.hobby, "hobbyB": b.hobby, "S": spouse.name,
             "jobS": spouse.job, "cityS": spouse.city, "C": c.name, "cityC": c.city,
             "HeA": "She" if a.gender == "female" else "He",
             "hisA": "her" if a.gender == "female" else "his",
             "HisA": "Her" if a.gender == "female" else "His"}
    text = "\n\n".join(x if x.endswith((".", "}", "|")) else x + "."
                         for x in (s.format(**slots) for s in sentences))
    if '{"' not in text:
        text = CASES[case](text)
    return " ".join(text.split()) if one_line else text


def false_readings(text: str, vocab, truth) -> list:
    """The facts the claim reader reads in ``text`` that ``truth`` says are not true."""
    out = []
    for f in read_claims(text, vocab).facts:
        role = f.kind.removesuffix("_of") if f.relation == "parent_of" else None
        if truth.fact(f.relation, f.subj, f.obj, role) != "true":
            out.append(f)
    return out


@pytest.mark.parametrize("title", ["Index of notes about {x}.", "Notes on {x}", "All about {x}",
                                   "{x}", "About {x}.", "Everything on {x}."])
def test_a_title_naming_one_person_and_nothing_else_is_their_hub(title):
    assert read_claims(title.format(x=FA), V).keys == (Key("hub", FA),)


def test_a_title_with_a_relation_is_not_a_hub():
    assert read_claims(f"Index of friends of {FA}.", V).keys == (Key("friends", FA),)
    assert read_claims(f"{FA}'s marriage.", V).keys == (Key("spouse", FA),)


@pytest.mark.parametrize("kind, noun", [("person", "pages"), ("index", "index notes")])
def test_the_claim_samplers_pages_read_nothing_false(load_script, capsys, kind, noun):
    """scripts/experiments/claim_sampler.py --pages: its first 150 person pages (prose,
    fields, bullets, pronouns, first names) or indexes (titles, bullets with values, numbers,
    prose), half of them on one line, read no false fact."""
    load_script("scripts/experiments/claim_sampler.py").main(
        ["--pages", "150", "--kind", kind, "--show", "0"])
    assert capsys.readouterr().out.startswith(f"150 {noun}; 0 with a false reading")


def test_the_claim_samplers_records_read_nothing_false_but_nested_yaml_on_one_line(
        load_script, capsys):
    """claim_sampler.py --pages --kind record: JSON (compact, indented, fenced) and YAML
    records with nested spouse, children and friends read no false fact, on one line or not;
    the only misreadings left are YAML records stored on one line, in the few shapes the
    two readings of a one-line record do not cover (docs/claims.md)."""
    load_script("scripts/experiments/claim_sampler.py").main(
        ["--pages", "150", "--kind", "record", "--show", "0"])
    out = capsys.readouterr().out
    head, _, forms = out.partition(" with a false reading")
    assert head.startswith("150 records; ")
    if not head.endswith("; 0"):
        assert forms.startswith(" (yaml, on one line: ") and ";" not in forms.split(")")[0], out


def test_the_claim_sampler_reads_nothing_false_in_its_first_texts(load_script, capsys):
    """scripts/experiments/claim_sampler.py (the property test's sentences, drawn many more
    times): its first 300 texts at seed 0 read no false fact, and it says how many it drew."""
    load_script("scripts/experiments/claim_sampler.py").main(["--texts", "300", "--show", "0"])
    assert capsys.readouterr().out.startswith("300 texts; 0 false readings in 0 sentence")
