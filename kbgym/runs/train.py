"""The epoch driver, ``kbgym train`` (SPEC §9.4), with resume after interruption.

Iteration i of the run is one train-mode episode. Its end is recorded in this order:
trace rows (streamed during the episode), the train_log row, the series row, then a snapshot
when one is due. Resume trusts only what is recorded: n completed train_log rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

import kbgym
from kbgym import bounds as B
from kbgym.env.config import KBGymConfig
from kbgym.env.env import KBGymEnv, dedup_counters
from kbgym.errors import ConfigError, first_error
from kbgym.library.graph import Library
from kbgym.library.snapshot import write_snapshot
from kbgym.runs.episode import AgentLike, run_episode
from kbgym.runs.recorder import RunRecorder
from kbgym.runs.verdict import train_verdict
from kbgym.runs.lock import run_lock
from kbgym.runs.manifest import file_manifest, seal, sign, verify_run
from kbgym.runs.outdir import check_out, clear
from kbgym.runs.logs import (
    SCHEMA_VERSION,
    RunDir,
    read_jsonl,
    rewrite_jsonl,
    run_id_of,
    verify_trace,
    write_json,
)
from kbgym.seeding import stream
from kbgym.types import Universe


class TrainConfig(BaseModel):
    """How long and how often: epochs, the train slice, snapshots and evaluation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    epochs: B.Epochs = 2
    train_size: B.Count | None = Field(None, description="train[:train_size]; None = all")
    seed: B.Seed | None = Field(None, description="order stream seed; None = the universe seed")
    snapshot_every: B.Count = 20
    eval_each_epoch: B.Flag = False

    @classmethod
    def make(cls, **kwargs) -> "TrainConfig":
        try:
            return cls.model_validate(kwargs)
        except ValidationError as err:
            raise ConfigError(first_error(err, "train")) from None


def universe_ref(universe: Universe, path: str | None) -> dict:
    return {"path": path, "hash": universe.hash}


def curator_identity(agent: Any, spec: Mapping | None = None) -> dict:
    """Who trains: the plugin name or ``module:factory`` and its options (``spec``, from
    the command line), the agent's classes (its own, and its reader's and curator's when it
    has them) and its ``meta`` record (model, skills, sampling). Part of the run id, so a run
    never resumes under another curator."""
    def path(obj: Any) -> str:
        return f"{type(obj).__module__}:{type(obj).__qualname__}"

    spec = dict(spec or {})
    ident = {"plugin": spec.get("name") or path(agent),
             "options": _jsonable(spec.get("options") or {}),
             "classes": {"agent": path(agent),
                         **{part: path(getattr(agent, part)) for part in ("reader", "curator")
                            if getattr(agent, part, None) is not None}},
             "meta": _jsonable(dict(getattr(agent, "meta", None) or {}))}
    return ident


def _jsonable(obj: Any) -> Any:
    """``obj`` as canonical-JSON data (anything else by its repr)."""
    return json.loads(json.dumps(obj, sort_keys=True, default=repr))


def run_config(universe: Universe, env_cfg: KBGymConfig, cfg: TrainConfig, seed: int,
               agent_meta: dict, curator: dict | None = None) -> dict:
    """Everything that determines a run's logs; its hash is the run_id."""
    rc = {
        "universe": universe.hash, "seed": seed, "epochs": cfg.epochs,
        "train_size": cfg.train_size, "snapshot_every": cfg.snapshot_every,
        "eval_each_epoch": cfg.eval_each_epoch, "env": env_cfg.model_dump(), "agent": agent_meta,
    }
    if curator is not None:
        rc["curator"] = curator
    return rc


def _epoch_before(epoch: Any, limit: int) -> bool:
    return isinstance(epoch, int) and not isinstance(epoch, bool) and epoch < limit


def rewrite_existing(path: Path, rows: list[dict]) -> None:
    """``rewrite_jsonl`` for a file that exists (resume must not create empty logs)."""
    if path.exists():
        rewrite_jsonl(path, rows)


def read_meta(path: Path) -> dict:
    """A run's meta.json, or a one-line ConfigError when it is not a JSON object."""
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise ConfigError(f"{path}: not a readable meta.json ({err})") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("run_id"), str):
        raise ConfigError(f"{path}: not a kbgym meta.json (no run_id)")
    return meta


def _check_train_split(universe: Universe, cfg: TrainConfig | None,
                       env_cfg: KBGymConfig | None) -> None:
    """A train slice must exist: an empty train split, or a train_size beyond it (which
    would silently train on fewer questions than asked), is a one-line error."""
    n = len(universe.splits.get("train", ()))
    if not n:
        raise ConfigError("the universe's train split is empty: nothing to train on")
    for size in ((cfg.train_size if cfg else None), (env_cfg.train_size if env_cfg else None)):
        if size is not None and size > n:
            raise ConfigError(f"train_size {size}: the universe's train split has {n} "
                              "questions")


def check_train_out(out: str | Path, resume: bool, overwrite: bool, locked: bool = False
                    ) -> None:
    """``train --out``: a folder holding an earlier run needs ``--resume`` or ``--overwrite``;
    ``--resume`` needs a training run (or nothing) there. One-line ConfigErrors; reads only."""
    if resume and overwrite:
        raise ConfigError("--resume continues the run in --out and --overwrite replaces it: "
                          "give one of them")
    if only_temps(out):  # killed before its first meta.json: nothing was recorded yet
        return
    if not resume:
        check_out(out, what="a run", flags="--resume to continue it or --overwrite to "
                  "replace it", overwrite=overwrite, locked=locked)
        return
    taken = check_out(out, what="a run", flags="", overwrite=True, locked=locked)
    if taken and not (Path(out) / "meta.json").is_file():
        raise ConfigError(f"--resume {out}: holds no training run (no meta.json) - "
                          "choose the run's folder, or another --out")


def only_temps(out: str | Path) -> list[Path]:
    """The leftovers of atomic writes cut short (``.meta.json.*.tmp``), when they are all that
    kbgym wrote in ``out`` (a run killed before its first meta.json): such a folder starts the
    run afresh, with or without ``--resume``, and the lock removes them."""
    from kbgym.runs.outdir import written

    taken = written(Path(out))
    return taken if taken and all(p.is_file() and p.name.startswith(".")
                                  and p.name.endswith(".tmp") for p in taken) else []


def _rebuild(root: Path, universe: Universe, trace: list[dict], done_rows: list[dict],
             run_id: str, uref: dict, cfg: TrainConfig, env_cfg: KBGymConfig,
             start_library: Library | None, n_qids: int, stats_done: int) -> Library:
    """``--resume``: every file derived from the library - the snapshots, series.jsonl and
    kb_stats.jsonl - rebuilt by replaying the verified trace, never trusted from disk (a
    snapshot emptied, replaced or deleted, a stats file cut, all come back as the run wrote
    them). Only the first ``stats_done`` epoch ends are rebuilt; the caller does the next
    one (its exam had not finished). Returns the library after the last finished iteration."""
    from kbgym.runs.replay import replay_rows

    if start_library is None:
        start = root / "kb_start.json"
        if start.exists():  # kb_start is the run's input, checked by the run id
            from kbgym.library.snapshot import load_snapshot

            start_library = load_snapshot(start)[0]
    lib = (start_library.copy(search=None) if start_library is not None
           else Library.from_universe(universe, typed_links=env_cfg.typed_links))
    rows_of: dict[int, list[dict]] = {}
    for row in trace:
        if row.get("kind") == "train" and isinstance(row.get("iteration"), int):
            rows_of.setdefault(row["iteration"], []).append(row)
    for old in [*root.glob("kb_iter_*.json"), *root.glob("kb_epoch_*.json")]:
        old.unlink()
    series, stats = [], []
    tok_in = tok_out = 0
    memo: dict = {}  # the library's text, reused by snapshots while it is unchanged

    def epoch_end(epoch: int, iteration: int) -> None:
        write_snapshot(root / f"kb_epoch_{epoch}.json", lib, f"epoch {epoch}", uref, memo=memo)
        stats.append({"schema_version": SCHEMA_VERSION, "epoch": epoch, "run_id": run_id,
                      "train_iterations": iteration,
                      "train_tokens_in": tok_in, "train_tokens_out": tok_out, **lib.stats()})

    if stats_done:
        series.append({"schema_version": SCHEMA_VERSION, "iteration": 0, "epoch": 0,
                       "run_id": run_id, **lib.stats()})
        epoch_end(0, 0)
    for it, log_row in enumerate(done_rows, start=1):
        replay_rows(lib, rows_of.get(it, ()))
        tok_in += log_row["tokens_in"]
        tok_out += log_row["tokens_out"]
        series.append({"schema_version": SCHEMA_VERSION, "iteration": it,
                       "epoch": log_row["epoch"], "run_id": run_id, **lib.stats()})
        if it % cfg.snapshot_every == 0:
            write_snapshot(root / f"kb_iter_{it:04d}.json", lib, f"iteration {it}", uref,
                           memo=memo)
        if n_qids and it % n_qids == 0 and it // n_qids < stats_done:
            epoch_end(it // n_qids, it)
    rewrite_jsonl(root / "series.jsonl", series)
    rewrite_jsonl(root / "kb_stats.jsonl", stats)
    return lib


def train_order(qids: list[str], seed: int, epoch: int) -> list[str]:
    order = list(qids)
    stream(seed, f"order/{epoch}").shuffle(order)
    return order


def replay_library(universe: Universe, trace_rows: list[dict], upto: int | None = None,
                   start: Library | None = None, typed_links: bool = False) -> Library:
    """The library after iteration ``upto`` (all if None), rebuilt from trace rows (§15.3),
    from ``start`` (a copy; a run begun from a given library) or B1."""
    from kbgym.runs.replay import replay_rows

    base = start.copy(search=None) if start is not None else \
        Library.from_universe(universe, typed_links=typed_links)
    return replay_rows(base, trace_rows, upto)


def train(
    universe: Universe,
    agent: AgentLike,
    out: str | Path,
    *,
    env_config: KBGymConfig | None = None,
    config: TrainConfig | None = None,
    universe_path: str | None = None,
    judge: Callable[[str, str], bool] | None = None,
    judge_meta: dict | None = None,
    reader: AgentLike | None = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: Callable[[int, int, dict], None] | None = None,
    agent_spec: Mapping | None = None,
    start_library: Library | None = None,
) -> dict:
    """Train ``agent`` on ``universe``'s train split; returns the final meta.json content.

    ``agent_spec`` ({"name": plugin or module:factory, "options": {...}}) names the curator
    in the run id. The run directory is locked for the whole run (one writer per ``out``).
    ``start_library`` (``kbgym train --resume-from-library``) starts from that library, e.g.
    one trained on the universe this one drifted from, instead of B1; it is kept in the run
    directory as ``kb_start.json`` so that replay and resume start from it too.

    A directory holding an earlier run (or anything kbgym wrote) is refused unless ``resume``
    (continue it) or ``overwrite`` (remove what kbgym wrote there first): a forgotten
    ``--resume`` never wipes a run (:mod:`kbgym.runs.outdir`).
    """
    _check_train_split(universe, config, env_config)
    ident = _identity(universe, agent, env_config, config, agent_spec, start_library)
    # before the lock, so that a refusal writes nothing; again under it (another process)
    check_train_out(out, resume, overwrite)
    if resume:
        check_resume(Path(out), ident[-1], ident[-2])
    temps = only_temps(out)
    if temps:
        import sys

        print(f"kbgym: {out}: removing {len(temps)} temp file(s) of a run killed before its "
              f"first meta.json ({temps[0].name}); starting it afresh", file=sys.stderr)
    with run_lock(out):  # removes the temp files
        check_train_out(out, resume, overwrite, locked=True)
        if overwrite:
            clear(out)
        return _train(universe, agent, out, ident, universe_path=universe_path, judge=judge,
                      judge_meta=judge_meta, reader=reader, resume=resume, progress=progress,
                      start_library=start_library)


def _identity(universe, agent, env_config, config, agent_spec, start_library) -> tuple:
    """(env config, train config, seed, agent meta, curator, run id) of a run."""
    env_cfg = env_config or KBGymConfig()
    cfg = config or TrainConfig()
    if cfg.train_size is not None and env_cfg.train_size != cfg.train_size:
        env_cfg = env_cfg.model_copy(update={"train_size": cfg.train_size})
    seed = universe.meta["seed"] if cfg.seed is None else cfg.seed
    agent_meta = dict(getattr(agent, "meta", None) or {"model": type(agent).__name__})
    curator = curator_identity(agent, agent_spec)
    rc = run_config(universe, env_cfg, cfg, seed, agent_meta, curator)
    if start_library is not None:
        from kbgym.library.snapshot import snapshot_hash

        rc = dict(rc, start_library=snapshot_hash(start_library))
    return env_cfg, cfg, seed, agent_meta, curator, run_id_of(rc)


def check_resume(root: Path, run_id: str, curator: dict) -> list[dict]:
    """What ``--resume`` may continue: the same run (curator and configuration) with a trace
    that verifies against its train_log (:func:`kbgym.runs.logs.verify_trace`). Returns the
    trace rows; one-line ConfigErrors."""
    if (root / "meta.json").exists():
        old = read_meta(root / "meta.json")
        if old.get("run_id") != run_id:
            what = ("another curator" if old.get("curator") not in (None, curator)
                    else "another configuration")
            raise ConfigError(f"cannot resume {root}: it holds run {old.get('run_id')}, trained "
                              f"with {what}; this configuration is run {run_id}")
    rows = verify_trace(root)  # the chain first: its line names the row
    if (root / "meta.json").exists():
        verify_run(root, old, snapshots=False)  # the logs it keeps; the rest is rebuilt
    return rows


def _train(universe, agent, out, ident, *, universe_path, judge, judge_meta, reader, resume,
           progress, start_library) -> dict:
    env_cfg, cfg, seed, agent_meta, curator, run_id = ident
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    files = RunDir(root)
    uref = universe_ref(universe, universe_path)

    # -- resume: keep what the chained logs prove, rebuild everything else from the trace --
    done_rows = read_jsonl(root / "train_log.jsonl") if resume else []
    n_done = len(done_rows)
    n_qids = len(KBGymEnv(universe, mode="train", library=Library(), config=env_cfg)
                 .split_qids("train")) if resume else 0
    # the epoch ends (snapshot, exam, stats row) that finished: epoch end e is at iteration
    # e * n_qids; it finished when kb_stats has its row (trusted only as far as train_log
    # bears out) or when a later iteration is in train_log (deleting kb_stats proves nothing)
    stats_done = 0
    if resume and n_qids:
        finished = min(cfg.epochs, n_done // n_qids)
        passed = finished + 1 if n_done > finished * n_qids else finished
        stats_done = max(min(len(read_jsonl(root / "kb_stats.jsonl")), finished + 1), passed)
    epochs_done = max(0, stats_done - 1)
    if resume:
        def keep(r: dict) -> bool:  # rows of finished iterations and of finished epochs' exams
            if r.get("kind") == "train":
                return isinstance(r.get("iteration"), int) and r["iteration"] <= n_done
            return r.get("kind") == "test" and _epoch_before(r.get("epoch"), stats_done)

        # a trace cut short or altered is refused, never resumed from (logs.verify_trace)
        trace = [r for r in check_resume(root, run_id, curator) if keep(r)]
        rewrite_existing(root / "trace.jsonl", trace)
        rewrite_existing(root / "train_log.jsonl", done_rows)
        rewrite_existing(root / "test_log.jsonl",
                         [r for r in read_jsonl(root / "test_log.jsonl")
                          if _epoch_before(r.get("epoch"), stats_done)])
        rewrite_existing(root / "timing.jsonl",
                         [r for r in read_jsonl(root / "timing.jsonl") if keep(r)])
        library = _rebuild(root, universe, trace, done_rows, run_id, uref, cfg, env_cfg,
                           start_library, n_qids, stats_done)
    else:  # check_train_out saw to it that nothing of an earlier run is here
        if start_library is not None:
            write_snapshot(root / "kb_start.json", start_library, "start", uref)
            library = start_library.copy(search=None)
        else:
            library = Library.from_universe(universe, typed_links=env_cfg.typed_links)

    env = KBGymEnv(universe, mode="train", library=library, config=env_cfg, judge=judge)
    library = env.library
    qids = env.split_qids("train")
    total = cfg.epochs * len(qids)
    kept_tests = read_jsonl(root / "test_log.jsonl") if resume else []
    tokens = {"train_in": sum(r["tokens_in"] for r in done_rows),
              "train_out": sum(r["tokens_out"] for r in done_rows),
              "test_in": sum(r["tokens_in"] for r in kept_tests),
              "test_out": sum(r["tokens_out"] for r in kept_tests),
              # the part of the prompt tokens a server read from its cache (0 if unreported)
              "train_cached": sum(r.get("tokens_cached", 0) for r in done_rows),
              "test_cached": sum(r.get("tokens_cached", 0) for r in kept_tests)}
    judge_calls_before = sum(r["judge_calls"] for r in done_rows)

    def meta() -> dict:
        return {
            "run_id": run_id, "kbgym_version": kbgym.__version__, "universe": uref, "seed": seed,
            "epochs": cfg.epochs, "train_size": cfg.train_size, "n1": env_cfg.n1,
            "n2": env_cfg.n2, "m": env_cfg.m, "k": env_cfg.memory_k,
            "snapshot_every": cfg.snapshot_every,
            "search": {"backend": env_cfg.search_backend, "refresh": env_cfg.refresh,
                       "page_size": env_cfg.page_size, "max_page": env_cfg.max_page},
            "typed_links": env_cfg.typed_links, "toolset": env_cfg.toolset, "agent": agent_meta,
            "dedup": {"enabled": judge is not None, "threshold": env_cfg.dedup_threshold,
                      "judge_model": None, "judge_tokens": [0, 0], **(judge_meta or {}),
                      "merges": library.merges,
                      # replay never calls the judge: calls before a resume come from train_log
                      "judge_calls": judge_calls_before + dedup_counters(library)["judge_calls"],
                      "judge_errors": dedup_counters(library)["judge_errors"]},
            "tokens_cached": {"train": tokens["train_cached"], "test": tokens["test_cached"]},
            "tokens": {"train": [tokens["train_in"], tokens["train_out"]],
                       "test": [tokens["test_in"], tokens["test_out"]]},
            "curator": curator, "schema_version": 1,
        }

    def stats_row(**extra) -> dict:
        return {**extra, **library.stats()}

    # the library's canonical text, kept while the library is unchanged: a curator that has
    # stopped editing does not have its library serialized again at every snapshot interval
    memo: dict = {}

    def end_epoch(epoch: int, iteration: int) -> None:
        write_snapshot(root / f"kb_epoch_{epoch}.json", library, f"epoch {epoch}", uref,
                       memo=memo)
        if cfg.eval_each_epoch and reader is not None:
            from kbgym.runs.exam import examine

            rows = examine(universe, library, reader, env_cfg, split="eval", label=epoch,
                           out=root, run_id=run_id, files=files)
            tokens["test_in"] += sum(r["tokens_in"] for r in rows)
            tokens["test_out"] += sum(r["tokens_out"] for r in rows)
            tokens["test_cached"] += sum(r["tokens_cached"] for r in rows)
        files.log("kb_stats").write(stats_row(
            epoch=epoch, run_id=run_id, train_iterations=iteration,
            train_tokens_in=tokens["train_in"], train_tokens_out=tokens["train_out"]))

    write_json(root / "meta.json", seal({**meta(), "files": file_manifest(root)}))
    if stats_done == 0:  # epoch 0: the untrained library (B1)
        files.log("series").write(stats_row(iteration=0, epoch=0, run_id=run_id))
        end_epoch(0, 0)

    recorder = RunRecorder(env, files, run_id)
    iteration = 0
    try:
        for epoch in range(1, cfg.epochs + 1):
            for qid in train_order(qids, seed, epoch):
                iteration += 1
                if iteration <= n_done:
                    continue
                recorder.begin(epoch=epoch, iteration=iteration, split="train")
                # trace rows, then the timing row, then the train_log row (the recorder)
                summary, _, _ = run_episode(recorder, agent, qid)
                tokens["train_in"] += summary["tokens_in"]
                tokens["train_out"] += summary["tokens_out"]
                tokens["train_cached"] += summary["tokens_cached"]
                files.log("series").write(stats_row(iteration=iteration, epoch=epoch,
                                                    run_id=run_id))
                if iteration % cfg.snapshot_every == 0:
                    write_snapshot(root / f"kb_iter_{iteration:04d}.json", library,
                                   f"iteration {iteration}", uref, memo=memo)
                if progress is not None:
                    progress(iteration, total, summary)
            if epoch > epochs_done:
                end_epoch(epoch, iteration)
    finally:
        files.close()
    final = meta()
    final["verdict"] = train_verdict(read_jsonl(root / "train_log.jsonl"),
                                     read_jsonl(root / "trace.jsonl"))
    final["files"] = file_manifest(root)  # meta.json last: the manifest of the whole run
    final = seal(sign(final, root))  # an HMAC when $KBGYM_SIGNING_KEY is set
    write_json(root / "meta.json", final)
    return final
