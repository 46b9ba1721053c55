"""A reduced bench run (``--seeds``: a subset of the release's seeds, for a curator too slow
for the whole release): marked in its package, verified like any other, refused when the mark
is removed or forged, and kept apart from whole-release runs on the board."""

from __future__ import annotations

import json

import pytest

from kbgym.bench import package as P
from kbgym.bench.board import check_entry, make_entry, render_markdown
from kbgym.bench.run import curator_spec, run_bench, seed_subset
from kbgym.bench.verify import VerifyError, verify_package
from kbgym.errors import ConfigError
from kbgym.jsonio import write_canonical

SUBSET = ["people-1", "policies-1"]


@pytest.fixture(scope="module")
def reduced(tiny_release, tmp_path_factory):
    out = tmp_path_factory.mktemp("reduced") / "pkg"
    run_bench(tiny_release, curator_spec("b3"), out, seeds="policies-1, people-1")
    return out


def test_reduced_package_covers_only_its_seeds_and_verifies(reduced, tiny_release):
    pkg = P.read_package(reduced)
    assert pkg["seed_subset"] == SUBSET  # in the release's order, whatever order was given
    assert sorted(pkg["seeds"]) == SUBSET
    assert not (reduced / "seeds" / "phantomwiki-1").exists()
    scores = json.loads((reduced / "scores.json").read_text())
    assert sorted(scores["seeds"]) == SUBSET
    pooled = scores["pooled"][str(tiny_release.budgets["m"])]["table"]
    assert pooled  # pooled over the subset's questions only
    res = verify_package(reduced, tiny_release)
    assert res["seeds"] == SUBSET


def test_whole_release_package_has_no_subset_mark(packages, tiny_release):
    assert "seed_subset" not in P.read_package(packages["b3"])
    assert verify_package(packages["b3"], tiny_release)["seeds"] is None


@pytest.mark.parametrize("forge, match", [
    (lambda p: p.pop("seed_subset"), "seeds differ"),  # pass a reduced run off as whole
    (lambda p: p.update(seed_subset=["people-1", "phantomwiki-1", "policies-1"]),
     "not a proper subset"),
    (lambda p: p.update(seed_subset=["policies-1", "people-1"]), "not a proper subset"),
    (lambda p: p.update(seed_subset=["people-1"]), "seeds differ"),
    (lambda p: p.update(seed_subset="people-1"), "not a proper subset"),
])
def test_forged_subset_mark_is_refused(reduced, tiny_release, copy_of, forge, match):
    root = copy_of(reduced)
    pkg = P.read_package(root)
    forge(pkg)
    write_canonical(root / "package.json", pkg)
    P.write_manifest(root)
    with pytest.raises(VerifyError, match=match):
        verify_package(root, tiny_release)


def test_seed_subset_names_are_checked(tiny_release):
    assert seed_subset(tiny_release, None) is None
    assert seed_subset(tiny_release, "people-1,phantomwiki-1,policies-1") is None  # all: whole
    with pytest.raises(ConfigError, match="no seed 'people-9'.*people-1, phantomwiki-1"):
        seed_subset(tiny_release, "people-1,people-9")
    with pytest.raises(ConfigError, match="named twice"):
        seed_subset(tiny_release, ["people-1", "people-1"])
    with pytest.raises(ConfigError, match="--seeds"):
        seed_subset(tiny_release, "people-1,,")


def test_reduced_entry_names_its_seeds_and_gets_its_own_table(reduced, packages,
                                                               tiny_release, tmp_path):
    red = make_entry(verify_package(reduced, tiny_release), reduced, date="2026-12-06")
    whole = make_entry(verify_package(packages["b3"], tiny_release), packages["b3"],
                       date="2026-12-06")
    assert red["seeds"] == SUBSET and "seeds" not in whole
    md = render_markdown([red, whole])
    assert md.count("| B3 |") == 1 and md.count("| B3 (reduced: 2 seeds) |") == 1
    assert "size full, reduced to seeds people-1, policies-1" in md
    assert "size full:" in md
    path = tmp_path / "entry.json"
    write_canonical(path, dict(red, seeds=None))  # an entry hiding that its run was reduced
    with pytest.raises(VerifyError, match="seeds differ"):
        check_entry(path, verify_package(reduced, tiny_release))
