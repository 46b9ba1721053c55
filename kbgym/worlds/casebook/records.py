"""The casebook ledger's records: documents, facts and the ledger that holds them (built by
:mod:`.ledger`, read by :mod:`.rules`, :mod:`.documents` and :mod:`.questions`)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class Doc:
    """One document. ``key`` is its label (``CP-10 (2019 edition)`` for a form edition, the
    code otherwise); ``date`` when it takes effect; ``target`` the form edition an endorsement
    or state form attaches to; ``supersedes`` the document it replaces from ``date`` on;
    ``by_title`` whether its header names its target by the form's title; ``filed`` whether
    its header leaves the date to the manual's filing schedule; ``scheduled`` whether its
    header leaves the form it attaches to to its own Schedule (§ 1)."""

    key: str
    code: str
    kind: str  # form endorsement state_form bulletin memo faq manual
    date: str
    edition: int | None = None
    title: str | None = None
    line: int | None = None
    state: str | None = None
    target: str | None = None
    supersedes: str | None = None
    by_title: bool = False
    filed: bool = False
    scheduled: bool = False


@dataclass(frozen=True)
class Fact:
    """One ledger fact. ``doc`` is the document that states it and ``at`` the section it is
    stated in; ``target``/``concept`` name a provision (a form edition and a concept);
    ``ref``/``item`` a referenced document and section; ``para`` the paragraph of the form's
    section that holds the provision (a ``sets`` fact's own paragraph, the paragraph an
    ``amends`` or ``replaces`` fact points at: ``§ 3.2`` is section 3, paragraph 2);
    ``correct`` marks a memo's or FAQ's statement that agrees with the effective value on its
    date. A ``classifies`` fact puts a form edition's provision in regulatory class ``item``
    (0: A, 1: B) of its kind; a ``bound`` fact bounds class ``item`` of ``concept``'s kind
    (:func:`~.vocab.class_label`) for every form of its line."""

    id: str
    kind: str  # issued filed attaches classifies sets amends replaces bound supersedes states
    #            refers defines precedence
    doc: str
    at: int = 0
    concept: str | None = None
    value: int | None = None
    target: str | None = None
    state: str | None = None
    line: int | None = None
    ref: str | None = None
    item: int | None = None
    date: str | None = None
    by_title: bool = False
    correct: bool | None = None
    chain: int | None = None  # the chain a refers fact belongs to
    hop: int | None = None  # its position in the chain (1 = the start)
    para: int | None = None  # the provision's paragraph in its form section
    by_date: bool = False  # an attaches fact naming the form alone: the edition then in force


@dataclass
class Ledger:
    docs: list[Doc]
    facts: list[Fact]

    def __post_init__(self):
        self.doc = {d.key: d for d in self.docs}
        self.fact = {f.id: f for f in self.facts}
        self.by_kind: dict[str, list[Fact]] = defaultdict(list)
        self.of_doc: dict[str, list[Fact]] = defaultdict(list)
        for f in self.facts:
            self.by_kind[f.kind].append(f)
            self.of_doc[f.doc].append(f)
        self.superseded_by = {d.supersedes: d.key for d in self.docs if d.supersedes}

    def to_json(self) -> dict:
        def lean(x):
            return {k: v for k, v in asdict(x).items() if v is not None and v is not False}
        return {"docs": [lean(d) for d in self.docs], "facts": [lean(f) for f in self.facts]}

    @classmethod
    def from_json(cls, d: dict) -> "Ledger":
        return cls([Doc(**x) for x in d["docs"]], [Fact(**x) for x in d["facts"]])

    def chains(self) -> dict[int, list[Fact]]:
        out: dict[int, list[Fact]] = defaultdict(list)
        for f in self.by_kind["refers"]:
            out[f.chain].append(f)
        return {k: sorted(v, key=lambda f: f.hop) for k, v in out.items()}


FACT_FIELDS = tuple(f.name for f in fields(Fact))
