"""scripts/experiments/llm_variants.py against the fake server: the same questions for every variant, each
variant's settings actually applied, and its figures (tokens, repeats) read from the logs."""

from __future__ import annotations

import json

import pytest

from kbgym.errors import ConfigError


@pytest.fixture(scope="module")
def variants(load_script):
    return load_script("scripts/experiments/llm_variants.py")


def test_variants_on_the_fake_server(variants, tmp_path, capsys):
    out = tmp_path / "v"
    rc = variants.main(["--fake", "--per-category", "2", "--m", "4", "--resamples", "50",
                        "--variants", "base,collapse+plan,text+json", "--out", str(out),
                        "--quiet"])
    assert rc == 0
    summary = json.loads((out / "summary.json").read_text())
    v = summary["variants"]
    assert list(v) == ["base", "collapse+plan", "text+json"]
    assert summary["questions"] and all(len(q) == 2 for q in summary["questions"].values())
    qids = {name: [json.loads(x)["qid"] for x in (out / name / "test_log.jsonl").open()]
            for name in v}
    assert qids["base"] == qids["collapse+plan"] == qids["text+json"]
    assert v["collapse+plan"]["settings"]["skill"] == "retrieval_plan"
    assert v["collapse+plan"]["settings"]["collapse"] is True
    assert v["text+json"]["settings"]["tool_mode"] == "text"
    assert v["text+json"]["decisions"] == {"text": 8} and v["base"]["decisions"] == {"act": 8}
    for r in v.values():
        assert r["score"]["n"] == 4 and r["steps"] == 8 and r["repeats"] == 0
        assert 0 < r["tokens"]["tokens_cached"] < r["tokens"]["tokens_in"]
        assert set(r["seconds"]["by_step_median"]) == {"1", "2"}
    assert v["collapse+plan"]["paired"]["n"] == 4
    printed = capsys.readouterr().out
    assert "s/step" in printed and "dF1 vs first" in printed


def test_bad_variant_is_a_one_line_error(variants, capsys):
    assert variants.main(["--fake", "--variants", "base,json"]) == 2
    assert variants.main(["--fake", "--variants", "base,quick"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "json needs text" in err[0] and "quick" in err[1]


def test_repeats_count_identical_steps_within_a_question(variants):
    trace = [{"qid": "a", "action": "search", "input": {"query": "x", "page": 1}},
             {"qid": "a", "action": "search", "input": {"page": 1, "query": "x"}},
             {"qid": "a", "action": "search", "input": {"query": "x", "page": 2}},
             {"qid": "b", "action": "search", "input": {"query": "x", "page": 1}},
             {"qid": "a", "action": "search", "input": {"query": "x", "page": 1}}]
    assert variants.repeats(trace) == 2


def test_server_log_cache_counts(variants, tmp_path):
    log = ("llama_perf_context_print: ...\n"
           "Llama.generate: 812 prefix-match hit, remaining 40 prompt tokens to eval\n"
           "Llama.generate: full prompt already cached, skipping reset\n"
           "Llama.generate: 790 prefix-match hit, remaining 112 prompt tokens to eval\n")
    assert variants.log_cache_counts(log) == {"prefix_hits": 2, "cached": 1602,
                                              "evaluated_on_hits": 152, "full_hits": 1}
    # per variant: only what the server logged while the variant ran
    path = tmp_path / "server.log"
    path.write_text(log)
    out = tmp_path / "v"
    assert variants.main(["--fake", "--per-category", "1", "--m", "2", "--variants", "base",
                          "--server-log", str(path), "--out", str(out), "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["variants"]["base"]["server_log"]["prefix_hits"] == 0


def test_v0_variant_uses_the_first_layout_where_the_env_has_it(variants, tmp_path, capsys):
    import inspect

    from kbgym.env import KBGymEnv

    args = ["--fake", "--per-category", "1", "--m", "3", "--variants", "base,v0", "--out",
            str(tmp_path / "v"), "--quiet"]
    if "obs_layout" not in inspect.signature(KBGymEnv).parameters:
        assert variants.main(args) == 2
        assert "one observation layout" in capsys.readouterr().err
        return
    assert variants.main(args) == 0
    v = json.loads((tmp_path / "v" / "summary.json").read_text())["variants"]
    assert v["v0"]["settings"]["obs_layout"] == "counter_first"
    assert v["base"]["settings"]["obs_layout"] == "current"


def test_warm_up_makes_identical_prompts_count_alike(variants, tmp_path):
    # the toy policy never repeats, so collapse changes no prompt: with the warm-up both
    # variants start from their own prompt in the cache and must count the same tokens
    out = tmp_path / "v"
    assert variants.main(["--fake", "--per-category", "2", "--m", "3", "--variants",
                          "base,collapse", "--out", str(out), "--quiet"]) == 0
    v = json.loads((out / "summary.json").read_text())["variants"]
    assert v["base"]["tokens"] == v["collapse"]["tokens"]
    assert v["base"]["tokens"]["tokens_cached"] > 0


def test_nochain_turns_the_relation_chain_off(variants):
    assert variants.parse_variant("fields+small")["chain"] is True
    assert variants.parse_variant("fields+small+nochain")["chain"] is False
    with pytest.raises(ConfigError, match="nochain needs fields"):
        variants.parse_variant("single+nochain")
