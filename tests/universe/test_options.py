"""Universe options beyond the paper's distribution (family sizes, common jobs) and the
guessability measures: defaults keep every byte, options do what they say, and
``configs/varied.yaml`` leaves no count template guessable."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbgym.config import load_config
from kbgym.errors import ConfigError
from kbgym.worlds.people import UniverseConfig, answer_shares, generate, guessable
from kbgym.worlds.people.guess import (COUNT_TEMPLATES, empty_templates, pool_answer_shares,
                                  prior_answers, top_answer)
from kbgym.worlds.people.templates import TEMPLATES

ROOT = Path(__file__).resolve().parents[2]
# The default universe at seed 0 (paper config); it must not move when options are added.
DEFAULT_HASH = "sha256:05cd37f65659229af1c70073e4abc553e6972f94a84f074fb64a8cf3b8bcf735"
NEW_META = ("children_per_couple", "common_jobs", "common_job_share")


def varied(**over) -> UniverseConfig:
    return UniverseConfig(**{**dict(load_config(ROOT / "configs/varied.yaml").universe), **over})


# -- defaults draw nothing new -------------------------------------------------------------

def test_default_universe_hash_unchanged(default_universe):
    assert default_universe.hash == DEFAULT_HASH
    assert not set(NEW_META) & set(default_universe.meta)


def test_explicit_defaults_are_the_paper(universe_of):
    u = universe_of(3, 80)
    same = generate(UniverseConfig(seed=3, n_people=80, children_per_couple=None,
                                   common_jobs=0, common_job_share=0.5))
    assert same.dumps() == u.dumps()  # the share is unused while common_jobs is 0


def test_options_are_recorded_in_meta():
    u = generate(UniverseConfig(n_people=40, children_per_couple=(2, 4), common_jobs=3,
                                common_job_share=0.8))
    assert (u.meta["children_per_couple"], u.meta["common_jobs"],
            u.meta["common_job_share"]) == ([2, 4], 3, 0.8)
    assert type(u).from_json(u.to_json()) == u


@pytest.mark.parametrize("kw, needle", [
    ({"children_per_couple": (4, 2)}, "0 <= lo <= hi <= 20"),
    ({"children_per_couple": (-1, 2)}, "0 <= lo <= hi <= 20"),
    ({"children_per_couple": (1, 21)}, "0 <= lo <= hi <= 20"),
    ({"common_jobs": 51}, "common_jobs"),
    ({"common_job_share": 1.5}, "common_job_share"),
    ({"common_jobs": 50, "common_job_share": 0.0}, "common_job_share must be above 0"),
])
def test_bad_options_are_one_line_errors(kw, needle):
    with pytest.raises(ConfigError, match=needle) as err:
        UniverseConfig.make(**kw)
    assert "\n" not in str(err.value)


# -- the options ---------------------------------------------------------------------------

def _families(u) -> dict[tuple[str, ...], list[str]]:
    """couple (sorted pids) -> children, in person order."""
    out: dict[tuple[str, ...], list[str]] = {}
    for p in u.people:
        if p.parents:
            out.setdefault(tuple(p.parents), []).append(p.pid)
    return out


@settings(max_examples=20, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n_people=st.integers(6, 120),
       lo=st.integers(0, 4), extra=st.integers(0, 4))
def test_children_per_couple_range(seed, n_people, lo, extra):
    hi = lo + extra
    u = generate(UniverseConfig(seed=seed, n_people=n_people, children_per_couple=(lo, hi)))
    fams = _families(u)
    by = {p.pid: p for p in u.people}
    rank = {}  # position within its generation, in person order
    for g in (1, 2):
        rank.update((p.pid, i) for i, p in enumerate(x for x in u.people if x.generation == g))
    for couple, kids in fams.items():
        a, b = (by[c] for c in couple)
        assert a.spouse == b.pid and len(kids) <= hi
        assert a.generation is not None and all(by[k].generation == a.generation + 1
                                                for k in kids)
        idx = sorted(rank[k] for k in kids)  # consecutive within their generation
        assert idx == list(range(idx[0], idx[0] + len(idx)))
    # only the last family of each generation may be cut short by running out of people
    short = [c for c, kids in fams.items() if len(kids) < lo]
    assert len(short) <= 2


def test_triples_option_gives_the_paper_families(universe_of):
    """(3, 3) draws a size per couple (so later draws shift) but builds the same families."""
    base = universe_of(2, 120)
    u = generate(UniverseConfig(seed=2, n_people=120, children_per_couple=(3, 3)))

    def fam(x):
        by = {p.pid: p.name for p in x.people}
        return {p.name: (p.generation, by.get(p.spouse), tuple(by[q] for q in p.parents))
                for p in x.people if not p.distractor}

    assert fam(u) == fam(base)
    assert u.hash != base.hash  # the stream moved on: the option did draw


@pytest.mark.parametrize("common, share", [(50, 1.0), (50, 0.3), (1, 0.0), (2, 1.0)])
def test_common_job_edges_generate(common, share):
    u = generate(UniverseConfig(n_people=30, common_jobs=common, common_job_share=share))
    jobs = u.vocab["jobs"]
    held = {p.job for p in u.people}
    if share == 1.0:
        assert held <= set(jobs[:common])
    if share == 0.0:
        assert not held & set(jobs[:common])


def test_common_jobs_hold_their_share():
    u = generate(UniverseConfig(n_people=500, common_jobs=5, common_job_share=0.9))
    jobs = u.vocab["jobs"]
    held = Counter(p.job for p in u.people)
    common = sum(held[j] for j in jobs[:5]) / len(u.people)
    assert 0.85 <= common <= 0.95
    assert set(held) <= set(jobs) and len(set(held) - set(jobs[:5])) >= 20


# -- guessability ----------------------------------------------------------------------------

def test_top_answer_ties_are_deterministic():
    assert top_answer(["b", "a", "b", "a", "c"]) == ("a", 2)
    assert top_answer(["3", "3", "12"]) == ("3", 2)
    assert top_answer([]) is None


def test_paper_universe_is_guessable(default_universe):
    u = default_universe
    flagged = guessable(u)
    assert {"qc4_children", "qc8_friend_job", "qc8_grandchildren"} <= set(flagged)
    assert flagged["qc4_children"] == 1.0
    assert {t for t in flagged if t.startswith("qc5_")} == {"qc5_brother_job",
                                                            "qc5_sister_hobby",
                                                            "qc5_spouse_city"}
    assert empty_templates(u) == ["qc10_spouse_job"]
    shares = answer_shares(u)
    assert list(shares) == [t.name for t in TEMPLATES]
    assert sum(r["n"] for r in shares.values()) == len(u.questions)
    prior = prior_answers(u)
    assert prior["qc4_children"] == "3" and prior["qc8_friend_job"] == "1"
    assert prior["qc5_brother_job"] == "unknown"
    assert not {t.name for t in TEMPLATES if t.reserved} & set(prior)  # never trained


@pytest.mark.parametrize("seed", [0, 1])
def test_varied_config_is_not_guessable_small(seed):
    """A 150-person varied universe: every template is asked, no count template's top answer
    exceeds 50 % of its questions, and in the full pools (what the splits sample) none
    exceeds 40 %."""
    cfg = varied(seed=seed, n_people=150)
    u = generate(cfg)
    shares = answer_shares(u)
    assert empty_templates(u) == []
    assert all(shares[t]["share"] <= 0.5 for t in COUNT_TEMPLATES), \
        {t: shares[t] for t in COUNT_TEMPLATES}
    pools = pool_answer_shares(cfg)
    assert all(pools[t]["share"] <= 0.4 for t in COUNT_TEMPLATES), \
        {t: pools[t] for t in COUNT_TEMPLATES}
    assert not set(guessable(u)) - {"qc5_brother_job", "qc5_sister_hobby", "qc5_spouse_city"}


def test_paper_config_keeps_its_distribution():
    assert load_config(ROOT / "configs/paper.yaml").universe == UniverseConfig()
