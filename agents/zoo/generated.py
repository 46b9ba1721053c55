"""A generated zoo: random libraries built from the hidden truth, to audit the examiner.

:func:`generate_libraries` takes a universe and the questions a curator trained on and makes
``n`` libraries, each the untrained library plus authored notes (and links on originals) in a
random mix of **shapes**, worded in a random mix of **text forms**, and sometimes **harmed**:

- shapes: ``relation_index`` (a person's friends, children, grandchildren, parents, spouse),
  ``value_index`` (everyone with a job, hobby or city), ``hub`` (every statement naming a
  person), ``card`` (some of a person's own attribute statements), ``intersection`` (the
  people with both values of a join, both their statements linked), ``index_of_indexes`` (a
  set split into sub-notes that only the parent links), ``chains`` (each statement of a set
  linking the set's other statements: links on original notes);
- text forms: ``extra_question``, ``extra_answer`` (a true answer statement appended),
  ``member_names``, ``cross_reference`` (another key named), ``lower_case``, ``upper_case``,
  ``lower_names``, ``initials``, ``surname_first``; titles are drawn from several wordings;
- harms: ``dropped_members`` (indexes missing members), ``wrong_members`` (indexes linking
  authored false member statements), ``deleted_facts`` (support of trained questions gone),
  ``false_statements`` (false §3 sentences about the trained questions' answers);
- noise: ``stray_links`` (indexes also linking statements that are not members).

A library is **truthful** when its authored notes state only true facts and link only true
members (no harm, no noise); **harmful** when it has a harm. Everything is a pure function of
(universe, seed, n, questions): library ``i`` draws from ``random.Random(derive(seed,
"zoo/generated/{i}"))``.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kbgym.library.graph import Library
from kbgym.seeding import derive
from kbgym.worlds.people.statements import answer_statement
from kbgym.worlds.people.relations import mirrors
from kbgym.types import Question, Universe
from kbgym_agents.scripted.knowledge import plural_forms
from kbgym_agents.scripted.text import parse_question
from kbgym_agents.zoo.renderings import LISTS_MEMBERS, RENDERINGS, render

SHAPES = ("relation_index", "value_index", "hub", "card", "intersection", "index_of_indexes",
          "chains")
TEXT_FORMS = ("extra_question", "extra_answer", "member_names", "cross_reference",
              "lower_case", "upper_case", "lower_names", "initials", "surname_first")
#: The text forms a rendering stands for (one of them is drawn).
RENDERING_FORMS = {"case": ("lower_case", "upper_case"),
                   "initials": ("initials", "surname_first", "lower_names")}
HARMS = ("dropped_members", "wrong_members", "wrong_member_text", "deleted_facts",
         "false_statements")
NOISE = ("stray_links",)

PERSON_RELS = ("friends", "children", "grandchildren", "parents", "spouse")
VALUE_KINDS = ("job", "hobby", "city")

#: Title wordings; ``{X}`` a person as the library writes names, ``{v}`` a value, ``{vs}`` its
#: plural, ``{w}`` a second value (intersections).
TITLES: dict[str, tuple[str, ...]] = {
    "friends": ("Friends of {X}.", "{X}'s friends.", "{X} - friend list", "{X}.",
                "People {X} knows.", "Index: {X} / friends", "{X}: social circle."),
    "children": ("Children of {X}.", "{X}'s kids.", "{X} - children", "{X}.",
                 "Offspring of {X}."),
    "grandchildren": ("Grandchildren of {X}.", "{X}'s grandkids.", "{X} - grandchildren",
                      "Two generations below {X}."),
    "parents": ("Parents of {X}.", "{X}'s father and mother.", "{X} - parents"),
    "spouse": ("Spouse of {X}.", "{X}'s marriage.", "{X} - married"),
    "hub": ("About {X}.", "Everything on {X}.", "{X} (all notes).", "{X}"),
    "card": ("{X}: card.", "Profile of {X}.", "{X} at a glance."),
    "value": ("{Vs}.", "Everyone listed under {v}.", "{v} - who", "Index: {v}",
              "All the {vs}."),
    "intersection": ("{Vs} in {W}.", "{v} + {w}", "Both {v} and {w}."),
    "parent": ("{Vs}, by group.", "Index of {v} indexes.", "{v}: see the parts."),
    "part": ("{Vs}: part {k}.", "{v} ({k})"),
}


@dataclass(frozen=True)
class GeneratedLibrary:
    """One generated library: ``shapes``, ``text_forms`` and ``harms`` (and ``noise``) it was
    built with; ``truthful`` when it has no harm and no noise."""

    name: str
    library: Library
    truthful: bool
    shapes: tuple[str, ...]
    text_forms: tuple[str, ...]
    harms: tuple[str, ...]
    noise: tuple[str, ...] = ()
    rendering: str = "short"
    #: the same links under the canonical short titles (``twins=True``, a truthful library
    #: in another rendering), else None
    twin: Library | None = None

    @property
    def harmful(self) -> bool:
        return bool(self.harms)


class Truth:
    """The hidden truth as sets of original notes: who is in which set, by which notes."""

    def __init__(self, universe: Universe):
        self.u = universe
        self.by_pid = {p.pid: p for p in universe.people}
        self.by_name = {p.name: p for p in universe.people}
        self.subj: dict[tuple[str, str], list[str]] = defaultdict(list)  # (kind, pid) -> ids
        self.obj: dict[tuple[str, str], list[str]] = defaultdict(list)  # (kind, obj) -> ids
        self.node = {n.id: n for n in universe.nodes}
        self._naming: dict[str, list[str]] = defaultdict(list)  # pid -> notes naming them
        for n in universe.nodes:  # id order
            self.subj[(n.fact.kind, n.fact.subject)].append(n.id)
            self.obj[(n.fact.kind, n.fact.object)].append(n.id)
            self._naming[n.fact.subject].append(n.id)
            if n.fact.object in self.by_pid and n.fact.object != n.fact.subject:
                self._naming[n.fact.object].append(n.id)

    def name(self, pid: str) -> str:
        return self.by_pid[pid].name

    def members(self, rel: str, key: str) -> dict[str, list[str]]:
        """member (name) -> the original notes stating membership, both directions."""
        out: dict[str, list[str]] = defaultdict(list)
        if rel in VALUE_KINDS:
            for nid in self.obj[(rel, key)]:
                out[self.name(self.node[nid].fact.subject)].append(nid)
            return dict(out)
        p = self.by_name[key]
        kinds = {"friends": ("friend_of", "friend_of"), "children": ("parent_of", "child_of"),
                 "parents": ("child_of", "parent_of"), "spouse": ("married", "married")}
        if rel == "grandchildren":
            for c in p.children:
                for g, nids in self.members("children", self.name(c)).items():
                    out[g].extend(nids)
            return dict(out)
        fwd, back = kinds[rel]
        for nid in self.subj[(fwd, p.pid)]:
            out[self.name(self.node[nid].fact.object)].append(nid)
        for nid in self.obj[(back, p.pid)]:
            out[self.name(self.node[nid].fact.subject)].append(nid)
        return dict(out)

    def naming(self, name: str) -> list[str]:
        """Every original note naming the person, in id order."""
        return list(self._naming[self.by_name[name].pid])

    def attributes(self, name: str) -> list[str]:
        pid = self.by_name[name].pid
        return [nid for kind in ("job", "hobby", "city", "born") for nid in self.subj[(kind, pid)]]


def question_keys(truth: Truth, questions: Iterable[Question]
                  ) -> tuple[dict[str, set[str]], set[tuple[str, str]], list[tuple]]:
    """The person keys (name -> relations worth indexing), the value keys and the joins
    ((kind, value) pairs asked together) of ``questions``."""
    people: dict[str, set[str]] = defaultdict(set)
    values: set[tuple[str, str]] = set()
    joins: list[tuple] = []
    for q in questions:
        vals = []
        for k in q.keys:
            kind, _, v = k.partition(":")
            if kind == "person" and v in truth.by_name:
                people[v] |= {r for r in PERSON_RELS if truth.members(r, v)}
                if q.template == "qc8_spouse_friends":
                    sp = truth.by_name[v].spouse
                    if sp:
                        people[truth.name(sp)].add("friends")
            elif kind in VALUE_KINDS:
                values.add((kind, v))
                vals.append((kind, v))
        if len(vals) >= 2:
            joins.append(tuple(sorted(vals)))
    return dict(people), values, list(dict.fromkeys(joins))


class _Builder:
    """Writes one library: authored notes with a title and links, then harms."""

    def __init__(self, truth: Truth, rng: random.Random, forms: Sequence[str],
                 questions: Sequence[Question], rendering: str = "short"):
        self.t = truth
        self.rng = rng
        self.forms = set(forms)
        self.rendering = rendering
        self.lib = Library.from_universe(truth.u)
        self.questions = questions
        self.notes: list[dict] = []  # {"key", "title", "links", "set": (rel, key) | None}
        self.sides = rng.choice(("both", "forward", "backward"))

    # -- text ----------------------------------------------------------------------
    def person(self, name: str) -> str:
        first, _, last = name.partition(" ")
        if not last:
            return name
        if "initials" in self.forms:
            return f"{first[0]}. {last}"
        if "surname_first" in self.forms:
            return f"{last}, {first}"
        if "lower_names" in self.forms:
            return name.lower()
        return name

    def slots(self, **slots) -> dict[str, str]:
        v = slots.get("v", "")
        out = {k: str(x) for k, x in slots.items()}
        out["X"] = self.person(slots.get("X", "")) if slots.get("X") else ""
        out["vs"] = plural_forms(v)[1] if v else ""
        return out

    def title(self, kind: str, **slots) -> str:
        pattern = self.rng.choice(TITLES[kind])
        v = slots.get("v", "")
        vs = plural_forms(v)[1] if v else ""
        return pattern.format(X=self.person(slots.get("X", "")), v=v, vs=vs,
                              Vs=vs[:1].upper() + vs[1:], w=slots.get("w", ""),
                              W=slots.get("w", "")[:1].upper() + slots.get("w", "")[1:],
                              k=slots.get("k", ""))

    def titled(self, kind: str, **slots) -> tuple[str, str, dict[str, str]]:
        """(short title, kind, slots): what :meth:`add` needs to write the note in any
        rendering (the short title is drawn now, so every rendering draws alike)."""
        short = self.title("value" if kind in VALUE_KINDS else kind, **slots)
        return short, kind, self.slots(**slots)

    def finish_text(self, note: dict, keys: list[str]) -> str:
        text = self.short_title(note)
        if self.rendering in LISTS_MEMBERS or self.rendering == "long":
            shown = sorted(self.person(m) for m in note.get("members") or ())
            if note.get("text_wrong"):
                shown = sorted(shown + [self.person(note["text_wrong"])])
            text = render(self.rendering, note["kind"], note["slots"], text, shown, self.rng,
                          note.get("gender"))
        extra = []
        key = note["key"]
        qs = [q for q in self.questions if any(k.endswith(f":{key}") for k in q.keys)]
        if ("extra_question" in self.forms or self.rendering == "questions") and qs:
            extra.append(self.rng.choice(qs).text)
        if ("extra_answer" in self.forms or self.rendering == "answers") and qs:
            q = self.rng.choice(qs)
            pq = parse_question(q.text)
            if pq is not None:
                stated = answer_statement(q.template, pq.slots, q.golds[0])
                extra.append(("Verified: " if self.rendering == "answers" else "") + stated)
        if "member_names" in self.forms and note.get("members"):
            extra.append("Members: " + ", ".join(self.person(m) for m in
                                                 sorted(note["members"])[:8]) + ".")
        if "cross_reference" in self.forms and len(keys) > 1:
            other = self.rng.choice([k for k in keys if k != key])
            shown = self.person(other) if other in self.t.by_name else other
            extra.append(f"See also {shown}.")
        if extra:
            text = text.rstrip() + (" " if text.rstrip().endswith(".") else ". ") + " ".join(extra)
        if "lower_case" in self.forms:
            text = text.lower()
        elif "upper_case" in self.forms:
            text = text.upper()
        return text[:1000]

    def short_title(self, note: dict) -> str:
        """The note's short title with its key's name as this builder writes names: a twin
        (no name forms) writes in full the name a rendering with initials, surname first or
        lower-case names wrote when the title was drawn."""
        named = note.get("named")
        if named is None or named[0] == self.person(named[1]):
            return note["title"]
        return note["title"].replace(named[0], self.person(named[1]))

    # -- links ---------------------------------------------------------------------
    def side(self, rel: str, key: str) -> dict[str, list[str]]:
        """The set's member -> notes, keeping the library's chosen direction where a relation
        is written from both ends."""
        members = self.t.members(rel, key)
        if rel in VALUE_KINDS or self.sides == "both":
            return members
        out = {}
        for m, nids in members.items():
            keep = [n for n in nids if self._forward(n, rel, key) == (self.sides == "forward")]
            out[m] = keep or nids
        return out

    def _forward(self, nid: str, rel: str, key: str) -> bool:
        subj = self.t.name(self.t.node[nid].fact.subject)
        return subj == key if rel != "grandchildren" else self.t.node[nid].fact.kind == "parent_of"

    def add(self, key: str, title: str | tuple, links: list, set_: tuple | None = None,
            members: Iterable[str] | dict[str, list[str]] = ()) -> dict:
        """One authored note; ``title`` is a short title, or :meth:`titled`'s (short title,
        kind, slots) so that the note can be written in the library's rendering."""
        # a set's member -> its notes where given (``dropped_members`` drops them), else names
        kept = dict(members) if isinstance(members, dict) else set(members)
        if isinstance(title, tuple):
            title, kind, slots = title
        else:
            kind, slots = "plain", {}
        gender = None
        if key in self.t.by_name:
            gender = self.t.by_name[key].gender
        # how the title wrote the key's name (``E. Hargreaves``), for a twin to write it whole
        named = (self.person(key), key) if key in self.t.by_name else None
        note = {"key": key, "title": title, "kind": kind, "slots": slots, "links": list(links),
                "set": set_, "members": kept, "id": None, "gender": gender, "named": named}
        self.notes.append(note)
        return note

    def write(self, keys: list[str]) -> None:
        notes = self.notes
        if self.rendering == "parts":
            notes = self._split(notes)
        for note in notes:
            text = note["title"] if note.get("plain") else self.finish_text(note, keys)
            note["id"] = self.lib.add(text, dedup=False).id
        for note in notes:
            links = [x if isinstance(x, str) else x["id"] for x in note["links"]]
            links = [x for x in dict.fromkeys(links) if x in self.lib and x != note["id"]]
            for i in range(0, len(links), 40):
                self.lib.link_many(note["id"], links[i:i + 40])
        if self.rendering == "pointers":
            self._pointers(keys)

    def _split(self, notes: list[dict]) -> list[dict]:
        """``parts``: each set note that no other note links, with two members or more,
        written as two notes that are complete together (``Friends of X (1/2)``, ``(2/2)``),
        each linking the statements of half of the members."""
        linked = {id(x) for n in notes for x in n["links"] if isinstance(x, dict)}
        out: list[dict] = []
        for note in notes:
            ms = note.get("members")
            if (note.get("plain") or note["set"] is None or id(note) in linked
                    or not isinstance(ms, dict) or len(ms) < 2):
                out.append(note)
                continue
            names = sorted(ms)
            halves = (names[: len(names) // 2], names[len(names) // 2:])
            second = {n for m in halves[1] for n in ms[m]} - {n for m in halves[0] for n in ms[m]}
            for i, half in enumerate(halves, 1):  # links of no member go with the first part
                title = note["title"].rstrip(".") + f" ({i}/2)."
                out.append(dict(note, title=title, members={m: ms[m] for m in half},
                                links=[x for x in note["links"]
                                       if (isinstance(x, str) and x in second) == (i == 2)]))
        return out

    def _pointers(self, keys: list[str]) -> None:
        """``pointers``: the originals stating a person key's job, hobby and city edited to
        append a pointer to one of the person's sets (``... See also: X's friends.``); each
        still states its fact."""
        t = self.t
        for name in keys:
            if name not in t.by_name:
                continue
            pid = t.by_name[name].pid
            for kind in ("job", "hobby", "city"):
                for nid in t.subj[(kind, pid)]:
                    node = self.lib.get(nid)
                    if node is None or node.flag is not None:
                        continue
                    rel = self.rng.choice(("friends", "children", "parents"))
                    self.lib.edit(nid, f"{node.text} See also: {self.person(name)}'s {rel}.",
                                  dedup=False)


def _shape_notes(b: _Builder, shapes: set[str], people: dict[str, set[str]],
                 values: set[tuple[str, str]], joins: list[tuple], coverage: float) -> None:
    rng, t = b.rng, b.t
    for name in sorted(people):
        if rng.random() > coverage:
            continue
        if "relation_index" in shapes or "index_of_indexes" in shapes:
            for rel in sorted(people[name]):
                sets = b.side(rel, name)
                links = [n for nids in sets.values() for n in nids]
                if not links:
                    continue
                if "index_of_indexes" in shapes and len(sets) >= 4 and rng.random() < 0.5:
                    # parts by the members' city; a part links its members' city statements
                    # too, so that its links show it is a part (an intersection)
                    by_city: dict[str, list[str]] = defaultdict(list)
                    for m in sorted(sets):
                        by_city[t.by_name[m].city].append(m)
                    parts = [b.add(name, _suffixed(b.titled(rel, X=name), f" ({city})"),
                                   [n for m in ms for n in sets[m]]
                                   + [n for m in ms for n in t.subj[("city", t.by_name[m].pid)]],
                                   (rel, name), {m: sets[m] for m in ms})
                             for city, ms in sorted(by_city.items())]
                    b.add(name, b.titled(rel, X=name), parts, None)
                elif "relation_index" in shapes:
                    b.add(name, b.titled(rel, X=name), links, (rel, name), sets)
        if "hub" in shapes:
            links = t.naming(name)
            others: dict[str, list[str]] = defaultdict(list)  # the other person -> notes
            for nid in links:
                f = t.node[nid].fact
                for pid in (f.subject, f.object):
                    if pid in t.by_pid and t.name(pid) != name:
                        others[t.name(pid)].append(nid)
            b.add(name, b.titled("hub", X=name), links, ("hub", name), dict(others))
        if "card" in shapes:
            attrs = t.attributes(name)
            pick = rng.sample(attrs, rng.randint(1, len(attrs)))
            b.add(name, b.titled("card", X=name), sorted(pick, key=lambda i: int(i[1:])))
        if "chains" in shapes:
            for rel in sorted(people[name]):
                nids = [n for ns in t.members(rel, name).values() for n in ns]
                for nid in nids:  # links on originals: each statement of the set links the rest
                    others = [x for x in nids if x != nid][:40]
                    if others:
                        b.lib.link_many(nid, others)
    for kind, v in sorted(values):
        if rng.random() > coverage:
            continue
        sets = b.side(kind, v)
        if not sets:
            continue
        if "index_of_indexes" in shapes and len(sets) >= 3 and rng.random() < 0.5:
            by = "city" if kind != "city" else "hobby"  # each part is an intersection:
            groups: dict[str, list[str]] = defaultdict(list)  # it links both statements
            for m in sorted(sets):
                groups[getattr(t.by_name[m], by)].append(m)
            parts = []
            for label, ms in sorted(groups.items()):
                links = [n for m in ms for n in sets[m]]
                links += [n for m in ms for n in t.subj[(by, t.by_name[m].pid)]]
                parts.append(b.add(v, b.titled("part", v=v, k=label), links, None, ms))
            b.add(v, b.titled("parent", v=v), parts, None)
        elif "value_index" in shapes:
            b.add(v, b.titled(kind, v=v), [n for ns in sets.values() for n in ns],
                  (kind, v), sets)
        if "chains" in shapes:
            nids = [n for ns in sets.values() for n in ns]
            for nid in nids:
                others = [x for x in nids if x != nid][:40]
                if others:
                    b.lib.link_many(nid, others)
    if "intersection" in shapes:
        for join in joins:
            if rng.random() > coverage:
                continue
            sets = [t.members(k, v) for k, v in join]
            both = set(sets[0]).intersection(*sets[1:])
            if not both:
                continue
            links = [n for s in sets for m in sorted(both) for n in s[m]]
            (k1, v1), (k2, v2) = join[0], join[1]
            b.add(v1, b.titled("intersection", v=v1 if k1 == "job" else v2,
                               w=v2 if k1 == "job" else v1), links, None, both)


def _suffixed(titled: tuple[str, str, dict], suffix: str) -> tuple[str, str, dict]:
    """A titled note with ``suffix`` on its short title and its topic (a part of a set)."""
    title, kind, slots = titled
    return title + suffix, kind, dict(slots, X=slots.get("X", "") + suffix)


def _harm(b: _Builder, harm: str, questions: Sequence[Question]) -> bool:
    """Apply ``harm``; whether it changed anything."""
    rng, t, lib = b.rng, b.t, b.lib
    changed = False
    if harm == "dropped_members":
        for note in b.notes:
            ms = note.get("members")
            if note["set"] is None or not isinstance(ms, dict) or len(ms) < 2:
                continue
            drop = set(rng.sample(sorted(ms), max(1, len(ms) * 3 // 5)))
            gone = {n for m in drop for n in ms[m]}
            kept = [x for x in note["links"] if x not in gone]
            changed |= len(kept) < len(note["links"])
            note["links"] = kept
    elif harm == "wrong_members":
        people = sorted(t.by_name)
        for note in list(b.notes):
            if note["set"] is None or note["set"][0] == "hub":
                continue
            rel, key = note["set"]
            truth = t.members(rel, key) if rel != "hub" else {}
            outsider = rng.choice([p for p in people if p not in truth and p != key])
            text = _membership(rel, key, outsider, t)
            if text:
                note["links"].append(b.add(key, text, [], None))
                b.notes[-1]["plain"] = changed = True
    elif harm == "wrong_member_text":
        if b.rendering not in LISTS_MEMBERS:
            return False  # no member list in the text to put a wrong name into
        people = sorted(t.by_name)
        for note in b.notes:
            if note["set"] is None or note["set"][0] == "hub" or not note.get("members"):
                continue
            rel, key = note["set"]
            truth = t.members(rel, key)
            note["text_wrong"] = rng.choice([p for p in people if p not in truth and p != key])
            changed = True
    elif harm == "deleted_facts":
        for q in questions:
            if rng.random() < 0.4:
                for nid in q.support:
                    for mirror in _mirrors(t, nid):
                        if mirror in lib:
                            lib.delete(mirror)
                            changed = True
    elif harm == "false_statements":
        for q in questions:
            if rng.random() < 0.5:
                text = _false_statement(t, q, rng)
                if text:
                    b.add("", text, [], None)
                    b.notes[-1]["plain"] = changed = True
    return changed


def _membership(rel: str, key: str, other: str, t: Truth) -> str | None:
    """A §3 sentence putting ``other`` into ``(rel, key)`` (false when ``other`` is not in)."""
    if rel in ("job", "hobby"):
        return f"{other}'s {rel} is {key}."
    if rel == "city":
        return f"{other} lives in the city of {key}."
    if rel == "friends":
        return f"{key} is a friend of {other}."
    if rel == "children":
        role = "father" if t.by_name[key].gender == "male" else "mother"
        return f"{key} is the {role} of {other}."
    if rel == "parents":
        return f"{key} is a child of {other}."
    if rel == "spouse":
        return f"{key} is married to {other}."
    if rel == "grandchildren":
        kids = t.by_name[key].children
        if not kids:
            return None
        kid = t.by_pid[kids[0]]
        role = "father" if kid.gender == "male" else "mother"
        return f"{kid.name} is the {role} of {other}."
    return None


def _mirrors(t: Truth, nid: str) -> list[str]:
    """``nid`` and the note stating the same relation from the other end."""
    mirror = mirrors(t.u).get(nid)
    return [nid] if mirror is None else [nid, mirror]


def _false_statement(t: Truth, q: Question, rng: random.Random) -> str | None:
    """A false §3 sentence about the fact ``q``'s answer rests on."""
    facts = [t.node[n].fact for n in q.support if n in t.node]
    attrs = [f for f in facts if f.kind in ("job", "hobby", "city")]
    vocab = {"job": t.u.vocab["jobs"], "hobby": t.u.vocab["hobbies"], "city": t.u.vocab["cities"]}
    if attrs:
        f = attrs[-1]
        wrong = rng.choice([v for v in vocab[f.kind] if v != f.object])
        return _membership(f.kind, wrong, t.name(f.subject), t)
    people = [k.split(":", 1)[1] for k in q.keys if k.startswith("person:")]
    if people and people[0] in t.by_name:
        x = people[0]
        friends = set(t.members("friends", x))
        other = rng.choice([p for p in sorted(t.by_name) if p not in friends and p != x])
        return f"{x} is a friend of {other}."
    return None


def generate_libraries(universe: Universe, seed: int, n: int,
                       questions: Sequence[Question] | None = None, *,
                       renderings: Sequence[str] = RENDERINGS,
                       twins: bool = False) -> list[GeneratedLibrary]:
    """``n`` random libraries over the keys of ``questions`` (default: ``train[:100]``), about
    a third of them harmed and a sixth noisy, each in one of ``renderings``
    (:mod:`kbgym_agents.zoo.renderings`); deterministic per ``seed``. With ``twins``, a
    truthful library in a rendering other than ``short`` also gets its :attr:`twin`."""
    if questions is None:
        questions = universe.split("train")[:100]
    truth = Truth(universe)
    people, values, joins = question_keys(truth, questions)
    keys = sorted(people) + sorted(v for _, v in values)
    out = []
    for i in range(n):
        rng = random.Random(derive(seed, f"zoo/generated/{i}"))
        shapes = set(rng.sample(SHAPES, rng.randint(1, 4)))
        rendering = rng.choice(tuple(renderings))
        forms = list(RENDERING_FORMS.get(rendering, ()))
        if len(forms) > 1:
            forms = [rng.choice(forms)]
        draw = rng.random()
        harms = (rng.choice(HARMS),) if draw < 1 / 3 else ()
        noise = ("stray_links",) if 1 / 3 <= draw < 1 / 2 else ()
        b = _Builder(truth, rng, forms, questions, rendering)
        _shape_notes(b, shapes, people, values, joins, rng.uniform(0.6, 1.0))
        if noise:
            originals = [nd.id for nd in universe.nodes]
            for note in b.notes:
                if note["set"] is not None:
                    note["links"] += rng.sample(originals, max(1, len(note["links"]) // 3))
        # a harm with nothing to act on (no index to drop members from) leaves no harm
        harms = tuple(harm for harm in harms if _harm(b, harm, questions))
        twin = None
        if twins and rendering != "short" and not harms and not noise:
            twin = b.lib.copy()
        b.write(keys)
        if twin is not None:
            short = _Builder(truth, random.Random(0), (), questions)
            short.notes, short.lib, short.sides = b.notes, twin, b.sides
            short.write(keys)
        out.append(GeneratedLibrary(
            name=f"gen{seed}.{i:02d}", library=b.lib, truthful=not harms and not noise,
            shapes=tuple(s for s in SHAPES if s in shapes), text_forms=tuple(forms),
            harms=harms, noise=noise, rendering=rendering, twin=twin))
    return out


__all__ = ["GeneratedLibrary", "HARMS", "NOISE", "RENDERINGS", "SHAPES", "TEXT_FORMS", "Truth",
           "generate_libraries", "question_keys"]
