"""``kbgym import corpus``: documents split deterministically with stable ids, source lines
and hashes; questions from JSONL; key-based splits and probe; and the PhantomWiki
cross-check (its articles imported as plain text give the PW adapter's documents and
answerable questions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbgym.worlds.corpus import import_corpus, make_corpus_probe, read_corpus
from kbgym.worlds.corpus.universe import capitalized_runs
from kbgym.worlds.phantomwiki.questions import golds
from kbgym.cli import main
from kbgym.errors import ConfigError
from kbgym.types import Universe

DOCS = {
    "people/ada.md": "# Ada Lovelace\n\nAda Lovelace wrote the first program. She worked with\n"
                     "Charles Babbage on the Analytical Engine.\n\n## Later\nHer notes were "
                     "published in 1843.\n",
    "people/charles.md": "# Charles Babbage\n\nCharles Babbage designed the Difference Engine.\n"
                         "He lived in London.\n",
    "places/london.txt": "London is the capital of England.\r\n\r\nIt lies on the Thames.\r\n",
    "ignored.json": "{}",
}
QUESTIONS = [
    {"question": "Who worked with Charles Babbage?", "answers": ["Ada Lovelace", "Ada"],
     "support": ["people/ada.md:4"]},
    {"question": "Where did Charles Babbage live?", "answers": ["London"], "support": ["s0005"]},
    {"question": "What lies on the Thames?", "answer": "London"},
    {"question": "When were Ada Lovelace's notes published?", "answers": ["1843"],
     "template": "date"},
    {"question": "What did Grace Hopper invent?", "answers": []},
    {"question": "Who worked with Charles Babbage?", "answers": ["repeat"]},
]


def write_corpus(root: Path, docs=DOCS, questions=QUESTIONS) -> tuple[Path, Path]:
    for rel, text in docs.items():
        path = root / "docs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    qpath = root / "q.jsonl"
    qpath.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    return root / "docs", qpath


SIZES = {"sizes": (2, 1, 1), "eval_sizes": (1, 0)}


def test_documents_are_split_with_ids_sources_and_hashes(tmp_path):
    docs, _ = write_corpus(tmp_path)
    documents, notes = read_corpus(docs)
    assert [d.path for d in documents] == ["people/ada.md", "people/charles.md",
                                           "places/london.txt"]
    assert [d.title for d in documents] == ["Ada Lovelace", "Charles Babbage", "london"]
    got = [(n.id, n.text, n.source.path, n.source.first_line, n.source.last_line)
           for n in notes]
    assert got == [
        ("s0001", "Ada Lovelace wrote the first program.", "people/ada.md", 3, 3),
        ("s0002", "Ada Lovelace: She worked with Charles Babbage on the Analytical Engine.",
         "people/ada.md", 3, 4),
        ("s0003", "Ada Lovelace: Her notes were published in 1843.", "people/ada.md", 7, 7),
        ("s0004", "Charles Babbage designed the Difference Engine.", "people/charles.md", 3, 3),
        ("s0005", "Charles Babbage: He lived in London.", "people/charles.md", 4, 4),
        ("s0006", "London is the capital of England.", "places/london.txt", 1, 1),
        ("s0007", "london: It lies on the Thames.", "places/london.txt", 3, 3),
    ]
    _, person = read_corpus(docs, context="person")  # pronouns resolved, as PhantomWiki's
    assert [person[i].text for i in (1, 2, 4)] == [
        "Ada Lovelace worked with Charles Babbage on the Analytical Engine.",
        "Ada Lovelace's notes were published in 1843.", "Charles Babbage lived in London."]
    assert all(n.source.hash.startswith("sha256:") and len(n.source.hash) == 71 for n in notes)
    assert len({n.source.hash for n in notes}) == len(notes)
    _, paras = read_corpus(docs, unit="paragraph", context="none")
    assert paras[0].text == ("Ada Lovelace wrote the first program. She worked with Charles "
                             "Babbage on the Analytical Engine.")
    assert (paras[0].source.first_line, paras[0].source.last_line) == (3, 4)


def test_universe_round_trip_determinism_and_questions(tmp_path):
    docs, q = write_corpus(tmp_path)
    u = import_corpus(docs, q, context="person", **SIZES)
    again = import_corpus(docs, q, context="person", **SIZES)
    assert u.dumps() == again.dumps()
    back = Universe.from_json(json.loads(u.dumps()))
    assert back == u and back.dumps() == u.dumps()
    assert back.nodes[1].source == u.nodes[1].source
    by_text = {x.text: x for x in u.questions}
    assert len(u.questions) == 5 and u.meta["adapter_report"]["repeated_dropped"] == 1
    q1 = by_text["Who worked with Charles Babbage?"]
    assert q1.golds == ("Ada Lovelace", "Ada") and q1.support == ("s0002",)
    assert q1.keys == ("entity:Charles Babbage",) and q1.support_status == "exact"
    assert by_text["What lies on the Thames?"].support_status == "unavailable"
    assert by_text["What did Grace Hopper invent?"].golds == ("unknown",)
    assert by_text["When were Ada Lovelace's notes published?"].category == "DATE"
    drawn = sum(len(v) for v in u.splits.values())
    assert drawn + sum(u.meta["split_shortfall"].values()) == 5 and len(u.splits["train"]) == 2
    other = import_corpus(docs, q, seed=3, context="person", **SIZES)
    assert other.nodes == u.nodes


def test_splits_put_unshared_entities_out_and_the_probe_groups_by_keys(tmp_path):
    docs, q = write_corpus(tmp_path)
    for seed in range(6):
        u = import_corpus(docs, q, seed=seed, **SIZES)
        train_keys = {k for x in u.split("train") for k in x.keys}
        for x in u.split("test_out"):
            assert x.keys and not train_keys.intersection(x.keys)
        for x in u.split("test_in"):
            assert not x.keys or train_keys.intersection(x.keys)
    log = [{"qid": qid} for qid in u.splits["train"]]
    probe = make_corpus_probe(u, log, per_group=5)
    assert [len(probe["splits"][g]) for g in ("exact", "share1", "share0")][0] == 2
    for gid in probe["splits"]["share0"]:
        item = next(x for x in probe["questions"] if x["qid"] == gid)
        assert not train_keys.intersection(item["keys"])


def test_default_key_extractor():
    assert capitalized_runs("Who is the wife of Ada Lovelace's friend in New York?") == [
        "Ada Lovelace", "New York"]
    assert capitalized_runs("The Engine") == ["The Engine"]


def test_bad_input_is_one_clear_line(tmp_path):
    docs, q = write_corpus(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "x?", "answers": ["a"]}\n{"answers": []}\n')
    with pytest.raises(ConfigError, match=r"bad.jsonl:2: needs a non-empty \"question\""):
        import_corpus(docs, bad)
    bad.write_text('{"question": "x?", "answers": ["a"], "support": ["nowhere.md:3"]}\n')
    with pytest.raises(ConfigError, match="support 'nowhere.md:3' is neither"):
        import_corpus(docs, bad)
    with pytest.raises(ConfigError, match="no such documents folder"):
        import_corpus(tmp_path / "nope", q)
    with pytest.raises(ConfigError, match="cannot load key extractor"):
        import_corpus(docs, q, keys="no_such_module:f")


def test_phantomwiki_articles_as_plain_text_match_the_pw_adapter(tmp_path, pw_raw, pw_universe):
    articles, questions = pw_raw
    docs = tmp_path / "pw"
    docs.mkdir()
    for i, a in enumerate(articles):
        (docs / f"{i:03d}.md").write_text(a["article"], encoding="utf-8")
    qpath = tmp_path / "pw.jsonl"
    qpath.write_text("".join(json.dumps({"question": q["question"], "answers": list(golds(
        q["answer"])) if q["answer"] else []}) + "\n" for q in questions), encoding="utf-8")
    u = import_corpus(docs, qpath, context="person", sizes=(24, 12, 12), eval_sizes=(6, 4))
    assert [(n.id, n.text) for n in u.nodes] == [(n.id, n.text) for n in pw_universe.nodes]

    def answerable(univ):
        return {(x.text, x.golds) for x in univ.questions if not x.unanswerable}

    assert answerable(u) == answerable(pw_universe) and len(answerable(u)) > 0


def test_cli_import_then_train_test_probe_replay_baseline(tmp_path, capsys):
    docs, q = write_corpus(tmp_path)
    upath = tmp_path / "u.json"
    assert main(["import", "corpus", "--docs", str(docs), "--questions", str(q), "--out",
                 str(upath), "--train", "2", "--test-in", "1", "--test-out", "1",
                 "--eval-in", "1", "--eval-out", "0"]) == 0
    assert "notes=7" in capsys.readouterr().out
    run = tmp_path / "run"
    toy = "tests.runs.toy_agents:ToyTrainer"
    assert main(["train", "--universe", str(upath), "--agent", toy, "--epochs", "1",
                 "--out", str(run), "--quiet"]) == 0
    assert main(["test", "--universe", str(upath), "--library", str(run / "kb_epoch_1.json"),
                 "--split", "test_in,test_out", "--out", str(tmp_path / "exam"),
                 "--quiet"]) == 0
    assert main(["probe", "make", "--universe", str(upath), "--run", str(run), "--out",
                 str(tmp_path / "probe.json"), "--quiet"]) == 0
    probe = json.loads((tmp_path / "probe.json").read_text())
    assert probe["variant"] == "corpus" and len(probe["splits"]["exact"]) == 2
    assert main(["replay", "--run", str(run), "--universe", str(upath), "--verify",
                 str(run / "kb_epoch_1.json")]) == 0
    assert main(["baseline", "b3", "--universe", str(upath), "--out",
                 str(tmp_path / "b3.json")]) == 0
    assert main(["import", "corpus", "--docs", str(tmp_path / "none"), "--questions",
                 str(q)]) == 2
    assert "no such documents folder" in capsys.readouterr().err


def test_a_line_separator_inside_a_question_does_not_cut_the_jsonl(tmp_path):
    """Questions JSONL is split on "\n" only: a raw U+2028/U+0085 inside a string is text."""
    from kbgym.worlds.corpus.universe import read_questions

    path = tmp_path / "q.jsonl"
    rows = [{"question": "Who worked with\u2028Charles Babbage?", "answers": ["Ada\u0085"]},
            {"question": "Where did Charles Babbage live?", "answers": ["London"]}]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    got = read_questions(path)
    assert [q["line"] for q in got] == [1, 2]
    assert got[0]["text"] == "Who worked with Charles Babbage?"


def test_default_split_sizes_fit_a_small_corpus_and_an_empty_split_is_warned(tmp_path, capsys):
    from kbgym.worlds.corpus.universe import fitted_sizes

    assert fitted_sizes(330) == ((150, 100, 50), (20, 10))
    assert fitted_sizes(15) == ((6, 4, 2), (0, 0))
    ex = Path(__file__).resolve().parents[2] / "examples" / "corpus"
    u = import_corpus(ex / "docs", ex / "questions.jsonl")
    assert {k: len(v) for k, v in u.splits.items()} == {"train": 6, "test_in": 4,
                                                        "test_out": 2, "eval": 0}
    assert main(["import", "corpus", "--docs", str(ex / "docs"), "--questions",
                 str(ex / "questions.jsonl"), "--train", "14", "--out",
                 str(tmp_path / "u.json"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "warning: split test_out is empty" in err or "warning: split test_in is empty" in err


def test_report_and_plot_work_on_the_readme_corpus_run(tmp_path, capsys):
    ex = Path(__file__).resolve().parents[2] / "examples" / "corpus"
    u, run = tmp_path / "universe.json", tmp_path / "run"
    assert main(["import", "corpus", "--docs", str(ex / "docs"), "--questions",
                 str(ex / "questions.jsonl"), "--train", "8", "--test-in", "3", "--test-out",
                 "3", "--eval-in", "0", "--eval-out", "0", "--out", str(u), "--quiet"]) == 0
    assert main(["train", "--universe", str(u), "--epochs", "1", "--out", str(run),
                 "--quiet"]) == 0
    assert main(["report", "--run", str(run), "--universe", str(u)]) == 0
    assert "## What was built" in capsys.readouterr().out
    pytest.importorskip("matplotlib")
    assert main(["plot", "--run", str(run)]) == 0
    assert (run / "growth.png").exists()


def test_imported_notes_follow_the_library_rules(tmp_path):
    docs, q = write_corpus(tmp_path, docs={"a.md": "# A\n\nThe keeper \u202eis here.\n"})
    with pytest.raises(ConfigError, match=r"a.md:3: the control or invisible character U\+202E"):
        import_corpus(docs, q)
    docs, q = write_corpus(tmp_path / "b", docs={"a.md": "# A\n\n" + "word " * 300 + "\n"})
    with pytest.raises(ConfigError, match="over the 1,000-character cap"):
        import_corpus(docs, q)
    docs, q = write_corpus(tmp_path / "c", docs={"a.md": "\ufeff# Title\r\n\r\nA line.\r\n"})
    documents, notes = read_corpus(docs)  # a byte-order mark is not content
    assert documents[0].title == "Title" and notes[0].text == "Title: A line."
