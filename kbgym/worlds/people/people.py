"""People, families, friendships, distractors and birthdates (SPEC §2.3).

Every draw comes from the ``universe`` stream, strictly in the SPEC's order. People are
addressed by their 0-based index in person order while building; pids come last.

Two options change the paper's distribution (``UniverseConfig``): ``common_jobs`` draws jobs
with two tiers of weights instead of ``choice`` (one ``choices`` draw per job), and
``children_per_couple`` draws each couple's number of children in step 3 (``randint(lo, hi)``
per couple, in couple order, as its children are cut from the generation below) instead of
the fixed triples. At their defaults neither draws anything.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate

from kbgym.types import Person

BANDS = {0: (1920, 1949), 1: (1950, 1979), 2: (1980, 2009), None: (1950, 2009)}
DATES_PER_BAND = 30 * 12 * 28  # 10,080


@dataclass
class _Draft:
    name: str
    gender: str
    distractor: bool = False
    generation: int | None = None
    job: str = ""
    hobby: str = ""
    city: str = ""
    born: str = ""
    spouse: int | None = None
    parents: list[int] = field(default_factory=list)
    children: list[int] = field(default_factory=list)
    friends: list[int] = field(default_factory=list)


def _draw_names(rng: random.Random, vocab: dict, n: int) -> list[_Draft]:
    pairs = [(first, "male") for first in vocab["first_names_male"]]
    pairs += [(first, "female") for first in vocab["first_names_female"]]
    names = [(f"{first} {surname}", gender) for first, gender in pairs
             for surname in vocab["surnames"]]
    rng.shuffle(names)
    return [_Draft(name, gender) for name, gender in names[:n]]


def _draw_attributes(rng: random.Random, vocab: dict, d: _Draft,
                     job_weights: list[float] | None = None) -> None:
    if job_weights is None:
        d.job = rng.choice(vocab["jobs"])
    else:
        d.job = rng.choices(vocab["jobs"], cum_weights=job_weights)[0]
    d.hobby = rng.choice(vocab["hobbies"])
    d.city = rng.choice(vocab["cities"])


def _marry(people: list[_Draft], a: int, b: int) -> None:
    people[a].spouse, people[b].spouse = b, a


def _adopt(people: list[_Draft], children: list[int], couple: tuple[int, int]) -> None:
    for c in children:
        people[c].parents = sorted(couple)
        for p in couple:
            people[p].children.append(c)


def job_cum_weights(n: int, common: int, share: float) -> list[float] | None:
    """Cumulative weights of ``n`` jobs whose first ``common`` share ``share`` evenly and the
    rest share ``1 - share`` evenly; None for ``common`` 0 (uniform ``choice``)."""
    if not common:
        return None
    common = min(common, n)
    rare = n - common
    weights = [share / common] * common + ([(1 - share) / rare] * rare if rare else [])
    return list(accumulate(weights))


def _families(kids: list[int], couples: list[tuple[int, int]],
              size: Callable[[], int] | None) -> list[tuple[list[int], tuple[int, int]]]:
    """Consecutive slices of ``kids``, one per couple in order, until the kids run out:
    triples (``size`` None), else ``size()`` children each, drawn per couple."""
    out, start = [], 0
    for couple in couples:
        if start >= len(kids):
            break
        k = 3 if size is None else size()
        out.append((kids[start:start + k], couple))
        start += k
    return out


def _build_families(people: list[_Draft], size: Callable[[], int] | None = None) -> None:
    """Three generations of couples and children (§2.3 step 3); no draws unless ``size``
    draws each couple's number of children."""
    n = len(people)
    males = [i for i, d in enumerate(people) if d.gender == "male"]
    females = [i for i, d in enumerate(people) if d.gender == "female"]
    c0 = min(max(1, n // 6), len(males), len(females))
    gen0_couples = list(zip(males[:c0], females[:c0]))
    for m, f in gen0_couples:
        _marry(people, m, f)
        people[m].generation = people[f].generation = 0

    rest = [i for i, d in enumerate(people) if d.generation is None]
    n1 = max(2, n // 3)
    gen1, gen2 = rest[:n1], rest[n1:]
    for i in gen1:
        people[i].generation = 1
    for i in gen2:
        people[i].generation = 2

    for kids, couple in _families(gen1, gen0_couples, size):
        _adopt(people, kids, couple)

    # Each gen-1 male, in order, marries the first unmarried gen-1 female sharing no parent
    # with him. `free` keeps the unmarried females in order; at most two sisters are skipped.
    gen1_couples: list[tuple[int, int]] = []
    max_couples = max(1, n1 // 2)
    free = [i for i in gen1 if people[i].gender == "female"]
    for m in (i for i in gen1 if people[i].gender == "male"):
        if len(gen1_couples) >= max_couples:
            break
        mp = set(people[m].parents)
        for k, f in enumerate(free):
            if not mp.intersection(people[f].parents):
                del free[k]
                _marry(people, m, f)
                gen1_couples.append((m, f))
                break

    for kids, couple in _families(gen2, gen1_couples, size):
        _adopt(people, kids, couple)


def _build_friendships(rng: random.Random, people: list[_Draft], p: float) -> None:
    """G(n, p) by geometric skipping, O(n + m) (§2.3 step 4)."""
    n = len(people)
    if p <= 0:
        return
    if p >= 1:
        edges = [(v, w) for v in range(n) for w in range(v)]
    else:
        edges = []
        log_q = math.log(1 - p)
        v, w = 1, -1
        while v < n:
            w += 1 + math.floor(math.log(1 - rng.random()) / log_q)
            while w >= v and v < n:
                w -= v
                v += 1
            if v < n:
                edges.append((v, w))
    for v, w in edges:
        people[v].friends.append(w)
        people[w].friends.append(v)
    for d in people:
        d.friends.sort()


def _draw_distractors(rng: random.Random, vocab: dict, real: list[_Draft], k: int,
                      taken: set[str], job_weights: list[float] | None = None) -> list[_Draft]:
    out = []
    for _ in range(k):
        while True:
            source = rng.choice(real)
            first = source.name.split(" ", 1)[0]
            name = f"{first} {rng.choice(vocab['surnames'])}"
            if name not in taken:
                break
        taken.add(name)
        d = _Draft(name, source.gender, distractor=True)
        _draw_attributes(rng, vocab, d, job_weights)
        out.append(d)
    return out


def birthdate_mode(people: list[_Draft]) -> str:
    """``global`` unless some band would need more than half of its dates (§2.3 step 6)."""
    counts = {0: 0, 1: 0, 2: 0}
    for d in people:
        if d.distractor:
            counts[1] += 1
            counts[2] += 1
        else:
            counts[d.generation] += 1
    return "repeat" if max(counts.values()) > DATES_PER_BAND // 2 else "global"


def _draw_birthdates(rng: random.Random, people: list[_Draft], mode: str) -> None:
    used: set[tuple[int, int, int]] = set()
    for d in people:
        lo, hi = BANDS[None if d.distractor else d.generation]
        while True:
            date = (rng.randrange(lo, hi + 1), rng.randrange(1, 13), rng.randrange(1, 29))
            if mode == "repeat" or date not in used:
                break
        used.add(date)
        d.born = "%04d-%02d-%02d" % date


def generate_people(rng: random.Random, vocab: dict, n_people: int, n_distractors: int,
                    friend_degree: float, *, children_per_couple: tuple[int, int] | None = None,
                    common_jobs: int = 0, common_job_share: float = 0.9
                    ) -> tuple[list[Person], str]:
    """All people in pid order (real, then distractors) and the birthdate mode."""
    weights = job_cum_weights(len(vocab["jobs"]), common_jobs, common_job_share)
    real = _draw_names(rng, vocab, n_people)
    for d in real:
        _draw_attributes(rng, vocab, d, weights)
    size = None
    if children_per_couple is not None:
        def size() -> int:
            return rng.randint(*children_per_couple)
    _build_families(real, size)
    _build_friendships(rng, real, min(1.0, friend_degree / n_people))
    distractors = _draw_distractors(rng, vocab, real, n_distractors, {d.name for d in real},
                                    weights)
    everyone = real + distractors
    mode = birthdate_mode(everyone)
    _draw_birthdates(rng, everyone, mode)

    pids = ["p%04d" % (i + 1) for i in range(len(everyone))]
    people = [
        Person(
            pid=pids[i], name=d.name, gender=d.gender, generation=d.generation,
            distractor=d.distractor, job=d.job, hobby=d.hobby, city=d.city, born=d.born,
            spouse=None if d.spouse is None else pids[d.spouse],
            parents=tuple(pids[j] for j in d.parents),
            children=tuple(pids[j] for j in sorted(d.children)),
            friends=tuple(pids[j] for j in d.friends),
        )
        for i, d in enumerate(everyone)
    ]
    return people, mode
