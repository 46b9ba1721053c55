"""What several commands share: the one-line error, the universe/library/agent arguments and
the endpoint flags."""

from __future__ import annotations

import sys
from pathlib import Path

from kbgym.errors import KBGymError


#: Help of every --universe flag.
UNIVERSE_HELP = "universe.json (default: the default universe)"
AGENT_HELP = ("training agent: a plugin name (see docs/guide/command-line.md) or "
              "module:factory, imported from the current directory")


class CLIError(KBGymError):
    """A bad flag value or input file; printed as one line."""


def open_universe(path: str | None):
    from kbgym.env.env import load_universe

    return load_universe(path)  # one-line ConfigError for a missing or malformed file


def open_library(spec: str | None, universe, typed_links: bool = False):
    """B1 (None, 'B1' or a universe file) or a snapshot file (one built on the universe
    ``universe`` drifted from is carried over onto it)."""
    from kbgym.library.graph import Library
    from kbgym.library.snapshot import load_snapshot

    if spec in (None, "B1", "b1"):
        return Library.from_universe(universe), "B1"
    if not Path(spec).exists():
        raise CLIError(f"no such library file: {spec}")
    from kbgym.files import check_library_universe
    from kbgym.safeload import MAX_BYTES, check_object_start

    size = Path(spec).stat().st_size
    if size > MAX_BYTES["snapshot"]:
        raise CLIError(f"{spec}: {size >> 20} MB, over the {MAX_BYTES['snapshot'] >> 20} MB "
                       "limit of a snapshot file")
    check_object_start(spec, "snapshot")  # garbage is refused at its first byte, not parsed
    lib, header = load_snapshot(spec)
    uhash = (header.get("universe") or {}).get("hash") if isinstance(header, dict) else None
    parent = (universe.meta.get("drift") or {}).get("parent_hash")
    if uhash is not None and uhash != universe.hash and uhash == parent:
        from kbgym.runs.drift import library_for  # built on the universe this one drifted from

        lib = library_for(lib, uhash, universe, typed_links)
    else:
        check_library_universe(lib, header, universe, spec)
    return lib, spec


def check_output_file(out: str | None, flag: str = "--out", **inputs: str | None) -> None:
    """A file an option writes must not replace one of the command's inputs (``inputs``: flag
    name -> path) nor a run's own files (meta.json, logs, snapshots): one line, nothing
    written. Replacing an earlier output of the same command is fine."""
    if not out:
        return
    import fnmatch

    target = Path(out)
    if target.is_dir():
        raise CLIError(f"{flag} {out}: is a directory; give a file name")
    for name, path in inputs.items():
        if path and Path(path).exists() and target.exists() and target.samefile(path):
            raise CLIError(f"{flag} {out} is also the input --{name.replace('_', '-')}; write "
                           "the output elsewhere")
    if target.exists() and any(fnmatch.fnmatchcase(target.name, p) for p in RUN_STATE):
        raise CLIError(f"{flag} {out} would replace a run's {target.name}; choose another name")


#: Files that hold a run's or an exam's state: no other command's output replaces them.
RUN_STATE = ("meta.json", "test_meta.json", "build_meta.json", "*.jsonl", "kb_*.json",
             "sweep.json", "spec.json")


def progress_bar(quiet: bool, label: str):
    if quiet or not sys.stderr.isatty():
        return None

    def show(i, n, row):
        sys.stderr.write(f"\r{label} {i}/{n}")
        if i == n:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def env_config(args):
    from kbgym.env.config import KBGymConfig

    values = {}
    for key in ("n1", "n2", "m", "refresh", "dedup_threshold", "train_size", "toolset",
                "typed_links"):
        if getattr(args, key, None) is not None:
            values[key] = getattr(args, key)
    return KBGymConfig.make(**values)


def add_evidence_flags(p) -> None:
    """``--toolset`` and ``--typed-links`` (SPEC §18; off by default)."""
    p.add_argument("--toolset", choices=["paper", "evidence"],
                   help="reader tools: paper (search, read, answer; the default) or evidence "
                        "(adds locate and expand)")
    p.add_argument("--typed-links", action="store_true", default=None, dest="typed_links",
                   help="links take a type (refers_to, supersedes, amends, cites, member_of, "
                        "related)")


def dedup_judge(args):
    if not getattr(args, "dedup", False):
        return None, None
    if not args.judge_model:
        raise CLIError("--dedup needs --judge-model (the LLM dedup judge, docs/protocol.md §6)")
    from kbgym.plugins import make_agent

    judge = make_agent("openai-judge", model=args.judge_model, base_url=args.base_url,
                       api_key_env=args.api_key_env)
    return judge, getattr(judge, "meta_view", None) or {"judge_model": args.judge_model}


def agent_options(args) -> dict:
    """The endpoint flags the user gave (--model, --base-url, --api-key-env): options for an
    LLM agent, an error for an agent that takes none of them."""
    opts = {}
    for key in ("model", "base_url", "api_key_env"):
        if getattr(args, key, None):
            opts[key] = getattr(args, key)
    return opts


def add_endpoint_flags(p) -> None:
    p.add_argument("--model", help="model name for LLM agents")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)")
    p.add_argument("--api-key-env",
                   help="name of the environment variable holding the API key (default "
                        "OPENAI_API_KEY)")


def fmt(x, spec=".3f"):
    return "-" if x is None else format(x, spec)
