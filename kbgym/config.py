"""Config files (YAML) validated by pydantic, with one-line errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from kbgym.errors import ConfigError, first_error
from kbgym.universe.config import UniverseConfig
from kbgym.worlds.policies.config import PolicyConfig

M = TypeVar("M", bound=BaseModel)


def validated(model: type[M], data: Any, where: str = "") -> M:
    """``model.model_validate(data)``, raising ``ConfigError`` with one line on failure."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise ConfigError(first_error(err, where)) from None


class ExperimentConfig(BaseModel):
    """A config file. Sections are added as the pipeline grows; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")

    universe: UniverseConfig = UniverseConfig()
    policies: PolicyConfig = PolicyConfig()


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate a YAML config file; every failure is one ``ConfigError`` line."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except yaml.YAMLError as err:
        raise ConfigError(f"{path}: not valid YAML ({str(err).splitlines()[0]})") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return validated(ExperimentConfig, data, where=str(path))
