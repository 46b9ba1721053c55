"""Fixed vocabularies (SPEC §2.2) and the growth rule for large universes."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

MALE_FIRST = (
    "Arthur Bernard Cedric Desmond Edmund Felix Gideon Harold Ivor Jasper Leopold Milo Nigel "
    "Oswald Percival Quentin Rupert Silas Tobias Victor"
).split()
FEMALE_FIRST = (
    "Agatha Beatrice Clara Dorothy Eleanor Florence Greta Harriet Imogen Josephine Lavinia Mabel "
    "Nora Olive Philippa Rosalind Sylvia Theodora Ursula Winifred"
).split()
SURNAMES = (
    "Abernathy Ashdown Ashworth Blackwood Bramley Brightwater Calloway Coldwell Dalrymple "
    "Davenport Ellsworth Everly Fairbanks Fenwick Galloway Hargreaves Hawthorne Holloway Kingsley "
    "Langley Merriweather Montague Northcott Oakley Pemberton Penhaligon Quimby Radcliffe "
    "Rutherford Sinclair Stanhope Thackeray Thistlewood Underhill Vance Wainwright Westbrook "
    "Whitlock Winslow Yardley"
).split()
JOBS = (
    "arborist baker beekeeper blacksmith bookbinder brewer butcher candlemaker carpenter "
    "cartographer cobbler cooper dyer engraver farrier fletcher florist glassblower glazier "
    "goldsmith grocer herbalist innkeeper jeweler joiner locksmith mason miller milliner miner "
    "potter printer roofer saddler sailor shepherd shipwright silversmith stonecutter surveyor "
    "tailor tanner thatcher tinsmith turner upholsterer vintner weaver wheelwright woodcarver"
).split()
HOBBIES = [h.strip() for h in (
    "archery, astronomy, baking, birdwatching, bowling, calligraphy, canoeing, chess, cooking, "
    "crosswords, cycling, dancing, embroidery, fencing, fishing, gardening, hiking, "
    "jigsaw puzzles, juggling, kayaking, kite flying, knitting, model trains, orienteering, "
    "origami, painting, photography, quilting, rock climbing, rowing, sculpting, singing, "
    "sketching, skiing, stamp collecting, surfing, swimming, tennis, woodworking, yoga"
).split(",")]
#: Nouns for the holders of a hobby (``Cyclists: A, B``; ``A is a keen cyclist``), read as
#: the hobby by the claim reader (kbgym/claims); a noun that is also a name or another value
#: (``baker``) is left out there.
HOBBY_NOUNS = {
    "archery": ("archer",), "astronomy": ("astronomer", "stargazer"), "baking": ("baker",),
    "birdwatching": ("birdwatcher", "birder"), "bowling": ("bowler",),
    "calligraphy": ("calligrapher",), "canoeing": ("canoeist",), "chess": ("chess player",),
    "cooking": ("cook",), "crosswords": ("crossword solver",), "cycling": ("cyclist",),
    "dancing": ("dancer",), "embroidery": ("embroiderer",), "fencing": ("fencer",),
    "fishing": ("angler", "fisher"), "gardening": ("gardener",), "hiking": ("hiker",),
    "jigsaw puzzles": ("jigsaw puzzler",), "juggling": ("juggler",), "kayaking": ("kayaker",),
    "kite flying": ("kite flyer", "kite flier"), "knitting": ("knitter",),
    "model trains": ("model railway enthusiast",), "orienteering": ("orienteer",),
    "origami": ("origamist",), "painting": ("painter",), "photography": ("photographer",),
    "quilting": ("quilter",), "rock climbing": ("rock climber", "climber"), "rowing": ("rower",),
    "sculpting": ("sculptor",), "singing": ("singer",), "sketching": ("sketcher",),
    "skiing": ("skier",), "stamp collecting": ("stamp collector", "philatelist"),
    "surfing": ("surfer",), "swimming": ("swimmer",), "tennis": ("tennis player",),
    "woodworking": ("woodworker",), "yoga": ("yogi",),
}
CITIES = (
    "Ambleford Ashcombe Briarwick Coldharbour Dunmere Elmstead Fenmarch Foxhollow Greywater "
    "Hartwell Kingsreach Larkspur Marrowby Northwold Oakhaven Pennymoor Ravensholt Saltmarsh "
    "Stonebridge Thornbury"
).split()
NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
).split()
MONTHS = (
    "January February March April May June July August September October November December"
).split()
SYLLABLES = (
    "ba bel cor da el fen gar hal in jo kel lan mor ne or pel quin ro sal tor ul va wen yor"
).split()

assert len(MALE_FIRST) == 20 and len(FEMALE_FIRST) == 20 and len(SURNAMES) == 40
assert len(JOBS) == 50 and len(HOBBIES) == 40 and len(CITIES) == 20
assert set(HOBBY_NOUNS) == set(HOBBIES)


def _generated_words() -> Iterator[str]:
    """Syllable tuples by length (2, 3, ...), then lexicographic index, joined."""
    for length in itertools.count(2):
        for combo in itertools.product(SYLLABLES, repeat=length):
            yield "".join(combo)


def _grow(base: list[str], target: int, suffix: str, taken: set[str]) -> list[str]:
    out = list(base)
    words = _generated_words()
    while len(out) < target:
        candidate = next(words).capitalize() + suffix
        if candidate.casefold() in taken:
            continue
        taken.add(candidate.casefold())
        out.append(candidate)
    return out


def build_vocab(n_people: int, n_distractors: int, n_cities: int) -> dict[str, list[str]]:
    """The vocabularies of one universe, grown as §2.2 prescribes."""
    taken = {s.casefold() for s in (*MALE_FIRST, *FEMALE_FIRST, *SURNAMES, *JOBS, *HOBBIES,
                                    *CITIES, *NUMBER_WORDS, *MONTHS)}
    need = n_people + n_distractors
    n_first = len(MALE_FIRST) + len(FEMALE_FIRST)
    n_surnames = len(SURNAMES)
    while n_first * n_surnames < 2 * need:
        n_surnames += 1
    surnames = _grow(SURNAMES, n_surnames, "", taken)
    cities = CITIES[:n_cities] if n_cities < len(CITIES) else _grow(CITIES, n_cities, "ton", taken)
    return {
        "first_names_male": list(MALE_FIRST),
        "first_names_female": list(FEMALE_FIRST),
        "surnames": surnames,
        "jobs": list(JOBS),
        "hobbies": list(HOBBIES),
        "cities": cities,
        "number_words": list(NUMBER_WORDS),
        "months": list(MONTHS),
    }
