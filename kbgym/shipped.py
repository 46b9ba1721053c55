"""The files kbgym ships besides its code: ``configs/`` (the universe configs and sweep grids),
``examples/`` (the example corpus) and the PhantomWiki generation ``kbgym reproduce`` uses.

In a source checkout (and an editable install) they are the repository's own folders; in a
wheel, setup.py's ``build_py`` copies them into ``kbgym/_shipped/``. Either way
:func:`resolve` lets a command find them from any folder: ``--config small``,
``--config configs/small.yaml`` (when the current folder has no such file) and
``--docs examples/corpus/docs`` all name the shipped copy, and a name that is neither a file
nor a shipped config is an error listing the shipped ones.
"""

from __future__ import annotations

from pathlib import Path

from kbgym.errors import ConfigError

_PACKAGE = Path(__file__).resolve().parent
#: shipped name -> its path inside a source checkout (relative to the repository root)
CHECKOUT = {"configs": "configs", "examples": "examples",
            "phantomwiki_seed1": "tests/adapters/data/phantomwiki_seed1"}
#: the top-level folders a user's relative path may start with to reach a shipped file
USER_FOLDERS = ("configs", "examples")


def root() -> Path | None:
    """Where the shipped folders are: ``kbgym/_shipped`` in a wheel, else the checkout."""
    wheel = _PACKAGE / "_shipped"
    if (wheel / "configs").is_dir():
        return wheel
    checkout = _PACKAGE.parent
    if (checkout / "configs").is_dir() and (checkout / "pyproject.toml").is_file():
        return checkout
    return None


def path(name: str) -> Path | None:
    """A shipped folder or file by its shipped name (``configs/small.yaml``,
    ``phantomwiki_seed1``), or None when this installation lacks it."""
    base = root()
    if base is None:
        return None
    head, _, rest = name.partition("/")
    if base.name != "_shipped":
        head = CHECKOUT.get(head, head)
    p = base / head / rest if rest else base / head
    return p if p.exists() else None


def config_names() -> list[str]:
    """The shipped YAML configs and sweep grids, by name (``small``, ``sweep_demo``, …)."""
    folder = path("configs")
    return sorted(p.stem for p in folder.glob("*.yaml")) if folder else []


def resolve(given: str | Path, what: str = "config") -> Path:
    """The file a user means by ``given``: the path itself when it exists; else, for a
    relative path under ``configs/`` or ``examples/``, the shipped copy; else, for a bare name
    (``small``), the shipped config of that name. Anything else is returned unchanged (the
    reader then reports it missing), except a bare name, which is a ``ConfigError`` listing
    the shipped configs."""
    p = Path(given)
    if p.exists() or p.is_absolute():
        return p
    parts = p.parts
    if parts and parts[0] in USER_FOLDERS:
        found = path("/".join(parts))
        if found is not None:
            return found
        return p
    if len(parts) == 1 and what == "config" and not p.suffix:
        found = path(f"configs/{p.name}.yaml")
        if found is not None:
            return found
        names = ", ".join(config_names()) or "none in this installation"
        raise ConfigError(f"{given}: no such file, and not a shipped config (shipped: {names})")
    return p
