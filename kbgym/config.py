"""Config files (YAML) validated by pydantic, with one-line errors; read by the one safe
loader, :func:`kbgym.files.read_data`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from kbgym.errors import ConfigError, first_error
from kbgym.worlds.registry import worlds

M = TypeVar("M", bound=BaseModel)


def validated(model: type[M], data: Any, where: str = "") -> M:
    """``model.model_validate(data)``, raising ``ConfigError`` with one line on failure."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise ConfigError(first_error(err, where)) from None


class _Sections(BaseModel):
    model_config = ConfigDict(extra="forbid")


def experiment_config() -> type[BaseModel]:
    """The model of a config file: one section per world that has one (its
    ``config_section``, e.g. ``universe`` for the people world's generator); unknown keys are
    errors."""
    sections: dict[str, Any] = {}
    for w in worlds().values():
        model = w.config_model()
        if w.config_section and model is not None:
            sections[w.config_section] = (model, model())
    return create_model("ExperimentConfig", __base__=_Sections, **sections)


def load_config(path: str | Path) -> BaseModel:
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
    return validated(experiment_config(), data, where=str(path))
