"""Facts rendered as one-sentence documents (SPEC §3), in the protocol's forms
(:data:`kbgym.worlds.people.facts.FORMS`, the one table the parser is derived from too)."""

from __future__ import annotations

from collections.abc import Sequence

from kbgym.worlds.people import facts as sentences
from kbgym.worlds.people.facts import render_date
from kbgym.types import Fact, Node, Person

_FORM = {kind: form.format for kind, form in sentences.FORMS.items()}


def render(fact: Fact, name_of: dict[str, str], gender_of: dict[str, str]) -> str:
    """The sentence of one fact (:func:`kbgym.worlds.people.facts.render_fact`): names for pids, and a
    parent's wording (``father``/``mother``) by their gender."""
    kind, obj = fact.kind, fact.object
    if kind == "parent_of":
        kind = "father_of" if gender_of[fact.subject] == "male" else "mother_of"
    if kind not in sentences.FORMS:
        raise ValueError(f"unknown fact kind {fact.kind!r}")
    if kind in sentences.PERSON_KINDS:
        obj = name_of[obj]
    return sentences.render_fact(sentences.Fact(kind, name_of[fact.subject], obj))


def facts_of(p: Person) -> list[Fact]:
    """One person's facts in table order; relation objects in person (pid) order."""
    pid = p.pid
    out = [Fact("job", pid, p.job), Fact("hobby", pid, p.hobby), Fact("city", pid, p.city),
           Fact("born", pid, p.born)]
    if p.distractor:
        return out
    if p.spouse is not None:
        out.append(Fact("married", pid, p.spouse))
    out += [Fact("child_of", pid, q) for q in p.parents]
    out += [Fact("parent_of", pid, q) for q in p.children]
    out += [Fact("friend_of", pid, q) for q in p.friends]
    return out


def build_nodes(people: Sequence[Person]) -> list[Node]:
    """Every original node, ids ``s%04d`` in emission order: :func:`facts_of` and
    :func:`render` of each person, written out inline (the same facts and sentences)."""
    name_of = {p.pid: p.name for p in people}
    male = {p.pid for p in people if p.gender == "male"}
    job, hobby, city, born = _FORM["job"], _FORM["hobby"], _FORM["city"], _FORM["born"]
    married, child, friend = _FORM["married"], _FORM["child_of"], _FORM["friend_of"]
    nodes: list[Node] = []
    add = nodes.append
    for p in people:  # real people first, then distractors: pid order is emission order
        pid, n = p.pid, p.name
        rows = [("job", p.job, job(subj=n, obj=p.job)),
                ("hobby", p.hobby, hobby(subj=n, obj=p.hobby)),
                ("city", p.city, city(subj=n, obj=p.city)),
                ("born", p.born, born(subj=n, obj=render_date(p.born)))]
        if not p.distractor:
            if p.spouse is not None:
                rows.append(("married", p.spouse, married(subj=n, obj=name_of[p.spouse])))
            rows += [("child_of", q, child(subj=n, obj=name_of[q])) for q in p.parents]
            parent = _FORM["father_of" if pid in male else "mother_of"]
            rows += [("parent_of", q, parent(subj=n, obj=name_of[q])) for q in p.children]
            rows += [("friend_of", q, friend(subj=n, obj=name_of[q])) for q in p.friends]
        k = len(nodes)
        for j, (kind, obj, text) in enumerate(rows, k + 1):
            add(Node("s%04d" % j, text, Fact(kind, pid, obj)))
    return nodes
