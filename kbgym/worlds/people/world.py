"""The people world behind the :class:`kbgym.worlds.World` interface."""

from __future__ import annotations

from typing import Any

from kbgym.types import Question, Universe
from kbgym.worlds.interface import BaseWorld, DemoSettings, NavigatorHints, ProbeCandidates

#: Relation words per question class: the words of the §3 sentences that state the relations
#: the class's templates ask about (the navigator's queries, kbgym/metrics/navigator.py).
RELATION_WORDS: dict[str, tuple[str, ...]] = {
    "QC1": ("job", "hobby", "city"),  # attributes
    "QC2": ("married", "father", "mother", "job", "hobby", "city"),  # 2-hop chains
    "QC3": ("married", "father", "mother", "job", "hobby", "city"),  # 3-hop chains
    "QC4": ("father", "mother", "child", "friend"),  # children, friends
    "QC5": ("child", "father", "mother", "married"),  # siblings, spouse (no support)
    "QC6": ("job", "hobby", "city"),  # joins
    "QC7": ("friend", "father", "mother", "child"),  # common friends, a child who is a friend
    "QC8": ("father", "mother", "child", "grandchild", "friend", "job", "married"),
    "QC9": ("born", "father", "mother", "child"),  # older of two, oldest child
    "QC10": ("job", "city", "married"),  # whose spouse
}
#: The relations whose facts form sets (§3): a person's children (``parent_of``), parents
#: (``child_of``) and friends (``friend_of``). Every other fact is complete once shown.
SET_KINDS = frozenset({"parent_of", "child_of", "friend_of"})
#: The classes whose answer is the one person holding every value the question names (QC6
#: joins, QC10 reverse lookups): a reader scans a value's holders to find them.
JOIN_CLASSES = frozenset({"QC6", "QC10"})

#: ``kbgym build`` flags of this world (argparse dest -> flag).
FLAGS = {"n_people": "--people", "distractor_frac": "--distractors",
         "friend_degree": "--friend-degree", "n_cities": "--cities",
         "hard_frac": "--hard-frac", "children_per_couple": "--children",
         "common_jobs": "--common-jobs", "common_job_share": "--common-job-share"}


class PeopleWorld(BaseWorld):
    name = "people"
    description = "people, families and friendships (docs/protocol.md §2)"
    generated = True
    default = True  # universes from before meta.source are people universes
    reader = "scripted-reader"
    curator = "scripted-index"
    config_section = "universe"
    build_flags = FLAGS
    demo = DemoSettings(m=None, takes_people=True, metrics_lines=True)

    def config_model(self) -> type:
        from kbgym.worlds.people.config import UniverseConfig

        return UniverseConfig


    def flags_config(self, values: Any) -> Any:
        """A FlagConfig where the model would take the values as they are (no pydantic for a
        build from flags: kbgym/worlds/people/flags.py), else the validated model."""
        from kbgym.worlds.people.flags import FlagConfig, takes_as_is

        if takes_as_is(values):
            return FlagConfig(**values)
        return self.config(values)

    def generate(self, config: Any) -> Universe:
        from kbgym.worlds.people.generate import generate

        return generate(config)

    def summarize(self, universe: Universe) -> str:
        from kbgym.worlds.people.summary import summarize

        return summarize(universe)

    def headline(self, universe: Universe) -> str:
        return f"{len(universe.people)} people"

    def probe_candidates(self, universe: Universe, trained: list[Question], *,
                         per_group: int, **options: Any) -> ProbeCandidates:
        from kbgym.worlds.people.probe import probe_candidates

        return probe_candidates(universe, trained, **options)

    def navigator_hints(self, universe: Universe) -> NavigatorHints:
        from kbgym.worlds.people.relations import VALUE_KINDS, mirrors, statements

        return NavigatorHints(relation_words=RELATION_WORDS, set_kinds=SET_KINDS,
                              value_kinds=frozenset(VALUE_KINDS), join_classes=JOIN_CLASSES,
                              mirrors=mirrors, value_statements=statements)

    def drift(self, universe: Universe, changes: int, seed: int = 0) -> Universe:
        from kbgym.worlds.people.drift import drift

        return drift(universe, changes, seed)

    def drift_summary(self, universe: Universe) -> str:
        from kbgym.worlds.people.drift import summarize

        return summarize(universe)

    def add_arguments(self, parser, A) -> None:
        # ranges by name (kbgym.ranges), the ones UniverseConfig's fields are declared with:
        # the build parser does not import the model, nor pydantic
        from kbgym.ranges import MAX_CHILDREN

        parser.add_argument("--people", type=A.ranged("People"), dest="n_people",
                            help="people (default 500)")
        parser.add_argument("--distractors", type=A.ranged("Fraction"),
                            dest="distractor_frac", help="fraction of distractors (default 0.1)")
        parser.add_argument("--friend-degree", type=A.ranged("FriendDegree"),
                            dest="friend_degree", help="mean friends per person (default 4)")
        parser.add_argument("--cities", type=A.ranged("Cities"), dest="n_cities",
                            help="cities (default 20)")
        parser.add_argument("--hard-frac", type=A.ranged("Fraction"), dest="hard_frac",
                            help="fraction of hard questions (default 0.6)")
        parser.add_argument("--children", type=A.int_pair(0, MAX_CHILDREN),
                            dest="children_per_couple", metavar="LO-HI",
                            help="children per couple, drawn per couple (default: the fixed "
                                 "triples)")
        parser.add_argument("--common-jobs", type=A.ranged("CommonJobs"), dest="common_jobs",
                            help="the first N of the 50 jobs are held by --common-job-share of "
                                 "people (default 0)")
        parser.add_argument("--common-job-share", type=A.ranged("Fraction"),
                            dest="common_job_share",
                            help="share of people holding the common jobs, with --common-jobs "
                                 "(default 0.9)")

    def vocabulary(self, universe: Universe) -> Any | None:
        """The claim reader's vocabulary (kbgym/claims): names, genders, jobs, hobbies, cities."""
        from kbgym.worlds.people.claims import people_vocabulary

        return people_vocabulary(universe)

    def statement_parser(self, universe: Universe | None):
        """The §3 sentences, read as first written (drift notes are not), for B2-B4."""
        from kbgym.worlds.people.facts import baseline_statement

        return baseline_statement

    def check_args(self, args, config: Any) -> str | None:
        if getattr(args, "common_job_share", None) is not None and not config.common_jobs:
            return "--common-job-share applies only with --common-jobs N (N above 0)"
        return None


WORLD = PeopleWorld()
