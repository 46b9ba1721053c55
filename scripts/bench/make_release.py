"""Write a KBGym-Bench release folder from its recipe (docs/bench.md).

    python scripts/bench/make_release.py --out /tmp/kbgym-bench-2026.12.6
    python scripts/bench/make_release.py --id kbgym-bench-2026.12 --out /tmp/kbgym-bench-2026.12

The shipped releases ``kbgym/bench/releases/<id>`` were made by this command; rerunning it
must give the same ``release.json`` hash (the frozen one in
:data:`kbgym.bench.release.FROZEN`) - with the examiner the release was made with
(2026.12's: before 2026-12-06's examiner changes, see LEGACY_EXAMINER; 2026.12.1's and
2026.12.2's: before issue 34's later examiner changes, see MADE_WITH). A recipe that changes
makes a NEW release: give it a new id and version, never reuse one; an examiner that changes
makes a new release of the same recipe.

kbgym-bench-2026.12.1 is 2026.12 (the same seeds, probes, budgets and sizes) plus the
examiner's fingerprints on each seed's reference library (``examiner``: the seed's scripted
curator trained on the full size's slice, examined on its probe: 7.4 s for the five
seeds on this machine, 2.3 s at the small size), made when the exam reader
and incomplete_sets changed (issue 34).

kbgym-bench-2026.12.2 is 2026.12.1's recipe (seeds, probes, budgets, sizes: the same probe
files, the same reference libraries) with the examiner's fingerprints made again, when issue
34 changed the exam reader after 2026.12.1 was frozen (7d577a2, 71ca242: a note naming the key
only as a member of other keys' lists, or a join's value beside a value outside the join, is
no longer read as a candidate), and with ``wrong_members`` among the library metrics the scores
report. The reference libraries' exams came out as 2026.12.1's (the change is not on their
notes), but the exam of a published package (scripted-random, people-1) changed, so the
release id had to change; the fingerprints differ in the library metrics.

kbgym-bench-2026.12.3 is the same recipe again (the same probe files and reference
libraries) with the fingerprints made by the examiner after issue 34's next round: the claim
reader (9d8cf08: HTML, arrows and more list labels), the exam reader (ba37dfd: two
neighbouring names are not a reversed name; 8a08ace: a join pages on past an authored note;
b637725: a join stops enumerating a value's holders once its person is seen) and the ideal
navigator's vocabulary (ddce1be: base_vocabulary gains the people a question names together, which
changes every exam row's navigator figures). The reader changes left the reference
libraries' exams as they were but changed a published package's (B2 full).

kbgym-bench-2026.12.4 is the same recipe again, with the fingerprints made by the examiner
that writes the ideal navigator's steps with a library's chains cut (``nav_steps_unchained``,
for libraries with links between original notes) and flags a library that relies on chains
the reader does not credit. The reference libraries have no chains, so their exams came out
as 2026.12.3's while the exams of published packages with chains (B3, scripted-random)
changed; the fingerprints now also cover each seed's *chained* reference library (the
reference library with each original linked to the next ten originals in id order:
``kbgym.bench.release.chained``), and a release without them is refused.

kbgym-bench-2026.12.5 is the same recipe again, made when issue 34 changed what the exam
reader reads in joins and parts (a join reads a note naming all its values as soon as a page
shows it; it reads no note about another set that names one of its values; a part need not
show a member to be judged with its other parts). None of it is on the reference libraries'
notes, so the fingerprints came out as 2026.12.4's - the fourth time they would have missed an
examiner change - while published packages examine differently. So the release also pins the
version each seed's exam reader declares (``reader_versions``; the reader's ``version``
attribute, bumped with every change to what it reads), and a release without them is refused.

kbgym-bench-2026.12.6 is the same recipe again, made when the exam reader changed how a join
asks about a value whose own pages authored notes crowd (its sentences' words from the first
batch of names on; those words only after the indexes in sight were read, and not once the
first value's holders are all known): reader version 2026-12-07.2.

The PhantomWiki seed is the phantom-wiki 1.0.3 generation shipped in
tests/adapters/data/phantomwiki_seed1, adapted by ``kbgym adapt phantomwiki``; the release
ships the adapted universe file, so it does not depend on the adapter afterwards.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PW_SRC = ROOT / "tests" / "adapters" / "data" / "phantomwiki_seed1"
PW_ARGS = ["--seed", "0", "--train", "24", "--test-in", "12", "--test-out", "12",
           "--eval-in", "6", "--eval-out", "4"]

PEOPLE = {"world": "people", "n_people": 300, "sizes": [60, 40, 30]}


#: Release id -> what it adds to the 2026.12 recipe.
RELEASES = {
    "kbgym-bench-2026.12": {},
    "kbgym-bench-2026.12.1": {"examiner": {"size": "full"}},
    # the same recipe, its examiner fingerprints made again (issue 34's later exam reader)
    "kbgym-bench-2026.12.2": {"examiner": {"size": "full"}},
    # again (issue 34's next exam reader round and the navigator's joint query)
    "kbgym-bench-2026.12.3": {"examiner": {"size": "full"}},
    # again, the fingerprints also on a chained reference library (the navigator's figures
    # with a library's chains cut)
    "kbgym-bench-2026.12.4": {"examiner": {"size": "full", "chains": True}},
    # again, and pinning the version each seed's exam reader declares (a reader change that
    # the reference libraries do not show)
    "kbgym-bench-2026.12.5": {"examiner": {"size": "full", "chains": True,
                                           "reader_versions": True}},
    # again, under the exam reader of 2026-12-07.2 (a join's crowded values)
    "kbgym-bench-2026.12.6": {"examiner": {"size": "full", "chains": True,
                                           "reader_versions": True}},
}
#: The release made when none is named: the newest.
NEWEST = "kbgym-bench-2026.12.6"


def recipe(pw_file: str, rid: str = NEWEST) -> dict:
    if rid not in RELEASES:
        raise SystemExit(f"unknown release id {rid!r}; this script makes {', '.join(RELEASES)}")
    return {**base_recipe(pw_file), "id": rid, "version": rid.removeprefix("kbgym-bench-"),
            **RELEASES[rid]}


def base_recipe(pw_file: str) -> dict:
    return {
        "id": "kbgym-bench-2026.12", "name": "kbgym-bench", "version": "2026.12",
        "description": "three generated people universes, the shipped PhantomWiki generation "
                       "and a generated policies world; one training epoch on each seed's "
                       "train slice, exams at m = 15 and the tight m = 6",
        "budgets": {"n1": 15, "n2": 30, "m": 15, "tight_m": 6},
        "train": {"epochs": 1},
        "bootstrap": {"seed": 0, "resamples": 5000},
        "sizes": {
            "full": {"train_size": 40, "per_group": 20,
                     "description": "the release: train[:40] of every seed, 20 probe "
                                    "questions per group"},
            "small": {"train_size": 6, "per_group": 6,
                      "description": "reduced for CPU-only LLM curators: train[:6], 6 probe "
                                     "questions per group; not comparable with full"},
        },
        "seeds": [
            *({"name": f"people-{s}", "world": "people", "reader": "scripted-reader",
               "curator": "scripted-index",
               "universe": {"generate": PEOPLE, "seed": s}} for s in (1, 2, 3)),
            {"name": "phantomwiki-1", "world": "phantomwiki", "reader": "scripted-pw-reader",
             "curator": "scripted-pw-index",
             "universe": {"file": pw_file, "made_by": "kbgym adapt phantomwiki --src "
                          "tests/adapters/data/phantomwiki_seed1 " + " ".join(PW_ARGS)}},
            {"name": "policies-1", "world": "policies", "reader": "scripted-policy-reader",
             "curator": "scripted-policy-index",
             "universe": {"generate": {"world": "policies"}, "seed": 1}},
        ],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="an empty or new folder")
    ap.add_argument("--id", default=NEWEST, choices=sorted(RELEASES),
                    help=f"the release to make (default {NEWEST})")
    args = ap.parse_args()
    from kbgym.bench.release import build_release

    with tempfile.TemporaryDirectory() as tmp:
        pw = Path(tmp) / "pw_universe.json"
        subprocess.run([sys.executable, "-m", "kbgym.cli", "adapt", "phantomwiki", "--src",
                        str(PW_SRC), "--out", str(pw), "--quiet", *PW_ARGS], check=True)
        rel = build_release(recipe(str(pw), args.id), args.out)
    print(rel.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
