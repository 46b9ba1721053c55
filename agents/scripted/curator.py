"""Scripted backward-phase curators (no language model).

- :class:`IndexCurator` follows the CURATION rules (SPEC §9.5): it names the question's keys,
  builds or extends one complete index note per key (one key at a time, each finished before
  the next), links only members it verified in text it was shown, never lists members in the
  sentence, changes nothing that is already complete, deletes an index left with no members,
  and calls ``done()``.
- :class:`ContentWriter` is the shortcut the paper warns about: it writes the verified answer as
  one sentence (``The job of the spouse of X is baker.``) and calls ``done()``.
- :class:`NoopCurator` calls ``done()`` at once.
- :class:`RandomCurator` takes seeded random valid and invalid actions, then ``done()``.

All of them decide from ``obs["text"]`` only: the backward task block (question, own answer,
``gold answer: "..."``) and the remembered forward and backward actions.
"""

from __future__ import annotations

import math
import random
from collections.abc import Generator, Iterable

from kbgym.protocol.ids import id_key
from kbgym.protocol.results import parse_edit
from kbgym_agents.base import Action, BaseAgent
from kbgym_agents.scripted.knowledge import Knowledge, Tier
from kbgym_agents.scripted.queries import (
    children_query,
    friends_query,
    hub_query,
    parent_word,
    spouse_query,
    value_query,
)
from kbgym_agents.scripted.text import (
    Fact,
    ParsedQuestion,
    answer_statement,
    fact_names,
    parse_observation,
    parse_question,
    tokens,
)

Plan = Generator[Action, None, object]


def sync_links(curator, source: str, missing: list[str], wrong: list[str]) -> Plan:
    """Bring an index's links in line: ``link_many`` the missing targets in batches, then
    unlink the wrong ones, while more than one step (for ``done``) is left. ``curator`` has
    ``steps_left``, ``last_result``, ``link_batch_max``, ``stats`` and ``kb.links``."""
    for i in range(0, len(missing), curator.link_batch_max):
        if curator.steps_left <= 1:
            return
        batch = missing[i:i + curator.link_batch_max]
        action = {"action": "link_many", "source": source, "targets": batch}
        if getattr(curator, "link_type", None):
            action["type"] = curator.link_type
        yield action
        curator.stats["links"] += len(batch)
    for t in wrong:
        if curator.steps_left <= 1:
            return
        yield {"action": "unlink", "source": source, "target": t}
        if curator.last_result.startswith("unlinked"):
            links = curator.kb.links
            links[source] = [x for x in links.get(source, []) if x != t]
            curator.stats["unlinked"] += 1


#: Index titles (SPEC §9.5 CURATION, §12.3 families). A person's relation index opens with the
#: relation (``Friends of X``) and then repeats the wording of its member notes, so that it
#: ranks first under the search a reader makes for that set (``X is a friend of``) while the
#: indexes of other people stay below the set (see :mod:`kbgym_agents.scripted.queries`).
TITLES = {
    "hub": "Index of notes about {key}.",
    "job": "People whose job is {key}.",
    "hobby": "People whose hobby is {key}.",
    "city": "Residents of {key}.",
    "friends": "Friends of {key}: everyone {key} is a friend of.",
    "children": "Children of {key}: everyone {key} is the {role} of.",
    "grandchildren": "Grandchildren of {key}: the children of everyone {key} is the {role} of.",
}
#: The bare titles (``Friends of X.``): under the reader's set queries they rank just below the
#: notes they index, so the reader finds them only after paging (kept for comparison runs).
SHORT_TITLES = {**TITLES, "friends": "Friends of {key}.", "children": "Children of {key}.",
                "grandchildren": "Grandchildren of {key}."}

#: The keys each template names, most useful first: (relation, slot). ``S`` is X's spouse.
KEYS: dict[str, tuple[tuple[str, str], ...]] = {
    "qc1_job": (("hub", "X"),),
    "qc1_hobby": (("hub", "X"),),
    "qc1_city": (("hub", "X"),),
    "qc2_spouse_job": (("hub", "X"),),
    "qc2_father_hobby": (("hub", "X"),),
    "qc2_mother_city": (("hub", "X"),),
    "qc3_spouse_father_hobby": (("hub", "X"),),
    "qc3_father_spouse_job": (("hub", "X"),),
    "qc3_spouse_mother_city": (("hub", "X"),),
    "qc4_children": (("children", "X"),),
    "qc4_friends": (("friends", "X"),),
    "qc5_brother_job": (("hub", "X"),),
    "qc5_sister_hobby": (("hub", "X"),),
    "qc5_spouse_city": (("hub", "X"),),
    "qc6_job_city": (("job", "job"), ("city", "city")),
    "qc6_job_hobby": (("job", "job"), ("hobby", "hobby")),
    "qc6_job_city_hobby": (("job", "job"), ("hobby", "hobby"), ("city", "city")),
    "qc7_common_friend": (("friends", "X"), ("friends", "Y")),
    "qc7_child_friend": (("children", "X"), ("friends", "Y")),
    "qc8_grandchildren": (("children", "X"), ("grandchildren", "X")),
    "qc8_friend_job": (("friends", "X"), ("job", "job")),
    "qc8_spouse_friends": (("friends", "S"),),
    "qc9_older_pair": (("hub", "X"), ("hub", "Y")),
    "qc9_oldest_child": (("children", "X"),),
    "qc10_spouse_job_city": (("job", "job"), ("city", "city")),
    "qc10_spouse_job": (("job", "job"),),
}


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


class PlanCurator(BaseAgent):
    """Shared plumbing of the scripted curators of every world: fold observations into a
    knowledge store (:meth:`new_knowledge`), start a plan generator in the backward phase
    (:meth:`start_plan`) and call ``done()`` when the plan ends or one step is left."""

    def __init__(self, *, page_size: int = 5, max_page: int = 12, link_batch_max: int = 40):
        self.page_size = page_size
        self.max_page = max_page
        self.link_batch_max = link_batch_max
        self.reset()

    def new_knowledge(self):
        return Knowledge(self.page_size)

    def reset(self) -> None:
        self.kb = self.new_knowledge()
        self._task: str | None = None
        self._plan: Plan | None = None
        self.steps_left = 0
        self.last_result = ""
        self.question: ParsedQuestion | None = None
        self.gold: str | None = None

    def start_plan(self, obs) -> Plan:
        """The backward phase's plan, from its observation (the question and the gold)."""
        self.question = parse_question(obs.question)
        self.gold = obs.task.gold if obs.task is not None else None
        return self.plan()

    def act(self, observation: dict, info: dict | None = None) -> Action | None:
        obs = parse_observation(observation["text"])
        if obs.task != self._task:  # a new phase or episode: read everything remembered
            self.reset()
            self._task = obs.task
            self.kb.ingest(obs)
        elif obs.entries:
            e = obs.entries[-1]
            self.kb.ingest_entry(e.name, e.args, e.result)
            self.last_result = e.result
        self.steps_left = observation.get("steps_left", obs.remaining) or 0
        if observation.get("phase", 2) != 2:
            return {"action": "answer", "text": "unknown"}  # not a backward agent's phase
        if self._plan is None:
            self._plan = self.start_plan(obs)
        if self.steps_left <= 1:
            return {"action": "done"}
        try:
            return next(self._plan)
        except StopIteration:
            return {"action": "done"}

    def plan(self) -> Plan:
        return
        yield

    def _find_title(self, title: str, shown: Iterable[str] | None = None) -> Plan:
        """The id of an existing note whose text is ``title`` (the first of ``shown``, ids
        in the order to prefer, by default the order first shown); searches the title if no
        note seen so far has it."""
        kb = self.kb
        norm = _norm(title)
        for nid in kb.order if shown is None else shown:
            if nid in kb.notes and _norm(kb.notes[nid]) == norm:
                return nid
        query = title.rstrip(".")
        if (query, 1) not in kb.pages:
            yield {"action": "search", "query": query, "page": 1}
        for nid, text in kb.pages.get((query, 1)) or []:
            if _norm(text) == norm:
                return nid
        return None


class NoopCurator(PlanCurator):
    """Calls ``done()`` at once: the library is left exactly as it was."""

    name = "noop-curator"


class ContentWriter(PlanCurator):
    """Writes the verified (gold) answer as one sentence, unless it is already there."""

    name = "content-writer"

    def plan(self) -> Plan:
        if self.question is None or self.gold is None:
            return
        sentence = answer_statement(self.question, self.gold)
        yield {"action": "search", "query": sentence, "page": 1}
        if any(_norm(t) == _norm(sentence) for t in self.kb.notes.values()):
            return
        yield {"action": "add", "text": sentence}


class RandomCurator(PlanCurator):
    """Seeded random valid and invalid backward actions, then ``done()``.

    The random stream is owned by the agent (``random.Random(seed)``) and is not reset between
    episodes, so a run is a pure function of the seed and the observations."""

    name = "random-curator"

    def __init__(self, seed: int = 0, *, max_actions: int = 10, **kwargs):
        self.rng = random.Random(seed)
        self.max_actions = max_actions
        super().__init__(**kwargs)

    def _ids(self) -> list[str]:
        return sorted(self.kb.notes, key=id_key) or ["s0001"]

    def _words(self) -> list[str]:
        q = self._task.question if self._task is not None and self._task.question else "note"
        return tokens(q) or ["note"]

    def _random_action(self) -> Action:
        rng = self.rng
        kind = rng.choice(("search", "read", "add", "link", "link_many", "unlink", "edit",
                           "delete", "invalid", "invalid", "search", "read", "add", "link"))
        ids, words = self._ids(), self._words()
        authored = [i for i in ids if i not in self.kb.facts]
        if kind == "search":
            return {"action": "search", "query": " ".join(rng.choice(words) for _ in range(2)),
                    "page": rng.randrange(1, 4)}
        if kind == "read":
            return {"action": "read", "id": rng.choice(ids)}
        if kind == "add":
            n = rng.randrange(2, 7)
            return {"action": "add", "text": " ".join(rng.choice(words) for _ in range(n)) + "."}
        if kind == "link":
            return {"action": "link", "source": rng.choice(ids), "target": rng.choice(ids)}
        if kind == "link_many":
            return {"action": "link_many", "source": rng.choice(authored or ids),
                    "targets": [rng.choice(ids) for _ in range(rng.randrange(1, 6))]}
        if kind == "unlink":
            return {"action": "unlink", "source": rng.choice(ids), "target": rng.choice(ids)}
        if kind == "edit":
            return {"action": "edit", "id": rng.choice(authored or ids),
                    "text": " ".join(rng.choice(words) for _ in range(4)) + "."}
        if kind == "delete":
            return {"action": "delete", "id": rng.choice(authored or ids)}
        return rng.choice(({"action": "fly"}, {"action": "read"}, {"action": "search", "query": ""},
                           {"action": "search", "query": "x", "page": 99},
                           {"action": "link_many", "source": rng.choice(ids), "targets": []},
                           {"action": "answer", "text": "unknown"}, {"nonsense": True}))

    def plan(self) -> Plan:
        for _ in range(self.rng.randrange(0, self.max_actions + 1)):
            yield self._random_action()


class IndexCurator(PlanCurator):
    """Builds and extends complete, precise index notes for the question's keys (§9.5).

    For each key, in the order of :data:`KEYS`: page through the key's search until its
    on-topic hits end (the member set is then complete), find an existing index with the same
    title (it shows up in the search, or a title search finds it), and then either extend it
    (``link_many`` the verified members it lacks, ``unlink`` linked facts that name no member)
    or ``add`` the title and link the members, 40 per call. A key whose members cannot all be
    verified within the budget is left alone: an index promises completeness. An existing index
    left with no members is deleted.

    ``stats`` counts what was built: ``added``, ``extended``, ``links``, ``unlinked``,
    ``deleted``, ``skipped`` (keys given up for budget) over the agent's lifetime."""

    name = "index-curator"

    #: steps kept back for writing one key: title search, add, link_many, done.
    RESERVE = 4

    def __init__(self, *, titles: dict[str, str] | None = None, link_type: str | None = None,
                 **kwargs):
        self.titles = dict(TITLES if titles is None else titles)
        #: typed mode (SPEC §18, ``typed_links=True``): member links carry this type
        self.link_type = link_type
        self.stats = {"added": 0, "extended": 0, "links": 0, "unlinked": 0, "deleted": 0,
                      "skipped": 0, "complete": 0}
        super().__init__(**kwargs)

    # -- plan --------------------------------------------------------------------------
    def plan(self) -> Plan:
        q = self.question
        if q is None:
            return
        for rel, slot in KEYS.get(q.template, ()):
            key = q.slots.get(slot) if slot != "S" else (yield from self._spouse(q.X))
            if not key:
                continue
            yield from self._build(rel, key)

    def _spouse(self, x: str | None) -> Plan:
        if not x:
            return None
        kb = self.kb
        page = 1
        query, tier = spouse_query(x)
        kb.tiers.setdefault(query, tier)
        while not kb.spouses(x) and page <= 3 and self.steps_left > self.RESERVE + 1:
            if not kb.has_page(query, page):
                yield {"action": "search", "query": query, "page": page}
            if kb.exhausted(query, page):
                break
            page += 1
        found = sorted(kb.spouses(x))
        return found[0] if found else None

    # -- members -----------------------------------------------------------------------
    def _page_through(self, query: str, tier: Tier) -> Plan:
        """Page ``query`` to the end of its on-topic hits; ``False`` if budget/pages ran out."""
        kb = self.kb
        kb.tiers.setdefault(query, tier)
        for page in range(1, self.max_page + 1):
            if not kb.has_page(query, page):
                if self.steps_left <= self.RESERVE + 1:
                    return False
                yield {"action": "search", "query": query, "page": page}
            if kb.exhausted(query, page):
                return True
        return False

    def _children_of(self, x: str) -> Plan:
        """(complete, {child: note id}) from the notes seen: ``x is the father of C`` preferred,
        else ``C is a child of x``."""
        ok = yield from self._page_through(*children_query(x))
        kb = self.kb
        out: dict[str, str] = {}
        for nid in kb.fact_notes(lambda f: f.kind in ("father_of", "mother_of") and f.subj == x):
            out.setdefault(kb.facts[nid].obj, nid)
        for nid in kb.fact_notes(lambda f: f.kind == "child_of" and f.obj == x):
            out.setdefault(kb.facts[nid].subj, nid)
        return ok, out

    def _members(self, rel: str, key: str) -> Plan:
        """(complete, member names, target note ids in id order) for one key."""
        kb = self.kb
        if rel in ("job", "hobby", "city"):
            ok = yield from self._page_through(*value_query(key))
            targets = kb.fact_notes(lambda f: f.kind == rel and f.obj == key)
            return ok, {kb.facts[t].subj for t in targets}, _first_per_member(kb, targets, rel, key)
        if rel == "hub":
            ok = yield from self._page_through(*hub_query(key))
            return ok, {key}, kb.naming(key)
        if rel == "friends":
            ok = yield from self._page_through(*friends_query(key))
            chosen: dict[str, str] = {}
            for nid in kb.fact_notes(lambda f: f.kind == "friend_of" and f.subj == key):
                chosen.setdefault(kb.facts[nid].obj, nid)
            for nid in kb.fact_notes(lambda f: f.kind == "friend_of" and f.obj == key):
                chosen.setdefault(kb.facts[nid].subj, nid)
            return ok, set(chosen), sorted(chosen.values(), key=id_key)
        if rel == "children":
            ok, kids = yield from self._children_of(key)
            return ok, set(kids), sorted(kids.values(), key=id_key)
        if rel == "grandchildren":
            ok, kids = yield from self._children_of(key)
            grand: dict[str, str] = {}
            for kid in sorted(kids):
                if not ok:
                    break
                ok, theirs = yield from self._children_of(kid)
                for g, nid in theirs.items():
                    grand.setdefault(g, nid)
            return ok, set(grand), sorted(grand.values(), key=id_key)
        return False, set(), []

    def _role(self, x: str) -> str:
        """``father`` or ``mother``: from ``x``'s own parent notes, else from the first name."""
        for _, f in self.kb.all_facts():
            if f.subj == x and f.kind in ("father_of", "mother_of"):
                return f.kind[: -len("_of")]
        return parent_word(x)

    # -- writing -----------------------------------------------------------------------
    def _build(self, rel: str, key: str) -> Plan:
        kb = self.kb
        if self.steps_left <= self.RESERVE + 1:
            self.stats["skipped"] += 1
            return
        ok, members, targets = yield from self._members(rel, key)
        if not ok:
            self.stats["skipped"] += 1
            return
        title = self.titles[rel].format(key=key, role=self._role(key))
        existing = yield from self._find_title(title)
        if existing is not None and existing not in kb.links:
            yield {"action": "read", "id": existing}
        linked = kb.links.get(existing, []) if existing is not None else []
        missing = [t for t in targets if t not in linked]
        wrong = [t for t in linked if t in kb.facts
                 and not set(fact_names(kb.facts[t])) & members]
        if existing is None:
            if not targets:
                return
            need = 1 + math.ceil(len(missing) / self.link_batch_max) + 1
            if self.steps_left < need:
                self.stats["skipped"] += 1
                return
            yield {"action": "add", "text": title}
            existing = added_id(self.last_result)
            if existing is None:
                return
            kb.links.setdefault(existing, [])
            self.stats["added"] += 1
        elif missing or wrong:
            self.stats["extended"] += 1
        else:
            self.stats["complete"] += 1
        yield from sync_links(self, existing, missing, wrong)
        if not kb.links.get(existing) and not targets and self.steps_left > 1:
            yield {"action": "delete", "id": existing}
            self.stats["deleted"] += 1
        elif self.link_type and rel == "grandchildren":
            yield from self._refer(existing, self.titles["children"].format(
                key=key, role=self._role(key)))

    def _refer(self, source: str, title: str) -> Plan:
        """Typed mode: a ``refers_to`` link from an index to the related index titled
        ``title`` (a grandchildren index to the children index of the same person), when that
        one exists and the link does not."""
        target = yield from self._find_title(title)
        if (target is None or target == source or target in self.kb.links.get(source, [])
                or self.steps_left <= 1):
            return
        yield {"action": "link", "source": source, "target": target, "type": "refers_to"}
        if self.last_result.startswith("linked"):
            self.kb.links.setdefault(source, []).append(target)


def _first_per_member(kb: Knowledge, targets: list[str], rel: str, key: str) -> list[str]:
    """One note per member (the first in id order), so a duplicated fact is linked once."""
    seen: set[str] = set()
    out = []
    for t in targets:
        f: Fact = kb.facts[t]
        if f.subj not in seen:
            seen.add(f.subj)
            out.append(t)
    return out


def added_id(result: str) -> str | None:
    """The note id of ``added {id}`` or ``duplicate of {id} - merged, ...``."""
    out = parse_edit(result)
    return out.ids[0] if out is not None and out.kind in ("added", "duplicate") else None
