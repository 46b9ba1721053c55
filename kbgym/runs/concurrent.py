"""Concurrent examination: probe/test questions in parallel over one frozen library.

The same exam as :func:`kbgym.runs.exam.examine`, with up to ``max_concurrent`` questions in
flight at once on one asyncio loop. It is agent-agnostic and uses only kbgym's public pieces:

- the agent decides through an ``aact(observation, info)`` coroutine;
- each in-flight question gets its own agent view from ``agent.spawn()`` (per-question state
  such as ``last_usage`` or a wall-clock cap); an agent without ``spawn`` runs one question at
  a time, and an agent without ``aact`` falls back to the sequential ``examine``;
- each worker owns one :class:`~kbgym.runs.exam.Examiner` over its own frozen copy of the
  library; the copies share one read-only search index (:class:`SharedIndex`), built once;
- rows are written in the sequential order as soon as every earlier question is done, so
  ``test_log.jsonl`` and ``trace.jsonl`` are byte-identical to a sequential run's;
  ``timing.jsonl`` (wall clock) is the only file that differs.

Training stays sequential: each iteration changes the library the next one sees.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kbgym.env.config import KBGymConfig
from kbgym.library.graph import Library
from kbgym.runs.exam import Examiner, examine, load_questions, plan, select, write_episode
from kbgym.runs.logs import RunDir
from kbgym.types import Question, Universe

DEFAULT_MAX_CONCURRENT = 32


class SharedIndex:
    """A frozen library's search index, shared read-only by the workers' environments.

    It keeps the ``SearchBackend`` interface (SPEC §7): ``query`` goes to the one index that
    the first worker's env built; ``upsert``/``remove``/``refresh`` are no-ops, which is
    right because a probe library is frozen. So each further worker costs a library copy,
    not a re-indexing of every note. Queries are synchronous on one event loop, so they never
    interleave.
    """

    def __init__(self, backend: Any):
        self.backend = backend
        self.name = getattr(backend, "name", "shared")

    def upsert(self, id: str, text: str) -> None:
        pass

    def remove(self, id: str) -> None:
        pass

    def refresh(self) -> None:
        pass

    def query(self, text: str, k: int) -> list[tuple[str, float]]:
        return self.backend.query(text, k)


async def aexamine(
    universe: Universe,
    library: Library,
    reader: Any,
    env_config: KBGymConfig | None = None,
    *,
    split: str | Sequence[str] = "test_in",
    questions: dict[str, Question] | None = None,
    splits: dict[str, list[str]] | None = None,
    label: Any = None,
    limit: int | None = None,
    out: str | Path | None = None,
    run_id: str | None = None,
    files: Any = None,
    progress: Callable[[int, int, dict], None] | None = None,
    max_concurrent: int = DEFAULT_MAX_CONCURRENT,
    repeats: int = 1,
    seed: int = 0,
    navigate: bool = True,
) -> list[dict]:
    """Examine ``library`` with up to ``max_concurrent`` questions in flight; returns the
    test_log rows in the sequential order. Arguments as :func:`kbgym.runs.exam.examine`."""
    if max_concurrent < 1:
        raise ValueError(f"max_concurrent must be at least 1, got {max_concurrent}")
    if questions is None:
        questions, splits = load_questions(universe, None)
    names = [split] if isinstance(split, str) else list(split)
    items = plan(select(questions, splits, names, limit), repeats, seed)
    spawn = getattr(reader, "spawn", None)
    workers = min(max_concurrent if spawn is not None else 1, len(items)) or 1
    cfg = env_config or KBGymConfig()

    own = files is None and out is not None
    if own:
        files = RunDir(Path(out))

    results: list[tuple | None] = [None] * len(items)
    written = 0
    finished = 0
    rows: list[dict] = []

    def flush() -> None:
        """Write every finished result whose predecessors are all written."""
        nonlocal written
        while written < len(items) and results[written] is not None:
            name, rep, row, trace, wall = results[written]
            rows.append(row)
            if files is not None:
                write_episode(files, run_id, label, name, rep, row, trace, wall)
            results[written] = ()  # written; keep the slot non-None
            written += 1

    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(len(items)):
        queue.put_nowait(i)

    first = Examiner(universe, questions, cfg, library=library, navigate=navigate)
    shared = SharedIndex(first.library.search_backend)
    nav = first.navigator if navigate else None  # one navigator (and its cache) for all

    async def worker(k: int) -> None:
        nonlocal finished
        examiner = first if k == 0 else Examiner(universe, questions, cfg,
                                                 library=first.library, search_backend=shared,
                                                 navigator=nav, navigate=navigate)
        try:
            while True:
                try:
                    i = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                name, q, rep, rseed = items[i]
                agent = spawn() if spawn is not None else reader
                summary, trace, wall = await examiner.arun(agent, q.qid, rseed)
                row = examiner.row(label, name, q, summary, trace, rep)
                results[i] = (name, rep, row, trace, wall)
                finished += 1
                flush()
                if progress is not None:
                    progress(finished, len(items), row)
        finally:
            examiner.close()

    tasks = [asyncio.ensure_future(worker(k)) for k in range(workers)] if items else []
    try:
        if tasks:
            await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    finally:
        flush()
        if own:
            files.close()
        aclose = getattr(reader, "aclose", None)
        if aclose is not None:
            await aclose()  # async clients belong to this loop; the next one makes its own
    return rows


def examine_concurrent(universe: Universe, library: Library, reader: Any,
                       env_config: KBGymConfig | None = None, *,
                       max_concurrent: int = DEFAULT_MAX_CONCURRENT, **kwargs: Any) -> list[dict]:
    """Run :func:`aexamine` to completion (sequential :func:`examine` when the reader has no
    ``aact`` or ``max_concurrent`` is 1). Must not be called from a running event loop."""
    if getattr(reader, "aact", None) is None or max_concurrent == 1 and \
            getattr(reader, "spawn", None) is None:
        return examine(universe, library, reader, env_config, **kwargs)
    return asyncio.run(aexamine(universe, library, reader, env_config,
                                max_concurrent=max_concurrent, **kwargs))
