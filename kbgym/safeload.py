"""The one safe loader of every YAML or JSON file a user hands to ``kbgym`` (configs, sweep
grids with their curator options, price tables, probe and probe-table files, meta files,
universes, snapshots), below everything that validates what it read.

:func:`read_data` checks a size limit before reading (per kind of file, :data:`MAX_BYTES`),
reads YAML without aliases (``*ref``: the billion-laughs bomb) and without repeated keys (and
refuses repeated keys in JSON), bounds nesting at :data:`MAX_DEPTH` levels, and a file that
must hold a JSON object and starts with anything else is refused at its first byte
(:func:`check_object_start`), so nothing reads a file of the wrong kind to its end. Every
failure is one :class:`~kbgym.errors.ConfigError` line naming the file. The caller's pydantic
model comes next (with the ranges of :mod:`kbgym.bounds`).
"""

from __future__ import annotations

import json
import stat
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
#: Kinds of files people write or edit by hand: repeated keys and deep nesting are refused
#: (machine-written universes, snapshots and probes are not walked, for speed).
HAND_WRITTEN = {"config", "sweep", "price table", "probe table", "meta.json", "test_meta.json"}
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
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError
        if not stat.S_ISREG(mode):  # /dev/zero or a pipe would be read forever
            raise ConfigError(f"{path}: not a regular file, expected a {what} file")
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
            # files people write by hand: no key twice (machine-written ones are not walked)
            hook = _no_repeats if what in HAND_WRITTEN else None
            data = json.loads(text, object_pairs_hook=hook)
        except RecursionError:
            raise ConfigError(f"{path}: nested more than {MAX_DEPTH} levels deep") from None
        except ValueError as err:
            raise ConfigError(f"{path}: not valid JSON, expected a {what} file "
                              f"({str(err).splitlines()[0][:160]})") from None
    # JSON's parser stops near 1,000 levels itself; walking a 10^6-note universe costs seconds,
    # so the walk is for the files people write (configs, grids, options, tables, meta)
    if (yaml or what in HAND_WRITTEN) and _depth(data) > MAX_DEPTH:
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
