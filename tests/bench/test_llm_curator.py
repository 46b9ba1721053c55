"""An LLM curator through an OpenAI-compatible endpoint (the tests' fake server on loopback):
``bench run`` records its tokens and USD, and ``bench verify`` checks the package with the
server gone - no model is called."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from kbgym.bench import package as P
from kbgym.bench.run import curator_spec, run_bench
from kbgym.bench.verify import VerifyError, verify_package
from kbgym.jsonio import write_canonical
from kbgym.runs.logs import read_jsonl, rewrite_jsonl
from kbgym.runs.manifest import file_manifest, seal

pytest.importorskip("openai")
FAKE = Path(__file__).parents[1] / "llm" / "fake_server.py"
PRICES = {"fake": {"in": 1.0, "out": 2.0}}


def _fake_server():
    spec = importlib.util.spec_from_file_location("bench_fake_server", FAKE)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod.FakeServer


@pytest.fixture(scope="module")
def llm_package(tiny_release, tmp_path_factory):
    out = tmp_path_factory.mktemp("llm") / "pkg"
    with _fake_server()() as srv:
        opts = {"model": "fake", "base_url": srv.url}
        run_bench(tiny_release, curator_spec("kbgym_agents.llm.factories:trainer", opts), out,
                  options=opts, prices=PRICES, size="small")
        assert srv.requests  # the model was called to produce the package
    return out


def test_llm_package_verifies_without_the_server(llm_package, tiny_release):
    res = verify_package(llm_package, tiny_release)  # the server is closed by now
    head = res["headline"]
    assert head["curation_tokens"][0] > 0
    assert head["usd"] == pytest.approx((head["curation_tokens"][0] * 1.0
                                         + head["curation_tokens"][1] * 2.0) / 1e6)
    pkg = P.read_package(llm_package)
    assert pkg["curator"]["options"] == {"model": "fake"}  # where it was served is not kept
    assert json.loads((llm_package / "prices.json").read_text()) == PRICES


def test_llm_token_counts_cannot_be_inflated_or_hidden(llm_package, tiny_release, copy_of):
    root = copy_of(llm_package)
    tdir = P.seed_dir(root, "people-1") / "train"
    log = read_jsonl(tdir / "train_log.jsonl")
    log[0]["tokens_in"], log[0]["tokens_out"] = 0, 0  # claim a cheaper curator
    rewrite_jsonl(tdir / "train_log.jsonl", log)
    meta = json.loads((tdir / "meta.json").read_text())  # reseal the run, as a forger would
    meta["files"] = file_manifest(tdir)
    write_canonical(tdir / "meta.json", seal(meta))
    P.write_manifest(root)
    with pytest.raises(VerifyError, match="iteration 1 records tokens \\[0, 0"):
        verify_package(root, tiny_release)
