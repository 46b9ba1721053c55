"""scripts/experiments/llm_validation.py against the fake server: the same probe questions in
every arm, group by group and resumable, one table per reader, and the curator's figures."""

from __future__ import annotations

import json

import pytest

SMALL = ["--fake", "--people", "60", "--n", "3", "--train-size", "12", "--resamples", "100",
         "--quiet"]


@pytest.fixture(scope="module")
def validation(load_script):
    return load_script("scripts/experiments/llm_validation.py")


def test_validation_on_the_fake_server(validation, tmp_path, capsys):
    out = tmp_path / "v"
    assert validation.main(SMALL + ["--out", str(out), "--parts", "reader", "--arms", "B1",
                                    "--exam-groups", "exact"]) == 0
    b1 = [json.loads(x) for x in (out / "llm_B1" / "rows.jsonl").open()]
    assert {r["split"] for r in b1} == {"exact"} and len(b1) == 3
    assert validation.main(SMALL + ["--out", str(out), "--curator-questions", "2"]) == 0
    printed = capsys.readouterr().out
    result = json.loads((out / "validation.json").read_text())
    probe = json.loads((out / "probe.json").read_text())
    assert {g: len(v) for g, v in probe["splits"].items()} == {"exact": 3, "share0": 3}
    rows = {arm: [json.loads(x) for x in (out / f"llm_{arm}" / "rows.jsonl").open()]
            for arm in ("B1", "trained", "other")}
    for arm, rs in rows.items():  # every arm on the same questions, none asked twice
        assert sorted((r["split"], r["qid"]) for r in rs) == sorted(
            (g, q) for g, qs in probe["splits"].items() for q in qs), arm
    assert all("seconds" in r for rs in rows.values() for r in rs)
    for key in ("llm_table", "scripted_table"):
        cells = result[key]["groups"]["exact"]["all"]
        assert set(cells) == {"B1", "trained", "other"} and cells["B1"]["n"] == 3
    c = result["curator"]
    assert c["questions"] == 2 and c["valid_share"] == 1.0 and c["edits"]["add"] >= 1
    assert set(c["structure"]) >= {"precision", "recall"}
    assert "LLM reader (fake, fields, skills small)" in printed
    assert "scripted-reader, the same questions" in printed and "LLM curator" in printed


def test_bad_parts_are_a_one_line_error(validation, tmp_path, capsys):
    assert validation.main(["--fake", "--parts", "judge", "--out", str(tmp_path)]) == 2
    assert validation.main(["--fake", "--arms", "B2", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "--parts" in err[0] and "--arms" in err[1]


def test_the_plain_answer_says_when_steps_say_nothing(validation):
    """A reader that answers nothing right on either library gets no 'keeps its F1' verdict:
    its steps measure when it gives up."""
    def table(f1, f1_diff, ci=(0.74, 0.94)):
        return {"groups": {"exact": {"all": {"trained": {
            "n": 8, "rho": 0.829, "ci": list(ci), "f1": f1, "f1_diff": f1_diff,
            "f1_diff_ci": [f1_diff - 0.1, f1_diff + 0.1]}}}}}

    (line,) = validation.answer_lines(table(0.0, 0.0), "LLM")
    assert "answers no exact question right" in line and "keeps" not in line
    (line,) = validation.answer_lines(table(0.9, 0.0), "LLM")
    assert "lowers its steps" in line and "keeps its F1 (F1 0.900 vs B1 0.900" in line
    (line,) = validation.answer_lines(table(0.5, -0.4), "LLM")
    assert "loses F1" in line
