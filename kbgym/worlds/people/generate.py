"""``generate(config)``: the universe as a pure function of (config, seed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbgym.collector import gc_paused
from kbgym.errors import ConfigError
from kbgym.seeding import stream
from kbgym.worlds.people.documents import build_nodes
from kbgym.worlds.people.people import generate_people
from kbgym.worlds.people.questions import Instance, World, instance
from kbgym.worlds.people.splits import draw_splits, mixed, shuffled_pools
from kbgym.worlds.people.templates import RESERVED, TEMPLATES
from kbgym.types import Universe
from kbgym.worlds.people.vocab import build_vocab

if TYPE_CHECKING:  # the model imports pydantic; a build from flags passes a FlagConfig
    from kbgym.worlds.people.config import UniverseConfig
    from kbgym.worlds.people.flags import FlagConfig

GENERATOR_VERSION = "1"
SPLIT_NAMES = ("train", "test_in", "test_out", "eval")


def build_world(config: UniverseConfig):
    """People, nodes, vocab, meta and the question world: everything but the draws."""
    n_d = config.n_distractors
    vocab = build_vocab(config.n_people, n_d, config.n_cities)
    people, mode = generate_people(stream(config.seed, "universe"), vocab, config.n_people, n_d,
                                   config.friend_degree,
                                   children_per_couple=config.children_per_couple,
                                   common_jobs=config.common_jobs,
                                   common_job_share=config.common_job_share)
    nodes = build_nodes(people)
    vocab["templates"] = {t.name: t.to_json() for t in TEMPLATES}
    world = World(people, nodes, vocab)
    return people, nodes, vocab, mode, world


def full_pools(world: World, seed: int) -> dict[str, list[Instance]]:
    """Every template's full, unconsumed pool with the §4.1 swap coins."""
    return world.pools(stream(seed, "questions"))


def generate(config: UniverseConfig | FlagConfig | None = None) -> Universe:
    """The universe of ``config`` (default: the paper's configuration): a UniverseConfig, or
    the FlagConfig of a build from flags (:mod:`kbgym.worlds.people.flags`)."""
    if config is None:
        from kbgym.worlds.people.config import UniverseConfig

        config = UniverseConfig()
    if config.n_people < 6:  # also guards configs built with model_construct
        raise ConfigError(f"universe: n_people must be at least 6, got {config.n_people}")
    with gc_paused():
        return _generate(config)


def _generate(config: UniverseConfig) -> Universe:
    people, nodes, vocab, mode, world = build_world(config)
    # lean pool items (no Instance per candidate: only the drawn ones are made), the same draws
    pools = shuffled_pools(world.pool_items(stream(config.seed, "questions")),
                           stream(config.seed, "splits"))
    rows, shortfall = draw_splits(pools, config.sizes, config.eval_sizes,
                                  lambda n: mixed(pools, n, config.hard_frac, instance), RESERVED,
                                  instance)

    questions, splits = [], {name: [] for name in SPLIT_NAMES}
    for i, (split, inst, flavor) in enumerate(rows, start=1):
        q = world.materialize(inst, "q%04d" % i, flavor)
        questions.append(q)
        splits[split].append(q.qid)

    meta = {
        "seed": config.seed, "n_people": config.n_people, "n_distractors": config.n_distractors,
        "distractor_frac": config.distractor_frac, "friend_degree": config.friend_degree,
        "n_cities": config.n_cities, "sizes": list(config.sizes),
        "eval_sizes": list(config.eval_sizes), "hard_frac": config.hard_frac,
        "birthdate_mode": mode, "split_shortfall": shortfall,
        "generator_version": GENERATOR_VERSION,
        **config.options(),  # only non-default options, so default universes keep their hash
    }
    return Universe(meta=meta, vocab=vocab, people=tuple(people), nodes=tuple(nodes),
                    questions=tuple(questions), splits={k: tuple(v) for k, v in splits.items()})
