"""Source drift (``kbgym drift``): universe v2 applies seeded life events to v1.

Events, drawn from stream ``drift`` of the drift seed (one uniform choice of kind per change,
then the people it touches; a kind with no candidates passes to the next kind in this order):

- ``move``: a real person moves to another city;
- ``job``: a real person takes another job;
- ``marriage``: two unmarried real people (not parent/child or siblings) marry;
- ``friendship``: two real people who were not friends become friends;
- ``birth``: a married real couple has a child, a new real person (a first name of the
  child's gender and the first parent's surname, a job, a hobby, the first parent's city and
  a birth date in the year after the latest birth), pid after every existing pid.

Every changed or new fact becomes a new original note, ``As of the latest record, `` + its
§3 sentence (``As of the latest record, Felix Vance lives in the city of Dunmere.``). Notes
are appended with ids from ``10^(d+1) + 1``, d being the digit count of v1's highest id, so
that a library trained on v1 (whose authored ids follow v1's originals) can take them in
(:func:`kbgym.library.drift.carry_library`). Outdated notes stay, as they do in real stores. A move or job
change *supersedes* the person's current note of that kind: ``meta.drift.supersedes`` maps
the new note to the old one (cumulative over repeated drifts).

Questions keep their qids and texts and are re-answered on v2 (golds and support from the
changed people table); one whose template's condition no longer holds (an unmarried person
who married, a join that is no longer unique) is dropped. ``meta.drift.questions`` lists the
``drifted`` qids (golds changed), the ``unchanged`` ones and the ``dropped`` ones, and
``meta.drift.old_golds`` the v1 golds of the drifted ones (answers that used an outdated
fact are scored against them).
"""

from __future__ import annotations

import random
from dataclasses import replace

from kbgym.errors import ConfigError
from kbgym.worlds.people.facts import DRIFT_PREFIX
from kbgym.protocol.ids import id_num
from kbgym.seeding import stream
from kbgym.worlds.people.documents import render
from kbgym.worlds.people.questions import World
from kbgym.types import Fact, Node, Person, Universe

KINDS = ("move", "job", "marriage", "friendship", "birth")
PREFIX = DRIFT_PREFIX


class _State:
    def __init__(self, u: Universe):
        self.u = u
        self.people: dict[str, Person] = {p.pid: p for p in u.people}
        self.order = [p.pid for p in u.people]
        self.nodes: list[Node] = list(u.nodes)
        top = max(id_num(n.id) for n in u.nodes)
        self.next_num = 10 ** (len(str(top)) + 1) + 1
        self.first_new = self.next_num
        self.current: dict[tuple[str, str], str] = {}  # (kind, pid) -> latest note, attributes
        for n in self.nodes:
            if n.fact.kind in ("job", "city"):
                self.current[(n.fact.kind, n.fact.subject)] = n.id
        self.supersedes: dict[str, str] = dict(u.meta.get("drift", {}).get("supersedes", {}))
        self.events: list[dict] = []

    def real(self) -> list[Person]:
        return [self.people[p] for p in self.order if not self.people[p].distractor]

    def note(self, fact: Fact) -> str:
        names = {p.pid: p.name for p in self.people.values()}
        genders = {p.pid: p.gender for p in self.people.values()}
        nid = "s%04d" % self.next_num
        self.next_num += 1
        self.nodes.append(Node(nid, PREFIX + render(fact, names, genders), fact))
        return nid

    def sort(self, pids) -> tuple[str, ...]:
        rank = {p: i for i, p in enumerate(self.order)}
        return tuple(sorted(set(pids), key=rank.__getitem__))

    def related(self, a: Person, b: Person) -> bool:
        if b.pid in a.parents or a.pid in b.parents:
            return True
        return bool(set(a.parents) & set(b.parents))


def _attribute(st: _State, rng: random.Random, kind: str) -> dict | None:
    people = st.real()
    if not people:
        return None
    p = rng.choice(people)
    values = st.u.vocab["cities" if kind == "city" else "jobs"]
    old = getattr(p, kind)
    choices = [v for v in values if v != old]
    if not choices:
        return None
    new = rng.choice(choices)
    st.people[p.pid] = replace(p, **{kind: new})
    nid = st.note(Fact(kind, p.pid, new))
    st.supersedes[nid] = st.current[(kind, p.pid)]
    st.current[(kind, p.pid)] = nid
    return {"kind": "move" if kind == "city" else "job", "pids": [p.pid], "old": old,
            "new": new, "notes": [nid], "supersedes": [st.supersedes[nid]]}


def _marriage(st: _State, rng: random.Random) -> dict | None:
    single = [p for p in st.real() if p.spouse is None]
    pairs = [(a, b) for i, a in enumerate(single) for b in single[i + 1:]
             if not st.related(a, b)]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    st.people[a.pid] = replace(a, spouse=b.pid)
    st.people[b.pid] = replace(b, spouse=a.pid)
    notes = [st.note(Fact("married", a.pid, b.pid)), st.note(Fact("married", b.pid, a.pid))]
    return {"kind": "marriage", "pids": [a.pid, b.pid], "notes": notes}


def _friendship(st: _State, rng: random.Random) -> dict | None:
    people = st.real()
    for _ in range(50):
        a, b = rng.sample(people, 2) if len(people) >= 2 else (None, None)
        if a is None:
            return None
        if b.pid not in a.friends:
            break
    else:
        return None
    a, b = st.people[a.pid], st.people[b.pid]
    st.people[a.pid] = replace(a, friends=st.sort(a.friends + (b.pid,)))
    st.people[b.pid] = replace(b, friends=st.sort(b.friends + (a.pid,)))
    notes = [st.note(Fact("friend_of", a.pid, b.pid)), st.note(Fact("friend_of", b.pid, a.pid))]
    return {"kind": "friendship", "pids": [a.pid, b.pid], "notes": notes}


def _birth(st: _State, rng: random.Random) -> dict | None:
    couples = [p for p in st.real() if p.spouse is not None
               and not st.people[p.spouse].distractor and p.pid < p.spouse]
    if not couples:
        return None
    a = rng.choice(couples)
    b = st.people[a.spouse]
    gender = rng.choice(["male", "female"])
    vocab = st.u.vocab
    firsts = vocab["first_names_male" if gender == "male" else "first_names_female"]
    taken = {p.name for p in st.people.values()}
    surname = a.name.split(" ", 1)[-1]
    free = [f"{f} {surname}" for f in firsts if f"{f} {surname}" not in taken]
    if not free:
        return None
    name = rng.choice(free)
    year = max(int(p.born[:4]) for p in st.people.values()) + 1
    born = f"{year:04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    pid = "p%04d" % (max(int(p[1:]) for p in st.people) + 1)
    gens = [g for g in (a.generation, b.generation) if g is not None]
    child = Person(pid, name, gender, max(gens) + 1 if gens else None, False,
                   rng.choice(vocab["jobs"]), rng.choice(vocab["hobbies"]), a.city, born,
                   None, (), (), ())
    st.order.append(pid)
    st.people[pid] = replace(child, parents=st.sort((a.pid, b.pid)))
    for par in (a, b):
        cur = st.people[par.pid]
        st.people[par.pid] = replace(cur, children=st.sort(cur.children + (pid,)))
    notes = []
    for kind in ("job", "hobby", "city", "born"):
        notes.append(st.note(Fact(kind, pid, getattr(st.people[pid], kind))))
        if kind in ("job", "city"):
            st.current[(kind, pid)] = notes[-1]
    for par in st.people[pid].parents:
        notes.append(st.note(Fact("child_of", pid, par)))
    for par in st.people[pid].parents:
        notes.append(st.note(Fact("parent_of", par, pid)))
    return {"kind": "birth", "pids": [a.pid, b.pid, pid], "new": name, "notes": notes}


def _event(st: _State, rng: random.Random, kind: str) -> dict | None:
    if kind == "move":
        return _attribute(st, rng, "city")
    if kind == "job":
        return _attribute(st, rng, "job")
    if kind == "marriage":
        return _marriage(st, rng)
    if kind == "friendship":
        return _friendship(st, rng)
    return _birth(st, rng)


def drift(u: Universe, changes: int, seed: int = 0) -> Universe:
    """Universe v2: ``changes`` seeded life events applied to ``u`` (module doc)."""
    if changes < 0:
        raise ConfigError(f"changes must be >= 0, got {changes}")
    if u.meta.get("source") not in (None, "people"):  # kbgym.worlds: each family's own drift
        raise ConfigError(f"this is the people world's drift; a {u.meta['source']} universe "
                          "drifts through kbgym.worlds.world_of(u).drift (kbgym drift)")
    st = _State(u)
    rng = stream(seed, "drift")
    for _ in range(changes):
        first = KINDS.index(rng.choice(KINDS))
        for k in range(len(KINDS)):
            ev = _event(st, rng, KINDS[(first + k) % len(KINDS)])
            if ev is not None:
                st.events.append(ev)
                break
    people = tuple(st.people[p] for p in st.order)
    questions, splits, status, old_golds = _requestion(u, people, st.nodes)
    meta = dict(u.meta)
    meta["drift"] = {
        "parent_hash": u.hash, "seed": seed, "changes": changes, "events": st.events,
        "first_new_id": "s%04d" % st.first_new, "supersedes": st.supersedes,
        "questions": status, "old_golds": old_golds,
    }
    return Universe(meta=meta, vocab=u.vocab, people=people, nodes=tuple(st.nodes),
                    questions=questions, splits=splits)


def _requestion(u: Universe, people, nodes):
    from kbgym.worlds.people.generate import full_pools

    w1 = World(u.people, u.nodes, u.vocab)
    by_text = {w1.text(i): i for pool in full_pools(w1, u.meta["seed"]).values() for i in pool}
    w2 = World(people, nodes, u.vocab)
    valid = {(t, i.slots) for t, pool in w2.pools(random.Random(0)).items() for i in pool}
    out, status = [], {"drifted": [], "unchanged": [], "dropped": []}
    old_golds = {}
    for q in u.questions:
        inst = by_text.get(q.text)
        if inst is None or (inst.template, inst.slots) not in valid:
            status["dropped"].append(q.qid)
            continue
        q2 = w2.materialize(inst, q.qid, q.eval_flavor)
        out.append(q2)
        if q2.golds != q.golds:
            status["drifted"].append(q.qid)
            old_golds[q.qid] = list(q.golds)
        else:
            status["unchanged"].append(q.qid)
    dropped = set(status["dropped"])
    splits = {k: tuple(x for x in v if x not in dropped) for k, v in u.splits.items()}
    return tuple(out), splits, status, old_golds


def summarize(u2: Universe, kinds: tuple[str, ...] = KINDS) -> str:
    """The drift's four summary lines (``kbgym drift``): events by kind (of ``kinds``, the
    world's event kinds), new and superseded notes, the questions' fates and the hash."""
    d = u2.meta["drift"]
    counts = {k: sum(e["kind"] == k for e in d["events"]) for k in kinds}
    q = d["questions"]
    new = sum(len(e["notes"]) for e in d["events"])
    return "\n".join([
        "drift   " + "  ".join(f"{k}={v}" for k, v in counts.items()),
        f"notes   +{new} new originals (from {d['first_new_id']}), "
        f"{len(d['supersedes'])} superseded in all",
        f"questions drifted={len(q['drifted'])}  unchanged={len(q['unchanged'])}  "
        f"dropped={len(q['dropped'])}",
        f"hash    {u2.hash}",
    ])


def _stem(text: str) -> str:
    """A §3 sentence without its last word (the value a drift replaces) and any prefix."""
    return text.removeprefix(PREFIX).rstrip(".").rsplit(" ", 1)[0]


def repair_pass(library) -> int:
    """A scripted repair of every authored note's stale links, from what ``read`` shows: a
    stale link to "X lives in the city of Y." is replaced (same position and type) by a link
    to the latest "As of the latest record, X lives in the city of ..." note the search
    finds; with no successor the stale link is just removed. Returns the actions spent (one
    per unlink and per link)."""
    actions = 0
    for node in [n for n in library if n.is_authored]:
        for target in [t for t in node.links if library.is_stale(node.id, t)]:
            stem = _stem(library[target].text)
            hits = [library[i] for i, _ in library.search(PREFIX + stem, 20)]
            succ = [h for h in hits if h.id != target and h.text.startswith(PREFIX)
                    and h.text.removeprefix(PREFIX).startswith(stem + " ")
                    and not library.is_stale(node.id, h.id) and h.id not in library.superseded]
            ltype = node.link_types.get(target)
            library.unlink(node.id, target)
            actions += 1
            if succ:
                best = max(succ, key=lambda h: h.num)
                if best.id not in node.links:
                    library.link(node.id, best.id, ltype)
                    actions += 1
    return actions
