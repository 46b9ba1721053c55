"""``generate(config)``: a policies universe as a pure function of (config, seed).

Streams: ``universe/documents`` (the ledger), ``universe/voices`` (how each fact is worded),
``splits`` (one shuffle per template pool, in table order). Splits are drawn as in SPEC §5:
train, test_in and eval-in round-robin over the trained templates, test_out and eval-out over
the reserved ones; the questions no split drew follow (template by template, pool order), so
a probe can use them. Qids are ``q%04d`` in that order.
"""

from __future__ import annotations

from collections import deque

from kbgym.seeding import stream
from kbgym.worlds.people.splits import draw_splits, take
from kbgym.types import Universe
from kbgym.worlds.policies.config import PolicyConfig
from kbgym.worlds.policies.documents import render_nodes
from kbgym.worlds.policies.ledger import Ledger, build_ledger
from kbgym.worlds.policies.questions import RESERVED, TEMPLATES, TRAINED, Pools

SOURCE = "policies"
GENERATOR_VERSION = "1"
SPLIT_NAMES = ("train", "test_in", "test_out", "eval")


def assemble(config: PolicyConfig, ledger: Ledger, meta_extra: dict | None = None) -> Universe:
    """The universe of a ledger: its notes, every question, the splits and the meta."""
    nodes, note_of = render_nodes(ledger, config.seed)
    pools = Pools(ledger).all()
    rng = stream(config.seed, "splits")
    queues = {}
    for t in TEMPLATES:  # table order
        items = list(pools[t.name])
        rng.shuffle(items)
        queues[t.name] = deque(items)
    rows, shortfall = draw_splits(queues, config.sizes, config.eval_sizes,
                                  lambda n: take(queues, TRAINED, n), RESERVED)
    rows += [(None, inst, None) for t in TEMPLATES for inst in queues[t.name]]
    questions, splits = [], {name: [] for name in SPLIT_NAMES}
    for i, (split, inst, flavor) in enumerate(rows, start=1):
        q = inst.question("q%04d" % i, note_of, flavor)
        questions.append(q)
        if split is not None:
            splits[split].append(q.qid)
    meta = {
        "source": SOURCE, "generator_version": GENERATOR_VERSION, "seed": config.seed,
        "config": config.model_dump(mode="json"), "n_people": 0, "n_distractors": 0,
        "sizes": list(config.sizes), "eval_sizes": list(config.eval_sizes),
        "reserved_templates": list(RESERVED), "split_shortfall": shortfall,
        "policies": ledger.to_json(), **(meta_extra or {}),
    }
    vocab = {"jobs": [], "hobbies": [], "cities": [],
             "templates": {t.name: t.to_json() for t in TEMPLATES}}
    return Universe(meta=meta, vocab=vocab, people=(), nodes=tuple(nodes),
                    questions=tuple(questions), splits={k: tuple(v) for k, v in splits.items()})


def generate(config: PolicyConfig | None = None) -> Universe:
    """A policies universe (defaults: 100 documents, about 950 facts and notes)."""
    config = config or PolicyConfig()
    return assemble(config, build_ledger(config))


def ledger_of(universe: Universe) -> Ledger:
    """The ledger a policies universe file carries (``meta.policies``)."""
    return Ledger.from_json(universe.meta["policies"])


def summarize(u: Universe) -> str:
    """The ``kbgym build --world policies`` summary: documents, facts, questions per template
    and split."""
    from collections import Counter

    ledger = ledger_of(u)
    kinds = Counter(d.kind for d in ledger.documents)
    lines = [
        f"policies  seed={u.meta['seed']}  documents={len(ledger.documents)} "
        f"({', '.join(f'{k} {n}' for k, n in kinds.items())})",
        f"          facts={len(ledger.entries)}  notes={len(u.nodes)}  "
        f"provisions={len(ledger.provisions)}  questions={len(u.questions)}",
        f"hash      {u.hash}",
        "",
        f"{'template':28s}{'class':18s}" + "".join(f"{s:>9s}" for s in SPLIT_NAMES),
    ]
    split_of = {qid: s for s in SPLIT_NAMES for qid in u.splits[s]}
    by = Counter((q.template, split_of.get(q.qid)) for q in u.questions)
    for t in TEMPLATES:
        mark = " R" if t.reserved else ""
        lines.append(f"{t.name + mark:28s}{t.category:18s}"
                     + "".join(f"{by[(t.name, s)]:9d}" for s in SPLIT_NAMES))
    lines.append(f"{'total':46s}" + "".join(f"{len(u.splits[s]):9d}" for s in SPLIT_NAMES))
    short = {k: v for k, v in u.meta["split_shortfall"].items() if v}
    lines.append("shortfall " + (", ".join(f"{k}={v}" for k, v in short.items()) or "none"))
    return "\n".join(lines)
