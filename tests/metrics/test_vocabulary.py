"""The exam's search vocabulary (kbgym.metrics.vocabulary): plurals and key queries."""

from kbgym.metrics.vocabulary import key_queries, plural, relation_forms


def test_plural_forms():
    assert [plural(w) for w in ("friend", "child", "city", "hobby", "day", "match",
                                 "grandchild")] == [
        "friends", "children", "cities", "hobbies", "days", "matches", "grandchildren"]
    assert plural("best friend") == "best friends"


def test_relation_forms_keep_order_without_repeats():
    assert relation_forms(("father", "friend", "father")) == [
        "father", "fathers", "friend", "friends"]


def test_key_queries_are_the_bare_key_then_each_form():
    assert key_queries("Ada Byron", ("friend",)) == ["Ada Byron", "Ada Byron friend",
                                                     "Ada Byron friends"]
    assert key_queries("cooper", ()) == ["cooper"]
