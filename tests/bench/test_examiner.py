"""The examiner is pinned on curated libraries: a release records its fingerprints on each
seed's reference library, and run and verify refuse a KBGym whose examiner does not
reproduce them - and a release made before the pinning - in one line."""

from __future__ import annotations

import pytest

from kbgym.bench import release as R
from kbgym.bench.run import curator_spec, run_bench
from kbgym.bench.verify import verify_package


@pytest.fixture
def fresh(monkeypatch):
    """No examiner check remembered from another test."""
    monkeypatch.setattr(R, "_CHECKED", set())


def test_tiny_release_pins_its_examiner(tiny_release, fresh):
    exm = tiny_release.examiner
    assert exm["size"] == "small"
    assert sorted(exm["fingerprints"]) == sorted(tiny_release.seed_names)
    for fp in exm["fingerprints"].values():
        assert set(fp["exams"]) == {str(m) for m in tiny_release.exam_budgets}
    # the reference library is a curated one: it holds authored notes B1 does not
    u = tiny_release.universe("people-1")
    lib = R.reference_library(u, "scripted-index", tiny_release.budgets, 1,
                              tiny_release.sized("people-1", "small")["train_size"])
    assert lib.digest() == exm["fingerprints"]["people-1"]["library"]
    from kbgym.library.graph import Library

    assert lib.digest() != Library.from_universe(u).digest()
    R.check_examiner(tiny_release)  # this KBGym reproduces it


def test_a_changed_library_metric_is_refused(tiny_release, fresh, monkeypatch, tmp_path):
    from kbgym.bench import scores as S

    real = S.library_metrics

    def judged_otherwise(library, universe):  # incomplete_sets judged another way
        out = real(library, universe)
        out["misinformation"]["incomplete_sets"] = (out["misinformation"]["incomplete_sets"]
                                                    or 0) + 1
        return out

    monkeypatch.setattr(S, "library_metrics", judged_otherwise)
    with pytest.raises(R.ExaminerError, match=r"not release tiny-bench-0.1's \(seed people-1: "
                                              "the library metrics of the reference library"):
        run_bench(tiny_release, curator_spec("b3"), tmp_path / "out")
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_a_changed_exam_is_refused_by_verify(tiny_release, packages, fresh, monkeypatch):
    import kbgym.runs.gradient as G

    real = G.examine_probe

    def reads_more(*args, **kwargs):  # the reader pays one more step on its last question
        rows = real(*args, **kwargs)
        if rows:
            rows[-1] = {**rows[-1], "steps": rows[-1]["steps"] + 1}
        return rows

    monkeypatch.setattr(G, "examine_probe", reads_more)
    with pytest.raises(R.ExaminerError) as err:
        verify_package(packages["b3"], tiny_release)
    msg = str(err.value)
    assert "exam of the reference library at m = " in msg and "\n" not in msg
    assert "verify with the KBGym that made it" in msg and "rescore" in msg


def test_an_exam_reader_of_another_version_is_refused(tiny_release, fresh, monkeypatch,
                                                       tmp_path):
    """A reader change that the reference libraries do not show leaves the fingerprints as
    they were; the version each seed's exam reader declares is pinned beside them, so a reader
    that declares another one is refused in one line, before anything is written."""
    assert tiny_release.examiner["reader_versions"] == {
        n: R.reader_version(tiny_release.seed(n)["reader"]) for n in tiny_release.seed_names}
    real = R.reader_version
    monkeypatch.setattr(R, "reader_version",
                        lambda name: "2099-01-01" if name == "scripted-reader" else real(name))
    with pytest.raises(R.ExaminerError) as err:
        run_bench(tiny_release, curator_spec("b3"), tmp_path / "out")
    msg = str(err.value)
    assert ("(seed people-1: the exam reader scripted-reader is version 2099-01-01, the "
            f"release's is {real('scripted-reader')})") in msg and "\n" not in msg
    assert not (tmp_path / "out").exists()


def test_release_made_before_pinning_is_refused_in_one_line(packages, tmp_path):
    old = R.load_release("kbgym-bench-2026.12")
    assert old.hash == R.FROZEN["kbgym-bench-2026.12"] and old.examiner is None
    for call in (lambda: run_bench(old, curator_spec("B1"), tmp_path / "out"),
                 lambda: verify_package(packages["B1"], old)):
        with pytest.raises(R.ExaminerError) as err:
            call()
        msg = str(err.value)
        assert "not release kbgym-bench-2026.12's" in msg and "\n" not in msg
        assert "before 2026-12-06's changes" in msg and "3928d31" in msg
        assert f"--release {R.DEFAULT} " in msg and R.DEFAULT == "kbgym-bench-2026.12.6"
    assert not (tmp_path / "out").exists()
