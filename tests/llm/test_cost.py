"""Prices, cost per correct answer and the break-even N* (SPEC §12.1)."""

from __future__ import annotations

import json

import pytest

from kbgym_agents.llm.cost import PriceTable, break_even_report, exam_costs
from kbgym.errors import ConfigError


def test_price_table(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"gpt-5-mini": {"in": 0.25, "out": 2.0}}))
    table = PriceTable.load(path)
    assert table.cost("gpt-5-mini-2025-08-07", 1_000_000, 1_000_000) == pytest.approx(2.25)
    assert table.cost("other", 1, 1) is None
    with pytest.raises(ConfigError):
        PriceTable.load({"m": {"in": 1}})


def test_exam_costs_and_break_even():
    rows = [{"qid": "a", "em": 1.0, "tokens_in": 100, "tokens_out": 10},
            {"qid": "b", "em": 0.0, "tokens_in": 300, "tokens_out": 30}]
    c = exam_costs(rows, "m", {"m": {"in": 1e6, "out": 1e6}})
    assert c["correct"] == 1 and c["tokens_per_question"] == 220
    assert c["cost_usd"] == pytest.approx(440) and c["cost_per_correct_usd"] == pytest.approx(440)
    trained = [{"qid": "a", "tokens_in": 50, "tokens_out": 10},
               {"qid": "b", "tokens_in": 100, "tokens_out": 10}]
    meta = {"tokens": {"train": [900, 100]}, "dedup": {"judge_tokens": [40, 10]}}
    be = break_even_report(meta, rows, trained)
    assert be["c_train"] == 1050 and be["c0"] == 220 and be["cT"] == 85
    assert be["n_star"] == pytest.approx(1050 / 135)
    assert break_even_report(meta, trained, rows)["n_star"] is None
