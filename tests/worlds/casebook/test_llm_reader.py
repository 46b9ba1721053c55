"""The casebook LLM reader (agents/prompts/retrieval_casebook.md): its system message is the
casebook skill, and the paragraphs it states through ``answer(text, cites)`` reach the episode
summary as ``cited`` — against the fake OpenAI-compatible server of tests/llm, no network."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("openai")

LLM_TESTS = Path(__file__).resolve().parents[2] / "llm"
if str(LLM_TESTS) not in sys.path:
    sys.path.insert(0, str(LLM_TESTS))

from fake_server import FakeServer, Intent, Script  # noqa: E402

from kbgym.env import KBGymConfig  # noqa: E402
from kbgym.library import Library  # noqa: E402
from kbgym.runs.exam import Examiner  # noqa: E402
from kbgym_agents.llm.skills import load_skill  # noqa: E402
from kbgym_agents.scripted.casebook import LLM_SKILL, llm_reader  # noqa: E402


@pytest.fixture(autouse=True)
def _no_endpoint_env(monkeypatch):
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "KBGYM_LLM_TOOL_MODE", "KBGYM_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)


def test_the_skill_asks_for_citations_and_describes_the_world():
    text = load_skill(LLM_SKILL)
    for phrase in ("cites", "answer(text, cites)", "table of effective dates",
                   "never names the provision", "Order of precedence", "§ 3.2"):
        assert phrase in text, phrase
    example = text.split("## Example", 1)[1]
    shown = {line.split(":")[0].strip("- ").strip() for line in example.splitlines()
             if line.strip().startswith("- s")}
    cited = example.split("cites=[", 1)[1].split("]", 1)[0].replace('"', "").split(", ")
    assert set(cited) <= shown  # the example cites only what it read


@pytest.mark.parametrize("mode", ["tools", "text"])
def test_stated_citations_reach_the_summary(casebook, mode):
    u = casebook(0)
    q = next(q for q in u.questions if q.template == "cb_form_value")
    nid = q.support[0]
    script = Script([Intent("search", {"query": "limit"}),
                     Intent("answer", {"text": q.golds[0], "cites": [nid]})])
    with FakeServer(script) as srv:
        reader = llm_reader(model="fake", base_url=srv.url, tool_mode=mode, timeout_s=5.0,
                            backoff_initial_s=0.005, backoff_max_s=0.02)
        ex = Examiner(u, [q], KBGymConfig(), library=Library.from_universe(u), navigate=False)
        try:
            summary, _, _ = ex.run(reader, q.qid, 0)
        finally:
            ex.close()
        first = srv.chat_requests()[0]
    assert first["messages"][0]["content"].startswith(load_skill(LLM_SKILL))
    assert summary["cited"] == [nid] and summary["f1"] == 1.0
