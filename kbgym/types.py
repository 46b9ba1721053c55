"""The typed, immutable values of a universe (SPEC §2–§5)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from json.encoder import encode_basestring
from operator import attrgetter
from typing import Any


@dataclass(frozen=True, slots=True)
class Person:
    pid: str
    name: str
    gender: str  # "male" | "female"
    generation: int | None  # 0, 1, 2; None for distractors
    distractor: bool
    job: str
    hobby: str
    city: str
    born: str  # YYYY-MM-DD
    spouse: str | None = None
    parents: tuple[str, ...] = ()
    children: tuple[str, ...] = ()
    friends: tuple[str, ...] = ()  # in person order

    def to_json(self) -> dict:
        return {
            "pid": self.pid, "name": self.name, "gender": self.gender,
            "generation": self.generation, "distractor": self.distractor,
            "job": self.job, "hobby": self.hobby, "city": self.city, "born": self.born,
            "spouse": self.spouse, "parents": list(self.parents),
            "children": list(self.children), "friends": list(self.friends),
        }

    @classmethod
    def from_json(cls, d: dict) -> "Person":
        return cls(
            d["pid"], d["name"], d["gender"], d["generation"], d["distractor"], d["job"],
            d["hobby"], d["city"], d["born"], d["spouse"], tuple(d["parents"]),
            tuple(d["children"]), tuple(d["friends"]),
        )


@dataclass(frozen=True, slots=True)
class Fact:
    """The hidden truth behind one original node: (kind, subject pid, object)."""

    kind: str  # job hobby city born married child_of parent_of friend_of
    subject: str
    object: str  # a pid, a vocabulary value, or YYYY-MM-DD

    def to_json(self) -> dict:
        return {"kind": self.kind, "subject": self.subject, "object": self.object}


@dataclass(frozen=True, slots=True)
class Source:
    """Where an imported note came from (``kbgym import corpus``): the file (relative POSIX
    path), its 1-based inclusive line range, and ``sha256:`` + the hash of the note's text,
    the claim identity a changed source is detected by."""

    path: str
    first_line: int
    last_line: int
    hash: str

    def to_json(self) -> dict:
        return {"path": self.path, "lines": [self.first_line, self.last_line],
                "hash": self.hash}

    @classmethod
    def from_json(cls, d: dict) -> "Source":
        return cls(d["path"], d["lines"][0], d["lines"][1], d["hash"])


@dataclass(frozen=True, slots=True)
class Node:
    """One original document: a sentence rendered from one fact (``source``: imported
    corpora only)."""

    id: str
    text: str
    fact: Fact
    source: Source | None = None

    def to_json(self) -> dict:
        d = {"id": self.id, "text": self.text, "fact": self.fact.to_json()}
        if self.source is not None:
            d["source"] = self.source.to_json()
        return d

    @classmethod
    def from_json(cls, d: dict) -> "Node":
        f = d["fact"]
        src = d.get("source")
        return cls(d["id"], d["text"], Fact(f["kind"], f["subject"], f["object"]),
                   None if src is None else Source.from_json(src))


@dataclass(frozen=True, slots=True)
class Question:
    qid: str
    template: str
    category: str  # QC1..QC10 or PW_*
    tier: str  # easy | hard
    hops: int
    text: str
    golds: tuple[str, ...]
    support: tuple[str, ...]  # origin ids in id order
    keys: tuple[str, ...]  # sorted typed keys (§4.3)
    unanswerable: bool = False
    support_status: str = "exact"  # exact | recomputed | unavailable
    eval_flavor: str | None = None  # in | out inside eval
    source_qid: str | None = None  # probe items copied from a trained question

    def probe_item(self, gid: str, *, trained: bool) -> "Question":
        """This question as probe item ``gid``: no eval flavour, and its own qid as
        ``source_qid`` when it is a trained question copied into the probe (the exact
        groups)."""
        return replace(self, qid=gid, eval_flavor=None,
                       source_qid=self.qid if trained else None)

    def to_json(self) -> dict:
        d = {
            "qid": self.qid, "template": self.template, "category": self.category,
            "tier": self.tier, "hops": self.hops, "text": self.text,
            "golds": list(self.golds), "support": list(self.support),
            "support_status": self.support_status, "unanswerable": self.unanswerable,
            "eval_flavor": self.eval_flavor, "keys": list(self.keys),
        }
        if self.source_qid is not None:
            d["source_qid"] = self.source_qid
        return d

    @classmethod
    def from_json(cls, d: dict) -> "Question":
        return cls(
            d["qid"], d["template"], d["category"], d["tier"], d["hops"], d["text"],
            tuple(d["golds"]), tuple(d["support"]), tuple(d["keys"]), d["unanswerable"],
            d["support_status"], d.get("eval_flavor"), d.get("source_qid"),
        )


@dataclass(frozen=True, slots=True)
class Template:
    name: str
    category: str
    tier: str
    hops: int
    reserved: bool
    text: str  # format string with {X} {Y} {job} {city} {hobby}

    def to_json(self) -> dict:
        return {"category": self.category, "tier": self.tier, "hops": self.hops,
                "reserved": self.reserved}


SCHEMA_VERSION = 1

# -- canonical JSON of people and nodes by template (Universe.dumps) -------------------------
_NODES_MARK = "@@kbgym-nodes@@"
_PEOPLE_MARK = "@@kbgym-people@@"


def _js(x: Any) -> str:
    """One JSON scalar as canonical() writes it (strings unescaped for U+2028 etc. here:
    dumps escapes the joined text once)."""
    if isinstance(x, str):
        return encode_basestring(x)
    if x is None:
        return "null"
    if x is True:
        return "true"
    if x is False:
        return "false"
    if type(x) is int:
        return str(x)
    return json.dumps(x, allow_nan=False)


def _strs(xs) -> str:
    return "[" + ",".join(map(encode_basestring, xs)) + "]"


def _node_text(n: "Node") -> str:
    if n.source is not None or type(n.fact.object) is not str:
        return json.dumps(n.to_json(), sort_keys=True, ensure_ascii=False,
                          separators=(",", ":"), allow_nan=False)
    f = n.fact
    return (f'{{"fact":{{"kind":{encode_basestring(f.kind)},"object":'
            f'{encode_basestring(f.object)},"subject":{encode_basestring(f.subject)}}},'
            f'"id":{encode_basestring(n.id)},"text":{encode_basestring(n.text)}}}')


def _raw_nodes(nodes: Sequence["Node"]) -> list[str]:
    """Each node as :func:`_node_text` writes it, its strings between plain quotes, unescaped."""
    return [f'{{"fact":{{"kind":"{f.kind}","object":"{f.object}","subject":"{f.subject}"}},'
            f'"id":"{n.id}","text":"{n.text}"}}' for n in nodes for f in (n.fact,)]


_RAW_QUOTES = _raw_nodes([Node("", "", Fact("", "", ""))])[0].count('"')
#: What encode_basestring escapes, but quotes (counted instead): control characters, backslash.
_ESCAPED = bytes(range(32)) + b"\\"
_source, _object = attrgetter("source"), attrgetter("fact.object")


def _nodes_text(nodes: Sequence["Node"]) -> str:
    """``",".join(map(_node_text, nodes))``, faster: where no string of the batch needs a JSON
    escape (no quote, backslash or control character: every generated note), each is written
    between plain quotes. The batch is checked once, as written (its quotes are exactly the
    template's, and it holds no backslash or control character); else it is written note by
    note. (The checks are C loops over the batch: a third of the time of escaping each
    string.)"""
    if not any(map(_source, nodes)) and set(map(type, map(_object, nodes))) <= {str}:
        part = ",".join(_raw_nodes(nodes))
        if part.count('"') == _RAW_QUOTES * len(nodes):
            data = part.encode("utf-8", "surrogatepass")
            if len(data.translate(None, _ESCAPED)) == len(data):
                return part
    return ",".join(map(_node_text, nodes))


def _person_text(p: "Person") -> str:
    return (f'{{"born":{_js(p.born)},"children":{_strs(p.children)},"city":{_js(p.city)},'
            f'"distractor":{_js(p.distractor)},"friends":{_strs(p.friends)},'
            f'"gender":{_js(p.gender)},"generation":{_js(p.generation)},"hobby":{_js(p.hobby)},'
            f'"job":{_js(p.job)},"name":{_js(p.name)},"parents":{_strs(p.parents)},'
            f'"pid":{_js(p.pid)},"spouse":{_js(p.spouse)}}}')


@dataclass(eq=False)
class Universe:
    """An immutable generated world. Build it with ``kbgym.worlds.people.generate(config)``.

    ``people`` is in pid order (real people in person order, then distractors);
    ``nodes`` is in id order; ``questions`` is in qid order; ``splits`` maps a split name
    (train, test_in, test_out, eval) to its qids in draw order.
    """

    meta: dict
    vocab: dict
    people: tuple[Person, ...]
    nodes: tuple[Node, ...]
    questions: tuple[Question, ...]
    splits: dict[str, tuple[str, ...]]
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    # -- look-ups ------------------------------------------------------------------------
    def _index(self, name: str, build):
        if name not in self._cache:
            self._cache[name] = build()
        return self._cache[name]

    def person(self, pid: str) -> Person:
        return self._index("pid", lambda: {p.pid: p for p in self.people})[pid]

    def node(self, node_id: str) -> Node:
        return self._index("nid", lambda: {n.id: n for n in self.nodes})[node_id]

    def question(self, qid: str) -> Question:
        """The question with this qid; ``KeyError`` if there is none."""
        return self._index("qid", lambda: {q.qid: q for q in self.questions})[qid]

    def split(self, name: str) -> list[Question]:
        """The questions of one split in draw order; ``KeyError`` for an unknown split."""
        return [self.question(qid) for qid in self.splits[name]]

    @property
    def real_people(self) -> list[Person]:
        return [p for p in self.people if not p.distractor]

    # -- JSON ----------------------------------------------------------------------------
    def to_json(self, lists: bool = True) -> dict:
        return {
            "schema_version": SCHEMA_VERSION,
            "kind": "kbgym.universe",
            "meta": self.meta,
            "vocab": self.vocab,
            "people": [p.to_json() for p in self.people] if lists else None,
            "nodes": [n.to_json() for n in self.nodes] if lists else None,
            "questions": [q.to_json() for q in self.questions],
            "splits": {k: list(v) for k, v in self.splits.items()},
        }

    @classmethod
    def from_json(cls, d: dict) -> "Universe":
        if d.get("kind") != "kbgym.universe" or d.get("schema_version") != SCHEMA_VERSION:
            raise ValueError("not a kbgym.universe file of schema_version 1")
        return cls(
            meta=d["meta"], vocab=d["vocab"],
            people=tuple(Person.from_json(p) for p in d["people"]),
            nodes=tuple(Node.from_json(n) for n in d["nodes"]),
            questions=tuple(Question.from_json(q) for q in d["questions"]),
            splits={k: tuple(v) for k, v in d["splits"].items()},
        )

    def dumps(self) -> str:
        """The canonical JSON text of the universe file (SPEC §15.1): the same text as
        ``canonical(self.to_json())``, made faster (see :meth:`text_chunks`)."""
        if "text" not in self._cache:
            self._cache["text"] = "".join(self.text_chunks())
        return self._cache["text"]

    def text_chunks(self, batch: int = 20_000) -> Iterator[str]:
        """The universe file's text in pieces that join to :meth:`dumps`: people and nodes
        (nearly all of a large universe) are written by templates, ``batch`` at a time,
        instead of as dicts, so :meth:`write` never holds the whole text."""
        if "text" in self._cache:
            yield self._cache["text"]
            return
        from kbgym.jsonio import _UNSAFE, _escape, canonical

        obj = self.to_json(lists=False)
        obj["nodes"], obj["people"] = _NODES_MARK, _PEOPLE_MARK
        text = canonical(obj)
        lists = sorted((text.index(f'"{mark}"'), mark, items, fn) for mark, items, fn in (
            (_NODES_MARK, self.nodes, _nodes_text),
            (_PEOPLE_MARK, self.people, lambda ps: ",".join(map(_person_text, ps)))))
        pos = 0
        for at, mark, items, fn in lists:
            yield text[pos:at] + "["
            for i in range(0, len(items), batch):
                part = fn(items[i:i + batch])
                if not part.isascii():
                    part = _UNSAFE.sub(_escape, part)
                yield "," + part if i else part
            yield "]"
            pos = at + len(mark) + 2
        yield text[pos:]

    def write(self, path: str | os.PathLike) -> None:
        """Write the universe file atomically, a chunk at a time, and remember its hash."""
        from kbgym.jsonio import atomic_write_chunks

        digest = atomic_write_chunks(path, self.text_chunks())
        self._cache.setdefault("hash", "sha256:" + digest)

    @property
    def hash(self) -> str:
        """``sha256:`` + the sha256 of the canonical file text."""
        from kbgym.jsonio import sha256_hex

        return self._index("hash", lambda: "sha256:" + sha256_hex(self.dumps()))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Universe):
            return NotImplemented
        return (self.meta, self.vocab, self.people, self.nodes, self.questions, self.splits) == (
            other.meta, other.vocab, other.people, other.nodes, other.questions, other.splits)

    __hash__ = None  # mutable cache; compare with ==
