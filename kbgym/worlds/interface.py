"""The one interface every world implements (docs/worlds.md).

A world is a folder ``kbgym/worlds/<name>/`` (or an installed package) whose ``world.py``
holds an object implementing :class:`World`. Generic code (the commands, the runs, the
navigator, the sweep) asks the world of a universe for what differs between worlds and never
names one. :class:`BaseWorld` gives the defaults, so a world states only what it has.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from kbgym.errors import ConfigError
from kbgym.types import Question, Universe

#: A world's reader of one-fact sentences for the baselines B2-B4: text -> (subject,
#: relation, object) or None; the relations are :data:`kbgym.baselines.extract.RELATIONS`.
StatementParser = Callable[[str], "tuple[str, str, str] | None"]


@dataclass(frozen=True)
class NavigatorHints:
    """What the ideal navigator (kbgym/metrics/navigator.py) needs to know of a world.

    - ``relation_words``: per question category, the words of the world's sentences that
      state the relations the category asks about (a query is a key's value followed by one);
      empty when the question text carries the relation.
    - ``set_kinds``: the fact kinds whose facts form sets a reader must see complete (a
      person's friends, children); ``value_kinds``: the kinds whose value has holders a
      reader can scan (``job``); ``join_classes``: the categories whose answer is the one
      holder of every value the question names (no support to look up).
    - ``mirrors(universe)``: note origin -> the origin stating the same fact the other way
      round; ``value_statements(universe)``: (kind, value) -> the origins stating it.
    Without set or value kinds the navigator reads no fact of the universe.
    """

    relation_words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    set_kinds: frozenset[str] = frozenset()
    value_kinds: frozenset[str] = frozenset()
    join_classes: frozenset[str] = frozenset()
    mirrors: Callable[[Universe], Mapping[str, str]] | None = None
    value_statements: Callable[[Universe], Mapping[tuple[str, str], frozenset[str]]] | None = None

    @property
    def reads_facts(self) -> bool:
        return bool(self.set_kinds or self.value_kinds)


@dataclass(frozen=True)
class ProbeCandidates:
    """What a world supplies for its gradient probe (the §13 key-coverage probe); the one
    assembler, :func:`kbgym.runs.probe.make_probe`, draws and writes it the same way for
    every world.

    - ``pools``: group -> candidates, in group order (``exact``, ``share1``, ...); with a
      ``quota``, group -> {stratum -> candidates} (a stratum is a template or a category).
    - ``quota``: stratum -> how many each group takes of it, in stratum order (the file's
      ``per_group`` is their sum); None: each group takes ``per_group``.
    - ``stream``: the sampling streams are ``stream + group`` (one per group; strata are
      shuffled in order from it).
    - ``materialize(item, gid, group)``: the probe question of a candidate; default
      ``item.probe_item(gid, trained=group == "exact")``.
    - ``fields``: extra fields of the probe file (``variant``, ``quota``, ...).
    - ``seed``: the world's own sampling seed, over the caller's (None: the caller's, else
      the universe's).
    """

    pools: Mapping[str, Any]
    quota: Mapping[str, int] | None = None
    stream: str = "probe/"
    materialize: Callable[[Any, str, str], Question] | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None


@dataclass(frozen=True)
class DemoSettings:
    """``kbgym demo --world NAME``: the generator overrides of its universe (``n_people``
    is offered to every world; ``sizes`` names the ones the world takes), the exam budget
    (None: the environment's default), extra arms and whether the people-world metrics
    (structure, misinformation) are printed."""

    m: int | None = None
    takes_people: bool = False
    metrics_lines: bool = False
    #: arm name -> (baseline name, reader plugin, env overrides) examined besides B1/trained
    extra_arms: Mapping[str, tuple[str, str, Mapping[str, Any]]] = field(default_factory=dict)


@runtime_checkable
class World(Protocol):
    """One world. ``name`` is the universes' ``meta.source``; ``default`` marks the world of
    universes that carry no source (the first generated world, which predates the field) and
    the default of ``kbgym build``/``demo``. ``reader``/``curator`` are the plugins ``kbgym
    test``/``train``, the demo and sweeps use when none is named; ``generated`` whether
    ``kbgym build --world NAME`` makes one (else it is imported by a command of its own)."""

    name: str
    description: str
    generated: bool
    default: bool
    reader: str
    curator: str
    #: the section of a config file (``kbgym build --config``) holding the generator's values
    config_section: str | None
    #: argparse dest -> flag, of the ``kbgym build`` flags this world adds (add_arguments)
    build_flags: Mapping[str, str]
    demo: DemoSettings
    #: None when ``make_probe`` takes ``per_group``/``seed``; else why it does not (one line)
    probe_options_error: str | None
    #: baseline name -> ``module:function(library)`` of the baselines only this world has
    baselines: Mapping[str, str]
    #: modules with ``add_parser(subparsers)``: the world's own commands (an importer's)
    commands: tuple[str, ...]

    def config(self, values: Mapping[str, Any], seed: int | None = None) -> Any: ...
    def config_model(self) -> type | None: ...
    def config_values(self, section: Any) -> dict: ...
    def generate(self, config: Any) -> Universe: ...
    def summarize(self, universe: Universe) -> str: ...
    def headline(self, universe: Universe) -> str: ...
    def probe_candidates(self, universe: Universe, trained: list[Question], *,
                         per_group: int, **options: Any) -> ProbeCandidates: ...
    def navigator_hints(self, universe: Universe) -> NavigatorHints: ...
    def drift(self, universe: Universe, changes: int, seed: int = 0) -> Universe: ...
    def drift_summary(self, universe: Universe) -> str: ...
    def add_arguments(self, parser: argparse.ArgumentParser, types: Any) -> None: ...
    def check_args(self, args: argparse.Namespace, config: Any) -> str | None: ...
    def vocabulary(self, universe: Universe) -> Any | None: ...
    def statement_parser(self, universe: Universe | None) -> StatementParser | None: ...
    def import_source(self, source: Path, seed: int) -> Universe: ...
    def check_golds(self, universe: Universe) -> list[str] | None: ...


class BaseWorld:
    """Defaults for :class:`World`: an imported world with no drift, no CLI flags, no
    navigator hints and no claim vocabulary. Subclasses set the attributes and override what
    they have."""

    name: str = ""
    description: str = ""
    generated: bool = False
    default: bool = False
    reader: str = "scripted-reader"
    curator: str = "scripted-index"
    config_section: str | None = None
    build_flags: Mapping[str, str] = {}
    demo: DemoSettings = DemoSettings()
    probe_options_error: str | None = None
    baselines: Mapping[str, str] = {}
    commands: tuple[str, ...] = ()

    def config(self, values: Mapping[str, Any], seed: int | None = None) -> Any:
        """The generator's config from overrides, ``world`` dropped and ``seed`` set when
        given: built by the config model's ``make`` where it has one, else by the model;
        a world without a model is imported, and says so in one line."""
        model = self.config_model()
        if model is None:
            raise ConfigError(f"{self.name} universes are imported, not generated "
                              f"({self.description})")
        values = {k: v for k, v in values.items() if k != "world"}
        if seed is not None:
            values["seed"] = seed
        return getattr(model, "make", model)(**values)

    def flags_config(self, values: Mapping[str, Any]) -> Any:
        """The generator's config from ``kbgym build``'s values (its flags, whose types
        checked their ranges, over a config file's validated section): :meth:`config`; a world
        may build it without importing its model (the people world: no pydantic)."""
        return self.config(values)

    def config_model(self) -> type | None:
        """The pydantic model of the world's config-file section (None: no section)."""
        return None

    def config_values(self, section: Any) -> dict:
        """The generator values a config file's section sets (its pydantic model)."""
        return section.model_dump(exclude_unset=True)

    def generate(self, config: Any) -> Universe:
        raise ConfigError(f"{self.name} universes are imported, not generated "
                          f"({self.description})")

    def summarize(self, universe: Universe) -> str:
        return (f"{self.name} universe: {len(universe.nodes)} notes, "
                f"{len(universe.questions)} questions")

    def headline(self, universe: Universe) -> str:
        """What the universe holds, in a few words (``500 people``)."""
        return f"{len(universe.questions)} questions"

    def probe_candidates(self, universe: Universe, trained: list[Question], *,
                         per_group: int, **options: Any) -> ProbeCandidates:
        """The candidates of the gradient probe of a run that trained ``trained`` (the
        questions with a completed training iteration, in qid order)."""
        raise ConfigError(f"the {self.name} world has no gradient probe")

    def navigator_hints(self, universe: Universe) -> NavigatorHints:
        return NavigatorHints()

    def drift(self, universe: Universe, changes: int, seed: int = 0) -> Universe:
        raise ConfigError(f"drift needs a world that drifts; the {self.name} world does not")

    def drift_summary(self, universe: Universe) -> str:
        return self.summarize(universe)

    def add_arguments(self, parser: argparse.ArgumentParser, types: Any) -> None:
        """Add this world's ``kbgym build`` flags (their dests are :attr:`build_flags`);
        ``types`` is :mod:`kbgym.cli.args`, the command line's checked argument types."""

    def check_args(self, args: argparse.Namespace, config: Any) -> str | None:
        """A one-line complaint about flags that do not go together, or None."""
        return None

    def vocabulary(self, universe: Universe) -> Any | None:
        """The closed-world vocabulary of the claim reader (kbgym/claims) for this world's
        universes; None until the world supplies one."""
        return None

    def statement_parser(self, universe: Universe | None) -> StatementParser | None:
        """The reader of the world's one-fact sentences that the text-only baselines B2-B4
        index (kbgym/baselines/extract.py): a note's text -> ``(subject, relation, object)``,
        the relation one of :data:`kbgym.baselines.extract.RELATIONS` (``born``: an ISO
        date), or None for any other text. None: the world has no such sentences, and B2-B4
        find no entities in its libraries. ``universe`` is None for a bare library (then the
        default world is asked)."""
        return None

    def import_source(self, source: Path, seed: int) -> Universe:
        """The universe imported from the folder ``source`` (the world's own import, with
        ``seed`` drawing what it draws), for ``kbgym reproduce``'s imported-world
        experiment. A folder that holds no usable source: a one-line ConfigError."""
        raise ConfigError(f"the {self.name} world imports nothing from a folder")

    def check_golds(self, universe: Universe) -> list[str] | None:
        """The qids whose gold an independent check (code written apart from the generator,
        reading the universe file) does not reproduce; None where the world has no such check
        in the package (its tests may have one)."""
        return None

    def __repr__(self) -> str:
        return f"<world {self.name}>"


__all__ = ["BaseWorld", "DemoSettings", "NavigatorHints", "ProbeCandidates", "StatementParser",
           "World"]
