"""What the library's index layer looks like (SPEC §12.3): key resolution, precision and
recall of index links, families, character, edge classes, out-degree and link-support
alignment. Analysis-side: it reads the universe's people table, never the agent's view."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass

from kbgym.library.graph import Library
from kbgym.seeding import stream
from kbgym.universe.keys import KeyFinder
from kbgym.universe.types import Universe

_RELATION_PREFIX = re.compile(
    r"^\s*(grandchildren|children|siblings|friends|parents|spouses?)\s+of\b", re.IGNORECASE)
ONE_HOP = {"children", "siblings", "friends", "parents", "spouse", "spouses"}


@dataclass(frozen=True)
class Resolution:
    """An index node's key: the member set it promises, and its family."""

    key: str | None  # e.g. "friends:p0012", "hub:p0012", "job:cooper"; None = unscorable
    members: frozenset[str]  # pids
    family: str  # city | attribute | relation-1 | relation-2 | hub | other | unscorable


def family(text: str) -> str:
    """The §12.3 family of an index text, from its wording alone."""
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
    """Resolves index texts to member sets over one universe's people."""

    def __init__(self, universe: Universe):
        self.u = universe
        self.by_pid = {p.pid: p for p in universe.people}
        self.by_name = {p.name.casefold(): p.pid for p in universe.people}
        self.finder = KeyFinder.for_universe(universe.people, universe.vocab)
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
        """Key resolution in the §12.3 order: one roster name (a relation prefix or a hub),
        else the first job/hobby/city value, else unscorable."""
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
        """The pids whose full names occur in ``text``."""
        return {self.by_name[k[7:].casefold()] for k in self.finder(text) if k.startswith("person:")}


def index_structure(library: Library, universe: Universe) -> dict:
    """Precision, recall, families, character and out-degree of the authored (index) nodes."""
    res = Resolver(universe)
    correct = total = 0
    recall_hit = recall_all = 0
    families, character = Counter(), Counter()
    degrees = []
    scorable = 0
    for node in library:
        if not node.is_authored:
            continue
        degrees.append(len(node.links))
        r = res.resolve(node.text)
        families[r.family] += 1
        if not node.links:
            character["empty"] += 1
        elif r.key is None:
            character["unscorable"] += 1
        elif not r.key.startswith("hub:") and len(res.named(node.text) & r.members) >= 2:
            character["materialized"] += 1
        else:
            character["genuine"] += 1
        if r.key is None:
            continue
        scorable += 1
        covered: set[str] = set()
        for t in node.links:
            target = library[t]
            total += 1
            hit = res.named(target.text) & r.members
            covered |= hit  # recall: members named by any linked note
            if hit and target.is_original:  # precision: only originals count as correct
                correct += 1
        recall_hit += len(covered)
        recall_all += len(r.members)
    n_index = len(degrees)
    return {
        "index_nodes": n_index, "scorable": scorable,
        "precision": correct / total if total else None,
        "recall": recall_hit / recall_all if recall_all else None,
        "links_scored": total, "links_correct": correct,
        "families": dict(sorted(families.items())),
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
