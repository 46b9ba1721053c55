"""Config files (YAML) validated by pydantic, with one-line errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from kbgym.errors import ConfigError

M = TypeVar("M", bound=BaseModel)


def _first_error(err: ValidationError, where: str) -> str:
    e = err.errors()[0]
    loc = ".".join(str(p) for p in (where, *e["loc"]) if p != "")
    if e["type"] == "extra_forbidden":
        return f"{loc}: unknown key"
    msg = e["msg"].removeprefix("Value error, ")
    return f"{loc}: {msg} (got {e.get('input')!r})"


def validated(model: type[M], data: Any, where: str = "") -> M:
    """``model.model_validate(data)``, raising ``ConfigError`` with one line on failure."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise ConfigError(_first_error(err, where)) from None


class ExperimentConfig(BaseModel):
    """A config file: a ``universe`` section (and, as the pipeline grows, more)."""

    model_config = ConfigDict(extra="forbid")

    universe: dict = {}


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate a YAML config file."""
    from kbgym.universe.config import UniverseConfig

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except yaml.YAMLError as err:
        raise ConfigError(f"{path}: not valid YAML ({str(err).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    cfg = validated(ExperimentConfig, data, where=str(path))
    validated(UniverseConfig, cfg.universe, where=f"{path}:universe")
    return cfg
