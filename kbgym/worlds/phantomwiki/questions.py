"""PhantomWiki questions as KBGym question records (SPEC §17 "Questions", §4.1)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kbgym.worlds.phantomwiki.facts import ATTRIBUTE_PREDICATES, FactStore
from kbgym.worlds.phantomwiki.query import Comp, Const, Unmapped, evaluate, parse_literal
from kbgym.worlds.phantomwiki.source import PWQuestion
from kbgym.scoring import normalize
from kbgym.worlds.people.vocab import NUMBER_WORDS


@dataclass(frozen=True, slots=True)
class Shape:
    """What a PhantomWiki question template asks, whatever its type index.

    phantom-wiki numbers its templates in the order its grammar generates them at the chosen
    ``--question-depth`` (8 types at the default depth 6, 20 at depth 10, 50 at depth 20), so a
    type index means nothing across depths. Every template is one of three heads over a chain
    of ``hops`` relations from an anchor:

    - ``head``: ``who`` ("Who is ...?"), ``what`` ("What is the <attribute> of ...?") or
      ``count`` ("How many <relations> does ... have?");
    - ``hops``: the number of ``<relation>`` steps between the anchor and the head (the counted
      relation of a ``count`` question is not one of them);
    - ``anchor``: ``name`` (a named person) or ``attribute`` ("the person whose <attribute> is
      <value>").
    """

    head: str
    hops: int
    anchor: str

    @property
    def category(self) -> str:
        if self.head == "count":
            return "PW_AGG"
        if self.head == "what":
            return "PW_ATTR"
        return "PW_REL" if self.hops else "PW_PERSON"

    @property
    def reserved(self) -> bool:
        return self in RESERVED_SHAPES

    def __str__(self) -> str:
        return f"{self.head}/{self.hops}/{self.anchor}"


#: Shapes held out of training (they appear only in test_out and eval-out): at the default
#: depth 6 these are types 0 ("Who is the <relation> of the person whose <attribute> is
#: <value>?") and 6 ("How many <relations> does the person whose ... have?"). Every depth >= 6
#: has both shapes, so the held-out templates ask the same thing at every depth.
RESERVED_SHAPES = frozenset({Shape("who", 1, "attribute"), Shape("count", 0, "attribute")})
#: The category of a template whose query could not be read (its support is unavailable too).
OTHER_CATEGORY = "PW_OTHER"


def question_shape(q: PWQuestion) -> Shape | None:
    """The shape of a question's template, read from its ``prolog.query`` (outermost literal
    first); None when the query is not a phantom-wiki 1.0.3 chain."""
    try:
        lits = [parse_literal(lit) for lit in q.query]
    except Unmapped:
        return None
    if not lits or not all(isinstance(t, Comp) for t in lits):
        return None
    first, last = lits[0], lits[-1]
    if first.functor == "aggregate_all":
        head = "count"
        inner = first.args[1] if len(first.args) == 3 else None
        if len(lits) == 1:  # "How many <relations> does <name> have?"
            return Shape(head, 0, "name") if isinstance(inner, Comp) else None
    elif first.functor in ATTRIBUTE_PREDICATES and len(lits) > 1:
        head = "what"
    else:
        head = "who"
    chain = lits[1:] if head != "who" else lits
    anchor = ("attribute" if last.functor in ATTRIBUTE_PREDICATES and len(last.args) == 2
              and isinstance(last.args[1], Const) else "name")
    hops = sum(t.functor not in ATTRIBUTE_PREDICATES for t in chain)
    return Shape(head, hops, anchor)


#: PhantomWiki has no easy/hard tiers; every PW record carries this tier.
NO_TIER = "none"

_INTEGER = re.compile(r"\d+")


def type_shapes(questions: Iterable[PWQuestion]) -> dict[int, Shape | None]:
    """Each type's shape, from its first question in file order."""
    out: dict[int, Shape | None] = {}
    for q in questions:
        if q.type not in out:
            out[q.type] = question_shape(q)
    return out


def category(shape: Shape | None) -> str:
    return OTHER_CATEGORY if shape is None else shape.category


def template_name(qtype: int) -> str:
    return f"pw_type{qtype}"


def golds(answer: Sequence[str]) -> tuple[str, ...]:
    """The gold list of a PhantomWiki answer list.

    The canonical gold joins the sorted answers with ``", "`` (only when there are several);
    each answer follows as a variant, and an integer n ≤ 20 is followed by its word. Integers
    sort by value, anything else by Python's default string order. An empty answer list is
    unanswerable: ``("unknown",)``.
    """
    items = list(dict.fromkeys(answer))
    if not items:
        return ("unknown",)
    numeric = all(_INTEGER.fullmatch(a) for a in items)
    items.sort(key=int if numeric else None)
    out = [", ".join(items)] if len(items) > 1 else []
    for a in items:
        out.append(a)
        if numeric and int(a) < len(NUMBER_WORDS):
            out.append(NUMBER_WORDS[int(a)])
    return tuple(dict.fromkeys(out))


def drop_repeats(questions: Iterable[PWQuestion]) -> tuple[list[PWQuestion], int]:
    """Keep the first question of each text, in file order; also return how many were dropped."""
    seen: set[str] = set()
    kept: list[PWQuestion] = []
    dropped = 0
    for q in questions:
        if q.text in seen:
            dropped += 1
            continue
        seen.add(q.text)
        kept.append(q)
    return kept, dropped


@dataclass(frozen=True, slots=True)
class SupportResult:
    """A recomputed support set: ``status`` is ``recomputed`` or ``unavailable``; ``reason``
    (for unavailable) is ``unmapped`` or ``answer_mismatch``."""

    support: tuple[str, ...]
    status: str
    reason: str | None = None
    detail: str | None = None


def _id_order(node_ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(node_ids, key=lambda i: int(i[1:])))


def recompute_support(q: PWQuestion, store: FactStore) -> SupportResult:
    """Evaluate the question's query over the parsed facts; the support stands only when the
    computed answers equal PhantomWiki's after SPEC §11 normalisation."""
    try:
        answers, support = evaluate(q.query, q.answer_var, store)
    except Unmapped as err:
        return SupportResult((), "unavailable", "unmapped", str(err))
    if {normalize(a) for a in answers} != {normalize(a) for a in q.answer}:
        shown = ", ".join(sorted(answers)[:5])
        return SupportResult((), "unavailable", "answer_mismatch", f"computed [{shown}]")
    return SupportResult(_id_order(support), "recomputed")
