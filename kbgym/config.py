"""Config files (YAML) validated by pydantic, with one-line errors; read by the one safe
loader, :func:`kbgym.files.read_data`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from kbgym.errors import ConfigError, first_error
from kbgym.worlds.people.config import UniverseConfig
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
    """Read and validate a YAML config file (or a shipped one by name, see
    :func:`kbgym.shipped.resolve`); every failure is one ``ConfigError`` line."""
    from kbgym.safeload import read_data
    from kbgym.shipped import resolve

    path = resolve(path)  # a file, or a shipped config: `small`, `configs/small.yaml`
    data = read_data(path, "config", yaml=True)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return validated(ExperimentConfig, data, where=str(path))
