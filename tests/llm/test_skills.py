"""The two skills (SPEC §9.5): files under agents/prompts/, loaded by name; RETRIEVAL is
byte-identical for forward and reader and never mentions indexes, editing or generalisation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kbgym_agents.llm.skills import load_skill
from llm_helpers import make

PROMPTS = Path(__file__).resolve().parents[2] / "agents" / "prompts"


def test_skills_are_files_loaded_by_name():
    for name in ("retrieval", "curation"):
        assert load_skill(name) == (PROMPTS / f"{name}.md").read_bytes().decode("utf-8")


def test_no_skill_text_inside_kbgym():
    root = Path(__file__).resolve().parents[2] / "kbgym"
    first = load_skill("retrieval").splitlines()[8]
    for path in root.rglob("*.py"):
        assert first not in path.read_text(encoding="utf-8"), path


def test_retrieval_never_mentions_indexes_editing_or_generalisation():
    text = load_skill("retrieval").lower()
    for word in ("index", "edit", "generalis", "generaliz", "curat", "add(", "delete",
                 "link_many", "backward", "gold"):
        assert word not in text, word


def test_retrieval_covers_its_points():
    text = load_skill("retrieval")
    low = text.lower()
    assert '"unknown"' in text and "scores 0" in low          # goal, running out
    assert "matches words" in low and "wording" in low         # search matches words
    assert "one page at a time" in low                         # sets arrive by pages
    assert "every note it links to" in low                     # read shows linked notes
    two_hop = text.split("## Example: two hops", 1)[1].split("## Example", 1)[0]
    assert two_hop.index("search(") < two_hop.index("read(") < two_hop.index("answer(")
    cheap = text.split('## Example: a cheap "unknown"', 1)[1]
    assert cheap.count("search(") == 1 and 'answer(text="unknown")' in cheap


def test_curation_covers_every_point():
    text = load_skill("curation")
    low = text.lower()
    for title in ("Index of notes about", "Residents of", "People whose job is", "Friends of",
                  "Grandchildren of"):
        assert title in text, title
    for phrase in ("level per hop", "an index points, it does not list", "link_many",
                   "may point at other indexes", "one key at a time", "finish it",
                   "precision before completeness", "actually seen",
                   "completeness is a promise", "stops searching",
                   "delete an index that ends up with no members", "rather than add a duplicate",
                   "change nothing", "one statement per note", "full names", "no pronouns"):
        assert phrase in low, phrase
    join = text.split("## Worked example: a join", 1)[1]
    steps = re.findall(r"^(\d+)\. (.*)$", join, re.MULTILINE)
    answer_step = next(int(n) for n, s in steps if "answer sentence" in s)
    assert [s for n, s in steps if int(n) > answer_step] == ["done()"]
    assert join.index("link_many") < join.index("Mabel Thorne is the mason") < \
        join.index("comes last")


@pytest.mark.parametrize("mode", ["tools", "single", "text"])
def test_reader_and_forward_send_the_same_system_message(server, mode):
    obs_forward = {"phase": 1, "steps_left": 15, "text": "TRAIN QUESTION q1 [phase 1: answer "
                   "it]\nWhat is the job of A B?\n\nRemaining actions this phase: 15."}
    obs_probe = {"phase": 0, "steps_left": 15, "text": "QUESTION q1\nWhat is the job of A B?"
                 "\n\nRemaining actions this phase: 15."}
    make("trainer", server, tool_mode=mode).act(obs_forward, {})
    make("reader", server, tool_mode=mode).act(obs_probe, {})
    make("trainer", server, tool_mode=mode).act({**obs_forward, "phase": 2}, {})
    fwd, rdr, bwd = (r["messages"][0]["content"] for r in server.chat_requests())
    assert fwd.encode() == rdr.encode()
    assert fwd.startswith(load_skill("retrieval"))
    assert bwd.startswith(load_skill("curation"))
    if mode != "text":
        assert fwd == load_skill("retrieval")


PLAN_LINE = ("Plan before each action, in one line: the fact you still need, and the one action "
             "that gets it.")


def test_plan_variant_is_retrieval_plus_one_line(server):
    """retrieval_plan (a measured variant, scripts/experiments/llm_variants.py) must not drift from
    RETRIEVAL: removing its plan line gives RETRIEVAL byte for byte."""
    plan = load_skill("retrieval_plan")
    assert plan.count(PLAN_LINE) == 1
    assert plan.replace("\n" + PLAN_LINE + "\n", "", 1) == load_skill("retrieval")
    agent = make("reader", server, skills={"probe": "retrieval_plan"})
    agent.act({"phase": 0, "steps_left": 3, "text": "QUESTION q1\nWho?\n"}, {})
    assert server.chat_requests()[-1]["messages"][0]["content"] == plan
    assert agent.meta["skills"]["probe"]["name"] == "retrieval_plan"


def test_evidence_skills_extend_the_paper_ones_and_name_the_new_tools():
    from kbgym_agents.llm.skills import load_skill

    for name in ("retrieval", "curation"):
        paper, evidence = load_skill(name), load_skill(f"{name}_evidence")
        assert evidence.startswith(paper.rstrip("\n"))
    retrieval = load_skill("retrieval_evidence")
    assert "locate(" in retrieval and "expand(" in retrieval
    for word in ("index", "edit", "generalis", "generaliz", "curat", "add(", "delete"):
        assert word not in retrieval.lower()
    assert "member_of" in load_skill("curation_evidence")


def test_an_evidence_toolset_agent_sends_the_evidence_skills():
    from kbgym_agents.llm.agent import LLMAgent
    from kbgym_agents.llm.skills import load_skill

    agent = LLMAgent(None, "trainer", toolset="evidence")
    assert agent.skills["forward"] == load_skill("retrieval_evidence")
    assert agent.skills["backward"] == load_skill("curation_evidence")
    assert LLMAgent(None, "reader").skills["probe"] == load_skill("retrieval")
