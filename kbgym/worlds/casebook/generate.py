"""``generate(config)``: a casebook universe as a pure function of (config, seed).

Streams: ``universe/casebook/ledger`` (documents and facts), ``universe/casebook/prose``
(wording and boilerplate), ``questions/casebook`` (pool thinning and cuts), ``splits`` (one
shuffle per template, in table order). Splits: train, test_in and eval-in round-robin over the
trained templates, test_out and eval-out over the reserved ones; every question no split drew
follows, template by template, so a probe can use them. Qids are ``q%04d`` in that order.
"""

from __future__ import annotations

from collections import Counter, deque

from kbgym.seeding import stream
from kbgym.types import Universe
from kbgym.worlds.casebook.config import CasebookConfig
from kbgym.worlds.casebook.documents import render_documents
from kbgym.worlds.casebook.ledger import Ledger, build_ledger
from kbgym.worlds.casebook.questions import RESERVED, TEMPLATES, TRAINED, Pools

SOURCE = "casebook"
GENERATOR_VERSION = "5"
SPLIT_NAMES = ("train", "test_in", "test_out", "eval")


def _take(queues: dict[str, deque], names, n: int) -> list:
    out: list = []
    while len(out) < n:
        live = [t for t in names if queues[t]]
        if not live:
            break
        for t in live:
            if len(out) == n:
                break
            out.append(queues[t].popleft())
    return out


def assemble(config: CasebookConfig, ledger: Ledger, meta_extra: dict | None = None) -> Universe:
    """The universe of a ledger: its paragraph notes, every question, the splits, the meta
    (``meta.casebook``: the ledger and where each fact is written)."""
    nodes, where = render_documents(ledger, config.seed)
    pools = Pools(ledger).all(config)
    rng = stream(config.seed, "splits")
    queues = {}
    for t in TEMPLATES:
        items = list(pools[t.name])
        rng.shuffle(items)
        queues[t.name] = deque(items)
    n_train, n_in, n_out = config.sizes
    e_in, e_out = config.eval_sizes
    draws = [("train", None, _take(queues, TRAINED, n_train)),
             ("test_in", None, _take(queues, TRAINED, n_in)),
             ("test_out", None, _take(queues, RESERVED, n_out)),
             ("eval", "in", _take(queues, TRAINED, e_in)),
             ("eval", "out", _take(queues, RESERVED, e_out))]
    shortfall = {("eval_" + fl if fl else s): want - len(items) for (s, fl, items), want in
                 zip(draws, (n_train, n_in, n_out, e_in, e_out))}
    rows = [(s, inst, fl) for s, fl, items in draws for inst in items]
    rows += [(None, inst, None) for t in TEMPLATES for inst in queues[t.name]]
    questions, splits = [], {name: [] for name in SPLIT_NAMES}
    for i, (split, inst, flavor) in enumerate(rows, start=1):
        q = inst.question("q%04d" % i, where, flavor)
        questions.append(q)
        if split is not None:
            splits[split].append(q.qid)
    meta = {
        "source": SOURCE, "generator_version": GENERATOR_VERSION, "seed": config.seed,
        "config": config.model_dump(mode="json"), "n_people": 0, "n_distractors": 0,
        "sizes": list(config.sizes), "eval_sizes": list(config.eval_sizes),
        "reserved_templates": list(RESERVED), "split_shortfall": shortfall,
        "casebook": {**ledger.to_json(), "where": where}, **(meta_extra or {}),
    }
    vocab = {"jobs": [], "hobbies": [], "cities": [],
             "templates": {t.name: t.to_json() for t in TEMPLATES}}
    return Universe(meta=meta, vocab=vocab, people=(), nodes=tuple(nodes),
                    questions=tuple(questions), splits={k: tuple(v) for k, v in splits.items()})


def generate(config: CasebookConfig | None = None) -> Universe:
    """A casebook universe (defaults: about 170 documents, 1,500 facts, 1,800 paragraphs)."""
    config = config or CasebookConfig()
    return assemble(config, build_ledger(config))


def ledger_of(universe: Universe) -> Ledger:
    """The ledger a casebook universe carries (``meta.casebook``)."""
    return Ledger.from_json(universe.meta["casebook"])


def where_of(universe: Universe) -> dict[str, list[str]]:
    """Per ledger fact id, the paragraph notes it is written in."""
    return universe.meta["casebook"]["where"]


def summarize(u: Universe) -> str:
    """The ``kbgym build --world casebook`` summary."""
    ledger = ledger_of(u)
    kinds = Counter(d.kind for d in ledger.docs)
    words = sum(len(n.text.split()) for n in u.nodes)
    lines = [
        f"casebook  seed={u.meta['seed']}  documents={len(ledger.docs)} "
        f"({', '.join(f'{k} {n}' for k, n in kinds.items())})",
        f"          facts={len(ledger.facts)}  paragraphs={len(u.nodes)}  words={words}  "
        f"questions={len(u.questions)}",
        f"hash      {u.hash}",
        "",
        f"{'template':24s}{'class':16s}" + "".join(f"{s:>9s}" for s in SPLIT_NAMES),
    ]
    split_of = {qid: s for s in SPLIT_NAMES for qid in u.splits[s]}
    by = Counter((q.template, split_of.get(q.qid)) for q in u.questions)
    for t in TEMPLATES:
        mark = " R" if t.reserved else ""
        lines.append(f"{t.name + mark:24s}{t.category:16s}"
                     + "".join(f"{by[(t.name, s)]:9d}" for s in SPLIT_NAMES))
    return "\n".join(lines)
