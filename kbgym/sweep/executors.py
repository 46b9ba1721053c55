"""Where sweep runs execute: ``serial`` (this process), ``process`` (a stdlib process pool,
the local default) or ``ray`` (a Ray cluster, the ``kbgym[ray]`` extra).

Every executor calls :func:`kbgym.sweep.run.execute` on each spec, which skips finished runs
and writes each result atomically, so what lands on disk does not depend on the executor.
LLM runs (an ``openai-*`` curator or reader) hold an ``llm`` slot: at most ``llm_slots`` of
them run at once (a Ray custom resource on a cluster; the driver's own count locally).
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from kbgym.errors import ConfigError
from kbgym.sweep.grid import is_llm, run_id
from kbgym.sweep.run import execute, run_dir, status, transient_errors

EXECUTORS = ("serial", "process", "ray")


@dataclass
class Options:
    jobs: int | None = None  # parallel runs; None = os.cpu_count()
    llm_slots: int | None = None  # concurrent LLM runs; None = no cap
    timeout_s: float | None = None  # per run
    retries: int = 2  # extra tries after a transient error (or, on Ray, a lost worker)
    address: str | None = None  # ray: local | auto | HOST:PORT; None: $RAY_ADDRESS or local


Report = Callable[[dict], None]  # called with {id, status[, error]} per run


def _attempt(spec: dict, out: str, timeout_s: float | None, retries: int) -> dict:
    """One run in this process, retried on the transient endpoint errors."""
    transient = transient_errors()
    for attempt in range(retries + 1):
        try:
            return execute(spec, out, timeout_s=timeout_s)
        except transient:
            if attempt == retries:
                raise
            time.sleep(min(30.0, 2.0 ** attempt))
    raise AssertionError("unreachable")


def _failed(spec: dict, err: BaseException) -> dict:
    return {"id": run_id(spec), "status": "failed", "error": f"{type(err).__name__}: {err}"}


def ray_address(opts: Options) -> str:
    """The Ray address a sweep uses: ``--address``, else ``$RAY_ADDRESS`` (what Ray itself
    reads), else ``local``."""
    return opts.address or os.environ.get("RAY_ADDRESS") or "local"


def run_serial(specs: list[dict], out: Path, opts: Options, report: Report) -> list[dict]:
    results = []
    for spec in specs:
        try:
            res = _attempt(spec, str(out), opts.timeout_s, opts.retries)
        except Exception as err:  # recorded in error.json; the sweep goes on
            res = _failed(spec, err)
        report(res)
        results.append(res)
    return results


def _die_with_parent() -> None:
    """Pool workers end when the driver does (Linux): a killed sweep leaves no run going on
    behind the next one's back; its cut runs are redone instead."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_process(specs: list[dict], out: Path, opts: Options, report: Report) -> list[dict]:
    jobs = opts.jobs or os.cpu_count() or 1
    slots = opts.llm_slots if opts.llm_slots is not None else jobs
    pending = list(specs)
    results: dict[str, dict] = {}
    crashes: dict[str, int] = {}
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_die_with_parent)
    running: dict = {}
    try:
        while pending or running:
            # submit in grid order, keeping at most `slots` LLM runs in flight
            llm_busy = sum(is_llm(s) for s in running.values())
            for spec in list(pending):
                if len(running) >= jobs:
                    break
                if is_llm(spec):
                    if llm_busy >= slots:
                        continue
                    llm_busy += 1
                pending.remove(spec)
                running[pool.submit(_attempt, spec, str(out), opts.timeout_s,
                                    opts.retries)] = spec
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            broken = False
            for fut in done:
                spec = running.pop(fut)
                try:
                    res = fut.result()
                except BrokenProcessPool as err:  # a worker died (killed, out of memory)
                    broken = True
                    rid = run_id(spec)
                    crashes[rid] = crashes.get(rid, 0) + 1
                    if crashes[rid] <= opts.retries:
                        pending.insert(0, spec)
                        continue
                    res = _failed(spec, err)
                except Exception as err:
                    res = _failed(spec, err)
                report(res)
                results[res["id"]] = res
            if broken:  # the pool is unusable: the rest of its runs go round again
                for fut, spec in running.items():
                    pending.insert(0, spec)
                running.clear()
                pool.shutdown(wait=False, cancel_futures=True)
                pool = ProcessPoolExecutor(max_workers=jobs, initializer=_die_with_parent)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return [results[run_id(s)] for s in specs]


NEED_RAY = "the ray executor needs Ray: pip install 'kbgym[ray]'"


def ray_address_source(opts: Options) -> str:
    """Where :func:`ray_address` came from, for error messages."""
    return "--address" if opts.address else "$RAY_ADDRESS" if os.environ.get(
        "RAY_ADDRESS") else "the default"


def _host_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of a ``[scheme://]host:port`` address, or None."""
    rest = address.split("://", 1)[-1].split("/", 1)[0]
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return host.strip("[]"), int(port)


def check_ray_reachable(opts: Options, timeout_s: float = 5.0) -> None:
    """Refuse, in one line and before anything is written, a cluster address nothing answers
    on: ``ray.init`` would retry it for minutes, printing its connection warnings."""
    address = ray_address(opts)
    if address in ("local", "auto"):
        return
    hp = _host_port(address)
    if hp is None:
        raise ConfigError(f"{address!r} (from {ray_address_source(opts)}) is not a Ray address: "
                          "expected HOST:PORT, ray://HOST:PORT, auto or local")
    try:
        with socket.create_connection(hp, timeout=timeout_s):
            pass
    except OSError as err:
        reason = "unknown host" if isinstance(err, socket.gaierror) else (
            err.strerror or type(err).__name__)
        raise ConfigError(
            f"no Ray cluster answers at {address} (from {ray_address_source(opts)}): "
            f"{reason}; start it (ray start --head), fix the address, or pass --address local "
            "for a private instance") from None


@contextlib.contextmanager
def _loopback_node(on: bool) -> Iterator[None]:
    """Keep Ray on 127.0.0.1. On Linux, Ray replaces a node address of 127.0.0.1 with the
    machine's reachable one (``resolve_ip_for_localhost``): a local instance's servers (GCS,
    raylet, workers) then listen on every interface, and a driver attaching to a cluster
    started on 127.0.0.1 looks for it on the reachable address. Only Ray's "no cluster"
    switch (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, read at import) keeps the loopback
    address; it is turned off while the sweep uses Ray and restored afterwards."""
    if not on:
        yield
        return
    try:
        from ray._private import ray_constants
    except ImportError:  # a Ray without the switch: the address check after init decides
        ray_constants = None
    var = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
    old_env, old_flag = os.environ.get(var), getattr(ray_constants, "ENABLE_RAY_CLUSTER", None)
    os.environ[var] = "0"  # Ray's own processes read it at import
    if old_flag is not None:
        ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        if old_flag is not None:
            ray_constants.ENABLE_RAY_CLUSTER = old_flag
        if old_env is None:
            os.environ.pop(var, None)
        else:
            os.environ[var] = old_env


def ray_init_kwargs(opts: Options) -> dict:
    """``ray.init`` arguments: a local start (``address="local"``, which Ray starts afresh
    even when ``RAY_ADDRESS`` is set) sizes the instance (num_cpus, the llm resource) and
    binds its services to 127.0.0.1 only; attaching to a cluster takes it as it is."""
    kw = {"include_dashboard": False, "ignore_reinit_error": True, "log_to_driver": False}
    address = ray_address(opts)
    if address == "local":
        kw["address"] = "local"
        kw["_node_ip_address"] = "127.0.0.1"
        kw["num_cpus"] = opts.jobs or os.cpu_count() or 1
        kw["resources"] = {"llm": float(opts.llm_slots if opts.llm_slots is not None
                                        else kw["num_cpus"])}
    else:
        kw["address"] = address
    return kw


def _ray_task(spec: dict, out: str, timeout_s: float | None) -> dict:
    return execute(spec, out, timeout_s=timeout_s)


def run_ray(specs: list[dict], out: Path, opts: Options, report: Report) -> list[dict]:
    try:
        import ray
    except ImportError:
        raise ConfigError(NEED_RAY) from None
    kw = ray_init_kwargs(opts)
    local = kw["address"] == "local"
    hp = None if local else _host_port(kw["address"])
    loopback = local or (hp is not None and hp[0] in ("127.0.0.1", "localhost", "::1"))
    with _loopback_node(loopback):  # a cluster on 127.0.0.1 is reached there, too
        try:
            ctx = ray.init(**kw)
        except ConnectionError as err:  # e.g. --address auto with no instance running
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            hint = "" if local or os.environ.get("RAY_AUTH_MODE") else (
                "; a cluster with token authentication also needs RAY_AUTH_MODE=token and its "
                "token here")
            raise ConfigError(f"cannot attach to Ray at {kw['address']} (from "
                              f"{ray_address_source(opts)}): {first}{hint}") from None
        try:
            node_ip = (getattr(ctx, "address_info", None) or {}).get("node_ip_address")
            if local and node_ip != "127.0.0.1":
                raise ConfigError(
                    f"the local Ray instance came up on {node_ip}, not 127.0.0.1 only; this "
                    f"Ray ({ray.__version__}) cannot be kept private: start one yourself and "
                    "pass --address")
            return _ray_sweep(ray, specs, out, opts, report)
        finally:
            ray.shutdown()


def _ray_sweep(ray, specs: list[dict], out: Path, opts: Options, report: Report) -> list[dict]:
    """The runs as Ray tasks, on the instance :func:`run_ray` started or attached to."""
    if any(is_llm(s) for s in specs) and "llm" not in ray.cluster_resources():
        raise ConfigError("this Ray cluster declares no 'llm' resource for the LLM runs; "
                          "start its nodes with ray start --resources '{\"llm\": K}'")
    task = ray.remote(num_cpus=1, max_retries=opts.retries,
                      retry_exceptions=list(transient_errors()))(_ray_task)
    root = str(Path(out).resolve())
    slots = opts.llm_slots if opts.llm_slots is not None else len(specs)
    pending, running, results = list(specs), {}, {}
    while pending or running:
        # the llm resource caps LLM runs on the cluster; the driver also keeps at most
        # --llm-slots of them submitted, which holds on a cluster sized otherwise
        llm_busy = sum(is_llm(s) for s in running.values())
        for spec in list(pending):
            if is_llm(spec):
                if llm_busy >= slots:
                    continue
                llm_busy += 1
            pending.remove(spec)
            options = {"resources": {"llm": 1}} if is_llm(spec) else {}
            running[task.options(**options).remote(spec, root, opts.timeout_s)] = spec
        ready, _ = ray.wait(list(running), num_returns=1)
        for ref in ready:
            spec = running.pop(ref)
            try:
                res = ray.get(ref)
            except Exception as err:  # a RayTaskError wrapping the run's own error
                res = _failed(spec, getattr(err, "cause", None) or err)
            report(res)
            results[res["id"]] = res
    return [results[run_id(s)] for s in specs]


def check_options(executor: str, opts: Options) -> None:
    """One-line errors for flags that cannot work, before anything is written."""
    if executor not in EXECUTORS:
        raise ConfigError(f"unknown executor {executor!r}; expected one of {', '.join(EXECUTORS)}")
    for name, v in (("--jobs", opts.jobs), ("--llm-slots", opts.llm_slots)):
        if v is not None and v < 1:
            raise ConfigError(f"{name} must be at least 1, got {v}")
    if opts.retries < 0:
        raise ConfigError(f"--retries must be 0 or more, got {opts.retries}")
    if opts.timeout_s is not None and opts.timeout_s <= 0:
        raise ConfigError(f"--timeout must be positive, got {opts.timeout_s:g}")
    if executor != "ray" and opts.address not in (None, "local"):
        raise ConfigError("--address applies to the ray executor only")
    if executor == "ray":
        import importlib.util

        if importlib.util.find_spec("ray") is None:
            raise ConfigError(NEED_RAY)
        check_ray_reachable(opts)


def run_all(specs: list[dict], out: str | Path, executor: str = "process",
            opts: Options | None = None, report: Report | None = None) -> list[dict]:
    """Run every spec (finished ones are skipped) with the named executor."""
    opts = opts or Options()
    check_options(executor, opts)
    fn = {"serial": run_serial, "process": run_process, "ray": run_ray}[executor]
    report = report or (lambda res: None)
    results, todo = {}, []
    for spec in specs:  # finished runs need no worker (nor a Ray instance)
        if status(run_dir(out, run_id(spec))) == "done":
            results[run_id(spec)] = {"id": run_id(spec), "status": "skipped"}
            report(results[run_id(spec)])
        else:
            todo.append(spec)
    if todo:
        results.update((r["id"], r) for r in fn(todo, Path(out), opts, report))
    return [results[run_id(s)] for s in specs]
