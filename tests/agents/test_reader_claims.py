"""The exam reader reads notes with the claim reader (docs/examiner.md): an edited original
that still states its fact carries it, answer statements after a label are answers, and an
index split into marked parts is the set once every part was read."""

from kbgym_agents.scripted.knowledge import (
    LinkJudgedKnowledge,
    answers_only,
    own_text,
    stated_fact,
)

FRIENDS = ["s1: Felix Abernathy is a friend of Nora Vance.",
           "s2: Milo Quimby is a friend of Felix Abernathy.",
           "s3: Felix Abernathy is a friend of Ivor Vance."]


def read_into(kb, nid, text, links):
    body = "".join(f"\n- {x}" for x in links)
    kb.ingest_entry("read", {"id": nid}, f"{nid}: {text}\nlinks:" + (body or " (none)"))


def test_an_edited_original_that_still_states_its_fact_carries_it():
    f = stated_fact("Felix Abernathy's job is mason. See also: Felix Abernathy's children.")
    assert (f.kind, f.subj, f.obj) == ("job", "Felix Abernathy", "mason")
    kb = LinkJudgedKnowledge()
    kb.note("s7", "Felix Abernathy's job is mason. See also: Felix Abernathy's children.")
    assert kb.attr("Felix Abernathy", "job") == "mason"
    # a note about a set, or stating two facts, is an authored note judged by its links
    assert stated_fact("Friends of Felix Abernathy (1/2).") is None
    assert stated_fact("Felix Abernathy's job is mason. Nora Vance's job is baker.") is None


def test_answer_statements_after_a_label_are_answers_and_not_the_notes_own_text():
    got = answers_only("Verified: The job of the spouse of Felix Abernathy is baker.")
    assert [(a.template, a.answer) for a in got] == [("qc2_spouse_job", "baker")]
    text = ("Friends of Felix Abernathy. Verified: The number of friends of Felix Abernathy "
            "is 3.")
    assert answers_only(text) == ()  # an index that also holds an answer is an index
    assert own_text(text) == "Friends of Felix Abernathy."
    # a title run into a statement without a label is not an answer
    assert answers_only("Felix Abernathy friend list The number of friends of Felix "
                        "Abernathy is 3.") == ()


def test_parts_are_one_index():
    kb = LinkJudgedKnowledge()
    page = ("page 1:\n- s90: Friends of Felix Abernathy (1/2).\n"
            "- s91: Friends of Felix Abernathy (2/2).")
    kb.ingest_entry("search", {"query": "Felix Abernathy friends", "page": 1}, page)
    assert kb.index_candidates("friends", "Felix Abernathy")[:2] == ["s90", "s91"]
    read_into(kb, "s90", "Friends of Felix Abernathy (1/2).", FRIENDS[:2])
    assert not kb.absorb_index("s90", "friends", "Felix Abernathy")  # half of the set
    assert ("friends", "Felix Abernathy") not in kb.complete and "s90" in kb.part_notes
    read_into(kb, "s91", "Friends of Felix Abernathy (2/2).", FRIENDS[2:])
    assert kb.absorb_index("s91", "friends", "Felix Abernathy")
    assert kb.friends("Felix Abernathy") == {"Nora Vance", "Milo Quimby", "Ivor Vance"}


def test_parts_are_one_index_though_a_part_shows_no_member():
    """A person's hub in two parts, the first holding only their own statements: the friends
    are what the two parts show together, and parts of another note about the person (``X -
    parents (2/2)``) are not taken for the hub's missing part."""
    kb = LinkJudgedKnowledge()
    own = ["s5: Felix Abernathy's job is mason.", "s6: Felix Abernathy lives in the city of Oakhaven."]
    read_into(kb, "s80", "Felix Abernathy - parents (2/2).", FRIENDS)
    assert not kb.absorb_index("s80", "friends", "Felix Abernathy")
    read_into(kb, "s90", "About Felix Abernathy (1/2).", own)
    assert not kb.absorb_index("s90", "friends", "Felix Abernathy")
    assert "s90" in kb.part_notes
    read_into(kb, "s91", "About Felix Abernathy (2/2).", FRIENDS)
    assert kb.absorb_index("s91", "friends", "Felix Abernathy")
    assert kb.friends("Felix Abernathy") == {"Nora Vance", "Milo Quimby", "Ivor Vance"}


def test_one_part_alone_is_never_the_set():
    kb = LinkJudgedKnowledge()
    read_into(kb, "s90", "FRIENDS OF FELIX ABERNATHY, PART 1 OF 3.", FRIENDS)
    assert not kb.absorb_index("s90", "friends", "Felix Abernathy")
    assert ("friends", "Felix Abernathy") not in kb.complete


def test_notes_written_for_the_same_set_are_one_index_though_unmarked():
    """A curator that appends a second note for a set instead of editing the first
    (``Friends of X.`` twice, or reworded) writes one set as two notes that do not say they
    are parts: seen together, neither alone is the set."""
    for first, second in (("Friends of Felix Abernathy.", "Friends of Felix Abernathy."),
                          ("Friends of Felix Abernathy.", "Felix Abernathy's friends (more)."),
                          ("Felix Abernathy: the people he spends weekends with.",
                           "Felix Abernathy: the people he spends weekends with."),
                          ('{"key": "friends of Felix Abernathy", "members": ["Nora Vance", '
                           '"Milo Quimby"]}',
                           '{"key": "friends of Felix Abernathy", "members": ["Ivor Vance"]}'),
                          ("## Friends of Felix Abernathy - [[Nora Vance]] - [[Milo Quimby]]",
                           "## Friends of Felix Abernathy - [[Ivor Vance]]"),
                          ("FRIENDS OF FELIX ABERNATHY", "friends of felix abernathy, continued")):
        kb = LinkJudgedKnowledge()
        page = f"page 1:\n- s90: {first}\n- s91: {second}"
        kb.ingest_entry("search", {"query": "Felix Abernathy friends", "page": 1}, page)
        read_into(kb, "s90", first, FRIENDS[:2])
        assert not kb.absorb_index("s90", "friends", "Felix Abernathy"), first
        assert "s90" in kb.part_notes
        read_into(kb, "s91", second, FRIENDS[2:])
        assert kb.absorb_index("s91", "friends", "Felix Abernathy"), second
        assert kb.friends("Felix Abernathy") == {"Nora Vance", "Milo Quimby", "Ivor Vance"}


def test_a_set_note_at_the_end_of_a_page_turns_it_where_the_library_writes_sets_twice():
    """The same words rank alike, so a second note written for the set with the same title
    ranks right after the first: when the first ends a full page, the next page is turned
    before it is taken alone, but only in a library seen to write some set twice."""
    def page(kb, hits):
        text = "page 1:" + "".join(f"\n- {i}: {t}" for i, t in hits)
        kb.ingest_entry("search", {"query": "Felix Abernathy friends", "page": 1}, text)

    others = [("s80", "Index: Nora Vance / friends."), ("s81", "Index: Nora Vance / friends."),
              ("s82", "Index: Ivor Vance / friends."), ("s83", "Index: Ivor Vance / friends.")]
    kb = LinkJudgedKnowledge()
    page(kb, others + [("s90", "Index: Felix Abernathy / friends.")])
    read_into(kb, "s90", "Index: Felix Abernathy / friends.", FRIENDS[:2])
    assert kb.twin_page("s90", "friends", "Felix Abernathy") == ("Felix Abernathy friends", 2)
    # no twin seen anywhere: the note is judged alone, as ever
    kb = LinkJudgedKnowledge()
    page(kb, [("s80", "Index: Nora Vance / friends."), ("s82", "Index: Ivor Vance / friends."),
              ("s84", "Index: Milo Quimby / friends."), ("s85", "Index: Ada Vance / friends."),
              ("s90", "Index: Felix Abernathy / friends.")])
    read_into(kb, "s90", "Index: Felix Abernathy / friends.", FRIENDS[:2])
    assert kb.twin_page("s90", "friends", "Felix Abernathy") is None
    # not at the page's end, or the next page already shown: nothing to turn
    kb = LinkJudgedKnowledge()
    page(kb, [("s90", "Index: Felix Abernathy / friends.")] + others)
    read_into(kb, "s90", "Index: Felix Abernathy / friends.", FRIENDS[:2])
    assert kb.twin_page("s90", "friends", "Felix Abernathy") is None


def test_a_bare_name_twice_is_two_of_the_persons_sets_until_the_library_writes_sets_twice():
    """``X.`` over X's friends and ``X.`` over X's children are two sets: not read together
    (that would cost every bare-named set a read of all the others), unless a page has shown
    the library writing a set twice; a value's bare name twice is its one set."""
    def kb_with(hits):
        kb = LinkJudgedKnowledge()
        text = "page 1:" + "".join(f"\n- {i}: {t}" for i, t in hits)
        kb.ingest_entry("search", {"query": "Felix Abernathy friends", "page": 1}, text)
        return kb

    kb = kb_with([("s90", "Felix Abernathy."), ("s91", "Felix Abernathy.")])
    assert kb.same_set_notes("s90", "friends", "Felix Abernathy") == []
    kb = kb_with([("s90", "Felix Abernathy."), ("s91", "Felix Abernathy."),
                  ("s92", "Friends of Nora Vance."), ("s93", "Friends of Nora Vance.")])
    assert kb.same_set_notes("s90", "friends", "Felix Abernathy") == ["s91"]
    kb = kb_with([("s90", "Bakers."), ("s91", "Bakers.")])
    assert kb.same_set_notes("s90", "job", "baker") == ["s91"]


def test_a_hub_and_a_card_of_one_person_are_two_notes_not_halves():
    kb = LinkJudgedKnowledge()
    page = ("page 1:\n- s90: About Felix Abernathy.\n- s91: Profile of Felix Abernathy.\n"
            "- s92: Friends of Nora Vance.")
    kb.ingest_entry("search", {"query": "Felix Abernathy friends", "page": 1}, page)
    read_into(kb, "s90", "About Felix Abernathy.", FRIENDS)
    assert kb.same_set_notes("s90", "friends", "Felix Abernathy") == []
    assert kb.absorb_index("s90", "friends", "Felix Abernathy")


def test_a_note_listing_the_key_as_another_keys_member_is_no_candidate_for_its_sets():
    """A markdown list, a table or a JSON record of Nora's friends that lists Felix is about
    Nora: Felix's friends are not looked for there (it would cost a read and earn nothing),
    while a note about Felix, or one pointing at Felix's set, still is a candidate."""
    kb = LinkJudgedKnowledge()
    notes = {
        "s80": "## Friends of Nora Vance - [[Felix Abernathy]] - [[Milo Quimby]]",
        "s81": '{"key": "friends of Nora Vance", "members": ["Felix Abernathy", "Ivor Vance"]}',
        "s82": "| Friends of Nora Vance | |---| | Felix Abernathy | | Ivor Vance |",
        "s83": "## Friends of Felix Abernathy - [[Nora Vance]]",
        "s84": "Friends of Nora Vance: Felix Abernathy. See also: Felix Abernathy's friends.",
    }
    page = "page 1:" + "".join(f"\n- {i}: {t}" for i, t in notes.items())
    kb.ingest_entry("search", {"query": "Felix Abernathy friends", "page": 1}, page)
    assert kb.notes == notes
    got = kb.index_candidates("friends", "Felix Abernathy")
    assert "s83" in got and "s84" in got
    assert not {"s80", "s81", "s82"} & set(got)
    # for Nora's own friends the same notes are the candidates
    assert {"s80", "s81", "s82"} <= set(kb.index_candidates("friends", "Nora Vance"))


def test_notes_pointing_back_from_members_are_not_halves_of_the_set():
    """A curator that writes a note for each member naming the set it is listed in (``A:
    listed in Friends of X.``) wrote statements of membership, not a second note of the set:
    the index is the set as soon as it is read (before 2026-12-07 it waited for every
    member's note, and the exam paid a read per member; scripts/experiments/back_notes.py)."""
    for back in ("{m}: listed in Friends of Felix Abernathy.",
                 "{m} is one of the people in Felix Abernathy's friends list.",
                 '{{"name": "{m}", "member_of": "friends of Felix Abernathy"}}'):
        kb = LinkJudgedKnowledge()
        hits = [("s90", "Friends of Felix Abernathy.")] + [
            (f"s9{i}", back.format(m=m)) for i, m in enumerate(("Nora Vance", "Ivor Vance"), 1)]
        kb.ingest_entry("search", {"query": "Felix Abernathy friends", "page": 1},
                        "page 1:" + "".join(f"\n- {i}: {t}" for i, t in hits))
        assert kb.same_set_notes("s90", "friends", "Felix Abernathy") == [], back
        read_into(kb, "s90", "Friends of Felix Abernathy.", FRIENDS)
        assert kb.absorb_index("s90", "friends", "Felix Abernathy"), back
        assert kb.friends("Felix Abernathy") == {"Nora Vance", "Milo Quimby", "Ivor Vance"}


def test_a_question_with_its_answer_and_evidence_is_no_set_of_the_people_it_names():
    """A curator that writes each question with its answer and the statements it rests on
    (``Q: ... A: ... Evidence: ...``, stored on one line) links some of a person's friends:
    evidence, not the person's set. Taken as the set, every later question about that
    person's friends lost its answer (a truthful library scored as harm). A note whose own
    text names the set, or whose question asks for the set's size, is still a candidate."""
    x = "Felix Abernathy"
    notes = {
        "s70": ("Q: Which friend of Nora Vance is also a friend of Ivor Vance? A: Felix Abernathy "
                "Evidence: Felix Abernathy is a friend of Nora Vance. Felix Abernathy is a friend "
                "of Ivor Vance."),
        "s71": ("Q: Who is older, Felix Abernathy or Milo Quimby? A: Felix Abernathy Evidence: "
                "Felix Abernathy is a friend of Nora Vance."),
        "s72": ("Q: How many friends does Felix Abernathy have? A: 3 Evidence: Felix Abernathy "
                "is a friend of Nora Vance."),
        "s73": "Friends of Felix Abernathy. Who is older, Felix Abernathy or Milo Quimby?",
    }
    kb = LinkJudgedKnowledge()
    kb.ingest_entry("search", {"query": f"{x} friends", "page": 1},
                    "page 1:" + "".join(f"\n- {i}: {t}" for i, t in notes.items()))
    got = kb.index_candidates("friends", x)
    assert "s70" not in got and "s71" not in got
    assert "s72" in got and "s73" in got
    # the answer is read up to the label that follows it
    from kbgym.claims import read_claims
    from kbgym_agents.scripted.knowledge import reader_vocabulary
    answers = read_claims(notes["s70"], reader_vocabulary()).answers
    assert [(a.template, a.answer) for a in answers] == [("qc7_common_friend", x)]
