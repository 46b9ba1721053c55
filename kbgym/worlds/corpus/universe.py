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

from pydantic import BaseModel, ConfigDict, ValidationError

from kbgym.worlds.corpus.documents import Note, read_corpus
from kbgym.errors import ConfigError, first_error
from kbgym.library.graph import invisible_char, normalize_text
from kbgym.runs.probe import make_probe, make_probe_from_run
from kbgym.seeding import stream
from kbgym.types import Fact, Node, Question, Universe
from kbgym.worlds.interface import ProbeCandidates

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
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise ConfigError(f"--keys {spec!r}: expected module:function")
    try:
        fn = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as err:
        raise ConfigError(f"cannot load key extractor {spec!r}: {err}") from None
    if not callable(fn):
        raise ConfigError(f"cannot load key extractor {spec!r}: {attr} is not callable")
    return fn, spec


def keys_of(extract: KeyExtractor, text: str) -> tuple[str, ...]:
    """The typed keys of a question; the extractor must give names (strings)."""
    names = extract(text)  # the user's code: its own errors keep their traceback
    if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
        raise ConfigError(f"the key extractor returned {type(names).__name__} for {text[:40]!r}; "
                          "it must return an iterable of names")
    names = list(names)
    bad = next((k for k in names if not isinstance(k, str)), None)
    if bad is not None:
        raise ConfigError(f"the key extractor returned {bad!r:.40} for {text[:40]!r}; names "
                          "must be strings")
    return tuple(sorted({f"entity:{normalize_text(k)}" for k in names if normalize_text(k)}))


#: The largest questions file, and its longest line.
MAX_QUESTIONS_BYTES = 256 << 20
MAX_LINE_BYTES = 1 << 20
#: The longest question, answer, template or category text.
MAX_QUESTION_CHARS = 1000
MAX_NAME_CHARS = 100


class QuestionRecord(BaseModel):
    """One JSONL line, strictly typed: ``"unanswerable": "false"`` or a list-valued category
    is an error naming the field, never a truthy string or a broken report later."""

    model_config = ConfigDict(extra="forbid", strict=True)

    question: str | None = None
    text: str | None = None
    answers: list[str] | str | None = None
    answer: list[str] | str | None = None
    unanswerable: bool = False
    support: list[str] | None = None
    template: str = "corpus"
    category: str | None = None


def _plain(value: str, field: str, where: str, cap: int) -> str:
    """``value`` with whitespace collapsed, under the note rules: a one-line error when it
    is too long or holds a control or invisible character."""
    text = normalize_text(value)
    if len(text) > cap:
        raise ConfigError(f"{where}: \"{field}\" is {len(text):,} characters, over the "
                          f"{cap:,}-character limit")
    bad = invisible_char(text)
    if bad is not None:
        raise ConfigError(f"{where}: \"{field}\" holds the control or invisible character "
                          f"U+{ord(bad):04X}")
    return text


def _record(line: bytes, no: int, path) -> dict:
    where = f"{path}:{no}"
    try:
        rec = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise ConfigError(f"{where}: not UTF-8 text ({err.reason})") from None
    except RecursionError:
        raise ConfigError(f"{where}: nested too deeply") from None
    except ValueError as err:
        raise ConfigError(f"{where}: not valid JSON ({str(err).split(':')[0]})") from None
    if not isinstance(rec, dict):
        raise ConfigError(f"{where}: expected a JSON object")
    try:
        r = QuestionRecord.model_validate(rec)
    except ValidationError as err:
        raise ConfigError(first_error(err, where)) from None
    if r.question is not None and r.text is not None:
        raise ConfigError(f"{where}: give \"question\" or \"text\", not both")
    if r.answers is not None and r.answer is not None:
        raise ConfigError(f"{where}: give \"answers\" or \"answer\", not both")
    text = r.question if r.question is not None else r.text
    if text is None or not text.strip():
        raise ConfigError(f"{where}: needs a non-empty \"question\" string")
    answers = r.answers if r.answers is not None else (r.answer if r.answer is not None else [])
    answers = [answers] if isinstance(answers, str) else answers
    if r.support is not None and not r.support:
        raise ConfigError(f"{where}: \"support\" is empty; leave it out when unknown")
    template = _plain(r.template, "template", where, MAX_NAME_CHARS)
    category = _plain(r.category, "category", where, MAX_NAME_CHARS) if r.category else None
    if not template:
        raise ConfigError(f"{where}: \"template\" is empty")
    return {"line": no, "text": _plain(text, "question", where, MAX_QUESTION_CHARS),
            "answers": [a for a in (_plain(a, "answers", where, MAX_QUESTION_CHARS)
                                    for a in answers) if a],
            "unanswerable": r.unanswerable, "support": r.support, "template": template,
            "category": category}


def read_questions(path: str | Path) -> list[dict]:
    """The JSONL records, checked (:class:`QuestionRecord`); one-line errors name the line.
    Read line by line, split on ``\\n`` only (a raw U+2028 inside a string is text)."""
    path = Path(path)
    try:
        if path.exists() and not path.is_file():
            raise ConfigError(f"{path}: not a regular file, expected a questions file")
        size = path.stat().st_size
        if size > MAX_QUESTIONS_BYTES:
            raise ConfigError(f"{path}: {size / (1 << 20):.1f} MB, over the "
                              f"{MAX_QUESTIONS_BYTES >> 20} MB limit of a questions file")
        fh = open(path, "rb")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such questions file") from None
    except OSError as err:
        raise ConfigError(f"{path}: not a readable questions file ({err.strerror})") from None
    out = []
    with fh:
        for no, line in enumerate(iter(lambda: fh.readline(MAX_LINE_BYTES + 1), b""), start=1):
            if len(line) > MAX_LINE_BYTES:
                raise ConfigError(f"{path}:{no}: a line over the {MAX_LINE_BYTES >> 20} MB limit "
                                  "of one question")
            if no == 1:
                line = line.removeprefix(b"\xef\xbb\xbf")  # a byte-order mark is not content
            if line.strip():
                out.append(_record(line, no, path))
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


def fitted_sizes(n: int) -> tuple[tuple, tuple]:
    """The default split sizes fitted to a corpus of ``n`` questions: 150/100/50 and 20/10
    when there are at least 330 of them, else those sizes scaled down to ``n`` (so a small
    corpus is not put entirely in train with nothing left to test)."""
    total = sum(DEFAULT_SIZES) + sum(DEFAULT_EVAL_SIZES)
    if n >= total:
        return DEFAULT_SIZES, DEFAULT_EVAL_SIZES
    scaled = [k * n // total for k in (*DEFAULT_SIZES, *DEFAULT_EVAL_SIZES)]
    return tuple(scaled[:3]), tuple(scaled[3:])


def empty_splits(u: Universe) -> list[str]:
    """The splits of ``u`` that were asked for but drew no question (a warning each)."""
    wanted = dict(zip(("train", "test_in", "test_out", "eval_in", "eval_out"),
                      (*u.meta["sizes"], *u.meta["eval_sizes"])))
    short = u.meta["split_shortfall"]
    return [k for k, n in wanted.items() if n and short.get(k) == n]


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
                  sizes: Sequence[int] | None = None,
                  eval_sizes: Sequence[int] | None = None) -> Universe:
    """The universe of a document folder and a questions JSONL: a pure function of them.
    Split sizes left out are the defaults fitted to the corpus (:func:`fitted_sizes`)."""
    if sizes is not None or eval_sizes is not None:
        _check_sizes(sizes or DEFAULT_SIZES, eval_sizes or DEFAULT_EVAL_SIZES)
    documents, notes = read_corpus(docs, unit=unit, context=context)
    extract, extractor_name = load_extractor(keys)
    records = read_questions(questions)
    seen, kept = set(), []
    for rec in records:
        if rec["text"] not in seen:
            seen.add(rec["text"])
            kept.append(rec)
    fit, fit_eval = fitted_sizes(len(kept))
    sizes, eval_sizes = _check_sizes(fit if sizes is None else sizes,
                                     fit_eval if eval_sizes is None else eval_sizes)
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


def probe_candidates(universe: Universe, trained: list[Question]) -> ProbeCandidates:
    """The corpus probe's pools: the trained questions, and every other question with keys by
    whether it shares one with training (module doc)."""
    train_keys = {k for q in trained for k in q.keys}
    texts = {q.text for q in trained}
    ids = {q.qid for q in trained}
    pools: dict[str, list[Question]] = {"exact": list(trained), "share1": [], "share0": []}
    for q in universe.questions:
        if q.qid in ids or q.text in texts or not q.keys:
            continue
        pools["share1" if train_keys.intersection(q.keys) else "share0"].append(q)
    return ProbeCandidates(pools={g: pools[g] for g in PROBE_GROUPS}, stream="probe/corpus/",
                           fields={"variant": "corpus"})


def make_corpus_probe(universe: Universe, train_log: Sequence[Mapping], *, per_group: int = 30,
                      seed: int | None = None, train_log_hash: str | None = None) -> dict:
    """The probe file object of a training run on an imported corpus (module doc)."""
    return make_probe(universe, train_log, per_group=per_group, seed=seed,
                      train_log_hash=train_log_hash)


def make_corpus_probe_from_run(universe: Universe, run_dir: str | Path, *, per_group: int = 30,
                               seed: int | None = None) -> dict:
    return make_probe_from_run(universe, run_dir, per_group=per_group, seed=seed)
