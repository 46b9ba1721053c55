"""Cached prompt tokens: read from a reply's usage (OpenAI) or timings (llama.cpp), carried by
the agent into trace, test_log, train_log, meta.json, test_meta.json and the report, and priced
with and without the cache discount; end to end against the fake server on loopback."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbgym_agents.llm.client import usage_of
from fake_server import FakeServer
from kbgym.cli import main as kbgym_main
from kbgym.errors import ConfigError
from kbgym.library.graph import Library
from kbgym.metrics.costs import PriceTable, exam_costs
from kbgym.runs.concurrent import examine_concurrent
from kbgym.runs.exam import examine, write_test_meta
from kbgym.runs.logs import read_jsonl, rewrite_jsonl, write_json
from kbgym.runs.report import build_report, write_report
from kbgym.runs.train import TrainConfig, train
from llm_helpers import make

PRICES = {"fake": {"in": 2.0, "cached_in": 0.5, "out": 8.0}}


# -- reading a reply ---------------------------------------------------------------------


def reply(usage=None, timings=None) -> dict:
    out = {"choices": [{"message": {"role": "assistant", "content": "x"}}]}
    if usage is not None:
        out["usage"] = usage
    if timings is not None:
        out["timings"] = timings
    return out


def test_usage_of_openai_style():
    r = reply({"prompt_tokens": 100, "completion_tokens": 7,
               "prompt_tokens_details": {"cached_tokens": 64}})
    assert usage_of(r) == (100, 7, 64)


def test_usage_of_llama_cpp_timings():
    # llama.cpp: usage counts the whole prompt; timings split it into cache_n and prompt_n
    r = reply({"prompt_tokens": 100, "completion_tokens": 7},
              {"cache_n": 90, "prompt_n": 10, "predicted_n": 7, "prompt_ms": 12.5})
    assert usage_of(r) == (100, 7, 90)
    # no usage at all: the timings stand in for it
    assert usage_of(reply(None, {"cache_n": 30, "prompt_n": 12, "predicted_n": 4})) == (42, 4, 30)


def test_usage_details_win_over_timings_and_nothing_is_invented():
    r = reply({"prompt_tokens": 100, "completion_tokens": 7,
               "prompt_tokens_details": {"cached_tokens": 50}}, {"cache_n": 90, "prompt_n": 10})
    assert usage_of(r) == (100, 7, 50)
    assert usage_of(reply({"prompt_tokens": 100, "completion_tokens": 7})) == (100, 7, 0)
    assert usage_of(reply({"prompt_tokens": 100, "completion_tokens": 7,
                           "prompt_tokens_details": None})) == (100, 7, 0)
    assert usage_of(reply()) == (0, 0, 0)


@pytest.mark.parametrize("bad", [True, -1, "12", None, [3], math.nan, math.inf, {"a": 1}])
def test_malformed_counts_read_as_zero(bad):
    r = reply({"prompt_tokens": 100, "completion_tokens": 7,
               "prompt_tokens_details": {"cached_tokens": bad}},
              {"cache_n": bad, "prompt_n": bad})
    assert usage_of(r) == (100, 7, 0)
    assert usage_of(reply(None, {"cache_n": bad, "prompt_n": bad})) == (0, 0, 0)
    assert usage_of(reply({"prompt_tokens": 5}, bad)) == (5, 0, 0)  # timings not an object


_value = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.text(max_size=3),
                   st.floats(allow_nan=True, allow_infinity=True))


@settings(max_examples=200, deadline=None)
@given(pt=_value, ct=_value, cached=_value, cache_n=_value, prompt_n=_value)
def test_usage_of_never_fails_and_cached_is_part_of_the_prompt(pt, ct, cached, cache_n,
                                                               prompt_n):
    r = reply({"prompt_tokens": pt, "completion_tokens": ct,
               "prompt_tokens_details": {"cached_tokens": cached}},
              {"cache_n": cache_n, "prompt_n": prompt_n})
    t_in, t_out, t_cached = usage_of(r)
    assert all(isinstance(x, int) and x >= 0 for x in (t_in, t_out, t_cached))
    assert t_cached <= t_in


# -- prices ----------------------------------------------------------------------------


def test_price_table_cache_discount_and_fallback(tmp_path):
    table = PriceTable.load({"gpt-5-mini": {"in": 0.25, "cached_in": 0.025, "out": 2.0},
                             "gpt-5": {"in": 1.25, "out": 10.0}, "*": {"in": 0, "out": 0}})
    m = 1_000_000
    assert table.cost("gpt-5-mini-2025-08-07", m, m, m // 2) == pytest.approx(
        0.125 + 0.0125 + 2.0)
    assert table.cost("gpt-5-mini-2025-08-07", m, m) == pytest.approx(2.25)
    # no cached_in: a cached token costs as much as any other
    assert table.cost("gpt-5-2025", m, 0, m) == pytest.approx(1.25)
    assert table.cost("qwen2.5-coder-1.5b", m, m, m) == 0.0  # "*" catches the rest
    assert PriceTable.load({"a": {"in": 1, "out": 1}}).cost("b", 1, 1) is None
    for bad, words in (({"m": {"in": 1}}, "needs 'in' and 'out'"),
                       ({"m": {"in": -1, "out": 1}}, "non-negative"),
                       ({"m": {"in": "1", "out": 1}}, "non-negative"),
                       ({"m": {"in": 1, "out": 1, "cache": 1}}, "unknown field"),
                       ([1, 2], "maps model names")):
        with pytest.raises(ConfigError, match=words):
            PriceTable.load(bad)
    path = tmp_path / "p.json"
    path.write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        PriceTable.load(path)
    with pytest.raises(ConfigError, match="no such price table"):
        PriceTable.load(tmp_path / "missing.json")


def test_exam_costs_with_and_without_the_cache():
    rows = [{"em": 1.0, "tokens_in": 1000, "tokens_out": 10, "tokens_cached": 800},
            {"em": 0.0, "tokens_in": 1000, "tokens_out": 10},  # an old row: no field
            {"em": 1.0, "tokens_in": 0, "tokens_out": 0, "tokens_cached": 0}]
    c = exam_costs(rows, "fake", PRICES)
    assert (c["tokens_in"], c["tokens_cached"], c["correct"]) == (2000, 800, 2)
    assert c["cached_share"] == pytest.approx(0.4)
    no_cache = (2000 * 2.0 + 20 * 8.0) / 1e6
    with_cache = no_cache - 800 * (2.0 - 0.5) / 1e6
    assert c["cost_usd_no_cache"] == pytest.approx(no_cache)
    assert c["cost_usd"] == pytest.approx(with_cache)
    assert c["cost_per_correct_usd"] == pytest.approx(with_cache / 2)
    assert c["cost_per_correct_usd_no_cache"] == pytest.approx(no_cache / 2)
    assert exam_costs(rows)["cost_usd"] is None


# -- the fake server -------------------------------------------------------------------


def test_fake_server_reports_cached_tokens_each_way():
    body = {"model": "fake", "messages": [{"role": "system", "content": "S" * 400},
                                          {"role": "user", "content": "U" * 40}]}
    longer = {**body, "messages": [body["messages"][0],
                                   {"role": "user", "content": "U" * 40 + "V" * 80}]}
    for mode in ("usage", "timings", "both"):
        with FakeServer(cache=mode) as srv:
            assert srv.cached_tokens(body) == 0  # a cold cache
            assert srv.cached_tokens(longer) > 400 // 4
    import openai

    with FakeServer(cache="both", cache_min_tokens=1000) as srv:
        client = openai.OpenAI(base_url=srv.url, api_key="x")
        for _ in range(2):
            r = client.chat.completions.create(**body)
        assert r.usage.prompt_tokens_details.cached_tokens == 0  # under the minimum
        assert r.timings["cache_n"] == 0 and r.timings["prompt_n"] == r.usage.prompt_tokens


# -- end to end ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["usage", "timings", "both"])
def test_exam_logs_cached_tokens(universe, tmp_path, mode):
    with FakeServer(cache=mode) as srv:
        reader = make("reader", srv, tool_mode="single")
        rows = examine(universe, Library.from_universe(universe), reader, split="test_in",
                       limit=4, out=tmp_path, run_id="r-x", label="B1")
        total = srv.cached_total
    assert total > 0  # the system message and the task block repeat
    log = read_jsonl(tmp_path / "test_log.jsonl")
    trace = read_jsonl(tmp_path / "trace.jsonl")
    assert sum(r["tokens_cached"] for r in log) == total
    assert sum(r["tokens_cached"] for r in trace) == total
    assert all(r["tokens_cached"] <= r["tokens_in"] for r in log + trace)
    assert [r["tokens_cached"] for r in log] == [r["tokens_cached"] for r in rows]
    assert reader.stats["tokens_cached"] == total
    meta = write_test_meta(tmp_path, library="B1", questions=None, splits=["test_in"],
                           label="B1", model="fake", m=15, limit=4, rows=rows)
    assert meta["tokens_cached"] == total


def test_concurrent_exam_logs_the_same_fields(universe, tmp_path):
    with FakeServer(cache="usage") as srv:
        reader = make("reader", srv, tool_mode="single")
        rows = examine_concurrent(universe, Library.from_universe(universe), reader,
                                  split="test_in", limit=6, out=tmp_path, run_id="r-c",
                                  max_concurrent=3)
        total = srv.cached_total
    trace = read_jsonl(tmp_path / "trace.jsonl")
    assert sum(r["tokens_cached"] for r in rows) == total == \
        sum(r["tokens_cached"] for r in trace)


def test_training_run_meta_and_report(universe, tmp_path, capsys):
    run = tmp_path / "run"
    with FakeServer(cache="both") as srv:
        trainer = make("trainer", srv, tool_mode="single")
        reader = make("reader", srv, tool_mode="single")
        meta = train(universe, trainer, run, config=TrainConfig(
            epochs=1, train_size=3, eval_each_epoch=True), reader=reader)
        total = srv.cached_total
    train_log = read_jsonl(run / "train_log.jsonl")
    test_log = read_jsonl(run / "test_log.jsonl")
    cached = meta["tokens_cached"]
    assert cached["train"] == sum(r["tokens_cached"] for r in train_log) > 0
    assert cached["test"] == sum(r["tokens_cached"] for r in test_log) > 0
    assert cached["train"] + cached["test"] == total
    assert json.loads((run / "meta.json").read_text())["tokens_cached"] == cached

    rep = build_report(run, universe, prices=PRICES)
    costs = rep["costs"]
    assert costs["train"]["tokens_cached"] == cached["train"]
    assert costs["train"]["cost_usd"] < costs["train"]["cost_usd_no_cache"]
    assert set(costs["exams"]) == {"0", "1"}
    assert rep["tokens_cached"] == cached
    write_report(run, universe)  # no prices: tokens, no money
    md = (run / "report.md").read_text()
    assert "## Tokens" in md and "| train |" in md and "USD for" not in md

    # the CLI: --prices on report; a broken table is a one-line error
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(PRICES))
    upath = tmp_path / "universe.json"
    upath.write_text(universe.dumps())
    assert kbgym_main(["report", "--run", str(run), "--universe", str(upath),
                       "--prices", str(prices)]) == 0
    out = capsys.readouterr().out
    assert "USD for fake" in out
    prices.write_text('{"fake": {"in": 1}}')
    assert kbgym_main(["report", "--run", str(run), "--universe", str(upath),
                       "--prices", str(prices)]) != 0
    err = capsys.readouterr().err
    assert "needs 'in' and 'out'" in err and len(err.strip().splitlines()) == 1


def test_old_logs_without_cached_tokens_stay_readable(universe, tmp_path):
    run = tmp_path / "run"
    with FakeServer() as srv:  # a server that reports nothing about its cache
        train(universe, make("trainer", srv, tool_mode="single"), run,
              config=TrainConfig(epochs=1, train_size=2))
    for name in ("train_log.jsonl", "trace.jsonl"):
        rows = read_jsonl(run / name)
        assert all(r["tokens_cached"] == 0 for r in rows)
        # logs of that age had neither cached tokens nor the trace anchor (trace_head)
        rewrite_jsonl(run / name, [{k: v for k, v in r.items()
                                    if k not in ("tokens_cached", "trace_head")} for r in rows])
    meta = json.loads((run / "meta.json").read_text())
    # nor meta.json's manifest and seal, which came later still (docs/safety.md)
    for field in ("tokens_cached", "files", "meta_sha256"):
        del meta[field]
    write_json(run / "meta.json", meta)
    rep = build_report(run, universe, prices=PRICES)
    assert rep["tokens_cached"] == {"train": 0, "test": 0}
    assert rep["costs"]["train"]["cost_usd"] == rep["costs"]["train"]["cost_usd_no_cache"] > 0


def test_probe_table_prices_each_arm(universe, tmp_path, capsys):
    from kbgym.runs.probe import make_probe

    train_rows = [{"qid": q} for q in universe.splits["train"][:4]]
    probe = make_probe(universe, train_rows, per_group=2)
    (tmp_path / "probe.json").write_text(json.dumps(probe))
    qs = {q["qid"]: q for q in probe["questions"]}
    from kbgym.runs.gradient import probe_hash, probe_questions

    questions, splits = probe_questions(probe)
    arms = {}
    for arm, cache in (("B1", "off"), ("cached", "usage")):
        out = tmp_path / arm
        with FakeServer(cache=cache) as srv:
            reader = make("reader", srv, tool_mode="single")
            rows = examine(universe, Library.from_universe(universe), reader,
                           split=list(splits), questions=questions, splits=splits, out=out,
                           label=arm)
        write_test_meta(out, library="B1", questions="probe.json", splits=list(splits),
                        label=arm, model="fake", m=15, limit=None, rows=rows,
                        questions_hash=probe_hash(probe))
        arms[arm] = rows
    assert len(qs) == len(arms["B1"])
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(PRICES))
    assert kbgym_main(["probe", "table", "--probe", str(tmp_path / "probe.json"),
                       "--arm", f"B1={tmp_path / 'B1'}", "--arm",
                       f"cached={tmp_path / 'cached'}", "--resamples", "50",
                       "--prices", str(prices)]) == 0
    out = capsys.readouterr().out
    section = out.split("USD per correct answer", 1)[1].splitlines()
    b1 = next(line for line in section if line.startswith("B1"))
    cached = next(line for line in section if line.startswith("cached"))
    assert b1.split()[4] == "0" and int(cached.split()[4]) > 0  # cached tokens
    c_cached = exam_costs(arms["cached"], "fake", PRICES)
    assert c_cached["cost_usd"] < c_cached["cost_usd_no_cache"]


def test_agent_stats_price_the_cache(universe):
    from kbgym.env import KBGymEnv
    from kbgym.runs.episode import run_episode

    with FakeServer(cache="timings") as srv:
        agent = make("reader", srv, tool_mode="single", prices=PRICES)
        env = KBGymEnv(universe, mode="probe")
        summary, rows, _ = run_episode(env, agent, universe.splits["test_in"][0])
    s = agent.stats
    assert s["tokens_cached"] == summary["tokens_cached"] == sum(r["tokens_cached"] for r in rows)
    assert rows[0]["tokens_cached"] == 0 < rows[1]["tokens_cached"]  # cold, then warm
    assert agent.last_usage[2] == rows[-1]["tokens_cached"]
    p = PRICES["fake"]
    assert s["cost_usd_no_cache"] == pytest.approx(
        (s["tokens_in"] * p["in"] + s["tokens_out"] * p["out"]) / 1e6)
    assert s["cost_usd"] == pytest.approx(
        s["cost_usd_no_cache"] - s["tokens_cached"] * (p["in"] - p["cached_in"]) / 1e6)
