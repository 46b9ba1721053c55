"""Question pools, golds and support sets (SPEC §4).

A pool is the full list of a template's instances in enumeration order. An instance is only
its slots (pids and vocabulary values) plus the swap coin; ``World.materialize`` turns one
into a ``Question`` with text, golds, support and keys. Golds are computed from the people
table, never from text.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from typing import Any
from dataclasses import dataclass
from itertools import chain, combinations
from operator import attrgetter

from kbgym.keys import KeyFinder
from kbgym.worlds.people.templates import BY_NAME, SWAP, TEMPLATES
from kbgym.types import Node, Person, Question
from kbgym.worlds.people.vocab import NUMBER_WORDS

UNKNOWN = ("unknown",)


@dataclass(frozen=True, slots=True)
class Instance:
    template: str
    slots: tuple[str, ...]  # pids first (X, Y or the match P), then vocabulary values
    swap: bool = False


def count_golds(n: int) -> tuple[str, ...]:
    return (str(n), NUMBER_WORDS[n]) if n <= 20 else (str(n),)


def name_golds(names: Sequence[str]) -> tuple[str, ...]:
    names = sorted(names)
    joined = ", ".join(names)
    return (joined, *names) if len(names) == 2 else (joined,)


def instance(template: str, item: Any) -> Instance:
    """The Instance of one pool item of :meth:`World.pool_items` (an Instance stays one)."""
    if isinstance(item, Instance):
        return item
    if isinstance(item, str):
        return Instance(template, (item,))
    if len(item) == 2 and isinstance(item[1], bool):
        return Instance(template, item[0], item[1])
    return Instance(template, item)


def _id_key(node_id: str) -> int:
    return int(node_id[1:])


class World:
    """Read-only indexes over the people table and the nodes, for pools and golds."""

    def __init__(self, people: Sequence[Person], nodes: Sequence[Node], vocab: dict):
        self.people = people
        self.vocab = vocab
        self.by_pid = {p.pid: p for p in people}
        self.order = {p.pid: i for i, p in enumerate(people)}
        self.real = [p for p in people if not p.distractor]
        self.sid = {(n.fact.kind, n.fact.subject, n.fact.object): n.id for n in nodes}
        self.keys = KeyFinder.for_universe(people, vocab)
        self._counts: dict[tuple[str, ...], Counter] = {}

    # -- relations -------------------------------------------------------------------
    def name(self, pid: str) -> str:
        return self.by_pid[pid].name

    def parent(self, pid: str, gender: str) -> str | None:
        for q in self.by_pid[pid].parents:
            if self.by_pid[q].gender == gender:
                return q
        return None

    def siblings(self, pid: str) -> set[str]:
        out = set()
        for q in self.by_pid[pid].parents:
            out.update(self.by_pid[q].children)
        out.discard(pid)
        return out

    def grandchildren(self, pid: str) -> list[str]:
        return [g for c in self.by_pid[pid].children for g in self.by_pid[c].children]

    # -- support helpers ---------------------------------------------------------------
    def attr(self, pid: str, kind: str) -> str:
        p = self.by_pid[pid]
        value = {"job": p.job, "hobby": p.hobby, "city": p.city, "born": p.born}[kind]
        return self.sid[(kind, pid, value)]

    def rel(self, kind: str, subject: str, obj: str) -> str:
        return self.sid[(kind, subject, obj)]

    def all_rel(self, kind: str, pid: str) -> list[str]:
        p = self.by_pid[pid]
        objs = p.children if kind == "parent_of" else p.friends
        return [self.sid[(kind, pid, o)] for o in objs]

    # -- pools -------------------------------------------------------------------------
    def pools(self, coins: random.Random) -> dict[str, list[Instance]]:
        """Every template's instances in enumeration order, swap coins drawn in table order."""
        return {name: [instance(name, item) for item in items]
                for name, items in self.pool_items(coins).items()}

    def pool_items(self, coins: random.Random) -> dict[str, list]:
        """:meth:`pools` in a lean form, the same draws: per template the items in
        enumeration order, each the pid alone (one-person templates), the slot tuple, or
        ``(slots, swap)`` for the templates with a swap coin. :func:`instance` makes the
        Instance of an item; a universe only ever makes those of the drawn items."""
        out = {}
        for t in TEMPLATES:
            items = getattr(self, f"_pool_{t.name}")()
            if t.name in SWAP:
                out[t.name] = [(s, coins.random() < 0.5) for s in items]
            else:
                out[t.name] = list(items)
        return out

    def _each(self, cond) -> Iterator[str]:
        """The pids of the real people meeting ``cond`` (one-person pools: slots (pid,))."""
        return (p.pid for p in self.real if cond(p))

    def _pool_qc1_job(self):
        return self._each(lambda p: True)

    _pool_qc1_hobby = _pool_qc1_city = _pool_qc1_job

    def _pool_qc2_spouse_job(self):
        return self._each(lambda p: p.spouse is not None)

    def _pool_qc2_father_hobby(self):
        return self._each(lambda p: self.parent(p.pid, "male") is not None)

    def _pool_qc2_mother_city(self):
        return self._each(lambda p: self.parent(p.pid, "female") is not None)

    def _pool_qc3_spouse_father_hobby(self):
        return self._each(lambda p: p.spouse is not None
                          and self.parent(p.spouse, "male") is not None)

    def _pool_qc3_father_spouse_job(self):
        def cond(p):
            f = self.parent(p.pid, "male")
            return f is not None and self.by_pid[f].spouse is not None
        return self._each(cond)

    def _pool_qc3_spouse_mother_city(self):
        return self._each(lambda p: p.spouse is not None
                          and self.parent(p.spouse, "female") is not None)

    def _pool_qc4_children(self):
        return self._each(lambda p: len(p.children) >= 1)

    def _pool_qc4_friends(self):
        return self._each(lambda p: len(p.friends) >= 1)

    def _pool_qc5_brother_job(self):
        return self._each(lambda p: not any(self.by_pid[s].gender == "male"
                                            for s in self.siblings(p.pid)))

    def _pool_qc5_sister_hobby(self):
        return self._each(lambda p: not any(self.by_pid[s].gender == "female"
                                            for s in self.siblings(p.pid)))

    def _pool_qc5_spouse_city(self):
        return self._each(lambda p: p.spouse is None)

    def _unique(self, *fields: str) -> Iterator[Person]:
        """Real people whose combination of ``fields`` nobody else (distractors too) shares."""
        key = attrgetter(*fields)
        counts = self._counts.get(fields)
        if counts is None:  # job and city are asked twice (qc6, qc10)
            counts = self._counts[fields] = Counter(map(key, self.people))
        return (p for p in self.real if counts[key(p)] == 1)

    def _pool_qc6_job_city(self):
        return ((p.pid, p.job, p.city) for p in self._unique("job", "city"))

    def _pool_qc6_job_hobby(self):
        return ((p.pid, p.job, p.hobby) for p in self._unique("job", "hobby"))

    def _pool_qc6_job_city_hobby(self):
        return ((p.pid, p.job, p.city, p.hobby) for p in self._unique("job", "city", "hobby"))

    def common_friends(self, x: str, y: str) -> set[str]:
        return set(self.by_pid[x].friends) & set(self.by_pid[y].friends)

    def children_friends(self, x: str, y: str) -> set[str]:
        return set(self.by_pid[x].children) & set(self.by_pid[y].friends)

    def _counted_pairs(self, counts: Counter) -> list[tuple[str, str]]:
        """Candidate (X, Y) pairs with 1 ≤ |members(X, Y)| ≤ 2, in (X, Y) person order, from
        the pairs of person positions counted as they are enumerated (once per member)."""
        keep = sorted(xy for xy, n in counts.items() if n <= 2)
        pid = [p.pid for p in self.people]
        return [(pid[x], pid[y]) for x, y in keep]

    def _friends_at(self) -> list[list[int]]:
        """Each real person's friends as person positions, in person order."""
        order = self.order
        return [[order[f] for f in p.friends] for p in self.real]

    def _pool_qc7_common_friend(self):
        # Pairs sharing a friend are enumerated through that friend: O(n·d²), no all-pairs.
        # Each common friend z yields (a, b) once (friends are in person order), so the count
        # of a pair is |common_friends(a, b)|.
        return self._counted_pairs(Counter(chain.from_iterable(
            combinations(friends, 2) for friends in self._friends_at())))

    def _pool_qc7_child_friend(self):
        # (x, y) is yielded once per child of x that is a friend of y:
        # the count is |children_friends(x, y)| (friendship is symmetric)
        order, by_pid = self.order, self.by_pid
        return self._counted_pairs(Counter(
            (order[x.pid], order[y]) for x in self.real for c in x.children
            for y in by_pid[c].friends if y != x.pid))

    def _pool_qc8_grandchildren(self):
        return self._each(lambda p: len(self.grandchildren(p.pid)) >= 1)

    def _pool_qc8_friend_job(self):
        jobs = self.vocab["jobs"]
        rank = {j: i for i, j in enumerate(jobs)}
        for p in self.real:
            held = {self.by_pid[f].job for f in p.friends}
            for job in sorted(held, key=rank.__getitem__):
                yield (p.pid, job)

    def _pool_qc8_spouse_friends(self):
        return self._each(lambda p: p.spouse is not None
                          and len(self.by_pid[p.spouse].friends) >= 1)

    def _pool_qc9_older_pair(self):
        for p in self.real:
            for f in p.friends:
                if self.order[f] > self.order[p.pid] and self.by_pid[f].born != p.born:
                    yield (p.pid, f)

    def oldest_child(self, pid: str) -> str | None:
        kids = sorted(self.by_pid[pid].children, key=lambda c: self.by_pid[c].born)
        if len(kids) < 2 or self.by_pid[kids[0]].born == self.by_pid[kids[1]].born:
            return None
        return kids[0]

    def _pool_qc9_oldest_child(self):
        return self._each(lambda p: self.oldest_child(p.pid) is not None)

    def _pool_qc10_spouse_job_city(self):
        return ((p.pid, p.job, p.city) for p in self._unique("job", "city")
                if p.spouse is not None)

    def _pool_qc10_spouse_job(self):
        by_job = defaultdict(list)
        for p in self.real:
            if p.spouse is not None:
                by_job[p.job].append(p.pid)
        only = {pids[0] for pids in by_job.values() if len(pids) == 1}
        return ((p.pid, p.job) for p in self.real if p.pid in only)

    # -- materialisation ---------------------------------------------------------------
    def text(self, inst: Instance) -> str:
        t = BY_NAME[inst.template]
        s = inst.slots
        fill: dict[str, str] = {}
        if inst.template.startswith(("qc6", "qc10")):
            fill["job"] = s[1]
            if "{city}" in t.text:
                fill["city"] = s[2]
            if "{hobby}" in t.text:
                fill["hobby"] = s[-1]
        else:
            fill["X"] = self.name(s[0])
            if "{Y}" in t.text:
                fill["Y"] = self.name(s[1])
            if "{job}" in t.text:
                fill["job"] = s[1]
            if inst.swap:
                fill["X"], fill["Y"] = fill["Y"], fill["X"]
        return t.text.format(**fill)

    def answer(self, inst: Instance) -> tuple[tuple[str, ...], list[str]]:
        """(golds, support ids) of one instance."""
        s, x = inst.slots, inst.slots[0]
        p = self.by_pid[x]
        match inst.template:
            case "qc1_job" | "qc1_hobby" | "qc1_city":
                kind = inst.template.removeprefix("qc1_")
                return (getattr(p, kind),), [self.attr(x, kind)]
            case "qc2_spouse_job":
                sp = p.spouse
                return (self.by_pid[sp].job,), [self.rel("married", x, sp), self.attr(sp, "job")]
            case "qc2_father_hobby" | "qc2_mother_city":
                gender, kind = ("male", "hobby") if "father" in inst.template else ("female", "city")
                par = self.parent(x, gender)
                return ((getattr(self.by_pid[par], kind),),
                        [self.rel("parent_of", par, x), self.attr(par, kind)])
            case "qc3_spouse_father_hobby" | "qc3_spouse_mother_city":
                gender, kind = ("male", "hobby") if "father" in inst.template else ("female", "city")
                sp = p.spouse
                par = self.parent(sp, gender)
                return ((getattr(self.by_pid[par], kind),),
                        [self.rel("married", x, sp), self.rel("parent_of", par, sp),
                         self.attr(par, kind)])
            case "qc3_father_spouse_job":
                f = self.parent(x, "male")
                w = self.by_pid[f].spouse
                return ((self.by_pid[w].job,),
                        [self.rel("parent_of", f, x), self.rel("married", f, w),
                         self.attr(w, "job")])
            case "qc4_children":
                return count_golds(len(p.children)), self.all_rel("parent_of", x)
            case "qc4_friends":
                return count_golds(len(p.friends)), self.all_rel("friend_of", x)
            case "qc5_brother_job" | "qc5_sister_hobby" | "qc5_spouse_city":
                return UNKNOWN, []
            case "qc6_job_city" | "qc6_job_hobby" | "qc6_job_city_hobby":
                kinds = ["job", *(k for k in ("city", "hobby") if k in inst.template[4:])]
                return (p.name,), [self.attr(x, k) for k in kinds]
            case "qc7_common_friend":
                y = s[1]
                names = [self.name(f) for f in self.common_friends(x, y)]
                return name_golds(names), self.all_rel("friend_of", x) + self.all_rel("friend_of", y)
            case "qc7_child_friend":
                y = s[1]
                names = [self.name(c) for c in self.children_friends(x, y)]
                return (name_golds(names),
                        self.all_rel("parent_of", x) + self.all_rel("friend_of", y))
            case "qc8_grandchildren":
                sup = self.all_rel("parent_of", x)
                for c in p.children:
                    sup += self.all_rel("parent_of", c)
                return count_golds(len(self.grandchildren(x))), sup
            case "qc8_friend_job":
                job = s[1]
                n = sum(self.by_pid[f].job == job for f in p.friends)
                sup = self.all_rel("friend_of", x) + [self.attr(f, "job") for f in p.friends]
                return count_golds(n), sup
            case "qc8_spouse_friends":
                sp = p.spouse
                return (count_golds(len(self.by_pid[sp].friends)),
                        [self.rel("married", x, sp), *self.all_rel("friend_of", sp)])
            case "qc9_older_pair":
                y = self.by_pid[s[1]]
                older = p if p.born < y.born else y
                return (older.name,), [self.attr(x, "born"), self.attr(y.pid, "born")]
            case "qc9_oldest_child":
                c = self.oldest_child(x)
                return ((self.name(c),),
                        self.all_rel("parent_of", x) + [self.attr(k, "born") for k in p.children])
            case "qc10_spouse_job_city":
                return ((self.name(p.spouse),),
                        [self.attr(x, "job"), self.attr(x, "city"),
                         self.rel("married", x, p.spouse)])
            case "qc10_spouse_job":
                return ((self.name(p.spouse),),
                        [self.attr(x, "job"), self.rel("married", x, p.spouse)])
        raise ValueError(f"unknown template {inst.template!r}")

    def materialize(self, inst: Instance, qid: str, eval_flavor: str | None = None) -> Question:
        t = BY_NAME[inst.template]
        text = self.text(inst)
        golds, support = self.answer(inst)
        return Question(
            qid=qid, template=t.name, category=t.category, tier=t.tier, hops=t.hops,
            text=text, golds=golds, support=tuple(sorted(set(support), key=_id_key)),
            keys=self.keys(text), unanswerable=t.category == "QC5", eval_flavor=eval_flavor,
        )
