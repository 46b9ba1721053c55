"""The blog's experiment on the casebook world (docs/casebook.md §5): lookup (control) and
connected (treatment) accuracy for search, a wiki compiled without the questions, the wiki with
its evidence graph, and supervised curation (with and without the graph), next to the blog's
own figures; stated-citation consistency, steps per question and cost per correct answer.

    python scripts/experiments/casebook_blog_table.py [--seeds 0,1,2] [--per-group 20]
        [--repeats 3] [--m 15] [--out runs/casebook_blog]

Per seed: a default-size world; the probe is drawn from the questions outside the training
split, per tier (lookup, connected) and per key group — ``seen`` (every key of the question is
a key of a training question) and ``unseen`` (none is) — ``--per-group`` questions each,
spread over the templates. Every question is asked ``--repeats`` times; a repeat seeds the
reader's tie-breaks (``reset(seed=)``). Arms:

- ``first page``: one search with the question's words, an answer from that page (the blind
  guess);
- ``search``: the search-only reader on the documents (B1);
- ``wiki``: B1 plus the compiled wiki (pages link their claims; claims cite paragraphs in text);
- ``wiki+graph``: the same wiki with typed ``cites`` edges, read with ``locate``/``expand``;
- ``supervised`` / ``supervised+graph``: the library a supervised curator builds in one
  training epoch over the training split (KBGym's setting: forward the wiki reader, backward
  :class:`~kbgym_agents.scripted.casebook.WikiCurator`, which sees the gold and writes a
  verified page for the question's key from what its searches showed), without / with typed
  ``cites`` links from page to claims.

Accuracy is the mean SQuAD F1 against the ledger's golds (exact for values, dates and
documents; partial credit on sets); the *checklist* grade is the blog's: the F1 counts only when
the stated citations include a paragraph of the fact that decides the gold and no paragraph of
a memo or FAQ misstating the question's provision (:class:`Checklist`). Consistency is the
mean pairwise Jaccard of the paragraph ids each repeat's answer *stated* (undefined, and left
out, when a repeat cites nothing; the share left out is printed). Cost: steps per question, steps per correct answer, and tokens per
correct answer counted as the characters of the results the reader was shown / 4 (scripted
readers call no model; this is what a model reading the same results would be sent).
Also printed: the commonest gold per template and concept as a guess, over connected
questions (learned from the world's other questions, and learned on the other seeds).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import Counter, defaultdict
from pathlib import Path

from kbgym.env import KBGymConfig
from kbgym.library import Library
from kbgym.metrics.consistency import stated_consistency
from kbgym.runs.exam import Examiner
from kbgym.worlds.casebook import CasebookConfig, generate
from kbgym.worlds.casebook.grammar import parse_question
from kbgym.worlds.casebook.questions import LOOKUP
from kbgym_agents.scripted.casebook import (
    FirstPageReader,
    GraphReader,
    SearchReader,
    WikiReader,
    build_wiki,
    compile_pages,
)

#: The blog's figures (OpenWiki + evidence graph post): lookup and connected accuracy,
#: citation consistency, cost per correct answer (USD). The graph row: +27 % accuracy,
#: doubled consistency, -58 % cost per correct answer over the wiki, on connected questions.
BLOG = {
    "search": {"lookup": 0.84, "connected": 0.10, "J lookup": 0.72, "J connected": None,
               "cost lookup": 0.020, "cost connected": 0.55},
    "wiki": {"lookup": 0.83, "connected": 0.52, "J lookup": 0.74, "J connected": 0.25,
             "cost lookup": 0.021, "cost connected": 0.19},
    "wiki+graph": {"lookup": None, "connected": round(0.52 * 1.27, 2), "J lookup": None,
                   "J connected": 0.50, "cost lookup": None,
                   "cost connected": round(0.19 * 0.42, 2)},
}
ARMS = ("first page", "search", "wiki", "wiki+graph", "supervised", "supervised+graph")
TIERS = ("lookup", "connected")
GROUPS = ("seen", "unseen")


def tier_of(template: str) -> str:
    return "lookup" if template in LOOKUP else "connected"


def probe(u, per_group: int, seed: int) -> dict[tuple[str, str], list]:
    """(tier, group) -> questions, ``per_group`` each, round-robin over templates."""
    train = set(u.splits["train"])
    keys = {k for q in u.questions if q.qid in train for k in q.keys}
    rng = random.Random(seed)
    pools: dict[tuple[str, str], dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for q in u.questions:
        if q.qid in train:
            continue
        seen = sum(k in keys for k in q.keys)
        group = "seen" if seen == len(q.keys) else "unseen" if seen == 0 else None
        if group:
            pools[(tier_of(q.template), group)][q.template].append(q)
    out = {}
    for cell, by_t in pools.items():
        for qs in by_t.values():
            rng.shuffle(qs)
        picked: list = []
        while len(picked) < per_group and any(by_t.values()):
            for t in sorted(by_t):
                if by_t[t] and len(picked) < per_group:
                    picked.append(by_t[t].pop())
        out[cell] = picked
    return out


def supervised(u, out: Path, typed: bool) -> tuple[Library, dict]:
    """The library a supervised curator builds: one epoch over the training split, the wiki
    reader forward and :class:`WikiCurator` backward (pages only for the questions' keys,
    written from what its searches showed and verified against the gold)."""
    from kbgym.library.snapshot import load_snapshot
    from kbgym.runs.train import TrainConfig, train
    from kbgym_agents.scripted.casebook import WikiCurator
    from kbgym_agents.scripted.train import TrainAgent

    curator = WikiCurator(typed=typed)
    env = KBGymConfig(typed_links=True) if typed else KBGymConfig()
    train(u, TrainAgent(WikiReader(), curator), out, env_config=env,
          config=TrainConfig(epochs=1), overwrite=True)
    lib, _ = load_snapshot(out / "kb_epoch_1.json")
    return lib, dict(curator.stats)


def libraries(u, out: Path) -> dict[str, tuple[Library, KBGymConfig]]:
    paper = KBGymConfig()
    evidence = KBGymConfig(toolset="evidence", typed_links=True)
    paragraphs = [(n.id, n.text) for n in u.nodes]
    t0 = time.perf_counter()
    full = compile_pages(paragraphs)
    compile_s = time.perf_counter() - t0
    out_libs = {"first page": (Library.from_universe(u), paper),
                "search": (Library.from_universe(u), paper)}
    for name, typed in (("wiki", False), ("wiki+graph", True)):
        lib = Library.from_universe(u, typed_links=typed)
        build_wiki(lib, full, typed)
        out_libs[name] = (lib, evidence if typed else paper)
    t0 = time.perf_counter()
    sup, stats = supervised(u, out / "supervised", typed=False)
    sup_g, _ = supervised(u, out / "supervised_typed", typed=True)
    train_s = time.perf_counter() - t0
    out_libs["supervised"] = (sup, paper)
    out_libs["supervised+graph"] = (sup_g, evidence)
    words = sum(len(n.text.split()) for n in u.nodes)
    wiki_words = sum(len(p.text.split()) + sum(len(c.text.split()) for c in p.claims)
                     for p in full)
    print(f"  compiled wiki: {len(full)} pages, {sum(len(p.claims) for p in full)} claims, "
          f"{wiki_words / words:.2f}× the documents' words, {compile_s:.2f}s; supervised "
          f"curator over {len(u.splits['train'])} training questions: {stats} "
          f"({train_s:.0f}s for both)")
    return out_libs


READERS = {"first page": FirstPageReader, "search": SearchReader, "wiki": WikiReader,
           "wiki+graph": GraphReader, "supervised": WikiReader, "supervised+graph": GraphReader}


def run_arm(u, lib, cfg, reader_cls, cells, repeats: int, seed: int) -> list[dict]:
    questions = [q for qs in cells.values() for q in qs]
    examiner = Examiner(u, questions, cfg, library=lib, navigate=False)
    group_of = {q.qid: cell for cell, qs in cells.items() for q in qs}
    reader = reader_cls()
    rows = []
    try:
        for q in questions:
            for rep in range(repeats):
                summary, trace, _ = examiner.run(reader, q.qid, seed * 1000 + rep)
                shown = sum(len(r["result"]) for r in trace if isinstance(r.get("result"), str))
                tier, group = group_of[q.qid]
                rows.append({"qid": q.qid, "template": q.template, "tier": tier, "group": group,
                             "f1": summary["f1"], "steps": summary["steps"],
                             "cited": summary.get("cited") or [], "tokens": shown / 4,
                             "answer": summary["answer"]})
    finally:
        examiner.close()
    return rows


class Checklist:
    """The blog's grading: an answer earns its F1 only when its stated citations include a
    paragraph of the fact that decides the gold (required fact present) and none of a memo or
    FAQ paragraph that misstates the question's provision (contradiction penalised); else 0.
    Read from the ledger, after the exam."""

    def __init__(self, u):
        from kbgym.worlds.casebook import ledger_of, where_of
        from kbgym.worlds.casebook.rules import Rules

        self.ledger, self.where = ledger_of(u), where_of(u)
        self.rules = Rules(self.ledger)
        self.wrong: dict[tuple, set[str]] = defaultdict(set)
        for f in self.ledger.by_kind["states"]:
            if not f.correct:
                self.wrong[(f.target, f.concept)].update(self.where.get(f.id, []))
        self.question = {q.qid: q for q in u.questions}

    def required(self, q) -> tuple[list[set[str]], tuple | None]:
        """Sets of paragraphs, one per required fact (citing any paragraph of a set covers
        it), and the question's provision (form, concept) or None."""
        shape, f = parse_question(q.text)
        L, w = self.ledger, self.where
        c = f.get("concept")

        def paras(fact):
            return set(w.get(fact.id, []))

        if shape == "cb_form_value":
            fact = self.rules.sets[(f["form"], c)]
            return [paras(fact)], (f["form"], c)
        if shape in ("cb_endorsement_value", "cb_bound"):
            kinds = ("amends",) if shape == "cb_endorsement_value" else ("bound",)
            facts = [x for x in L.of_doc[f["doc"]] if x.kind in kinds
                     and (x.concept == c or x.kind == "bound")]  # a bound is on a class
            return [paras(x) for x in facts[:1]], None
        if shape == "cb_date":
            return [paras(self.rules.issued[f["doc"]])], None
        if shape in ("cb_effective", "cb_controls"):
            res = self.rules.effective(f["form"], c, f.get("state"), f["date"])
            who = res.controls
            facts = [x for x in L.of_doc[who] if (x.concept == c or x.kind == "bound")
                     and x.kind in ("sets", "amends", "replaces", "bound")]
            return [paras(x) for x in facts[:1]], (f["form"], c)
        if shape == "cb_chain":
            ids = set(q.support)
            return [ids], None  # any paragraph of the chain
        if shape == "cb_amenders":
            return [paras(x) for x in self.rules.amends[(f["form"], c)]], (f["form"], c)
        return [], None

    def grade(self, qid: str, f1: float, cited: list[str]) -> float:
        q = self.question[qid]
        need, provision = self.required(q)
        got = set(cited)
        if not all(got & s for s in need):
            return 0.0
        if provision is not None and got & self.wrong.get(provision, set()):
            return 0.0
        return f1


def summarize(rows: list[dict]) -> dict:
    f1 = sum(r["f1"] for r in rows)
    # one question per (seed, qid): qids repeat across seeds' worlds
    j, defined, undefined = stated_consistency(
        [dict(r, qid=f"{r.get('seed')}:{r['qid']}") for r in rows])
    return {"acc": f1 / len(rows) if rows else None, "n": len(rows),
            "checklist": (sum(r["checklist"] for r in rows) / len(rows)) if rows else None,
            "J": j, "J_undefined": undefined / max(1, defined + undefined),
            "steps": statistics.fmean(r["steps"] for r in rows) if rows else None,
            "steps_per_correct": sum(r["steps"] for r in rows) / f1 if f1 else None,
            "tokens_per_correct": sum(r["tokens"] for r in rows) / f1 if f1 else None}


def mode_guess(universes) -> dict[str, float]:
    """Accuracy, over connected questions, of answering the commonest gold of the question's
    (template, concept): learned from the *other* questions of the same world (leave one out:
    a guess never sees the gold it is scored on) and from the other seeds' worlds."""
    def key(q):
        p = parse_question(q.text)
        return q.template, (p[1].get("concept") if p else None)

    counts = []
    for u in universes:
        c: dict = defaultdict(Counter)
        for q in u.questions:
            c[key(q)][q.golds[0]] += 1
        counts.append(c)
    n = hit_loo = hit_other = 0
    for i, u in enumerate(universes):
        for q in u.questions:
            if tier_of(q.template) != "connected":
                continue
            k = key(q)
            n += 1
            rest = Counter(counts[i][k])
            rest[q.golds[0]] -= 1
            rest = +rest
            hit_loo += bool(rest) and rest.most_common(1)[0][0] == q.golds[0]
            pooled = Counter()
            for j, c in enumerate(counts):
                if j != i:
                    pooled.update(c.get(k, {}))
            hit_other += bool(pooled) and pooled.most_common(1)[0][0] == q.golds[0]
    return {"in_world_loo": hit_loo / n, "other_seeds": hit_other / n, "questions": n}


def fmt(x, spec=".2f") -> str:
    return "-" if x is None else format(x, spec)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--per-group", type=int, default=20, dest="per_group")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--m", type=int, default=15)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--arms", default=",".join(ARMS))
    ap.add_argument("--out", default="runs/casebook_blog")
    args = ap.parse_args(argv)
    arms = [a for a in args.arms.split(",") if a]
    seeds = [int(s) for s in args.seeds.split(",")]
    rows: dict[str, list[dict]] = defaultdict(list)
    universes = []
    t_all = time.perf_counter()
    for seed in seeds:
        u = generate(CasebookConfig(seed=seed, scale=args.scale))
        universes.append(u)
        cells = probe(u, args.per_group, seed)
        print(f"seed {seed}: {len(u.nodes)} paragraphs, probe "
              + ", ".join(f"{t}/{g} {len(cells.get((t, g), []))}" for t in TIERS for g in GROUPS))
        cells = {k: v for k, v in cells.items() if v}
        libs = libraries(u, Path(args.out) / f"seed{seed}")
        check = Checklist(u)
        for arm in arms:
            lib, cfg = libs[arm]
            cfg = cfg.model_copy(update={"m": args.m})
            t0 = time.perf_counter()
            rows[arm] += [dict(r, seed=seed, checklist=check.grade(r["qid"], r["f1"], r["cited"]))
                          for r in run_arm(u, lib, cfg, READERS[arm], cells, args.repeats, seed)]
            print(f"  {arm:17s} {time.perf_counter() - t0:6.1f}s")
    table = {arm: {f"{t}/{g}": summarize([r for r in rows[arm] if r["tier"] == t
                                          and (g == "all" or r["group"] == g)])
                   for t in TIERS for g in GROUPS + ("all",)} for arm in arms}
    modes = mode_guess(universes)
    print(f"\n{len(seeds)} seeds, {args.repeats} repeats, budget M={args.m}; accuracy = mean "
          f"F1; chk = the checklist grade (F1 only with a required fact's paragraph cited and "
          f"no misstating memo cited); point estimates, per-seed rows in results.json")
    head = (f"{'arm':18s}{'lookup':>8s}{'conn.':>8s}{'conn.seen':>10s}{'conn.unseen':>12s}"
            f"{'chk look':>9s}{'chk conn':>9s}"
            f"{'J look':>8s}{'J conn':>8s}{'undef':>7s}{'steps':>7s}{'st/corr':>8s}"
            f"{'tok/corr':>9s}")
    print(head)
    for arm in arms:
        t = table[arm]
        lk, cn = t["lookup/all"], t["connected/all"]
        print(f"{arm:18s}{fmt(lk['acc']):>8s}{fmt(cn['acc']):>8s}"
              f"{fmt(t['connected/seen']['acc']):>10s}{fmt(t['connected/unseen']['acc']):>12s}"
              f"{fmt(lk['checklist']):>9s}{fmt(cn['checklist']):>9s}"
              f"{fmt(lk['J']):>8s}{fmt(cn['J']):>8s}{fmt(cn['J_undefined']):>7s}"
              f"{fmt(cn['steps'], '.1f'):>7s}{fmt(cn['steps_per_correct'], '.1f'):>8s}"
              f"{fmt(cn['tokens_per_correct'], '.0f'):>9s}")
    print("\nthe blog (LLM agent; cost in USD per correct answer):")
    for arm, b in BLOG.items():
        print(f"{arm:18s}{fmt(b['lookup']):>8s}{fmt(b['connected']):>8s}{'':>40s}"
              f"{fmt(b['J lookup']):>8s}{fmt(b['J connected']):>8s}{'':>14s}"
              f"{fmt(b['cost connected'], '.2f'):>8s}")
    print(f"\ncommonest gold per template and concept as a guess, connected questions: "
          f"{modes['in_world_loo']:.3f} learned from the world's other questions, "
          f"{modes['other_seeds']:.3f} learned on the other seeds ({modes['questions']} "
          f"questions)")
    s, w = table.get("search"), table.get("wiki")
    if s and w:
        ratio = (w["connected/all"]["acc"] or 0) / max(1e-9, s["connected/all"]["acc"] or 0)
        print(f"wiki / search on connected: {ratio:.2f}×; on unseen keys: wiki "
              f"{fmt(w['connected/unseen']['acc'])} vs search "
              f"{fmt(s['connected/unseen']['acc'])}")
    print(f"total {time.perf_counter() - t_all:.0f}s")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = {"args": vars(args), "table": table, "mode_guess": modes, "blog": BLOG,
              "rows": {a: rows[a] for a in arms}}
    (out / "results.json").write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
