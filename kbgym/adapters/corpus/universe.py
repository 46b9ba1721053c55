"""``import_corpus(docs, questions)``: any folder of Markdown/text files as a KBGym universe.

**Questions** come as JSONL, one object a line:

- ``question`` (or ``text``): the question;
- ``answers``: the gold variants, the first canonical (``answer`` may be one string or a
  list); no answers, or ``unanswerable: true``, make it unanswerable (golds ``unknown``);
- optional ``support``: note ids (``s0012``) or source lines ``{path}:{line}`` (every note
  whose line range holds that line); with support the status is ``exact``, without it
  ``unavailable`` (support-based metrics skip the question);
- optional ``template`` (default ``corpus``) and ``category`` (default the template, upper
  case). A repeated question text is dropped (the first is kept).

**Keys** come from a pluggable extractor, ``text -> iterable of names`` (``--keys
module:function``); each name becomes the typed key ``entity:{name}``. The default
(:func:`capitalized_runs`) takes maximal runs of capitalised words, trailing ``'s`` dropped,
minus a run that is a single word opening the text ("Who", "The").

**Splits** (stream ``splits``): the questions are shuffled once; ``train`` takes the first
n; every other question is *in* when it shares a key with a training question or has no
key, else *out*; ``test_in``/``test_out`` take the first n of each, then eval takes the next
in (flavor ``in``) and out (flavor ``out``) ones. Short draws go to ``meta.split_shortfall``.
Qids are ``q%04d`` in draw order; questions no split drew follow, so a probe can use them.

**Probe** (:func:`make_corpus_probe`): groups ``exact`` (trained questions), ``share1`` (an
untrained question sharing at least one key with training) and ``share0`` (keys, none
shared), each shuffled with stream ``probe/corpus/{group}`` and cut to ``per_group``.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from kbgym.adapters.corpus.documents import Note, read_corpus
from kbgym.errors import ConfigError
from kbgym.runs.probe import read_train_log, trained_qids
from kbgym.seeding import stream
from kbgym.universe.types import Fact, Node, Question, Universe

ADAPTER_VERSION = "1"
SPLIT_NAMES = ("train", "test_in", "test_out", "eval")
DEFAULT_SIZES = (150, 100, 50)
DEFAULT_EVAL_SIZES = (20, 10)
PROBE_GROUPS = ("exact", "share1", "share0")
_RUN = re.compile(r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")

KeyExtractor = Callable[[str], Iterable[str]]


def capitalized_runs(text: str) -> list[str]:
    """The default key extractor: maximal runs of capitalised words (see the module doc)."""
    out = []
    for m in _RUN.finditer(text):
        name = re.sub(r"['’]s$", "", m.group(0))
        if m.start() == len(text) - len(text.lstrip()) and " " not in name:
            continue  # a lone capitalised word opening the text: "Who", "The", "How"
        out.append(name)
    return out


def load_extractor(spec: str | None) -> tuple[KeyExtractor, str]:
    if spec is None:
        return capitalized_runs, "capitalized_runs"
    module, _, attr = spec.partition(":")
    try:
        fn = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as err:
        raise ConfigError(f"cannot load key extractor {spec!r}: {err}") from None
    return fn, spec


def keys_of(extract: KeyExtractor, text: str) -> tuple[str, ...]:
    return tuple(sorted({f"entity:{k}" for k in extract(text) if k}))


def read_questions(path: str | Path) -> list[dict]:
    """The JSONL records, checked; one-line errors name the line."""
    try:
        # "\n" only: str.splitlines() would also break inside a question at U+2028, U+0085...
        lines = Path(path).read_text(encoding="utf-8").split("\n")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such questions file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: not a readable questions file ({type(err).__name__})") \
            from None
    out = []
    for no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as err:
            raise ConfigError(f"{path}:{no}: not valid JSON ({err.msg})") from None
        if not isinstance(rec, dict):
            raise ConfigError(f"{path}:{no}: expected a JSON object")
        text = rec.get("question", rec.get("text"))
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(f"{path}:{no}: needs a non-empty \"question\" string")
        answers = rec.get("answers", rec.get("answer", []))
        if isinstance(answers, str):
            answers = [answers]
        if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
            raise ConfigError(f"{path}:{no}: \"answers\" must be a list of strings")
        support = rec.get("support")
        if support is not None and (not isinstance(support, list)
                                    or not all(isinstance(s, str) for s in support)):
            raise ConfigError(f"{path}:{no}: \"support\" must be a list of ids or path:line")
        out.append({"line": no, "text": " ".join(text.split()),
                    "answers": [a.strip() for a in answers if a.strip()],
                    "unanswerable": bool(rec.get("unanswerable", False)),
                    "support": support, "template": str(rec.get("template", "corpus")),
                    "category": rec.get("category")})
    if not out:
        raise ConfigError(f"{path}: holds no questions")
    return out


def _resolve_support(refs: list[str], notes: Sequence[Note], where: str) -> tuple[str, ...]:
    ids = {n.id for n in notes}
    found: set[str] = set()
    for ref in refs:
        if ref in ids:
            found.add(ref)
            continue
        path, _, line = ref.rpartition(":")
        hits = [n.id for n in notes if line.isdigit() and n.source.path == path
                and n.source.first_line <= int(line) <= n.source.last_line]
        if not hits:
            raise ConfigError(f"{where}: support {ref!r} is neither a note id nor a "
                              "path:line of an imported note")
        found.update(hits)
    return tuple(sorted(found, key=lambda i: int(i[1:])))


def _check_sizes(sizes: Sequence[int], eval_sizes: Sequence[int]) -> tuple[tuple, tuple]:
    sizes, eval_sizes = tuple(int(n) for n in sizes), tuple(int(n) for n in eval_sizes)
    if len(sizes) != 3 or len(eval_sizes) != 2 or min(sizes + eval_sizes) < 0:
        raise ConfigError("split sizes must be 3 counts (train, test_in, test_out) and 2 eval "
                          f"counts (in, out), all >= 0; got {sizes}, {eval_sizes}")
    return sizes, eval_sizes


def draw(keys: Sequence[tuple[str, ...]], seed: int, sizes: tuple, eval_sizes: tuple
         ) -> tuple[list[tuple[str | None, int, str | None]], dict[str, int]]:
    """(split, question index, flavor) in draw order, undrawn last; and the shortfall."""
    order = list(range(len(keys)))
    stream(seed, "splits").shuffle(order)
    n_train, n_in, n_out = sizes
    train = order[:n_train]
    train_keys = {k for i in train for k in keys[i]}
    rest = order[n_train:]
    pool_in = [i for i in rest if not keys[i] or train_keys.intersection(keys[i])]
    pool_out = [i for i in rest if keys[i] and not train_keys.intersection(keys[i])]
    e_in, e_out = eval_sizes
    draws = [("train", "train", train, None, n_train),
             ("test_in", "test_in", pool_in[:n_in], None, n_in),
             ("test_out", "test_out", pool_out[:n_out], None, n_out),
             ("eval_in", "eval", pool_in[n_in:n_in + e_in], "in", e_in),
             ("eval_out", "eval", pool_out[n_out:n_out + e_out], "out", e_out)]
    rows, shortfall = [], {}
    for label, split, items, flavor, wanted in draws:
        shortfall[label] = wanted - len(items)
        rows += [(split, i, flavor) for i in items]
    drawn = {i for _, i, _ in rows}
    rows += [(None, i, None) for i in range(len(keys)) if i not in drawn]
    return rows, shortfall


def import_corpus(docs: str | Path, questions: str | Path, *, seed: int = 0,
                  unit: str = "sentence", context: str = "title", keys: str | None = None,
                  sizes: Sequence[int] = DEFAULT_SIZES,
                  eval_sizes: Sequence[int] = DEFAULT_EVAL_SIZES) -> Universe:
    """The universe of a document folder and a questions JSONL: a pure function of them."""
    sizes, eval_sizes = _check_sizes(sizes, eval_sizes)
    documents, notes = read_corpus(docs, unit=unit, context=context)
    extract, extractor_name = load_extractor(keys)
    records = read_questions(questions)
    seen, kept = set(), []
    for rec in records:
        if rec["text"] not in seen:
            seen.add(rec["text"])
            kept.append(rec)
    qkeys = [keys_of(extract, r["text"]) for r in kept]
    rows, shortfall = draw(qkeys, seed, sizes, eval_sizes)

    out_q, splits = [], {name: [] for name in SPLIT_NAMES}
    templates: dict[str, dict] = {}
    for n, (split, i, flavor) in enumerate(rows, start=1):
        rec = kept[i]
        unanswerable = rec["unanswerable"] or not rec["answers"]
        where = f"{questions}:{rec['line']}"
        if unanswerable:
            support, status = (), "exact"
        elif rec["support"] is None:
            support, status = (), "unavailable"
        else:
            support, status = _resolve_support(rec["support"], notes, where), "exact"
        category = rec["category"] or rec["template"].upper()
        templates.setdefault(rec["template"], {"category": category, "tier": "none",
                                               "hops": None, "reserved": False})
        q = Question(qid="q%04d" % n, template=rec["template"], category=category, tier="none",
                     hops=None, text=rec["text"],
                     golds=("unknown",) if unanswerable else tuple(dict.fromkeys(rec["answers"])),
                     support=support, keys=qkeys[i], unanswerable=unanswerable,
                     support_status=status, eval_flavor=flavor)
        out_q.append(q)
        if split is not None:
            splits[split].append(q.qid)

    nodes = tuple(Node(n.id, n.text, Fact("text", n.doc, ""), n.source) for n in notes)
    meta = {
        "source": "corpus", "adapter_version": ADAPTER_VERSION, "seed": seed, "unit": unit,
        "context": context, "key_extractor": extractor_name, "n_people": 0,
        "n_distractors": 0, "sizes": list(sizes), "eval_sizes": list(eval_sizes),
        "split_shortfall": shortfall,
        "documents": [{"id": d.id, "path": d.path, "title": d.title, "hash": d.hash}
                      for d in documents],
        "adapter_report": {"documents": len(documents), "nodes": len(nodes),
                           "questions_read": len(records),
                           "repeated_dropped": len(records) - len(kept),
                           "in_splits": sum(len(v) for v in splits.values()),
                           "support": {s: sum(q.support_status == s for q in out_q)
                                       for s in ("exact", "unavailable")}},
    }
    vocab = {"jobs": [], "hobbies": [], "cities": [], "templates": templates}
    return Universe(meta=meta, vocab=vocab, people=(), nodes=nodes, questions=tuple(out_q),
                    splits={k: tuple(v) for k, v in splits.items()})


def summarize(u: Universe) -> str:
    r = u.meta["adapter_report"]
    short = {k: v for k, v in u.meta["split_shortfall"].items() if v}
    return "\n".join([
        f"corpus  documents={r['documents']}  notes={r['nodes']}  questions={len(u.questions)} "
        f"(read {r['questions_read']}, repeats dropped {r['repeated_dropped']})",
        f"support exact={r['support']['exact']}  unavailable={r['support']['unavailable']}",
        "splits  " + "  ".join(f"{k}={len(v)}" for k, v in u.splits.items()),
        "shortfall " + (", ".join(f"{k}={v}" for k, v in short.items()) or "none"),
        f"hash    {u.hash}",
    ])


def make_corpus_probe(universe: Universe, train_log: Sequence[Mapping], *, per_group: int = 30,
                      seed: int | None = None, train_log_hash: str | None = None) -> dict:
    """The probe file object of a training run on an imported corpus (module doc)."""
    seed = universe.meta["seed"] if seed is None else seed
    trained = [universe.question(q) for q in trained_qids(train_log)]
    train_keys = {k for q in trained for k in q.keys}
    texts = {q.text for q in trained}
    ids = {q.qid for q in trained}
    pools: dict[str, list[Question]] = {"exact": list(trained), "share1": [], "share0": []}
    for q in universe.questions:
        if q.qid in ids or q.text in texts or not q.keys:
            continue
        pools["share1" if train_keys.intersection(q.keys) else "share0"].append(q)
    questions: list[Question] = []
    splits: dict[str, list[str]] = {}
    for group in PROBE_GROUPS:
        items = pools[group]
        stream(seed, f"probe/corpus/{group}").shuffle(items)
        splits[group] = []
        for item in items[:per_group]:
            gid = "g%04d" % (len(questions) + 1)
            questions.append(Question(gid, item.template, item.category, item.tier, item.hops,
                                      item.text, item.golds, item.support, item.keys,
                                      item.unanswerable, item.support_status, None,
                                      item.qid if group == "exact" else None))
            splits[group].append(gid)
    return {"schema_version": 1, "kind": "kbgym.probe", "variant": "corpus",
            "universe_hash": universe.hash, "train_log_hash": train_log_hash,
            "per_group": per_group, "seed": seed,
            "questions": [q.to_json() for q in questions], "splits": splits}


def make_corpus_probe_from_run(universe: Universe, run_dir: str | Path, *, per_group: int = 30,
                               seed: int | None = None) -> dict:
    rows, digest = read_train_log(run_dir)
    return make_corpus_probe(universe, rows, per_group=per_group, seed=seed,
                             train_log_hash=digest)
