"""Question records (SPEC §17 "Questions"): templates, categories, hops, golds, keys, and
dropping repeated texts."""

from __future__ import annotations

import json
import shutil

from kbgym.worlds.phantomwiki.questions import drop_repeats, golds
from kbgym.worlds.phantomwiki.source import PWQuestion


def test_golds():
    assert golds(["Bo Yu", "Al Ng"]) == ("Al Ng, Bo Yu", "Al Ng", "Bo Yu")
    assert golds(["Al Ng", "Bo Yu", "Cy Lee"]) == (
        "Al Ng, Bo Yu, Cy Lee", "Al Ng", "Bo Yu", "Cy Lee")
    assert golds(["Al Ng"]) == ("Al Ng",)
    assert golds(["3"]) == ("3", "three")
    assert golds(["10", "2"]) == ("2, 10", "2", "two", "10", "ten")
    assert golds(["0", "1"]) == ("0, 1", "0", "zero", "1", "one")
    assert golds(["21"]) == ("21",)
    assert golds(["0295-05-30"]) == ("0295-05-30",)
    assert golds([]) == ("unknown",)


#: The depth-6 type -> category table of SPEC §17, which the shapes must reproduce.
DEPTH6_CATEGORIES = {0: "PW_REL", 1: "PW_REL", 2: "PW_PERSON", 3: "PW_ATTR", 4: "PW_ATTR",
                     5: "PW_AGG", 6: "PW_AGG", 7: "PW_AGG"}


def test_records(pw_universe, pw_raw):
    _, raw = pw_raw
    src = {q["question"]: q for q in raw}
    assert len(pw_universe.questions) == 80
    for q in pw_universe.questions:
        r = src[q.text]
        assert q.template == f"pw_type{r['type']}"
        assert q.category == DEPTH6_CATEGORIES[r["type"]]
        assert q.hops == r["difficulty"]
        assert q.tier == "none"
        assert q.golds == golds(r["answer"])
        assert not q.unanswerable
    cats = {t: v["category"] for t, v in pw_universe.vocab["templates"].items()}
    assert cats == {"pw_type0": "PW_REL", "pw_type1": "PW_REL", "pw_type2": "PW_PERSON",
                    "pw_type3": "PW_ATTR", "pw_type4": "PW_ATTR", "pw_type5": "PW_AGG",
                    "pw_type6": "PW_AGG", "pw_type7": "PW_AGG"}
    reserved = sorted(t for t, v in pw_universe.vocab["templates"].items() if v["reserved"])
    assert reserved == ["pw_type0", "pw_type6"]


def test_keys_are_person_names(pw_universe):
    q = next(q for q in pw_universe.questions if q.text == "Who is the niece of Jeannine Wexler?")
    assert q.keys == ("person:Jeannine Wexler",)
    for q in pw_universe.questions:
        assert all(k.startswith("person:") for k in q.keys)
        if q.template in ("pw_type0", "pw_type2", "pw_type4", "pw_type6"):
            assert q.keys == ()  # "the person whose occupation is ..." names nobody


def test_drop_repeats_keeps_first():
    a = PWQuestion("Who is X?", ("A",), ("f(Y_1)",), "Y_1", 1, 1)
    b = PWQuestion("Who is Y?", ("B",), ("f(Y_1)",), "Y_1", 1, 1)
    c = PWQuestion("Who is X?", ("A",), ("f(Y_1)",), "Y_1", 3, 2)
    assert drop_repeats([a, b, c]) == ([a, b], 1)


def test_repeated_text_dropped_from_universe(tmp_path, pw_src, pw_raw, adapt_small):
    articles, questions = pw_raw
    twin = dict(questions[12], id="00000000-0000-0000-0000-000000000000")
    shutil.copy(pw_src / "articles.json", tmp_path / "articles.json")
    (tmp_path / "questions.json").write_text(json.dumps(questions + [twin]), encoding="utf-8")
    u = adapt_small(tmp_path)
    report = u.meta["adapter_report"]
    assert (report["questions_read"], report["repeated_dropped"], report["questions"]) == (
        81, 1, 80)
    assert len({q.text for q in u.questions}) == len(u.questions) == 80
    plain = adapt_small(pw_src)
    assert (u.questions, u.splits, u.nodes) == (plain.questions, plain.splits, plain.nodes)


def test_questions_by_type_folder(tmp_path, pw_src, pw_raw, pw_universe, adapt_small):
    """--question-format json_by_type (questions/type{t}.json) reads the same questions."""
    _, questions = pw_raw
    shutil.copy(pw_src / "articles.json", tmp_path / "articles.json")
    (tmp_path / "questions").mkdir()
    for t in range(8):
        rows = [q for q in questions if q["type"] == t]
        (tmp_path / "questions" / f"type{t}.json").write_text(json.dumps(rows), encoding="utf-8")
    assert adapt_small(tmp_path) == pw_universe
