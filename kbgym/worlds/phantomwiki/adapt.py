"""``adapt_phantomwiki(src)``: a PhantomWiki output folder as a KBGym universe (SPEC §17).

The result is a :class:`~kbgym.types.Universe` that the environment, the library,
``kbgym train`` and ``kbgym test`` take like a generated one:

- ``nodes``: one per self-contained article sentence (:mod:`.documents`). The hidden ``fact``
  is the parsed sentence (:mod:`.facts`): ``kind`` is PhantomWiki's predicate (``sister``,
  ``friend``, ``job``, ``dob``, ...), ``subject`` the pid of the article's person, ``object``
  the value for an attribute or the comma-joined pids of the people the sentence lists
  (``"p0003,p0017"``). A sentence no form matches has kind ``pw_text`` and an empty object.
- ``people``: one real person per article, pid ``p%04d`` in article order, filled from the
  parsed sentences. PhantomWiki has no cities and no generations: ``city`` is ``""`` and
  ``generation`` None (``distractor`` is False for everyone).
- ``vocab``: the jobs and hobbies the articles state (sorted), no cities, and the PW templates.
- ``questions``: every question left after dropping repeated texts. The split draws come
  first (qids ``q%04d`` in draw order); the questions no split drew follow, template by
  template in file order, so a probe can still use them.
- ``meta.adapter_report``: counts of nodes, dropped repeats, and support statuses.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from pathlib import Path

from kbgym.worlds.phantomwiki.documents import node_rows
from kbgym.worlds.phantomwiki.facts import ATTRIBUTE_PREDICATES, FactStore, parse_sentence
from kbgym.worlds.phantomwiki.questions import (
    NO_TIER,
    Shape,
    SupportResult,
    category,
    drop_repeats,
    golds,
    recompute_support,
    template_name,
    type_shapes,
)
from kbgym.worlds.phantomwiki.source import PWArticle, PWQuestion, PWSourceError, read_source
from kbgym.seeding import stream
from kbgym.keys import KeyFinder
from kbgym.worlds.people.splits import draw_splits, take
from kbgym.types import Fact, Node, Person, Question, Universe

ADAPTER_VERSION = "1"
SPLIT_NAMES = ("train", "test_in", "test_out", "eval")
DEFAULT_SIZES = (150, 100, 50)
DEFAULT_EVAL_SIZES = (20, 10)


def adapt_phantomwiki(src: str | Path, *, seed: int = 0,
                      sizes: Sequence[int] = DEFAULT_SIZES,
                      eval_sizes: Sequence[int] = DEFAULT_EVAL_SIZES) -> Universe:
    """Read a PhantomWiki output folder and build its universe; ``seed`` drives the split
    shuffles (stream ``splits``) and every later KBGym stream of runs on this universe."""
    articles, questions = read_source(src)
    return build_universe(articles, questions, seed=seed, sizes=sizes, eval_sizes=eval_sizes)


# -- people and nodes -----------------------------------------------------------------------
def _first(values: list[str]) -> str:
    return values[0] if values else ""


def _people_and_nodes(articles: Sequence[PWArticle]):
    pid_of: dict[str, str] = {}
    for a in articles:
        if a.title in pid_of:
            raise PWSourceError(f"articles.json: two articles titled {a.title!r} - "
                                "run phantom-wiki without --duplicate-names")
        pid_of[a.title] = "p%04d" % (len(pid_of) + 1)

    known = set(pid_of.values())
    rows = node_rows((a.title, a.article) for a in articles)
    said: dict[str, dict[str, list[str]]] = {t: defaultdict(list) for t in pid_of}
    nodes, parsed_rows, unparsed = [], [], 0
    for node_id, title, text in rows:
        parsed = parse_sentence(text)
        parsed_rows.append((node_id, parsed))
        if parsed is None or parsed.subject != title:
            unparsed += 1
            fact = Fact("pw_text", pid_of[title], "")
        elif parsed.predicate in ATTRIBUTE_PREDICATES:
            fact = Fact(parsed.predicate, pid_of[title], ", ".join(parsed.objects))
            said[title][parsed.predicate] += parsed.objects
        else:
            pids = [pid_of.get(o, o) for o in parsed.objects]
            fact = Fact(parsed.predicate, pid_of[title], ",".join(pids))
            said[title][parsed.predicate] += [p for p in pids if p in known]
        nodes.append(Node(node_id, text, fact))

    def in_person_order(pids) -> tuple[str, ...]:
        return tuple(sorted(set(pids), key=lambda p: int(p[1:])))

    people = []
    for title, pid in pid_of.items():
        s = said[title]
        spouse = s["wife"] + s["husband"] + s["spouse"]
        people.append(Person(
            pid=pid, name=title, gender=_first(s["gender"]), generation=None, distractor=False,
            job=", ".join(s["job"]), hobby=", ".join(s["hobby"]), city="", born=_first(s["dob"]),
            spouse=spouse[0] if spouse else None,
            parents=in_person_order(s["mother"] + s["father"] + s["parent"]),
            children=in_person_order(s["son"] + s["daughter"] + s["child"]),
            friends=in_person_order(s["friend"]),
        ))
    return people, nodes, unparsed, FactStore.from_parsed(parsed_rows)


# -- questions and splits -------------------------------------------------------------------
def _check_sizes(sizes: Sequence[int], eval_sizes: Sequence[int]) -> tuple[tuple, tuple]:
    sizes, eval_sizes = tuple(int(n) for n in sizes), tuple(int(n) for n in eval_sizes)
    if len(sizes) != 3 or len(eval_sizes) != 2 or min(sizes + eval_sizes) < 0:
        raise PWSourceError("sizes must be 3 counts (train, test_in, test_out) and eval_sizes "
                            f"2 counts (eval in, eval out), all >= 0; got {sizes}, {eval_sizes}")
    return sizes, eval_sizes


def _draw(by_type: dict[int, list[int]], reserved_types: set[int], seed: int, sizes: tuple,
          eval_sizes: tuple):
    """``(split, question index, eval_flavor)`` in draw order, and the shortfall per draw
    (SPEC §5 with §17's changes: no tiers, the reserved shapes held out - types 0 and 6 at the
    default depth)."""
    rng = stream(seed, "splits")
    pools: dict[str, deque[int]] = {}
    for t, items in by_type.items():  # table order: ascending type
        items = list(items)
        rng.shuffle(items)
        pools[template_name(t)] = deque(items)
    trained = [template_name(t) for t in by_type if t not in reserved_types]
    reserved = [template_name(t) for t in by_type if t in reserved_types]
    return draw_splits(pools, sizes, eval_sizes, lambda n: take(pools, trained, n), reserved)


def _templates_vocab(shapes: dict[int, Shape | None]) -> dict:
    return {template_name(t): {"category": category(s), "tier": NO_TIER, "hops": None,
                               "reserved": bool(s and s.reserved)} for t, s in shapes.items()}


def build_universe(articles: Sequence[PWArticle], questions: Sequence[PWQuestion], *,
                   seed: int = 0, sizes: Sequence[int] = DEFAULT_SIZES,
                   eval_sizes: Sequence[int] = DEFAULT_EVAL_SIZES) -> Universe:
    """The universe of already-read articles and questions: a pure function of its inputs."""
    sizes, eval_sizes = _check_sizes(sizes, eval_sizes)
    if not articles:
        raise PWSourceError("articles.json holds no articles")
    people, nodes, unparsed, store = _people_and_nodes(articles)

    kept, dropped = drop_repeats(questions)
    types = sorted({q.type for q in kept})
    first_shapes = type_shapes(kept)
    shapes = {t: first_shapes[t] for t in types}  # ascending type: the table order
    reserved_types = {t for t, s in shapes.items() if s is not None and s.reserved}
    by_type: dict[int, list[int]] = {t: [] for t in types}
    for i, q in enumerate(kept):
        by_type[q.type].append(i)

    finder = KeyFinder((p.name for p in people), (), (), ())
    supports: list[SupportResult] = [recompute_support(q, store) for q in kept]
    rows, shortfall = _draw(by_type, reserved_types, seed, sizes, eval_sizes)
    drawn = {i for _, i, _ in rows}
    rows += [(None, i, None) for t in types for i in by_type[t] if i not in drawn]

    out_questions, splits = [], {name: [] for name in SPLIT_NAMES}
    for n, (split, i, flavor) in enumerate(rows, start=1):
        q, sup = kept[i], supports[i]
        qid = "q%04d" % n
        out_questions.append(Question(
            qid=qid, template=template_name(q.type), category=category(shapes[q.type]),
            tier=NO_TIER,
            hops=q.difficulty, text=q.text, golds=golds(q.answer), support=sup.support,
            keys=finder(q.text), unanswerable=not q.answer, support_status=sup.status,
            eval_flavor=flavor))
        if split is not None:
            splits[split].append(qid)

    report = _report(articles, nodes, unparsed, questions, dropped, kept, supports, len(drawn))
    meta = {
        "source": "phantomwiki", "source_format": "phantom-wiki 1.0.3 json",
        "adapter_version": ADAPTER_VERSION, "seed": seed, "n_people": len(people),
        "n_distractors": 0, "sizes": list(sizes), "eval_sizes": list(eval_sizes),
        "reserved_templates": [template_name(t) for t in sorted(reserved_types)],
        "split_shortfall": shortfall, "adapter_report": report,
    }
    vocab = {
        "jobs": sorted({o for _, o, _ in store.match("job", None, None)}),
        "hobbies": sorted({o for _, o, _ in store.match("hobby", None, None)}),
        "cities": [],
        "templates": _templates_vocab(shapes),
    }
    return Universe(meta=meta, vocab=vocab, people=tuple(people), nodes=tuple(nodes),
                    questions=tuple(out_questions),
                    splits={k: tuple(v) for k, v in splits.items()})


def _report(articles, nodes, unparsed, questions, dropped, kept, supports, n_drawn) -> dict:
    by_template: dict[str, dict[str, int]] = {}
    reasons: dict[str, int] = {"unmapped": 0, "answer_mismatch": 0}
    unmapped: set[str] = set()
    for q, sup in zip(kept, supports, strict=True):
        row = by_template.setdefault(template_name(q.type),
                                     {"questions": 0, "recomputed": 0, "unavailable": 0})
        row["questions"] += 1
        row[sup.status] += 1
        if sup.reason:
            reasons[sup.reason] += 1
            if sup.reason == "unmapped":
                unmapped.add(sup.detail or "")
    n_rec = sum(s.status == "recomputed" for s in supports)
    return {
        "articles": len(articles), "nodes": len(nodes), "unparsed_nodes": unparsed,
        "questions_read": len(questions), "repeated_dropped": dropped, "questions": len(kept),
        "in_splits": n_drawn, "unsplit": len(kept) - n_drawn,
        "support": {"recomputed": n_rec, "unavailable": len(kept) - n_rec, **reasons},
        "unmapped": sorted(unmapped), "by_template": by_template,
    }


def adapter_report(universe: Universe) -> dict:
    """The adapter's report stored in ``meta.adapter_report``."""
    return universe.meta["adapter_report"]


def summarize(universe: Universe) -> str:
    """A short text summary: counts, support statuses and the split table."""
    r = adapter_report(universe)
    sup = r["support"]
    lines = [
        f"phantomwiki  articles={r['articles']}  nodes={r['nodes']} "
        f"(unparsed {r['unparsed_nodes']})  questions={r['questions']} "
        f"(read {r['questions_read']}, repeats dropped {r['repeated_dropped']}, "
        f"unsplit {r['unsplit']})",
        f"support      recomputed={sup['recomputed']}  unavailable={sup['unavailable']} "
        f"(unmapped {sup['unmapped']}, answer mismatch {sup['answer_mismatch']})",
    ]
    lines += [f"  unmapped     {why}" for why in r["unmapped"]]
    lines += [
        f"hash         {universe.hash}",
        "",
        f"{'template':14s}{'category':10s}" + "".join(f"{s:>9s}" for s in SPLIT_NAMES),
    ]
    split_of = {qid: s for s in SPLIT_NAMES for qid in universe.splits[s]}
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for q in universe.questions:
        if q.qid in split_of:
            counts[(q.template, split_of[q.qid])] += 1
    for name, t in universe.vocab["templates"].items():
        mark = " R" if t["reserved"] else ""
        lines.append(f"{name + mark:14s}{t['category']:10s}"
                     + "".join(f"{counts[(name, s)]:9d}" for s in SPLIT_NAMES))
    lines.append(f"{'total':24s}" + "".join(f"{len(universe.splits[s]):9d}" for s in SPLIT_NAMES))
    short = {k: v for k, v in universe.meta["split_shortfall"].items() if v}
    lines.append("shortfall " + (", ".join(f"{k}={v}" for k, v in short.items()) or "none"))
    return "\n".join(lines)
