"""The ``prior`` arm: each template's most frequent training answer, one step, scored like any
reader's rows and paired with B1 by ``probe_table``; on the CLI ``kbgym test --reader prior``."""

from __future__ import annotations

import json

import pytest

from kbgym.cli import main
from kbgym.jsonio import write_canonical
from kbgym.library.graph import Library
from kbgym.runs.exam import examine
from kbgym.runs.gradient import examine_probe
from kbgym.runs.prior import NO_PRIOR, PriorReader, examine_prior
from kbgym.runs.probe import make_probe, probe_table
from kbgym.runs.rows import test_row
from kbgym.scoring import score
from kbgym.worlds.people import UniverseConfig, generate
from kbgym.worlds.people.guess import prior_answers


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    root = tmp_path_factory.mktemp("prior")
    u = generate(UniverseConfig(seed=4, n_people=60, n_cities=8, sizes=(40, 30, 20),
                                eval_sizes=(10, 6)))
    (root / "u.json").write_text(u.dumps(), encoding="utf-8")
    train_log = [{"qid": qid} for qid in u.splits["train"][:25]]
    probe = make_probe(u, train_log, per_group=6, seed=4)
    write_canonical(root / "probe.json", probe)
    return root, u, probe


def test_prior_rows_score_like_the_readers(small):
    _, u, _ = small
    prior = prior_answers(u)
    questions = {q.qid: q for q in u.questions}
    rows = examine(u, Library.from_universe(u), PriorReader.for_questions(u, questions),
                   split=["train", "test_in", "test_out"], label="prior")
    assert len(rows) == sum(len(u.splits[s]) for s in ("train", "test_in", "test_out"))
    fields = set(test_row(None, "x", u.questions[0], {
        k: 0 for k in ("f1", "em", "steps", "status", "answer", "tokens_in", "tokens_out")})) | {
        "evidence", "nav_steps", "nav_f1"}  # every exam row: its evidence set, the navigator
    for r in rows:
        q = questions[r["qid"]]
        want = prior.get(q.template, NO_PRIOR)
        assert set(r) == fields and r["steps"] == 1 and r["answer"] == want
        assert (r["f1"], r["em"]) == score(want, q.golds, q.unanswerable)
        assert r["status"] == ("answered" if r["em"] == 1.0 else "wrong")
    # the prior is right exactly on the training questions whose gold is their template's top
    train = [r for r in rows if r["split"] == "train"]
    hits = sum(questions[r["qid"]].golds[0] == prior[r["template"]] for r in train)
    assert sum(r["em"] for r in train) >= hits > 0


def test_prior_pairs_with_b1_in_the_probe_table(small):
    from kbgym.plugins import make_agent

    _, u, probe = small
    b1 = examine_probe(u, Library.from_universe(u), make_agent("scripted-reader"), probe,
                       label="B1")
    prior = examine_prior(u, probe)
    table = probe_table({"B1": b1, "prior": prior}, probe, resamples=200)
    for group, gids in probe["splits"].items():
        cell = table["groups"][group]["all"]["prior"]
        rows = [r for r in prior if r["split"] == group]
        assert cell["n"] == len(gids) == len(rows)
        if rows:
            assert cell["mean_steps"] == 1.0
            assert cell["f1"] == pytest.approx(sum(r["f1"] for r in rows) / len(rows))


def test_cli_test_reader_prior_feeds_probe_table(small, capsys):
    root, u, probe = small
    common = ["test", "--universe", str(root / "u.json"), "--questions",
              str(root / "probe.json"), "--split", ",".join(probe["splits"]), "--quiet"]
    assert main([*common, "--reader", "prior", "--out", str(root / "exam_prior")]) == 0
    assert main([*common, "--out", str(root / "exam_B1")]) == 0
    meta = json.loads((root / "exam_prior" / "test_meta.json").read_text())
    assert meta["model"] == "prior" and meta["score"]["mean_steps"] == 1.0
    capsys.readouterr()
    assert main(["probe", "table", "--probe", str(root / "probe.json"), "--arm",
                 f"B1={root / 'exam_B1'}", "--arm", f"prior={root / 'exam_prior'}",
                 "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "prior" in out and "exact" in out


def test_build_summary_flags_guessable_templates(tmp_path, capsys):
    assert main(["build", "--out", str(tmp_path / "u.json")]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("guessable"))
    assert "qc4_children 100% ('3')" in line and "qc8_friend_job 100% ('1')" in line
    assert "qc5_" not in line
    assert "no questions: qc10_spouse_job" in out
