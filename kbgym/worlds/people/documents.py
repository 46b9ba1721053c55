"""Facts rendered as one-sentence documents (SPEC §3), in the protocol's forms
(:data:`kbgym.worlds.people.facts.FORMS`, the one table the parser is derived from too)."""

from __future__ import annotations

from collections.abc import Sequence

from kbgym.worlds.people import facts as sentences
from kbgym.worlds.people.facts import render_date
from kbgym.types import Fact, Node, Person

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


def _halves(kind: str) -> tuple[str, str, str]:
    """The form of ``kind`` cut around its slots: ``subj + mid + obj + end`` is the sentence
    (``{subj}`` first in every §3 form)."""
    head, rest = sentences.FORMS[kind].split("{subj}")
    mid, end = rest.split("{obj}")
    if head:
        raise ValueError(f"form {kind!r} does not start with its subject")
    return head, mid, end


_MID = {kind: _halves(kind)[1:] for kind in sentences.FORMS}


def build_nodes(people: Sequence[Person]) -> list[Node]:
    """Every original node, ids ``s%04d`` in emission order: :func:`facts_of` and
    :func:`render` of each person, written out inline (the same facts and sentences; a test
    holds them equal).

    A 10^6-person universe has 10^7 nodes, so this loop is written for speed: sentences are
    concatenated from the forms' pieces, and a Node and its Fact get their slots set
    directly, not through the frozen dataclass ``__init__`` (one ``object.__setattr__`` per
    field)."""
    name_of = {p.pid: p.name for p in people}
    male = {p.pid for p in people if p.gender == "male"}
    (job_m, job_e), (hobby_m, hobby_e) = _MID["job"], _MID["hobby"]
    (city_m, city_e), (born_m, born_e) = _MID["city"], _MID["born"]
    (married_m, married_e), (child_m, child_e) = _MID["married"], _MID["child_of"]
    (friend_m, friend_e) = _MID["friend_of"]
    father, mother = _MID["father_of"], _MID["mother_of"]
    new = object.__new__
    f_kind, f_subject, f_object = Fact.kind.__set__, Fact.subject.__set__, Fact.object.__set__
    n_id, n_text, n_fact = Node.id.__set__, Node.text.__set__, Node.fact.__set__
    n_source = Node.source.__set__
    nodes: list[Node] = []
    add = nodes.append

    def emit(kind: str, pid: str, obj: str, text: str) -> None:
        fact = new(Fact)
        f_kind(fact, kind)
        f_subject(fact, pid)
        f_object(fact, obj)
        node = new(Node)
        n_id(node, "s%04d" % (len(nodes) + 1))
        n_text(node, text)
        n_fact(node, fact)
        n_source(node, None)
        add(node)

    for p in people:  # real people first, then distractors: pid order is emission order
        pid, n = p.pid, p.name
        emit("job", pid, p.job, n + job_m + p.job + job_e)
        emit("hobby", pid, p.hobby, n + hobby_m + p.hobby + hobby_e)
        emit("city", pid, p.city, n + city_m + p.city + city_e)
        emit("born", pid, p.born, n + born_m + render_date(p.born) + born_e)
        if p.distractor:
            continue
        if p.spouse is not None:
            emit("married", pid, p.spouse, n + married_m + name_of[p.spouse] + married_e)
        for q in p.parents:
            emit("child_of", pid, q, n + child_m + name_of[q] + child_e)
        parent_m, parent_e = father if pid in male else mother
        for q in p.children:
            emit("parent_of", pid, q, n + parent_m + name_of[q] + parent_e)
        for q in p.friends:
            emit("friend_of", pid, q, n + friend_m + name_of[q] + friend_e)
    return nodes
