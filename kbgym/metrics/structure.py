"""What the library's index layer looks like: key inference, precision and recall of index
links, families, character, edge classes, out-degree and link-support alignment. Analysis-side:
it reads the universe's people table, never the agent's view.

**An authored note's key comes from its links, not its wording.** The note's title may say
``Friends of X.``, ``X's circle of friends.``, ``About X`` or nothing at all: the metrics only
look at what it links to, so identical links give identical precision, recall, family and
(apart from ``materialized``, which is about the note's own text) character.

Keys and members (from the hidden truth):

- ``job:v`` / ``hobby:v`` / ``city:v``: the people whose fact states the value (distractors
  included). Anchor: the value.
- ``friends:P``, ``children:P``, ``parents:P``, ``spouse:P``, ``siblings:P`` (people sharing
  a parent with P), ``grandchildren:P``: those people. Anchor: P.
- ``hub:P``: every live original whose text names P (members are notes here, so a hub's
  recall is the share of P's notes it links). Anchor: P.

A link **names** a person when its target is an original whose text names that person (roster
full names, :class:`kbgym.keys.KeyFinder`), or an authored note whose own key
(inferred in a first pass from its links to originals only) is anchored at that person (a hub
or relation index of P names P; a value index names nobody). A link is **correct** for a key
when it names a member (for ``hub:P``: when it names P). This lets an index of indexes (a value
index linking its holders' hubs) score as correct.

**Inference.** The candidates are the keys for which at least one link is correct. The key is
the candidate ranked first by, in order: most correct links; most links whose target mentions
the key's anchor (the person, or the value); the best match between the people the links name
and the key's member set (Jaccard: shared / either; a hub's set is its one person here); the
kind order :data:`KINDS` (relations before values before hubs); the key string. A note with
links but no candidate is ``unscorable``; a note without links has no key (``empty``) and is
left out of precision and recall, whatever its title promises.

**Precision** = correct links / all links, over notes with a key. **Recall** = members named
by some linked note (hubs: member notes linked) / all members, summed over notes with a key.

**Families** (from the inferred key): job/hobby -> attribute, city -> city, a one-hop relation
-> relation-1, grandchildren -> relation-2, hub -> hub; no links -> empty, links but no key ->
unscorable. The family read from the note's text (the first key the claim reader,
:mod:`kbgym.claims`, finds in it, whatever its wording or format; the older title rules where
it finds none) is kept as ``families_by_title``, and ``title_agrees`` counts the notes whose
text names the same key.

**Character**: ``empty`` (0 links), ``unscorable`` (links, no key), ``materialized`` (the
note's own text names >= 2 members of its key's set; hubs exempt), else ``genuine``.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass

from kbgym.claims import read_claims, vocabulary_of
from kbgym.library.graph import Library
from kbgym.seeding import stream
from kbgym.keys import KeyFinder
from kbgym.types import Universe

_RELATION_PREFIX = re.compile(
    r"^\s*(grandchildren|children|siblings|friends|parents|spouses?)\s+of\b", re.IGNORECASE)


@dataclass(frozen=True)
class Resolution:
    """An index node's key: the member set it promises, and its family."""

    key: str | None  # e.g. "friends:p0012", "hub:p0012", "job:cooper"; None = unscorable
    members: frozenset[str]  # pids
    family: str  # city | attribute | relation-1 | relation-2 | hub | other | unscorable


def family(text: str) -> str:
    """The family of an index text read from its wording alone (the older, title-based label:
    ``families_by_title``); the metrics use the link-based family of :class:`LinkResolver`."""
    low = text.strip().casefold()
    if low.startswith("residents of") or "live in the city of" in low:
        return "city"
    if low.startswith(("people whose job", "people whose hobby")):
        return "attribute"
    m = _RELATION_PREFIX.match(text)
    if m:
        return "relation-2" if m.group(1).lower() == "grandchildren" else "relation-1"
    return "other"


class Resolver:
    """Member sets over one universe's people, and the title-based key of an index text."""

    def __init__(self, universe: Universe):
        self.u = universe
        self.by_pid = {p.pid: p for p in universe.people}
        self.by_name = {p.name.casefold(): p.pid for p in universe.people}
        self.finder = KeyFinder.for_universe(universe.people, universe.vocab)
        #: The claim reader's vocabulary (kbgym.claims); None where the world has none.
        self.vocab = vocabulary_of(universe)
        self._text_mentions: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        self._key_sets: tuple | None = None
        self._holders: dict[str, frozenset[str]] = {}
        for p in universe.people:
            for kind in ("job", "hobby", "city"):
                key = f"{kind}:{getattr(p, kind)}"
                self._holders[key] = self._holders.get(key, frozenset()) | {p.pid}

    def relation(self, rel: str, pid: str) -> frozenset[str]:
        p = self.by_pid[pid]
        if rel == "children":
            return frozenset(p.children)
        if rel == "grandchildren":
            return frozenset(g for c in p.children for g in self.by_pid[c].children)
        if rel == "parents":
            return frozenset(p.parents)
        if rel == "friends":
            return frozenset(p.friends)
        if rel == "siblings":
            return frozenset(c for q in p.parents for c in self.by_pid[q].children) - {pid}
        return frozenset([p.spouse] if p.spouse else [])  # spouse(s)

    def resolve(self, text: str) -> Resolution:
        """The key a text's wording names (secondary label only): the first key the claim
        reader finds in it (``X's circle of friends``, ``People who work as a baker``,
        ``## Friends of X``, a JSON record's key); failing that, one roster name (a relation
        prefix or a hub), else the first job/hobby/city value, else unscorable."""
        if self.vocab is not None:
            for rel, anchor in read_claims(text, self.vocab).keys:
                if rel in VALUES:
                    key = f"{rel}:{anchor}"
                    return Resolution(key, self._holders.get(key, frozenset()), _FAMILY[rel])
                pid = self.by_name.get(anchor.casefold())
                if pid is None:
                    continue
                if rel == "hub":
                    return Resolution(f"hub:{pid}", frozenset([pid]), "hub")
                if rel in _FAMILY:
                    return Resolution(f"{rel}:{pid}", self.relation(rel, pid), _FAMILY[rel])
        mentions = self.finder.mentions(text)
        people = list(dict.fromkeys(k for k in mentions if k.startswith("person:")))
        if len(people) == 1:
            pid = self.by_name[people[0][len("person:"):].casefold()]
            m = _RELATION_PREFIX.match(text)
            if m:
                rel = m.group(1).lower()
                rel = "spouse" if rel.startswith("spouse") else rel
                return Resolution(f"{rel}:{pid}", self.relation(rel, pid), family(text))
            fam = family(text)
            return Resolution(f"hub:{pid}", frozenset([pid]), "hub" if fam == "other" else fam)
        for k in mentions:
            if not k.startswith("person:"):
                return Resolution(k, self._holders.get(k, frozenset()), family(text))
        return Resolution(None, frozenset(), "unscorable")

    def named(self, text: str) -> set[str]:
        """The pids ``text`` names: full names, and where the world has a claim vocabulary any
        form the claim reader knows (initials, surname first, any letter case)."""
        out = {self.by_name[k[7:].casefold()] for k in self.finder(text)
               if k.startswith("person:")}
        if self.vocab is not None:
            out.update(self.by_name[n.casefold()] for n in read_claims(text, self.vocab).names
                       if n.casefold() in self.by_name)
        return out

    def key_sets(self) -> tuple[dict[str, list[str]], dict[str, frozenset[str]]]:
        """(pid -> every non-hub key whose member set holds that pid, non-hub key -> its
        members), over the universe's people; computed once (read-only: shared)."""
        if self._key_sets is None:
            keys_of: dict[str, list[str]] = {p.pid: [] for p in self.u.people}
            members: dict[str, frozenset[str]] = dict(self._holders)
            for key, pids in self._holders.items():
                for pid in pids:
                    keys_of[pid].append(key)
            for p in self.u.people:
                for rel in RELATIONS:
                    m = self.relation(rel, p.pid)
                    if m:
                        key = f"{rel}:{p.pid}"
                        members[key] = m
                        for pid in sorted(m):
                            keys_of[pid].append(key)
            self._key_sets = (keys_of, members)
        return self._key_sets

    def text_mentions(self, text: str) -> tuple[frozenset[str], frozenset[str]]:
        """(pids, value keys) an original note's ``text`` names; cached per text, so every
        :class:`LinkResolver` sharing this resolver (a run's library at many iterations)
        scans each text once."""
        got = self._text_mentions.get(text)
        if got is None:
            pids, values = set(), set()
            for k in self.finder(text):
                if k.startswith("person:"):
                    pids.add(self.by_name[k[7:].casefold()])
                else:
                    values.add(k)
            got = self._text_mentions[text] = (frozenset(pids), frozenset(values))
        return got


#: Relation kinds, then value kinds, then the hub: the tie-break order of key inference.
RELATIONS = ("children", "grandchildren", "friends", "siblings", "parents", "spouse")
VALUES = ("job", "hobby", "city")
KINDS = (*RELATIONS, *VALUES, "hub")
_KIND_RANK = {k: i for i, k in enumerate(KINDS)}
_FAMILY = {**{r: "relation-1" for r in RELATIONS}, "grandchildren": "relation-2",
           "job": "attribute", "hobby": "attribute", "city": "city", "hub": "hub"}


@dataclass(frozen=True)
class Inferred:
    """An authored note's key inferred from its links (see the module docstring)."""

    key: str | None  # "friends:p0012", "hub:p0012", "job:cooper"; None = no key
    members: frozenset[str]  # pids; note ids for a hub
    family: str
    correct: int  # links correct for the key
    links: int  # all links
    covered: int  # members named (hubs: member notes linked)

    @property
    def anchor(self) -> str | None:
        """The person (pid) or the value key the key is about."""
        if self.key is None:
            return None
        kind, _, rest = self.key.partition(":")
        return self.key if kind in VALUES else rest


class LinkResolver:
    """Infers authored notes' keys from their links, for one library and universe (a snapshot
    in time: build a new one after the library changes). ``keys`` maps every authored note's
    id to its :class:`Inferred` key."""

    def __init__(self, library: Library, universe: Universe, resolver: Resolver | None = None):
        self.lib = library
        self.res = resolver or Resolver(universe)
        self.keys_of, self._members = self.res.key_sets()
        self._naming: dict[str, set[str]] = {}  # pid -> live originals naming them
        mentions = self.res.text_mentions  # an original's mentions are its text's
        for node in library:
            if node.is_original:
                for pid in mentions(node.text)[0]:
                    self._naming.setdefault(pid, set()).add(node.id)
        self._first: dict[str, Inferred] = {}
        self.keys: dict[str, Inferred] = {}
        authored = [n for n in library if n.is_authored]
        for n in authored:  # pass 1: links to originals only
            self._first[n.id] = self._infer(n.links, use_authored=False)
        for n in authored:  # pass 2: authored targets stand for their pass-1 anchor
            if any(library[t].is_authored for t in n.links):
                self.keys[n.id] = self._infer(n.links, use_authored=True)
            else:  # links to originals only: pass 2 would see exactly what pass 1 saw
                self.keys[n.id] = self._first[n.id]

    def members(self, key: str) -> frozenset[str]:
        if key.startswith("hub:"):
            return frozenset(self._naming.get(key[4:], ()))
        return self._members.get(key, frozenset())

    def mentions(self, node_id: str, use_authored: bool = True
                 ) -> tuple[frozenset[str], frozenset[str]]:
        """(pids, value keys) a link to ``node_id`` names."""
        node = self.lib[node_id]
        if node.is_authored:
            first = self._first.get(node_id) if use_authored else None
            if first is None or first.key is None:
                return frozenset(), frozenset()
            a = first.anchor
            return (frozenset(), frozenset([a])) if a.partition(":")[0] in VALUES \
                else (frozenset([a]), frozenset())
        return self.res.text_mentions(node.text)

    def named(self, links: list[str], use_authored: bool = True) -> frozenset[str]:
        """The pids the notes ``links`` point to name (an authored target: its anchor)."""
        return frozenset().union(*(self.mentions(t, use_authored)[0] for t in links))

    def covered(self, node_id: str) -> frozenset[str]:
        """The members of the note's key that its links reach: the pids named by its linked
        notes, or for a hub the member notes it links (what ``Inferred.covered`` counts)."""
        r = self.keys[node_id]
        links = self.lib[node_id].links
        if r.key is None:
            return frozenset()
        if r.key.startswith("hub:"):
            return r.members.intersection(links)
        return r.members & self.named(links)

    def _infer(self, links: list[str], use_authored: bool) -> Inferred:
        if not links:
            return Inferred(None, frozenset(), "unscorable", 0, 0, 0)
        named = [self.mentions(t, use_authored) for t in links]
        correct: Counter = Counter()
        anchor: Counter = Counter()
        for pids, values in named:
            keys = {f"hub:{p}" for p in pids}
            for p in pids:
                keys.update(self.keys_of[p])
            correct.update(keys)
            anchor.update({f"{k}:{p}" for p in pids for k in (*RELATIONS, "hub")} | values)
        if not correct:
            return Inferred(None, frozenset(), "unscorable", 0, len(links), 0)

        everyone = frozenset().union(*(p for p, _ in named))  # = self.named(links)

        def rank(key: str):
            kind, _, rest = key.partition(":")
            people = frozenset([rest]) if kind == "hub" else self._members[key]
            match = len(people & everyone) / len(people | everyone)
            return (-correct[key], -anchor[key], -match, _KIND_RANK[kind], key)

        most = max(correct.values())  # rank's first term: only the most-correct keys can win
        key = min((k for k, c in correct.items() if c == most), key=rank)
        members = self.members(key)
        if key.startswith("hub:"):
            covered = len(members.intersection(links))
        else:
            covered = len(members & everyone)
        return Inferred(key, members, _FAMILY[key.partition(":")[0]], correct[key], len(links),
                        covered)


def note_family(node, inferred: Inferred) -> str:
    """The family an authored note counts in: its key's, ``unscorable`` (links, no key) or
    ``empty`` (no links)."""
    return inferred.family if node.links else "empty"


def note_character(node, inferred: Inferred, res: Resolver) -> str:
    """``empty``, ``unscorable``, ``materialized`` or ``genuine`` (the module docstring)."""
    if not node.links:
        return "empty"
    if inferred.key is None:
        return "unscorable"
    if not inferred.key.startswith("hub:") and len(res.named(node.text) & inferred.members) >= 2:
        return "materialized"
    return "genuine"


def index_structure(library: Library, universe: Universe, resolver: Resolver | None = None,
                    keys: dict[str, Inferred] | None = None) -> dict:
    """Precision, recall, families, character and out-degree of the authored (index) nodes,
    with every key inferred from the note's links (see the module docstring). ``resolver``
    (of this universe) and ``keys`` (a :class:`LinkResolver`'s, for this library) are reused
    when given."""
    res = resolver or Resolver(universe)
    if keys is None:
        keys = LinkResolver(library, universe, res).keys
    correct = total = 0
    recall_hit = recall_all = 0
    families, by_title, character = Counter(), Counter(), Counter()
    degrees = []
    scorable = agree = 0
    for node in library:
        if not node.is_authored:
            continue
        degrees.append(len(node.links))
        r = keys[node.id]
        title = res.resolve(node.text)
        by_title[title.family] += 1
        families[note_family(node, r)] += 1
        character[note_character(node, r, res)] += 1
        if r.key is None:
            continue
        scorable += 1
        agree += title.key == r.key
        total += r.links
        correct += r.correct
        recall_hit += r.covered
        recall_all += len(r.members)
    n_index = len(degrees)
    return {
        "index_nodes": n_index, "scorable": scorable,
        "precision": correct / total if total else None,
        "recall": recall_hit / recall_all if recall_all else None,
        "links_scored": total, "links_correct": correct,
        "families": dict(sorted(families.items())),
        "families_by_title": dict(sorted(by_title.items())),
        "title_agrees": agree,
        "character": {k: character.get(k, 0) for k in ("genuine", "empty", "materialized",
                                                       "unscorable")},
        "out_degree": {
            "mean": statistics.fmean(degrees) if degrees else None,
            "median": statistics.median(degrees) if degrees else None,
            "max": max(degrees) if degrees else None,
            "empty": sum(d == 0 for d in degrees), "thin": sum(d < 5 for d in degrees),
        },
    }


def edge_classes(library: Library) -> dict:
    """Counts of index→fact, index→index, fact→fact and fact→index links."""
    c = Counter()
    for node in library:
        src = "index" if node.is_authored else "fact"
        for t in node.links:
            dst = "index" if library[t].is_authored else "fact"
            c[f"{src}->{dst}"] += 1
    return {k: c.get(k, 0) for k in ("index->fact", "index->index", "fact->fact", "fact->index")}


def link_support_alignment(library: Library, universe: Universe, seed: int | None = None,
                           pairs: int = 20_000) -> dict:
    """Lift of the share of fact→fact links whose endpoints share a question's support over
    the same share among random pairs of live originals (stream ``metrics/alignment``)."""
    seed = universe.meta["seed"] if seed is None else seed
    together: set[tuple[str, str]] = set()
    for q in universe.questions:
        sup = sorted(q.support)
        together.update((a, b) for i, a in enumerate(sup) for b in sup[i + 1:])

    def co(a: str, b: str) -> bool:
        return (min(a, b), max(a, b)) in together

    links = [(n.id, t) for n in library if n.is_original for t in n.links
             if library[t].is_original]
    link_share = sum(co(a, b) for a, b in links) / len(links) if links else None
    originals = [n.id for n in library if n.is_original]
    rng = stream(seed, "metrics/alignment")
    hits = 0
    if len(originals) >= 2:
        for _ in range(pairs):
            a = rng.choice(originals)
            b = rng.choice(originals)
            while b == a:
                b = rng.choice(originals)
            hits += co(a, b)
    random_share = hits / pairs if len(originals) >= 2 else None
    lift = (link_share / random_share) if link_share is not None and random_share else None
    return {"fact_fact_links": len(links), "link_share": link_share,
            "random_share": random_share, "lift": lift}
