"""Evaluating PhantomWiki's ``prolog.query`` over facts parsed from the nodes (SPEC §17
"Support recomputation").

A query is a list of literals ``pred(A, B)`` with quoted constants and capitalised variables,
outermost first; PhantomWiki runs them in reverse order, and so does :func:`evaluate`.

- **Base predicates** are the article sentence forms of :mod:`.facts`; a base literal matches
  facts, and the nodes it matches are the support.
- **Derived predicates** (sibling, grandparent, aunt, cousin, ...) expand through
  :data:`RULES`, a fixed rule table mirroring PhantomWiki's ``rules_base.pl`` and
  ``rules_derived.pl`` but written over the predicates the articles state (mother, father, son,
  daughter, sister, brother, wife, husband), so that support names the sentences a reader
  would actually follow.
- ``aggregate_all(count, distinct(G), N)`` counts the distinct instantiations of G's variables;
  the nodes of every solution of G are support. Other aggregates are unmapped.

Any other predicate raises :class:`Unmapped`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from kbgym.worlds.phantomwiki.facts import SENTENCE_FORMS, FactStore

RULES_TEXT = """
parent(X, Y) :- mother(X, Y).
parent(X, Y) :- father(X, Y).
child(X, Y) :- son(X, Y).
child(X, Y) :- daughter(X, Y).
sibling(X, Y) :- sister(X, Y).
sibling(X, Y) :- brother(X, Y).
married(X, Y) :- wife(X, Y).
married(X, Y) :- husband(X, Y).
niece(X, Y) :- sibling(X, A), daughter(A, Y).
nephew(X, Y) :- sibling(X, A), son(A, Y).
aunt(X, Y) :- parent(X, A), sister(A, Y).
uncle(X, Y) :- parent(X, A), brother(A, Y).
grandparent(X, Y) :- parent(X, Z), parent(Z, Y).
grandmother(X, Y) :- parent(X, Z), mother(Z, Y).
grandfather(X, Y) :- parent(X, Z), father(Z, Y).
grandchild(X, Y) :- child(X, Z), child(Z, Y).
granddaughter(X, Y) :- child(X, Z), daughter(Z, Y).
grandson(X, Y) :- child(X, Z), son(Z, Y).
great_aunt(X, Y) :- grandparent(X, A), sister(A, Y).
great_uncle(X, Y) :- grandparent(X, A), brother(A, Y).
great_grandparent(X, Y) :- grandparent(X, Z), parent(Z, Y).
great_grandmother(X, Y) :- grandparent(X, Z), mother(Z, Y).
great_grandfather(X, Y) :- grandparent(X, Z), father(Z, Y).
great_grandchild(X, Y) :- grandchild(X, Z), child(Z, Y).
great_granddaughter(X, Y) :- grandchild(X, Z), daughter(Z, Y).
great_grandson(X, Y) :- grandchild(X, Z), son(Z, Y).
second_aunt(X, Y) :- great_grandparent(X, A), sister(A, Y).
second_uncle(X, Y) :- great_grandparent(X, A), brother(A, Y).
cousin(X, Y) :- parent(X, A), sibling(A, B), child(B, Y), neq(X, Y).
female_cousin(X, Y) :- parent(X, A), sibling(A, B), daughter(B, Y), neq(X, Y).
male_cousin(X, Y) :- parent(X, A), sibling(A, B), son(B, Y), neq(X, Y).
female_second_cousin(X, Y) :- parent(X, A), cousin(A, B), daughter(B, Y), neq(X, Y).
male_second_cousin(X, Y) :- parent(X, A), cousin(A, B), son(B, Y), neq(X, Y).
female_first_cousin_once_removed(X, Y) :- cousin(X, A), daughter(A, Y), neq(X, Y).
male_first_cousin_once_removed(X, Y) :- cousin(X, A), son(A, Y), neq(X, Y).
mother_in_law(X, Y) :- married(X, A), mother(A, Y).
father_in_law(X, Y) :- married(X, A), father(A, Y).
son_in_law(X, Y) :- child(X, A), husband(A, Y).
daughter_in_law(X, Y) :- child(X, A), wife(A, Y).
sister_in_law(X, Y) :- married(X, A), sister(A, Y).
brother_in_law(X, Y) :- married(X, A), brother(A, Y).
"""


class Unmapped(Exception):
    """The query uses a predicate or construct outside the rule table."""


class QuerySyntaxError(Unmapped):
    """A literal could not be read as a Prolog term."""


# -- terms ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Var:
    name: str


@dataclass(frozen=True, slots=True)
class Const:
    value: str


@dataclass(frozen=True, slots=True)
class Comp:
    functor: str
    args: tuple


_TOKEN = re.compile(r"""\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<atom>'(?:[^'\\]|\\.)*')"""
                    r"""|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<num>-?\d+(?:\.\d+)?)"""
                    r"""|(?P<punct>:-|[(),.]))""")


def _unquote(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s[1:-1])


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos, text = [], 0, text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise QuerySyntaxError(f"cannot read {text[pos:pos + 20]!r}")
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str):
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if tok is None or (value is not None and tok[1] != value):
            raise QuerySyntaxError(f"expected {value or 'a term'}, got {tok and tok[1]!r}")
        self.i += 1
        return tok

    def term(self):
        kind, text = self.take()
        if kind == "str":
            return Const(_unquote(text))
        if kind == "num":
            return Const(text)
        if kind == "atom":
            text = _unquote(text)
        elif kind != "name":
            raise QuerySyntaxError(f"unexpected {text!r}")
        if self.peek() == ("punct", "("):
            self.take("(")
            args = [self.term()]
            while self.peek() == ("punct", ","):
                self.take(",")
                args.append(self.term())
            self.take(")")
            return Comp(text, tuple(args))
        if kind == "name" and (text[0].isupper() or text[0] == "_"):
            return Var(text)
        return Const(text)

    def body(self) -> list:
        goals = [self.term()]
        while self.peek() == ("punct", ","):
            self.take(",")
            goals.append(self.term())
        return goals


def parse_literal(text: str):
    """One query literal as a term."""
    p = _Parser(text)
    term = p.term()
    if p.peek() == ("punct", "."):
        p.take(".")
    if p.peek() is not None:
        raise QuerySyntaxError(f"trailing text in {text!r}")
    return term


@cache
def rules() -> dict[str, list[tuple[tuple[str, ...], tuple]]]:
    """The rule table: predicate -> [(head variable names, body literals)], in text order."""
    table: dict[str, list] = {}
    for line in RULES_TEXT.strip().splitlines():
        p = _Parser(line)
        head = p.term()
        p.take(":-")
        body = p.body()
        p.take(".")
        table.setdefault(head.functor, []).append(
            (tuple(a.name for a in head.args), tuple(body)))
    return table


@cache
def base_predicates() -> frozenset[str]:
    """Predicates matched directly against facts: the sentence forms no rule defines."""
    return frozenset(pred for pred, _, _ in SENTENCE_FORMS) - frozenset(rules())


# -- the solver -----------------------------------------------------------------------------
Binding = dict[str, str]
Solution = tuple[Binding, frozenset[str]]


def _value(term, b: Binding) -> str | None:
    if isinstance(term, Const):
        return term.value
    if isinstance(term, Var):
        return b.get(term.name)
    raise Unmapped(f"a compound term {term.functor}(...) where a value was expected")


def _variables(term, out: list[str]) -> list[str]:
    if isinstance(term, Var):
        if term.name not in out:
            out.append(term.name)
    elif isinstance(term, Comp):
        for a in term.args:
            _variables(a, out)
    return out


def _substitute(term, subst: dict):
    if isinstance(term, Var):
        return subst[term.name]
    if isinstance(term, Comp):
        return Comp(term.functor, tuple(_substitute(a, subst) for a in term.args))
    return term


class Solver:
    """A small Prolog subset over a :class:`FactStore`: conjunctions, the rule table, ``neq``
    and ``aggregate_all(count, distinct(G), N)``."""

    def __init__(self, store: FactStore):
        self.store = store
        self._fresh = 0

    def solve(self, goals: Sequence, b: Binding) -> Iterator[Solution]:
        if not goals:
            yield b, frozenset()
            return
        for b1, n1 in self._one(goals[0], b):
            for b2, n2 in self.solve(goals[1:], b1):
                yield b2, n1 | n2

    def _one(self, goal, b: Binding) -> Iterator[Solution]:
        if not isinstance(goal, Comp):
            raise Unmapped(f"{goal!r} is not a predicate call")
        name, args = goal.functor, goal.args
        if name == "aggregate_all":
            yield from self._aggregate(goal, b)
        elif name == "neq" and len(args) == 2:
            x, y = _value(args[0], b), _value(args[1], b)
            if x is None or y is None:
                raise Unmapped("neq/2 on an unbound variable")
            if x != y:
                yield b, frozenset()
        elif name in rules() and len(args) == 2:
            for head, body in rules()[name]:
                self._fresh += 1
                subst = dict(zip(head, args, strict=True))
                for var in _variables(Comp("body", body), []):
                    subst.setdefault(var, Var(f"_{var}{self._fresh}"))
                yield from self.solve([_substitute(g, subst) for g in body], b)
        elif name in base_predicates() and len(args) == 2:
            yield from self._match(name, args, b)
        else:
            raise Unmapped(f"unmapped predicate {name}/{len(args)}")

    def _match(self, pred: str, args: tuple, b: Binding) -> Iterator[Solution]:
        s, o = _value(args[0], b), _value(args[1], b)
        for subj, obj, node in self.store.match(pred, s, o):
            new = dict(b)
            ok = True
            for term, val in ((args[0], subj), (args[1], obj)):
                if isinstance(term, Var):
                    if new.setdefault(term.name, val) != val:
                        ok = False
            if ok:
                yield new, frozenset((node,))

    def _aggregate(self, goal: Comp, b: Binding) -> Iterator[Solution]:
        if len(goal.args) != 3 or goal.args[0] != Const("count"):
            raise Unmapped("only aggregate_all(count, distinct(G), N) is mapped")
        inner, result = goal.args[1], goal.args[2]
        if not (isinstance(inner, Comp) and inner.functor == "distinct" and len(inner.args) == 1):
            # Without distinct/1 the count is the number of Prolog proofs, which depends on
            # PhantomWiki's own rule bodies, not only on the facts.
            raise Unmapped("aggregate_all(count, G, N) without distinct(G)")
        g = inner.args[0]
        keys: set[tuple] = set()
        nodes: set[str] = set()
        variables = _variables(g, [])
        for sol, ns in self.solve([g], b):
            keys.add(tuple(sol.get(v) for v in variables))
            nodes |= ns
        count = str(len(keys))
        if isinstance(result, Var):
            bound = b.get(result.name)
            if bound is not None and bound != count:
                return
            yield {**b, result.name: count}, frozenset(nodes)
        elif _value(result, b) == count:
            yield b, frozenset(nodes)


def evaluate(query: Sequence[str], answer_var: str,
             store: FactStore) -> tuple[set[str], set[str]]:
    """``(answers, support node ids)`` of a PhantomWiki query; raises :class:`Unmapped`."""
    goals = [parse_literal(lit) for lit in reversed(query)]
    answers: set[str] = set()
    support: set[str] = set()
    for b, nodes in Solver(store).solve(goals, {}):
        if answer_var not in b:
            raise Unmapped(f"the answer variable {answer_var} is never bound")
        answers.add(b[answer_var])
        support |= nodes
    return answers, support
