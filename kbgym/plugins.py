"""Agents are plugged in by name, never imported by ``kbgym`` itself.

A name is either an entry point of the ``kbgym.agents`` group (installed packages declare
them; this distribution declares its own scripted and OpenAI agents in pyproject.toml) or a
``module:factory`` path whose factory is *declared* one with :func:`kbgym.agent_factory`. The
factory is called with keyword options.

A name is resolved in two steps (docs/safety.md): :func:`resolve` finds the factory's source
and its declaration by reading files only — it imports nothing and calls nothing, so a sweep's
``--dry-run`` and grid validation run no code of the user's — and refuses, by name, anything
that is neither a registered plugin nor a declared factory (``os:system``, ``builtins:exit``,
``shutil:rmtree``). Only :func:`load_factory` (a run that is about to start) imports it, and
checks the declaration again on the object it gets.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kbgym.errors import ConfigError, first_error
from kbgym.registry import AGENT_FACTORY_MARK

GROUP = "kbgym.agents"
DECLARE = "declare it with @kbgym.agent_factory (docs/safety.md)"
#: The largest module source read to find a declaration.
MAX_SOURCE_BYTES = 8 << 20


def available() -> list[str]:
    return sorted(ep.name for ep in entry_points(group=GROUP))


@dataclass(frozen=True)
class Resolved:
    """Where an agent spec points, found without importing it."""

    spec: str
    module: str
    attr: str
    plugin: bool  # a registered entry point (declared by its registration)
    options: tuple[str, ...] | None  # the keyword options it names; None: any or unknown


def _entry_point(name: str):
    for ep in entry_points(group=GROUP):
        if ep.name == name:
            return ep
    return None


def _module_source(module: str) -> Path | None:
    """The ``.py`` file of ``module``, found without importing it or any parent package: the
    current directory first (as :func:`load_factory` imports), then the import system's
    finders for the top-level name, then each package's own search locations."""
    parts = module.split(".")
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    top = parts[0]
    spec = importlib.machinery.PathFinder.find_spec(top, [os.getcwd()])
    if spec is None:
        loaded = sys.modules.get(top)
        try:
            spec = getattr(loaded, "__spec__", None) or importlib.util.find_spec(top)
        except (ImportError, ValueError):
            spec = None
    for i in range(1, len(parts)):
        locations = spec.submodule_search_locations if spec is not None else None
        if not locations:
            return None
        spec = importlib.machinery.PathFinder.find_spec(".".join(parts[: i + 1]),
                                                        list(locations))
    origin = getattr(spec, "origin", None) if spec is not None else None
    if not origin or not str(origin).endswith(".py"):
        return None  # built in, compiled, frozen or a namespace: nothing to read
    return Path(origin)


def _is_declaration(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return (isinstance(target, ast.Name) and target.id == "agent_factory") or (
        isinstance(target, ast.Attribute) and target.attr == "agent_factory")


def _def_options(node: ast.AST) -> tuple[str, ...] | None:
    if isinstance(node, ast.ClassDef):
        init = [n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
        if not init:
            return None
        args = init[-1].args
        names = [a.arg for a in [*args.posonlyargs, *args.args]][1:]
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = node.args
        names = [a.arg for a in args.args]
    else:
        return None
    if args.kwarg is not None:
        return None
    return tuple(names + [a.arg for a in args.kwonlyargs])


def _top_level(tree: ast.Module, attr: str) -> tuple[ast.AST | None, bool]:
    """The last top-level binding of ``attr`` and whether it is declared an agent factory."""
    found: tuple[ast.AST | None, bool] = (None, False)
    defs = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs[node.name] = node
            if node.name == attr:
                found = (node, any(_is_declaration(d) for d in node.decorator_list))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
                value = node.value
                declared = isinstance(value, ast.Call) and _is_declaration(value)
                inner = None
                if declared and value.args and isinstance(value.args[0], ast.Name):
                    inner = defs.get(value.args[0].id)
                found = (inner if inner is not None else node, declared)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".")[0]) == attr for a in node.names):
                found = (node, False)
    return found


def _marked(obj: Any) -> bool:
    """Whether ``obj`` carries :func:`kbgym.agent_factory`'s own mark (a subclass of a
    declared class is not declared)."""
    if isinstance(obj, type):
        return vars(obj).get(AGENT_FACTORY_MARK) is True
    return getattr(obj, AGENT_FACTORY_MARK, False) is True


def _read_declaration(spec: str, module: str, attr: str, need_mark: bool) -> Resolved:
    loaded = sys.modules.get(module)
    if loaded is not None:  # imported already: its namespace is read, nothing is run
        if attr not in vars(loaded):
            raise ConfigError(f"cannot load agent {spec!r}: module {module!r} defines no "
                              f"{attr!r}")
        obj = vars(loaded)[attr]
        if need_mark and not _marked(obj):
            raise ConfigError(f"agent {spec!r} is not an agent factory: {module}.{attr} is "
                              f"not declared one; {DECLARE}")
        return Resolved(spec, module, attr, plugin=not need_mark,
                        options=accepted_options(obj) if callable(obj) else None)
    path = _module_source(module)
    if path is None:
        raise ConfigError(f"cannot load agent {spec!r}: no Python source for module "
                          f"{module!r}; an agent is a registered plugin or a declared "
                          f"module:factory ({DECLARE})")
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            raise ConfigError(f"cannot load agent {spec!r}: {path} is over "
                              f"{MAX_SOURCE_BYTES >> 20} MB")
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError) as err:
        raise ConfigError(f"cannot load agent {spec!r}: {path}: "
                          f"{type(err).__name__}: {err}") from None
    node, declared = _top_level(tree, attr)
    if node is None:
        raise ConfigError(f"cannot load agent {spec!r}: module {module!r} defines no {attr!r}")
    if need_mark and not declared:
        raise ConfigError(f"agent {spec!r} is not an agent factory: {module}.{attr} is not "
                          f"declared one; {DECLARE}")
    return Resolved(spec, module, attr, plugin=not need_mark, options=_def_options(node))


def resolve(spec: str) -> Resolved:
    """Where the agent ``spec`` is and the options it names, read from its module's source:
    nothing is imported and nothing is called. A one-line :class:`ConfigError` names a spec
    that is neither a registered plugin nor a declared ``module:factory``."""
    if not isinstance(spec, str) or not spec or len(spec) > 300 or "\x00" in spec:
        raise ConfigError(f"agent name {str(spec)[:80]!r} is not a plugin name or "
                          "module:factory")
    if ":" not in spec:
        ep = _entry_point(spec)
        if ep is None:
            names = ", ".join(available()) or "none installed"
            raise ConfigError(f"unknown agent {spec!r}; available: {names} (or give "
                              "module:factory)")
        module, _, attr = ep.value.partition(":")
        try:
            return _read_declaration(spec, module.strip(), attr.strip(), need_mark=False)
        except ConfigError:  # a plugin whose source cannot be read: its options are unknown
            return Resolved(spec, module.strip(), attr.strip(), plugin=True, options=None)
    module, _, attr = spec.partition(":")
    if not module or not attr.isidentifier():
        raise ConfigError(f"cannot load agent {spec!r}: expected module:factory")
    return _read_declaration(spec, module, attr, need_mark=True)


def check_spec(spec: str, options: Mapping[str, Any]) -> Resolved:
    """Validate an agent spec and its option names without importing or calling anything
    (a sweep grid, ``--dry-run``). One-line :class:`ConfigError`s."""
    found = resolve(spec)
    if found.options is not None:
        unknown = sorted(set(options) - set(found.options))
        if unknown:
            raise ConfigError(f"agent {spec!r} has no option {unknown[0]!r} (its options: "
                              f"{', '.join(found.options) or 'none'})")
    if found.plugin and options:
        _check_values(spec, load_factory(spec), options)
    return found


def _check_values(spec: str, factory: Any, options: Mapping[str, Any]) -> None:
    """A registered plugin's option values checked against the annotations of its signature
    (pydantic), without calling it: ``{seed: -1}`` is one line before a sweep starts."""
    from pydantic import ConfigDict, create_model

    try:
        params = inspect.signature(factory, eval_str=True).parameters
    except Exception:  # an annotation that does not evaluate: the run checks the values
        return
    fields = {name: (p.annotation if p.annotation is not p.empty else Any,
                     p.default if p.default is not p.empty else ...)
              for name, p in params.items() if name in options
              and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    if not fields:
        return
    try:
        model = create_model("Options", __config__=ConfigDict(arbitrary_types_allowed=True),
                             **fields)
    except Exception:  # an annotation pydantic cannot build a check for: the run checks it
        return
    try:
        model(**{k: options[k] for k in fields})
    except ValidationError as err:
        raise ConfigError(first_error(err, f"agent {spec!r}")) from None
    except Exception:  # pydantic could not use the annotations: the run checks the values
        return


def load_factory(spec: str):
    """The factory named ``spec``, imported only after :func:`resolve` accepted it. A
    ``module:factory`` module is imported from the current directory first (then from
    ``sys.path``), so ``--agent my_agents:make`` works next to ``my_agents.py`` without
    setting PYTHONPATH; the object it gets must carry :func:`kbgym.agent_factory`'s mark."""
    found = resolve(spec)
    if found.plugin:
        ep = _entry_point(spec)
        try:
            return ep.load()
        except Exception as err:
            raise ConfigError(f"cannot load agent {spec!r}: {type(err).__name__}: "
                              f"{str(err).splitlines()[0] if str(err) else ''}") from None
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        factory = getattr(importlib.import_module(found.module), found.attr)
    except Exception as err:  # ImportError, AttributeError, or the module's own error
        raise ConfigError(f"cannot load agent {spec!r}: {type(err).__name__}: "
                          f"{str(err).splitlines()[0] if str(err) else ''}") from None
    if not callable(factory):
        raise ConfigError(f"cannot load agent {spec!r}: {found.attr} is not callable")
    if not _marked(factory):
        raise ConfigError(f"agent {spec!r} is not an agent factory: {found.module}."
                          f"{found.attr} is not declared one; {DECLARE}")
    return factory


def accepted_options(factory: Any) -> tuple[str, ...] | None:
    """The keyword options ``factory`` takes by name; None when it takes any (``**kwargs``),
    so that it checks them itself."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return tuple(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def check_options(spec: str, options: Mapping[str, Any], factory: Any = None) -> None:
    """A one-line ConfigError naming the first option the agent ``spec`` does not take."""
    takes = accepted_options(factory if factory is not None else load_factory(spec))
    if takes is None:
        return
    unknown = sorted(set(options) - set(takes))
    if unknown:
        raise ConfigError(f"agent {spec!r} has no option {unknown[0]!r} (its options: "
                          f"{', '.join(takes) or 'none'})")


def make_agent(spec: str, /, *, offered: Mapping[str, Any] | None = None, **options: Any):
    """Build the agent named ``spec`` with ``options`` (e.g. model, base_url, seed).

    Every option must be one the factory takes: an unknown one is a one-line
    :class:`ConfigError` naming it (a factory taking ``**kwargs`` checks its own). ``offered``
    options (the seed a runner has, the endpoint flags of the command line) are passed only
    to a factory that takes them. The result must have an ``act`` method (or ``judge`` for
    judges); anything else is a one-line error, not a failure later in the run.
    """
    factory = load_factory(spec)
    takes = accepted_options(factory)
    opts = {k: v for k, v in (offered or {}).items() if takes is None or k in takes}
    opts.update(options)
    check_options(spec, options, factory)
    try:
        agent = factory(**opts)
    except ConfigError:
        raise
    except ValidationError as err:  # a factory with typed options (pydantic.validate_call)
        raise ConfigError(first_error(err, f"agent {spec!r}")) from None
    except TypeError as err:
        raise ConfigError(f"agent {spec!r} cannot be built with options "
                          f"{sorted(opts)}: {err}") from None
    if not any(callable(getattr(agent, m, None)) for m in ("act", "aact", "__call__", "summarize")):
        raise ConfigError(f"agent {spec!r} made a {type(agent).__name__}, which is not an agent "
                          "(it has no act method)")
    return agent
