"""The frozen release: its hash does not change, its files and recipes are checked, and a
changed release is refused under its old id."""

from __future__ import annotations

import json
import shutil

import pytest

from kbgym.bench import release as R
from kbgym.errors import ConfigError
from kbgym.jsonio import write_canonical

SHIPPED = "kbgym-bench-2026.12"
#: The hash kbgym-bench-2026.12 was published with. It must never change: a release that
#: changes ships under a new id (this test is the guard, so the value is written out).
SHIPPED_HASH = "sha256:8e8ad37414a181aab4597cf8b799ab363b4ac005ceac6c0337c9c82bb02751a8"
#: kbgym-bench-2026.12.1 (2026.12 plus the examiner's fingerprints): the same guard.
FIRST_PINNED = "kbgym-bench-2026.12.1"
FIRST_PINNED_HASH = "sha256:07f7a676b2a46c9d9eca550a4b7dd7fd8a49c73a3311fd7f9f64da564630c637"
#: kbgym-bench-2026.12.2 (2026.12.1's recipe, the examiner's fingerprints frozen again under
#: issue 34's later exam reader): the same guard.
SECOND_PINNED = "kbgym-bench-2026.12.2"
SECOND_PINNED_HASH = "sha256:d4a87e47b368e89a1b4a8f1333aa173eda645b78a85517bf58f644d97907c9cb"
#: kbgym-bench-2026.12.3 (the same recipe, the fingerprints frozen again under issue 34's next
#: exam reader round and the navigator's joint query): the same guard.
THIRD_PINNED = "kbgym-bench-2026.12.3"
THIRD_PINNED_HASH = "sha256:25ce3ff2ee30ecedda37041bb092a684a67f564703dad4a4a566b7a5f8461b2b"
#: kbgym-bench-2026.12.4 (the same recipe, the fingerprints frozen again and on a chained
#: reference library too, under the navigator's figures with chains cut): the same guard.
FOURTH_PINNED = "kbgym-bench-2026.12.4"
FOURTH_PINNED_HASH = "sha256:03c1fc4a6d4effcbbd5fa1c42f8ee7c32a73b1969f3dcf325f0df354bf1b24fa"
#: kbgym-bench-2026.12.5 (the same recipe and fingerprints, plus the exam readers' versions,
#: under issue 34's join and parts reading): the same guard.
FIFTH_PINNED = "kbgym-bench-2026.12.5"
FIFTH_PINNED_HASH = "sha256:5c9543ef39ec9d06973ab546931b0ebdfe51d35b1db698d502ca7667fd06c5d6"
#: kbgym-bench-2026.12.6 (the same recipe and fingerprints, under the exam reader of
#: 2026-12-07.2: a join's crowded values): the same guard, and the release whose examiner this
#: KBGym must be.
PINNED = "kbgym-bench-2026.12.6"
PINNED_HASH = "sha256:2f592cac765edd2ea4b31d9a4a9230368b9b5a61407c9349c7676c580341a0c6"
#: The superseded releases of the same recipe, oldest first: this KBGym refuses each.
SUPERSEDED = (FIRST_PINNED, SECOND_PINNED, THIRD_PINNED, FOURTH_PINNED, FIFTH_PINNED)


@pytest.fixture
def fingerprint_once(monkeypatch):
    """No examiner check remembered from another test, and each reference library's
    fingerprint computed once per test session: the pinned releases share their recipe, so a
    seed's fingerprint is the same computation for each of them (a few seconds a seed)."""
    monkeypatch.setattr(R, "_CHECKED", set())
    real = R.examiner_fingerprint

    def once(universe, seed, size, probe, budgets, epochs, chains=False):
        key = (universe.hash, seed["name"], seed["curator"], seed["reader"],
               size["train_size"], size["probe_hash"], tuple(sorted(budgets.items())), epochs,
               chains)
        if key not in _FINGERPRINTS:
            _FINGERPRINTS[key] = real(universe, seed, size, probe, budgets, epochs, chains)
        return _FINGERPRINTS[key]

    monkeypatch.setattr(R, "examiner_fingerprint", once)


_FINGERPRINTS: dict[tuple, dict] = {}


def test_shipped_release_keeps_its_hash():
    rel = R.load_release(SHIPPED)
    assert rel.hash == SHIPPED_HASH == R.FROZEN[SHIPPED]
    assert R.release_hash(rel.data) == SHIPPED_HASH  # recomputed from the content
    assert R.load_release().id == PINNED  # the default: the newest, examiner pinned


def _without_b1_exams(seeds: list[dict]) -> list[dict]:
    return [{**s, "sizes": {z: {k: v for k, v in sz.items() if k != "b1_exams"}
                            for z, sz in s["sizes"].items()}} for s in seeds]


def test_pinned_releases_keep_their_hashes_and_2026_12s_content():
    """2026.12.1 is 2026.12 (seeds, universes, probes, budgets, sizes, B1 fingerprints) plus
    the examiner's fingerprints on every seed's reference library; 2026.12.2, 2026.12.3 and
    2026.12.4 are 2026.12.1 with those fingerprints made again by another examiner (the same
    reference libraries). 2026.12.3's navigator (a joint query) also moves B1's exam rows on
    the people seeds, so its B1 fingerprints differ there and only there. 2026.12.4's
    examiner differs only on libraries with chains, which the reference libraries lack: its
    fingerprints are 2026.12.3's plus those of the chained reference libraries. 2026.12.5's
    exam reader differs only on notes the reference libraries lack (joins' and parts' notes):
    its fingerprints are 2026.12.4's, and it pins the version each seed's reader declares.
    2026.12.6 is 2026.12.5 under another version of the people seeds' exam reader (a join's
    crowded values, again on no reference library's notes): the same fingerprints."""
    old = R.load_release(SHIPPED)
    rels = [R.load_release(r) for r in (FIRST_PINNED, SECOND_PINNED, THIRD_PINNED,
                                        FOURTH_PINNED, FIFTH_PINNED, PINNED)]
    hashes = (FIRST_PINNED_HASH, SECOND_PINNED_HASH, THIRD_PINNED_HASH, FOURTH_PINNED_HASH,
              FIFTH_PINNED_HASH, PINNED_HASH)
    assert old.examiner is None
    for rel, want in zip(rels, hashes):
        assert rel.hash == want == R.FROZEN[rel.id] == R.release_hash(rel.data)
        for key in ("budgets", "train", "bootstrap", "sizes"):
            assert rel.data[key] == old.data[key], (rel.id, key)
        assert _without_b1_exams(rel.data["seeds"]) == _without_b1_exams(old.data["seeds"])
        if rel.id in (FIRST_PINNED, SECOND_PINNED):
            assert rel.data["seeds"] == old.data["seeds"], rel.id
        assert rel.data["files"] == old.data["files"]
        assert rel.examiner["size"] == "full"
        assert bool(rel.examiner.get("chains")) == (rel.id in (FOURTH_PINNED, FIFTH_PINNED,
                                                                PINNED))
        assert ("reader_versions" in rel.examiner) == (rel.id in (FIFTH_PINNED, PINNED))
        fps = rel.examiner["fingerprints"]
        assert sorted(fps) == sorted(rel.seed_names)
        for fp in fps.values():
            assert set(fp["exams"]) == {str(m) for m in rel.exam_budgets}
            assert fp["library"] and fp["metrics"]
            if rel.examiner.get("chains"):
                assert set(fp["chained_exams"]) == {str(m) for m in rel.exam_budgets}
    for older, newer in zip(rels, rels[1:]):
        a, b = older.examiner["fingerprints"], newer.examiner["fingerprints"]
        assert all(a[n]["library"] == b[n]["library"] for n in newer.seed_names)
        # a new examiner: otherwise no new id was needed (2026.12.5's and 2026.12.6's show in
        # their readers' versions alone)
        assert a != b or newer.id in (FIFTH_PINNED, PINNED), newer.id
    fourth, fifth, sixth = rels[3], rels[4], rels[5]
    for newer in (fifth, sixth):
        assert newer.data["seeds"] == fourth.data["seeds"]
        assert newer.examiner["fingerprints"] == fourth.examiner["fingerprints"]
    assert sixth.examiner["reader_versions"] == {
        n: R.reader_version(sixth.seed(n)["reader"]) for n in sixth.seed_names}
    moved_readers = {n for n in sixth.seed_names if fifth.examiner["reader_versions"][n]
                     != sixth.examiner["reader_versions"][n]}
    assert moved_readers == {"people-1", "people-2", "people-3"}
    third = rels[2]
    assert fourth.data["seeds"] == third.data["seeds"]
    assert {n: {k: v for k, v in fp.items() if k != "chained_exams"}
            for n, fp in fourth.examiner["fingerprints"].items()} == \
        third.examiner["fingerprints"]
    moved = {(s["name"], z) for s, s_old in zip(third.data["seeds"], old.data["seeds"])
             for z in s["sizes"] if s["sizes"][z]["b1_exams"] != s_old["sizes"][z]["b1_exams"]}
    assert moved == {(f"people-{i}", z) for i in (1, 2, 3) for z in ("full", "small")}


def test_the_chained_reference_library_has_chains_the_navigator_uses():
    """chained() links each original to the next CHAIN_SPAN originals in id order and
    nothing else; the exam of the chained library carries the navigator's steps with the
    chains cut, and on some questions they differ (what 2026.12.4's fingerprints pin)."""
    from kbgym.library.graph import Library, id_num
    from kbgym.metrics.navigator import cut_chains
    from kbgym.plugins import make_agent
    from kbgym.runs.exam import examine
    from kbgym.worlds.people import UniverseConfig, generate

    u = generate(UniverseConfig(seed=3, n_people=24, n_cities=4, sizes=(20, 15, 10),
                                eval_sizes=(4, 4)))
    lib = Library.from_universe(u)
    chained = R.chained(lib)
    originals = sorted(lib.ids(), key=id_num)
    assert lib.n_links == 0 and chained.digest() != lib.digest()
    for i, o in enumerate(originals):
        assert chained[o].links == originals[i + 1:i + 1 + R.CHAIN_SPAN]
    assert cut_chains(chained)[1] == chained.n_links
    rows = examine(u, chained, make_agent("scripted-reader"), split="train")
    assert all("nav_steps_unchained" in r for r in rows)
    assert any(r["nav_steps_unchained"] != r["nav_steps"] for r in rows)


@pytest.mark.parametrize("old", SUPERSEDED)
def test_a_superseded_release_is_refused_with_a_way_forward(old, fingerprint_once):
    """This KBGym's examiner is not 2026.12.1's to 2026.12.5's: run, verify and rescore refuse
    each in one line naming the KBGym that made it and the rescore into the current release
    (2026.12.3's fingerprints still match, but predate the chain figures; 2026.12.4's match,
    but predate the readers' versions; 2026.12.5's match, but pin another reader version)."""
    with pytest.raises(R.ExaminerError) as err:
        R.check_examiner(R.load_release(old), seeds=["people-1"])
    msg = str(err.value)
    assert f"not release {old}'s (seed people-1: " in msg and "\n" not in msg
    assert R.MADE_WITH[old] in msg
    assert f"kbgym bench rescore PACKAGE --release {R.DEFAULT} --out DIR" in msg


def test_a_changed_examiner_fails_the_default_suite(fingerprint_once):
    """One seed of 2026.12.6's examiner fingerprints, in the default suite (a few seconds): a
    change to the exam reader, the navigator or the library metrics fails here, not only under
    ``-m slow``, and then needs a new release id (docs/bench.md)."""
    R.check_examiner(R.load_release(PINNED), seeds=["people-1"])


@pytest.mark.slow
def test_pinned_release_examiner_fingerprints_hold(monkeypatch):
    """This KBGym's examiner reproduces 2026.12.6's fingerprints (about 20 s)."""
    monkeypatch.setattr(R, "_CHECKED", set())
    R.check_examiner(R.load_release(PINNED))


def test_shipped_release_pins_what_the_issue_names():
    rel = R.load_release(SHIPPED)
    worlds = [rel.seed(n)["world"] for n in rel.seed_names]
    assert worlds.count("people") >= 3 and "phantomwiki" in worlds and "policies" in worlds
    assert rel.budgets["m"] == 15 and rel.budgets["tight_m"] < rel.budgets["m"]
    for name in rel.seed_names:
        assert rel.reader(name)
        for size in rel.sizes:
            z = rel.sized(name, size)
            probe = rel.probe(name, size)
            from kbgym.runs.gradient import probe_hash

            assert probe_hash(probe) == z["probe_hash"]
            assert set(z["b1_exams"]) == {str(rel.budgets["m"]), str(rel.budgets["tight_m"])}


def test_shipped_recipes_rebuild_their_universes():
    rel = R.load_release(SHIPPED)
    for name in rel.seed_names:
        u = rel.universe(name)
        assert u.hash == rel.seed(name)["universe"]["hash"]
        assert len(u.splits["train"]) >= rel.sized(name, "full")["train_size"]


@pytest.mark.slow
def test_pinned_release_reader_fingerprints_hold():
    """This KBGym's readers examine B1 exactly as when the current release was made (2026.12's
    B1 fingerprints held until 2026.12.3's navigator moved B1's rows on the people seeds)."""
    rel = R.load_release(PINNED)
    for name in rel.seed_names:
        for size in rel.sizes:
            for m in rel.exam_budgets:
                got = R.b1_fingerprint(rel.universe(name), rel.probe(name, size),
                                       rel.reader(name), rel.budgets, m)
                assert got == rel.sized(name, size)["b1_exams"][str(m)], (name, size, m)


def _copy_shipped(tmp_path):
    dst = tmp_path / SHIPPED
    shutil.copytree(R.shipped()[SHIPPED], dst)
    return dst


def test_an_edited_file_is_refused(tmp_path):
    dst = _copy_shipped(tmp_path)
    probe = dst / "probes" / "people-1.full.json"
    data = json.loads(probe.read_text())
    data["questions"][0]["answers"] = ["someone else"]
    write_canonical(probe, data)
    with pytest.raises(ConfigError, match="people-1.full.json differs"):
        R.Release.from_dir(dst)


def test_an_edited_release_json_is_refused(tmp_path):
    dst = _copy_shipped(tmp_path)
    data = json.loads((dst / "release.json").read_text())
    data["budgets"]["tight_m"] = 5
    write_canonical(dst / "release.json", data)
    with pytest.raises(ConfigError, match="the release was edited"):
        R.Release.from_dir(dst)


def test_a_changed_release_needs_a_new_id(tmp_path):
    """Consistently rehashed, a changed release is still refused under the frozen id; under a
    new id it loads, and the old one keeps loading."""
    dst = _copy_shipped(tmp_path)
    data = json.loads((dst / "release.json").read_text())
    data["budgets"]["tight_m"] = 5
    data["hash"] = R.release_hash(data)
    write_canonical(dst / "release.json", data)
    with pytest.raises(ConfigError, match="needs a new release id"):
        R.Release.from_dir(dst)
    data["id"], data["version"] = "kbgym-bench-2027.01", "2027.01"
    data["hash"] = R.release_hash(data)
    write_canonical(dst / "release.json", data)
    new = R.Release.from_dir(dst)
    assert new.budgets["tight_m"] == 5 and new.hash != SHIPPED_HASH
    assert R.load_release(SHIPPED).hash == SHIPPED_HASH


def test_unknown_release_and_seed_are_one_line_errors():
    with pytest.raises(ConfigError, match="unknown release 'nope'"):
        R.load_release("nope")
    rel = R.load_release(SHIPPED)
    with pytest.raises(ConfigError, match="no seed 'x'"):
        rel.seed("x")
    with pytest.raises(ConfigError, match="no size 'huge'"):
        rel.check_size("huge")


def test_tiny_release_round_trips(tiny_release):
    again = R.Release.from_dir(tiny_release.root)
    assert again.hash == tiny_release.hash
    assert again.seed_names == ["people-1", "phantomwiki-1", "policies-1"]
