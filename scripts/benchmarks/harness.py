"""Shared helpers of the benchmark scripts: percentiles, RSS, child processes, A/B checkouts.

    from harness import pct, summary, rss_mb, peak_rss_mb, child, checkout, interleave, table

- ``pct(xs, q)``: the nearest-rank q-quantile (q in [0, 1]) of ``xs``; ``summary(xs)`` gives
  n, p50, p95, p99 and max of one sample;
- ``rss_mb()`` is the resident set now (``/proc/self/statm``), ``peak_rss_mb()`` the peak;
- ``child(code, *args, root=ROOT)`` runs ``python -c code args`` in a fresh process with
  :func:`code_env` (``root``'s ``kbgym`` and agents, bytecode kept) and returns the JSON
  object its last stdout line holds: peak RSS and timings then belong to that case alone;
- ``code_env(root)`` is the environment of a process that runs ``root``'s code;
- ``checkout(commit)`` is a temporary ``git worktree`` of ``commit`` (for A/B runs against an
  earlier landing), removed afterwards;
- ``interleave(cases, rounds)`` calls each case in turn, ``rounds`` times (A B A B ...), so
  that load on a shared machine hits every case alike;
- ``table(rows)`` formats (measure, now, goal, met) rows as a Markdown table.

Benchmarks import it with ``sys.path.insert(0, str(Path(__file__).parent))``.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def pct(xs: Sequence[float], q: float) -> float:
    """The nearest-rank ``q``-quantile of ``xs`` (0 <= q <= 1); ``pct(xs, 0.5)`` is the p50."""
    if not xs:
        raise ValueError("pct of an empty sample")
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))]


def summary(xs: Sequence[float]) -> dict:
    """n, p50, p95, p99 and max of one sample."""
    return {"n": len(xs), "p50": pct(xs, 0.5), "p95": pct(xs, 0.95), "p99": pct(xs, 0.99),
            "max": max(xs)}


def load_note() -> str:
    """The load average beside a benchmark's figures: ``load 1.23 0.98 on 2 cores`` (1 and 5
    minutes)."""
    one, five, _ = os.getloadavg()
    return f"load {one:.2f} {five:.2f} on {os.cpu_count()} cores"


def rss_mb() -> float:
    """This process's resident set size now, in MB."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def peak_rss_mb() -> float:
    """This process's peak resident set size, in MB (``ru_maxrss``)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


#: Shared by every child: each checkout's bytecode, written by its first run, read after.
PYCACHE = tempfile.mkdtemp(prefix="kbgym-bench-pyc-")
atexit.register(shutil.rmtree, PYCACHE, True)
_SHIMS: dict[Path, Path] = {}


def code_env(root: Path | str = ROOT) -> dict[str, str]:
    """The environment of a process that runs ``root``'s code (this checkout or an A/B
    :func:`checkout`):

    - ``kbgym`` and ``kbgym_agents`` from ``root``. The editable install maps
      ``kbgym_agents`` to this checkout's ``agents/`` whatever ``PYTHONPATH`` says, so a
      baseline's agents come from a link named ``kbgym_agents`` in a temporary folder
      placed first on the path; the benchmarks folder follows (for ``harness``).
    - Bytecode as an installed package has it: ``PYTHONDONTWRITEBYTECODE`` is dropped and
      every checkout's bytecode goes to :data:`PYCACHE`, so only a checkout's first run
      compiles its modules (a process that may not write bytecode compiles every module of
      every run: up to 0.4 s of a demo, and more for a checkout that has never run)."""
    root = Path(root).resolve()
    shim = _SHIMS.get(root)
    if shim is None:
        shim = _SHIMS[root] = Path(tempfile.mkdtemp(prefix="kbgym-bench-path-"))
        (shim / "kbgym_agents").symlink_to(root / "agents", target_is_directory=True)
        atexit.register(shutil.rmtree, shim, True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(shim), str(root), str(Path(__file__).parent)]
        + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
    env["PYTHONPYCACHEPREFIX"] = PYCACHE
    return env


def child(code: str, *args: str, root: Path | str = ROOT, timeout: float | None = None) -> dict:
    """Run ``code`` in a fresh interpreter with :func:`code_env` (``root``'s kbgym and
    agents); the JSON object of its last stdout line. A failing child raises with its
    stderr's tail."""
    env = code_env(root)
    proc = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=str(root), timeout=timeout)
    if proc.returncode:
        raise RuntimeError(f"benchmark child failed ({proc.returncode}): "
                           f"{proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def checkout(commit: str) -> Iterator[Path]:
    """A temporary detached ``git worktree`` of ``commit`` in this repository."""
    tmp = Path(tempfile.mkdtemp(prefix="kbgym-ab-"))
    path = tmp / "tree"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(path),
                    commit], check=True)
    try:
        yield path
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)],
                       check=False)
        with contextlib.suppress(OSError):
            tmp.rmdir()


def interleave(cases: dict[str, Callable[[], dict]], rounds: int) -> dict[str, list[dict]]:
    """Each case's results over ``rounds`` alternating calls (A B A B ...)."""
    out: dict[str, list[dict]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, fn in cases.items():
            out[name].append(fn())
    return out


def table(rows: Sequence[Sequence[str]], header=("measure", "now", "goal", "met?")) -> str:
    """Rows of strings as a Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(str, r)) + " |" for r in rows]
    return "\n".join(lines)
