"""A fifth world, whole in one file and registered only here: things and their colours.

It shows what a new world touches: this file (its folder, for a shipped world) and one
registration (``register(WORLD)`` here; for a shipped world the registry finds
``kbgym/worlds/<name>/world.py`` by itself). The conformance suite
(test_conformance.py) runs it through every check the shipped worlds pass, with no other
edit anywhere.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kbgym.seeding import stream
from kbgym.types import Fact, Node, Question, Universe
from kbgym.worlds import BaseWorld, DemoSettings, NavigatorHints, ProbeCandidates

NAME = "tinyland"
COLOURS = ("red", "green", "blue", "amber", "violet", "teal", "ochre")
SYLLABLES = ("ka", "lo", "mi", "ru", "te", "zo", "ban", "del", "fir", "gon")


class TinyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = 0
    things: int = Field(24, ge=4, le=500)
    sizes: tuple[int, int, int] = (8, 4, 4)
    eval_sizes: tuple[int, int] = (2, 2)


def _text(name: str, colour: str) -> str:
    return f"The thing {name} is {colour}."


def generate(config: TinyConfig) -> Universe:
    rng = stream(config.seed, "universe/things")
    names: list[str] = []
    while len(names) < config.things:
        name = (rng.choice(SYLLABLES) + rng.choice(SYLLABLES)).title()
        if name not in names:
            names.append(name)
    colours = [rng.choice(COLOURS) for _ in names]
    nodes = [Node("s%04d" % (i + 1), _text(n, c), Fact("colour", n, c))
             for i, (n, c) in enumerate(zip(names, colours))]
    questions = [Question("q%04d" % (i + 1), "tiny_colour", "TINY", "easy", 1,
                          f"What colour is the thing {n}?", (c,), (nodes[i].id,),
                          (f"thing:{n}",))
                 for i, (n, c) in enumerate(zip(names, colours))]
    order = [q.qid for q in questions]
    stream(config.seed, "splits").shuffle(order)
    cuts, splits, at = (*config.sizes, sum(config.eval_sizes)), {}, 0
    for split, n in zip(("train", "test_in", "test_out", "eval"), cuts):
        splits[split] = tuple(order[at:at + n])
        at += n
    meta = {"source": NAME, "seed": config.seed, "config": config.model_dump(mode="json"),
            "sizes": list(config.sizes), "eval_sizes": list(config.eval_sizes)}
    vocab = {"jobs": [], "hobbies": [], "cities": [], "colours": list(COLOURS),
             "templates": {"tiny_colour": {"category": "TINY", "tier": "easy", "hops": 1,
                                           "reserved": False}}}
    return Universe(meta=meta, vocab=vocab, people=(), nodes=tuple(nodes),
                    questions=tuple(questions), splits=splits)


def check_golds(universe: Universe) -> list[str]:
    """Each question's gold read back from its support note's text alone."""
    bad = []
    for q in universe.questions:
        text = universe.node(q.support[0]).text
        if text != _text(q.keys[0].split(":", 1)[1], q.golds[0]):
            bad.append(q.qid)
    return bad


class TinyWorld(BaseWorld):
    name = NAME
    description = "things and their colours (a test's world)"
    generated = True
    reader = "scripted-reader"
    curator = "scripted-index"
    config_section = "tinyland"
    build_flags = {"things": "--things"}
    demo = DemoSettings(m=4)

    def config_model(self) -> type:
        return TinyConfig


    def generate(self, config: TinyConfig) -> Universe:
        return generate(config)

    def headline(self, universe: Universe) -> str:
        return f"{len(universe.nodes)} things"

    def probe_candidates(self, universe: Universe, trained: list[Question], *,
                         per_group: int, **options: Any) -> ProbeCandidates:
        keys = {k for q in trained for k in q.keys}
        ids = {q.qid for q in trained}
        rest = [q for q in universe.questions if q.qid not in ids]
        return ProbeCandidates(
            pools={"exact": trained, "share1": [q for q in rest if keys & set(q.keys)],
                   "share0": [q for q in rest if not keys & set(q.keys)]},
            stream="probe/tinyland/", fields={"variant": NAME})

    def navigator_hints(self, universe: Universe) -> NavigatorHints:
        return NavigatorHints(relation_words={"TINY": ("colour",)})

    def add_arguments(self, parser, types) -> None:
        parser.add_argument("--things", type=types.int_range(4, 500),
                            help="tinyland: things (default 24)")

    def check_golds(self, universe: Universe) -> list[str]:
        return check_golds(universe)


WORLD = TinyWorld()
