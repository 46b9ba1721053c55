"""What ``kbgym view`` shows, read from a run directory (or one snapshot) into one JSON-able
object that the page (:mod:`kbgym.view.page`) renders. Analysis side: it reads the hidden
fields (origin class, the truth behind keys and statements), which agents never see.

- **library**: every note (id, text, origin class, links; bounded by
  :attr:`ViewLimits.max_notes`), the authored notes' link-inferred keys, families, precision
  and recall (:mod:`kbgym.metrics.structure`), stale links (docs/protocol.md §20) and the
  verdicts on the statements of written notes (:mod:`kbgym.metrics.misinformation`), with
  ``structure`` and ``misinformation`` the very dicts ``kbgym report`` writes;
- **growth**: the trace replayed iteration by iteration (:mod:`kbgym.runs.replay`): each
  iteration's notes added, edited and deleted and links made and removed, ``series.jsonl``,
  the forward F1, and the structure metrics at every snapshot iteration;
- **episodes**: training iterations and exam questions as transcripts (trace rows with their
  log row), sampled evenly when there are more than the limits allow;
- **probe**: the probe table and the training-time curve, as written.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from kbgym.protocol import result_ids
from kbgym.errors import ConfigError
from kbgym.files import check_library_universe, check_trace_row, load_universe_file
from kbgym.library.apply import is_replayable, replay_row
from kbgym.library.graph import AUTHORED, EDITED, Library, format_id
from kbgym.library.snapshot import load_snapshot
from kbgym.metrics.misinformation import Truth, misinformation, note_verdicts
from kbgym.metrics.structure import (
    VALUES,
    LinkResolver,
    Resolver,
    index_structure,
    note_character,
    note_family,
)
from kbgym.runs.logs import read_jsonl
from kbgym.runs.replay import load_run_universe, read_run_meta, snapshot_library, start_library
from kbgym.types import Question, Universe

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class ViewLimits:
    """Bounds on what one page holds (the default demo fits whole, under 10 MB)."""

    max_episodes: int = 1500  # transcripts embedded, over all sources
    max_episode_chars: int = 5_000_000  # characters of transcript text, over all episodes
    max_result_chars: int = 4_000  # one step's result, cut beyond (marked)
    max_notes: int = 50_000  # beyond: only written notes, link ends and notes episodes read
    max_members: int = 200  # members listed per index note
    max_diff_items: int = 60  # notes or links listed per iteration and kind (counts exact)
    max_points: int = 60  # library states scored for structure in Growth


LIMITS = ViewLimits()

#: The origin class of a note (hidden fields): untouched original, authored, edited original.
CLASS = {None: "o", AUTHORED: "a", EDITED: "e"}


# -- library ------------------------------------------------------------------------------


def key_label(key: str | None, names: dict[str, str]) -> str:
    """``friends of Ann Lee``, ``job: baker``, ``hub of Ann Lee``; ``-`` for no key."""
    if key is None:
        return "-"
    kind, _, rest = key.partition(":")
    if kind in VALUES:
        return f"{kind}: {rest}"
    return f"{kind} of {names.get(rest, rest)}"


def _kept_notes(lib: Library, keep: set[str], limit: int) -> list:
    """The notes embedded: all of them, or past ``limit`` the written notes, both ends of
    every link and ``keep`` (notes shown episodes read or diffs name)."""
    if len(lib) <= limit:
        return list(lib)
    want = set(keep)
    for n in lib:
        if n.flag is not None or n.links:
            want.add(n.id)
            want.update(n.links)
    return [n for n in lib if n.id in want]


def library_section(lib: Library, u: Universe, *, res: Resolver | None = None,
                    made: dict[str, int] | None = None,
                    edited_at: dict[str, list[int]] | None = None,
                    keep: set[str] = frozenset(), limits: ViewLimits = LIMITS) -> dict:
    res = res or Resolver(u)
    lr = LinkResolver(lib, u, res)
    structure = index_structure(lib, u, res, lr.keys)
    truth = Truth(u)
    names = {p.pid: p.name for p in u.people}
    nodes = _kept_notes(lib, keep, limits.max_notes)
    idx = {n.id: i for i, n in enumerate(nodes)}
    stale_on = lib.track_hashes or bool(lib.superseded)
    out, stale, typed, verdicts, origin, absorbed = [], [], [], {}, {}, {}
    index = []
    for i, n in enumerate(nodes):
        if n.links:
            out.append([i, [idx[t] for t in n.links]])
            for t in n.links:
                if stale_on and lib.is_stale(n.id, t):
                    stale.append([i, idx[t]])
                if t in n.link_types:
                    typed.append([i, idx[t], n.link_types[t]])
        if n.flag is not None:
            got = note_verdicts(truth, n.text)
            if got:
                verdicts[i] = [list(v) for v in got]
        if n.flag == EDITED or (n.origin is not None and n.origin != n.id):
            origin[i] = n.origin
        if n.absorbed:
            absorbed[i] = list(n.absorbed)
        if n.flag != AUTHORED:
            continue
        r = lr.keys[n.id]
        covered = lr.covered(n.id)
        hub = r.key is not None and r.key.startswith("hub:")
        members = sorted(r.members, key=lambda m: (m not in covered, m))[:limits.max_members]
        index.append({
            "n": i, "key": r.key, "label": key_label(r.key, names),
            "family": note_family(n, r), "character": note_character(n, r, res),
            "links": r.links, "correct": r.correct, "members": len(r.members),
            "covered": r.covered,
            "precision": r.correct / r.links if r.key is not None else None,
            "recall": r.covered / len(r.members) if r.key is not None and r.members else None,
            "member_kind": "notes" if hub else "people",
            "member_list": [[m if hub else names.get(m, m), int(m in covered)]
                            for m in members],
        })
    made = made or {}
    edited_at = edited_at or {}
    return {
        "n_total": len(lib), "n_embedded": len(nodes),
        "ids": [n.id for n in nodes], "text": [n.text for n in nodes],
        "cls": "".join(CLASS[n.flag] for n in nodes),
        "out": out, "stale": stale, "typed": typed, "stale_tracked": stale_on,
        "verdicts": verdicts, "origin": origin, "absorbed": absorbed,
        "made": [[idx[k], v] for k, v in made.items() if k in idx],
        "edited_at": [[idx[k], v] for k, v in edited_at.items() if k in idx],
        "index": index, "stats": lib.stats(),
        "structure": structure, "misinformation": misinformation(lib, u),
        "misinformation_applies": truth.applies,
    }


# -- growth (the trace replayed) -----------------------------------------------------------


def _state(lib: Library, nid: str):
    n = lib.get(nid)
    return None if n is None else (n.text, tuple(n.links))


def _touched(lib: Library, row: dict) -> set[str]:
    """The notes a replayable row can change, named by its input (a deleted or edited note's
    in-link sources too: deleting it removes their links)."""
    args = row.get("input") or {}
    ids = {args.get(k) for k in ("id", "source", "target")}
    targets = args.get("targets")
    if isinstance(targets, list):
        ids.update(targets)
    ids = {i for i in ids if isinstance(i, str) and i in lib}
    if row["action"] in ("delete", "edit") and isinstance(args.get("id"), str) \
            and args["id"] in lib:
        ids.update(lib.in_links(args["id"]))
    return ids


def _points(run_dir: Path, last: int, limit: int) -> list[int]:
    """The snapshot iterations (kb_iter_*, epoch ends, 0), thinned evenly to ``limit``."""
    pts = {0}
    for p in run_dir.glob("kb_iter_*.json"):
        tail = p.stem[len("kb_iter_"):]
        if tail.isdigit():
            pts.add(int(tail))
    pts.update(r["train_iterations"] for r in read_jsonl(run_dir / "kb_stats.jsonl")
               if isinstance(r.get("train_iterations"), int))
    pts = sorted(p for p in pts if p <= last)
    return _even(pts, limit)


def _even(items: list, k: int) -> list:
    """``k`` items spread evenly over ``items`` (first and last kept); all when k >= len."""
    n = len(items)
    if k >= n:
        return list(items)
    if k <= 1:
        return items[:k]
    return [items[round(i * (n - 1) / (k - 1))] for i in range(k)]


def growth_section(run_dir: Path, u: Universe, trace: list[dict], res: Resolver,
                   limits: ViewLimits = LIMITS) -> tuple[dict, dict, dict, dict]:
    """(growth, made, edited_at, lost): the per-iteration diffs, the iteration that added or
    edited each note, and the last text of listed notes that are gone by the end."""
    log = {r["iteration"]: r for r in read_jsonl(run_dir / "train_log.jsonl")
           if isinstance(r.get("iteration"), int)}
    rows_by = defaultdict(list)
    for i, row in enumerate(trace, start=1):
        check_trace_row(row, i, "trace.jsonl")
        if row["kind"] == "train":
            rows_by[row["iteration"]].append(row)
    its = sorted(set(log) | set(rows_by))
    last = its[-1] if its else 0
    points = set(_points(run_dir, last, limits.max_points))
    lib = start_library(run_dir, u)
    cap = limits.max_diff_items
    made, edited_at, lost = {}, defaultdict(list), {}
    scored = []
    scored_at = lib.version
    if 0 in points:
        scored.append(_scored(0, lib, u, res))
    steps = []
    for it in its:
        before: dict[str, tuple | None] = {}
        first_new = lib.next_id
        for row in rows_by.get(it, ()):
            if not is_replayable(row):
                continue
            for nid in _touched(lib, row):
                before.setdefault(nid, _state(lib, nid))
            replay_row(lib, row)
        for num in range(first_new, lib.next_id):  # minted in this iteration: absent before
            before[format_id(num)] = None
        added, edited, deleted, linked, unlinked = [], [], [], [], []
        for nid in sorted(before, key=lambda i: int(i[1:])):
            a, b = before[nid], _state(lib, nid)
            if a is None and b is not None:
                added.append(nid)
                made[nid] = it
            elif a is not None and b is None:
                deleted.append(nid)
                lost[nid] = a[0]
            elif a is not None and a[0] != b[0]:
                edited.append(nid)
                edited_at[nid].append(it)
            old, new = (set(a[1]) if a else set()), (b[1] if b else ())
            linked += [[nid, t] for t in new if t not in old]
            unlinked += [[nid, t] for t in (a[1] if a else ()) if t not in set(new)]
        r = log.get(it, {})
        steps.append({
            "it": it, "epoch": r.get("epoch"), "qid": r.get("qid"), "f1": r.get("f1"),
            "p1": r.get("p1_steps"), "p2": r.get("p2_steps"), "answer": r.get("answer"),
            "counts": [len(added), len(edited), len(deleted), len(linked), len(unlinked)],
            "added": added[:cap], "edited": edited[:cap], "deleted": deleted[:cap],
            "linked": linked[:cap], "unlinked": unlinked[:cap],
        })
        if it in points:
            if scored and lib.version == scored_at:  # unchanged since the last point
                scored.append({**scored[-1], "it": it})
            else:
                scored.append(_scored(it, lib, u, res))
            scored_at = lib.version
    series = read_jsonl(run_dir / "series.jsonl")
    cols = sorted({k for s in series for k, v in s.items()
                   if isinstance(v, (int, float)) and not isinstance(v, bool)} - {"schema_version"})
    growth = {
        "steps": steps, "scored": scored,
        "series": {k: [s.get(k) for s in series] for k in cols},
        "cap": cap,
    }
    return growth, made, dict(edited_at), lost


def _scored(it: int, lib: Library, u: Universe, res: Resolver) -> dict:
    s = index_structure(lib, u, res)
    return {"it": it, "precision": s["precision"], "recall": s["recall"],
            "index_nodes": s["index_nodes"], "families": s["families"]}


# -- episodes ------------------------------------------------------------------------------


def _input_text(value) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… [cut by the view: {len(text)} characters in all]"


def _episode(src: int, rows: list[dict], log: dict | None, q: Question | None,
             limits: ViewLimits) -> dict:
    first = rows[0] if rows else {}
    read, seen = [], {}
    steps = []
    for r in rows:
        action = r.get("action")
        args = r.get("input")
        result = _input_text(r.get("result"))
        if r.get("valid") and action == "read" and isinstance(args, dict) \
                and isinstance(args.get("id"), str):
            read.append(args["id"].strip())
        if r.get("valid") and action in ("search", "read", "locate", "expand"):
            for nid in result_ids(result):
                seen.setdefault(nid, None)
        steps.append([r.get("phase"), r.get("step"), action, _input_text(args),
                      _cut(result, limits.max_result_chars), bool(r.get("valid"))])
    log = log or {}
    steps_n = log.get("steps")
    if steps_n is None and log.get("p1_steps") is not None:
        steps_n = log["p1_steps"] + (log.get("p2_steps") or 0)
    return {
        "src": src, "qid": first.get("qid") or log.get("qid"),
        "q": q.text if q else None, "golds": list(q.golds) if q else None,
        "template": log.get("template") or (q.template if q else None),
        "category": log.get("category") or (q.category if q else None),
        "split": first.get("split", log.get("split")), "epoch": first.get("epoch"),
        "iteration": first.get("iteration"), "repeat": first.get("repeat"),
        "f1": log.get("f1"), "em": log.get("em"), "steps": steps_n,
        "p1": log.get("p1_steps"), "p2": log.get("p2_steps"), "status": log.get("status"),
        "answer": log.get("answer"), "evidence": log.get("evidence"),
        "read": list(dict.fromkeys(read)), "seen": [i for i in seen if i not in read],
        "rows": steps,
    }


def _test_key(r: dict) -> tuple:
    return (str(r.get("epoch")), r.get("split"), r.get("qid"), r.get("repeat"))


def _group(trace: list[dict], kind: str) -> list[tuple[tuple, list[dict]]]:
    groups: dict[tuple, list[dict]] = {}
    for r in trace:
        if r.get("kind") != kind:
            continue
        key = (r.get("iteration"),) if kind == "train" else _test_key(r)
        groups.setdefault(key, []).append(r)
    return list(groups.items())


def episodes_section(sources: list[dict], limits: ViewLimits = LIMITS) -> dict:
    """``sources``: {name, kind (train|test), trace rows, log rows, questions by qid}.
    Episodes beyond the limits are sampled evenly within each source (first and last kept)
    and the page says so."""
    groups = []
    for s in sources:
        if s["kind"] == "train":
            logs = {(r.get("iteration"),): r for r in s["log"]}
        else:
            logs = {_test_key(r): r for r in s["log"]}
        groups.append([(rows, logs.get(key)) for key, rows in _group(s["trace"], s["kind"])])
    total = sum(len(g) for g in groups)
    budget = limits.max_episodes
    while True:
        picked = []
        for g in groups:
            k = len(g) if total <= budget else min(len(g), max(1, budget * len(g) // total))
            picked.append(_even(g, k))
        episodes = [_episode(i, rows, log, sources[i]["questions"].get(rows[0].get("qid")),
                             limits)
                    for i, chosen in enumerate(picked) for rows, log in chosen]
        chars = sum(len(st[3]) + len(st[4]) for e in episodes for st in e["rows"])
        if chars <= limits.max_episode_chars or budget <= len(groups):
            break
        budget = max(len(groups), int(budget * limits.max_episode_chars / chars * 0.9))
    return {
        "sources": [{"name": s["name"], "kind": s["kind"], "total": len(g), "shown": len(p)}
                    for s, g, p in zip(sources, groups, picked)],
        "list": episodes, "sampled": any(len(p) < len(g) for g, p in zip(groups, picked)),
        "result_cap": limits.max_result_chars,
    }


# -- finding a run's exams, questions and probe table --------------------------------------


def discover_exams(run_dir: Path, probe_table: Path | None) -> list[tuple[str, Path]]:
    """``exam_*`` folders holding a test_log.jsonl beside the probe table (or beside the run
    directory): the layout ``kbgym demo`` writes. Labelled by the folder name after ``exam_``."""
    where = probe_table.parent if probe_table is not None else run_dir.parent
    found = sorted(p for p in where.glob("exam_*") if (p / "test_log.jsonl").is_file())
    return [(p.name[len("exam_"):] or p.name, p) for p in found]


def exam_questions(u: Universe, paths: list[Path]) -> dict[str, Question]:
    """The universe's questions plus those of the first probe file in ``paths`` that exists
    and belongs to ``u``."""
    from kbgym.runs.exam import load_questions

    qs = {q.qid: q for q in u.questions}
    for p in paths:
        if p.is_file():
            try:
                more, _ = load_questions(u, p)
            except ConfigError:
                continue
            qs.update(more)
            break
    return qs


def _probe_files(exams: list[tuple[str, Path]], probe_table: Path | None,
                 run_dir: Path | None, probe: Path | None) -> list[Path]:
    out = []
    if probe is not None:
        out.append(probe)
    for _, d in exams:
        meta = d / "test_meta.json"
        if meta.is_file():
            try:
                q = json.loads(meta.read_text(encoding="utf-8")).get("questions")
            except (OSError, ValueError, AttributeError):
                q = None
            if isinstance(q, str):
                out.append(Path(q))
    for base in (probe_table.parent if probe_table else None,
                 run_dir.parent if run_dir else None):
        if base is not None:
            out.append(base / "probe.json")
    return list(dict.fromkeys(out))


def probe_section(table: dict | None, curve: dict | None, source: str | None) -> dict | None:
    if table is None and curve is None:
        return None
    return {"table": table, "curve": curve, "source": source}


def _read_curve(path: Path) -> dict | None:
    if not path.is_file():
        return None
    try:
        curve = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ConfigError(f"{path}: not a training curve ({e})") from None
    return curve if isinstance(curve, dict) else None


# -- the whole view ------------------------------------------------------------------------


def run_view(run_dir: str | Path, *, universe: Universe | str | Path | None = None,
             probe_table: str | Path | None = None,
             exams: list[tuple[str, str | Path]] | None = None,
             probe: str | Path | None = None, limits: ViewLimits = LIMITS,
             library: Library | None = None) -> dict:
    """The view of a training run: its last epoch's library (the one ``kbgym report``
    scores), its growth, its episodes and those of ``exams`` ((label, dir) pairs; default:
    :func:`discover_exams`), and the probe table (default: the run's own, if any).
    ``library``: that last library when the caller has it loaded already (the demo), used if
    its content hash is the snapshot's (:func:`kbgym.runs.replay.snapshot_library`)."""
    from kbgym.runs.report import find_probe_table

    run_dir = Path(run_dir)
    meta = read_run_meta(run_dir)
    from kbgym.runs.logs import verify_trace
    from kbgym.runs.manifest import verify_run

    trace = verify_trace(run_dir)  # a cut, torn or altered trace is refused, naming the row
    verify_run(run_dir, meta)  # and a file that differs from what meta.json records
    u = load_run_universe(run_dir, universe)
    kb_stats = read_jsonl(run_dir / "kb_stats.jsonl")
    last_epoch = kb_stats[-1]["epoch"] if kb_stats else 0
    snap = run_dir / f"kb_epoch_{last_epoch}.json"
    if not snap.exists():
        raise ConfigError(f"{run_dir}: no {snap.name} - is the run's first epoch finished?")
    final = snapshot_library(snap, library)
    _watch_drift(final, u)
    res = Resolver(u)  # (the trace's rows: those verify_trace read, not read again)
    growth, made, edited_at, lost = growth_section(run_dir, u, trace, res, limits)

    pt_path = Path(probe_table) if probe_table else (
        run_dir / "probe_table.json" if (run_dir / "probe_table.json").exists() else None)
    table = find_probe_table(run_dir, probe_table)
    if exams is None:
        exam_dirs = discover_exams(run_dir, pt_path)
    else:
        exam_dirs = [(label, Path(d)) for label, d in exams]
        for label, d in exam_dirs:
            if not (d / "test_log.jsonl").is_file():
                raise ConfigError(f"--exam {label}={d}: no test_log.jsonl there")
    own = {q.qid: q for q in u.questions}
    sources = [{"name": "training", "kind": "train", "trace": trace, "questions": own,
                "log": read_jsonl(run_dir / "train_log.jsonl")}]
    if any(r.get("kind") == "test" for r in trace):
        sources.append({"name": "tests in the run", "kind": "test", "trace": trace,
                        "questions": own, "log": read_jsonl(run_dir / "test_log.jsonl")})
    for label, d in exam_dirs:  # each exam's own probe file first: gids are per probe
        files = _probe_files([(label, d)], pt_path, run_dir, Path(probe) if probe else None)
        sources.append({"name": f"exam {label}", "kind": "test",
                        "trace": read_jsonl(d / "trace.jsonl"),
                        "questions": exam_questions(u, files),
                        "log": read_jsonl(d / "test_log.jsonl")})
    episodes = episodes_section(sources, limits)
    del sources, trace  # (every trace row: not needed for the library, which allocates more)
    keep = {i for e in episodes["list"] for i in e["read"]}
    keep |= set(lost)
    library = library_section(final, u, res=res, made=made, edited_at=edited_at, keep=keep,
                              limits=limits)
    shown = set(library["ids"])
    growth["lost"] = {k: v for k, v in lost.items() if k not in shown}
    return {
        "schema_version": SCHEMA_VERSION, "kind": "run",
        "title": f"run {meta['run_id']}", "run_id": meta["run_id"],
        "sources": {"run": str(run_dir), "library": str(snap),
                    "probe_table": str(pt_path) if pt_path else None,
                    "exams": {label: str(d) for label, d in exam_dirs}},
        "universe": {"hash": u.hash, "people": len(u.people), "notes": len(u.nodes)},
        "agent": (meta.get("curator") or {}).get("plugin")
        or (meta.get("agent") or {}).get("model"),
        "library": library, "growth": growth, "episodes": episodes,
        "probe": probe_section(table, _read_curve(run_dir / "curve.json"),
                               str(pt_path) if pt_path else None),
    }


def library_view(snapshot: str | Path, *, universe: Universe | str | Path | None = None,
                 probe_table: str | Path | None = None, limits: ViewLimits = LIMITS) -> dict:
    """The view of one snapshot: the Library (and the probe table, when given). Its universe
    is ``universe``, else the one its header names when that file exists, else the default; a
    snapshot of the universe ``universe`` drifted from is carried over onto it, with its stale
    links marked (docs/protocol.md §20)."""
    from kbgym.runs.report import find_probe_table

    snapshot = Path(snapshot)
    if not snapshot.is_file():
        raise ConfigError(f"no such library file: {snapshot}")
    lib, header = load_snapshot(snapshot)
    if isinstance(universe, Universe):
        u = universe
    elif universe is not None:
        u = load_universe_file(universe)
    else:
        path = (header.get("universe") or {}).get("path")
        if path and Path(path).is_file():
            u = load_universe_file(path)
        else:
            from kbgym.env.env import default_universe

            u = default_universe()
    uhash = (header.get("universe") or {}).get("hash")
    if uhash is not None and uhash == (u.meta.get("drift") or {}).get("parent_hash"):
        from kbgym.runs.drift import library_for  # built before the drift: carried over (§20)

        lib = library_for(lib, uhash, u)
    else:
        check_library_universe(lib, header, u, str(snapshot))
    _watch_drift(lib, u)
    table = find_probe_table(snapshot.parent, probe_table) if probe_table else None
    return {
        "schema_version": SCHEMA_VERSION, "kind": "library",
        "title": f"library {snapshot.name}", "run_id": None,
        "sources": {"library": str(snapshot), "probe_table": str(probe_table) if probe_table
                    else None, "exams": {}},
        "universe": {"hash": u.hash, "people": len(u.people), "notes": len(u.nodes)},
        "agent": None,
        "library": library_section(lib, u, limits=limits),
        "growth": None, "episodes": None,
        "probe": probe_section(table, None, str(probe_table) if probe_table else None),
    }


def _watch_drift(lib: Library, u: Universe) -> None:
    """On a drifted universe, mark stale links as the environment does (§20)."""
    drift = u.meta.get("drift")
    if drift and not lib.track_hashes:
        lib.enable_staleness({old: new for new, old in drift["supersedes"].items()})
