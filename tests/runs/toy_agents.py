"""Tiny deterministic agents for pipeline tests (independent of agents/, which has its own
tests). They read only obs["text"]."""

from __future__ import annotations

import re
import time

from kbgym import agent_factory


@agent_factory
class ToyTrainer:
    """Forward: one search, then answer with the first hit's last word. Backward: add a note
    named after the question, link it to the first search hit, then done."""

    meta = {"model": "toy-trainer"}

    def __init__(self, delay: float = 0.0, **_):
        self.delay = delay
        self.reset()

    def reset(self):
        self.plan = []

    def act(self, obs, info):
        if self.delay:
            time.sleep(self.delay)
        text = obs["text"]
        question = text.split("\n")[1]
        if obs["phase"] == 1:
            if "search(" not in text:
                return {"action": "search", "query": question}
            hit = re.search(r"- (s\d+): (.*)", text.split("Recent actions")[1])
            return {"action": "answer", "text": hit.group(2).rstrip(".").split()[-1] if hit else ""}
        if not self.plan:
            hit = re.search(r"- (s\d+): ", text.split("Recent actions")[1])
            self.plan = [{"action": "add", "text": f"Index for: {question}"}, "link",
                         {"action": "done"}]
            self.target = hit.group(1) if hit else "s0001"
        step = self.plan.pop(0)
        if step == "link":
            added = re.findall(r"-> added (s\d+)", text)
            dup = re.findall(r"duplicate of (s\d+)", text)
            source = (added or dup or ["s0001"])[-1]
            return {"action": "link", "source": source, "target": self.target}
        return step


@agent_factory
class ToyReader:
    """Search the question once and answer the last word of the first hit."""

    meta = {"model": "toy-reader"}

    def reset(self):
        pass

    def act(self, obs, info):
        text = obs["text"]
        if "search(" not in text:
            return {"action": "search", "query": text.split("\n")[1]}
        hit = re.search(r"- (s\d+): (.*)", text.split("Recent actions")[1])
        return {"action": "answer", "text": hit.group(2).rstrip(".").split()[-1] if hit else ""}


@agent_factory
def trainer(**opts):
    return ToyTrainer(**opts)


@agent_factory
def slow_trainer(**opts):
    return ToyTrainer(delay=0.01)


@agent_factory
def reader(**opts):
    return ToyReader()


class OddAnswers(ToyTrainer):
    """ToyTrainer whose answers carry U+2028, U+2029 and U+0085, which str.splitlines() and
    many JSONL readers take for line breaks."""

    meta = {"model": "toy-odd"}

    def act(self, obs, info):
        action = super().act(obs, info)
        if isinstance(action, dict) and action.get("action") == "answer":
            action = dict(action, text=action["text"] + "\u2028x\u2029y\u0085z")
        return action


@agent_factory
def odd_trainer(**opts):
    return OddAnswers(delay=0.01)


@agent_factory
def sleepy_trainer(**opts):
    return ToyTrainer(delay=0.05)
