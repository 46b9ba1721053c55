"""An independent gold checker: every question's canonical gold recomputed from the ledger
rows in the universe file (``meta.policies``) by code written separately from
``kbgym.worlds.policies.ledger``/``questions``, reading the question's slots from its text."""

from __future__ import annotations

import re

import pytest

from kbgym.worlds.policies.grammar import CONCEPT_BY_PHRASE, MONTHS


def money(unit: str, v: int) -> str:
    if unit == "usd":
        return "${:,}".format(v)
    if unit == "pct":
        return f"{v}%"
    return f"{v} day" if v == 1 else f"{v} days"


class Checker:
    def __init__(self, u):
        self.rows = u.meta["policies"]["ledger"]
        self.date = {d["code"]: d["date"] for d in u.meta["policies"]["documents"]}
        self.kind = {d["code"]: d["kind"] for d in u.meta["policies"]["documents"]}
        self.attached = {r["doc"]: r["edition"] for r in self.rows
                         if r["kind"] == "issued" and self.kind[r["doc"]] in
                         ("endorsement", "state_form")}
        self.note_of = {n.fact.object: n.id for n in u.nodes}

    def of(self, kind, **match):
        return [r for r in self.rows if r["kind"] == kind
                and all(r.get(k) == v for k, v in match.items())]

    def editions(self, form, section):
        return {r["edition"]: r.get("value") for r in self.rows
                if r["kind"] in ("sets", "reserves") and r["form"] == form
                and r["section"] == section}

    def control(self, form, section, edition, state=None):
        """(row, document, value) of the controlling text under an edition."""
        pick = []
        if state:
            pick = [r for r in self.of("replaces", form=form, section=section, state=state)
                    if self.attached[r["doc"]] == edition]
        if not pick:
            pick = [r for r in self.of("amends", form=form, section=section)
                    if self.attached[r["doc"]] == edition]
        if pick:
            best = sorted(pick, key=lambda r: self.date[r["doc"]])[-1]
            return best, best["doc"], best["value"]
        row = [r for r in self.rows if r["kind"] in ("sets", "reserves") and r["form"] == form
               and r["section"] == section and r["edition"] == edition][0]
        return row, form, row.get("value")

    def dependents(self, form, section):
        return {r["doc"] for r in self.rows if r.get("form") == form
                and r.get("section") == section
                and r["kind"] in ("amends", "replaces", "refers", "states")}

    def affected(self, form, section):
        out = self.dependents(form, section)
        while True:
            more = {r["doc"] for r in self.rows if r.get("target") in out} - out
            if not more:
                return out
            out |= more

    def bulletin(self, concept):
        chain = {r["doc"]: r["value"] for r in self.of("minimum", concept=concept)}
        gone = {r["target"] for r in self.of("supersedes") if r["doc"] in chain}
        (live,) = set(chain) - gone
        return live, chain[live]


def slots(text):
    out = {}
    m = re.search(r"form (\w\w-\d+)(?: \((\d{4}) edition\))? §([IVX]+\.[A-Z])", text)
    if m:
        out["form"], out["section"] = m.group(1), m.group(3)
        if m.group(2):
            out["year"] = int(m.group(2))
    m = re.search(r"(Endorsement|Bulletin|State Form) ([A-Z]{2}-\d+(?:-\d+)?)", text)
    if m:
        out["doc"] = m.group(2)
    m = re.match(r"In (\w+), ", text)
    if m:
        out["state"] = m.group(1)
    m = re.search(r"when the (\d{4}) edition replaced the (\d{4}) edition", text)
    if m:
        out["new"], out["old"] = int(m.group(1)), int(m.group(2))
    for phrase in sorted(CONCEPT_BY_PHRASE, key=len, reverse=True):
        if phrase in text:
            out["concept"] = CONCEPT_BY_PHRASE[phrase]
            break
    return out


def expected(ch: Checker, q):
    s = slots(q.text)
    t = q.template
    c = s.get("concept")
    if t == "pl_abstain":
        return "unknown", None
    if t == "pl_effective_date":
        y, m, d = (int(x) for x in ch.of("issued", doc=s["doc"])[0]["date"].split("-"))
        return f"{MONTHS[m - 1]} {d}, {y}", None
    if t == "pl_bulletin_value":
        r = ch.of("minimum", doc=s["doc"])[0]
        return money(c.unit, r["value"]), r
    if t.startswith("pl_bulletin_current"):
        live, value = ch.bulletin(c.id)
        return (live if t == "pl_bulletin_current" else money(c.unit, value)), None
    form, section = s["form"], s["section"]
    eds = ch.editions(form, section)
    if t == "pl_form_value":
        return money(c.unit, eds[s["year"]]), None
    if t == "pl_endorsement_value":
        r = ch.of("amends", doc=s["doc"], form=form, section=section)[0]
        return money(c.unit, r["value"]), r
    if t in ("pl_effective", "pl_state_effective", "pl_controls", "pl_state_controls"):
        row, doc, value = ch.control(form, section, max(eds), s.get("state"))
        return (doc if "controls" in t else money(c.unit, value)), row
    if t == "pl_depends":
        return ", ".join(sorted(ch.dependents(form, section))), None
    if t == "pl_affected":
        return ", ".join(sorted(ch.affected(form, section))), None
    if t == "pl_edition":
        old = ch.control(form, section, s["old"])[2]
        new = ch.control(form, section, s["new"])[2]
        return money(c.unit, abs(new - old)), None
    if t == "pl_contradiction":
        right = ch.control(form, section, max(eds))[2]
        return ", ".join(sorted({r["doc"] for r in ch.of("states", form=form, section=section)
                                 if r["value"] != right})), None
    raise AssertionError(f"no checker for {t}")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_gold_recomputed_from_the_ledger(seed, policy_universe):
    u = policy_universe(seed)
    ch = Checker(u)
    seen = set()
    for q in u.questions:
        gold, row = expected(ch, q)
        assert q.golds[0] == gold, (q.qid, q.text, q.golds[0], gold)
        assert q.unanswerable == (gold == "unknown")
        if row is not None:  # the fact that decides the answer is in the support
            assert ch.note_of[row["id"]] in q.support, (q.qid, q.text)
        assert bool(q.support) != q.unanswerable
        seen.add(q.template)
    assert len(seen) >= 12  # (almost) every class has questions even in a small library


def test_the_default_library_is_checked_too(default_universe):
    ch = Checker(default_universe)
    for q in default_universe.questions:
        assert q.golds[0] == expected(ch, q)[0], (q.qid, q.text)
