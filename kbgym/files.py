"""Loading the files users hand to ``kbgym``: every failure is one ConfigError line naming
the file and what is wrong (never a traceback, a KeyError or a silent default).

Every YAML or JSON input goes through :func:`read_data`, the one safe loader: a size limit
checked before reading (per kind of file, :data:`MAX_BYTES`), YAML without aliases (``*ref``:
the billion-laughs bomb) and without repeated keys, nesting at most :data:`MAX_DEPTH` deep,
then the caller's pydantic model. Nothing reads a file of the wrong kind to its end: a file
that must hold a JSON object and starts with anything else is refused at its first byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kbgym.errors import ConfigError

MiB = 1 << 20
#: The largest file of each kind (bytes). Universes and snapshots of 10^5 people are about
#: 200 MB; configs, grids, price tables and options are small by nature.
MAX_BYTES = {
    "config": MiB, "sweep": MiB, "price table": MiB, "probe table": 64 * MiB,
    "questions": 256 * MiB, "probe": 256 * MiB, "meta.json": 16 * MiB,
    "test_meta.json": 16 * MiB, "universe": 2048 * MiB, "snapshot": 2048 * MiB,
}
DEFAULT_MAX_BYTES = 64 * MiB
#: The deepest nesting of lists and mappings in any input (a universe file needs 5).
MAX_DEPTH = 32


def _yaml_load(text: str) -> Any:
    """``yaml.safe_load`` without aliases, repeated keys or deep nesting (libyaml's parser
    when PyYAML has it: a 1 MB file is then read in well under a second)."""
    import yaml

    fast = getattr(yaml, "__with_libyaml__", False)
    base = yaml.CSafeLoader if fast else yaml.SafeLoader
    depth = 0
    for event in yaml.parse(text, Loader=base):  # aliases and nesting, before anything is built
        if isinstance(event, yaml.AliasEvent):
            raise yaml.composer.ComposerError(
                None, None, f"YAML aliases (*{event.anchor}) are not allowed; write the value "
                "out", event.start_mark)
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise yaml.composer.ComposerError(
                    None, None, f"nested more than {MAX_DEPTH} levels deep", event.start_mark)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1

    class Loader(base):  # type: ignore[misc, valid-type]
        def construct_mapping(self, node, deep=False):
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    repeated = key in seen
                    seen.add(key)
                except TypeError:  # an unhashable key: SafeConstructor refuses it below
                    continue
                if repeated:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"the key {key!r:.40} is given twice", key_node.start_mark)
            return super().construct_mapping(node, deep)

    return yaml.load(text, Loader=Loader)  # noqa: S506 (a SafeLoader)


def _depth(obj: Any) -> int:
    """How deeply lists and mappings nest in ``obj`` (iteratively: no recursion limit)."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, dict):
            items = list(x.values())
        elif isinstance(x, list):
            items = x
        else:
            continue
        deepest = max(deepest, d)
        if d > MAX_DEPTH:
            return d
        stack.extend((v, d + 1) for v in items)
    return deepest


def _no_repeats(pairs: list) -> dict:
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"the key {k!r:.40} is given twice")
        out[k] = v
    return out


def _size_ok(path: Path, what: str, max_bytes: int | None) -> None:
    limit = max_bytes if max_bytes is not None else MAX_BYTES.get(what, DEFAULT_MAX_BYTES)
    try:
        size = path.stat().st_size
    except OSError:
        return  # read_text says what is wrong
    if size > limit and not path.is_dir():
        raise ConfigError(f"{path}: {size / MiB:.1f} MB, over the {limit / MiB:g} MB limit "
                          f"of a {what} file")


def read_text(path: str | Path, what: str, max_bytes: int | None = None) -> str:
    """The UTF-8 text of a ``what`` file, refusing one over its size limit before reading."""
    path = Path(path)
    try:
        path.stat()
        if path.is_dir():
            raise IsADirectoryError
        _size_ok(path, what, max_bytes)
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"no such {what} file: {path}") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, expected a {what} file") from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the {what} file ({err.strerror})") from None
    try:
        return data.decode("utf-8").removeprefix("\ufeff")  # a byte-order mark is not content
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start}), "
                          f"expected a {what} file") from None


def read_data(path: str | Path, what: str, *, yaml: bool | None = None,
              max_bytes: int | None = None, object_only: bool = False) -> Any:
    """The parsed content of a YAML or JSON ``what`` file (YAML when ``yaml`` is true, or is
    None and the name ends in .yaml/.yml). See the module doc for the limits."""
    path = Path(path)
    if yaml is None:
        yaml = path.suffix.lower() in (".yaml", ".yml")
    if object_only and not yaml:
        _size_ok(path, what, max_bytes)  # a file over its limit says so first
        check_object_start(path, what)
    text = read_text(path, what, max_bytes)
    if yaml:
        import yaml as pyyaml

        try:
            data = _yaml_load(text)
        except pyyaml.YAMLError as err:
            raise ConfigError(f"{path}: not valid YAML ({' '.join(str(err).split())[:160]})"
                              ) from None
        except (ValueError, RecursionError) as err:  # e.g. an integer of 10^5 digits
            raise ConfigError(f"{path}: not a usable YAML value ({str(err)[:120]})") from None
    else:
        try:
            data = json.loads(text, object_pairs_hook=_no_repeats)
        except RecursionError:
            raise ConfigError(f"{path}: nested more than {MAX_DEPTH} levels deep") from None
        except ValueError as err:
            raise ConfigError(f"{path}: not valid JSON, expected a {what} file "
                              f"({str(err).splitlines()[0][:160]})") from None
    # JSON's parser stops near 1,000 levels itself; walking a 10^6-note universe costs seconds,
    # so the walk is for the small files (configs, grids, options, tables, meta)
    if len(text) <= 16 * MiB and _depth(data) > MAX_DEPTH:
        raise ConfigError(f"{path}: nested more than {MAX_DEPTH} levels deep")
    return data


def check_object_start(path: str | Path, what: str) -> None:
    """Refuse, before reading it all, a JSON file that cannot hold an object."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096).lstrip(b" \t\r\n").removeprefix(b"\xef\xbb\xbf").lstrip()
    except (FileNotFoundError, IsADirectoryError, OSError):
        return  # read_text says what is wrong
    if head and not head.startswith(b"{"):
        shown = head[:12].decode("utf-8", "replace")
        raise ConfigError(f"{path}: not a {what} file (a JSON object starts with '{{', this "
                          f"file with {shown!r})")


def read_json(path: str | Path, what: str) -> Any:
    """The parsed JSON of ``path``; ``what`` names the file kind in errors."""
    return read_data(path, what, yaml=False)


def universe_from_json(data: Any, source: str):
    """A Universe from parsed JSON, or a one-line ConfigError."""
    from kbgym.universe.types import Universe

    if not isinstance(data, dict) or not isinstance(data.get("questions"), list) \
            or not isinstance(data.get("nodes"), list):
        kind = data.get("kind") if isinstance(data, dict) else type(data).__name__
        raise ConfigError(f"{source}: not a kbgym universe file (got {kind!r})")
    try:
        return Universe.from_json(data)
    except Exception as err:
        raise ConfigError(f"{source}: not a kbgym universe file ({type(err).__name__}: "
                          f"{str(err)[:120]})") from None


def load_universe_file(path: str | Path):
    return universe_from_json(read_data(path, "universe", yaml=False, object_only=True),
                              str(path))


def read_run_meta(run_dir: str | Path) -> dict:
    """A training run directory's meta.json, checked for run_id and universe {path, hash}."""
    d = Path(run_dir)
    path = d / "meta.json"
    if not d.is_dir():
        raise ConfigError(f"{run_dir}: not a run directory (no such directory)")
    if not path.exists():
        raise ConfigError(f"{run_dir}: not a run directory (no meta.json)")
    meta = read_json(path, "meta.json")
    uni = meta.get("universe") if isinstance(meta, dict) else None
    if not isinstance(meta, dict) or not isinstance(meta.get("run_id"), str) \
            or not isinstance(uni, dict) or not isinstance(uni.get("hash"), str) \
            or not isinstance(uni.get("path"), (str, type(None))):
        raise ConfigError(f"{path}: not a kbgym meta.json (needs run_id and universe "
                          "{path, hash})")
    return meta


def check_trace_row(row: Any, i: int, source: str) -> None:
    """A trace.jsonl row must be an object with the fields replay and reports read."""
    need = (("kind", str), ("phase", int), ("action", (str, type(None))),
            ("result", str), ("qid", str))
    if not isinstance(row, dict) or not all(isinstance(row.get(k), t) for k, t in need):
        raise ConfigError(f"{source} row {i}: not a trace row (needs kind, qid, phase, action, "
                          "result)")
    if row["kind"] == "train" and not isinstance(row.get("iteration"), int):
        raise ConfigError(f"{source} row {i}: a train row needs an integer iteration")


def check_library_universe(lib, header: dict, universe, source: str) -> None:
    """A snapshot examined against ``universe`` must have been built on it: by the recorded
    hash, or - when the header has none - by its untouched original notes."""
    uhash = (header.get("universe") or {}).get("hash") if isinstance(header, dict) else None
    if uhash is not None:
        if uhash != universe.hash:
            raise ConfigError(f"{source} was built on universe {uhash}, not {universe.hash}")
        return
    texts = {n.id: n.text for n in universe.nodes}
    if set(lib.origins) != set(texts):
        raise ConfigError(f"{source} records no universe and its original notes are not this "
                          f"universe's ({universe.hash}); pass the right --universe")
    for node in lib.nodes():
        if node.origin is not None and node.flag is None and texts.get(node.origin) != node.text:
            raise ConfigError(f"{source} records no universe and note {node.id} differs from "
                              f"universe {universe.hash}; pass the right --universe")
