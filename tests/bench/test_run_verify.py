"""``kbgym bench run`` + ``verify``: packages of every kind of curator round-trip, a killed
run resumes into the same package, and the command line refuses what it cannot do."""

from __future__ import annotations

import json
import shutil

import pytest

from kbgym.bench import package as P
from kbgym.bench.run import curator_spec, run_bench
from kbgym.bench.verify import verify_package
from kbgym.cli import main
from kbgym.errors import ConfigError


KILLER = (
    "import os\n"
    "import kbgym\n"
    "from kbgym.plugins import make_agent\n"
    "\n"
    "class Killed(BaseException):  # a kill -9 stand-in: passes every except Exception\n"
    "    pass\n"
    "\n"
    "@kbgym.agent_factory\n"
    "def make():  # scripted-index that dies at its $BENCH_KILL_AT-th action\n"
    "    agent = make_agent('scripted-index')\n"
    "    inner, calls = agent.act, [0]\n"
    "    def act(*args, **kwargs):\n"
    "        calls[0] += 1\n"
    "        at = os.environ.get('BENCH_KILL_AT')\n"
    "        if at and calls[0] >= int(at):\n"
    "            raise Killed\n"
    "        return inner(*args, **kwargs)\n"
    "    agent.act = act\n"
    "    return agent\n")


def _stable(root):
    """The package's files that do not hold wall-clock times, with their hashes."""
    return {k: v for k, v in P.file_map(root).items()
            if k.rsplit("/", 1)[-1] not in P.VOLATILE}


@pytest.mark.parametrize("spec", ["B1", "b3", "scripted"])
def test_packages_verify(packages, tiny_release, spec):
    res = verify_package(packages[spec], tiny_release)
    assert res["package_hash"] == P.package_hash(packages[spec])
    scores = json.loads((packages[spec] / "scores.json").read_text())
    assert res["headline"] == scores["headline"]
    if spec == "B1":  # B1 against itself: the same steps, rho exactly 1
        assert scores["headline"]["rho"] == 1.0
        assert scores["headline"]["f1"] == scores["headline"]["f1_b1"]


def test_package_holds_what_the_issue_names(packages, tiny_release):
    root = packages["scripted"]
    pkg = P.read_package(root)
    assert pkg["release"] == {"id": tiny_release.id, "hash": tiny_release.hash}
    scores = json.loads((root / "scores.json").read_text())
    for name in tiny_release.seed_names:
        seed = scores["seeds"][name]
        assert (root / pkg["seeds"][name]["train"] / "trace.jsonl").is_file()
        assert (root / pkg["seeds"][name]["library"]).is_file()
        assert (P.seed_dir(root, name) / "timing.json").is_file()
        assert seed["curation"]["iterations"] == tiny_release.sized(name, "full")["train_size"]
        # a truthful curator: no false statement, no incomplete set, no wrong member
        mis = seed["library"]["misinformation"]
        assert (mis["false_statements"], mis["incomplete_sets"], mis["wrong_members"]) == \
            (0, 0, 0) or not mis["applies"]
        for m in tiny_release.exam_budgets:
            assert (P.exam_dir(root, name, "curator", m) / "test_log.jsonl").is_file()
            assert set(seed["budgets"][str(m)]["score"]) == {"B1", "curator"}
    pooled = scores["pooled"][str(tiny_release.budgets["m"])]["table"]["groups"]["all"]["all"]
    assert {"rho", "ci", "f1", "f1_diff_ci", "rho_nav"} <= set(pooled["curator"])
    assert scores["headline"]["curation_steps"] > 0


def test_a_killed_run_resumes_into_the_same_package(tiny_release, tmp_path, monkeypatch):
    (tmp_path / "bench_killer.py").write_text(KILLER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("BENCH_KILL_AT", raising=False)
    spec = curator_spec("bench_killer:make")
    whole = tmp_path / "whole"
    run_bench(tiny_release, spec, whole)
    cut = tmp_path / "cut"
    monkeypatch.setenv("BENCH_KILL_AT", "12")
    with pytest.raises(BaseException) as cut_short:
        run_bench(tiny_release, spec, cut)
    assert type(cut_short.value).__name__ == "Killed"
    assert not (cut / P.MANIFEST).exists()
    with pytest.raises(ConfigError, match="pass --resume"):
        run_bench(tiny_release, spec, cut)
    monkeypatch.delenv("BENCH_KILL_AT")
    run_bench(tiny_release, spec, cut, resume=True)
    assert _stable(cut) == _stable(whole)
    # killed again in the exams: an exam without test_meta.json is redone
    for f in (P.MANIFEST, "scores.json"):
        (cut / f).unlink()
    exam = P.exam_dir(cut, "people-1", "curator", tiny_release.budgets["tight_m"])
    (exam / "test_meta.json").unlink()
    (exam / "test_log.jsonl").write_text("torn")
    run_bench(tiny_release, spec, cut, resume=True)
    assert _stable(cut) == _stable(whole)
    # the same package hash: wall-clock files are listed but not part of it
    assert P.package_hash(cut) == P.package_hash(whole)
    assert verify_package(cut, tiny_release)["package_hash"] == P.package_hash(whole)


def test_resume_refuses_another_curator(packages, tiny_release, copy_of):
    root = copy_of(packages["b3"])
    with pytest.raises(ConfigError, match="another release, size, curator"):
        run_bench(tiny_release, curator_spec("b4"), root, resume=True)
    again = run_bench(tiny_release, curator_spec("b3"), root, resume=True)
    assert again["resumed"] == "complete"


def test_cli_run_verify_and_refusals(tiny_release, tmp_path, capsys):
    rel = str(tiny_release.root)
    out = tmp_path / "pkg"
    assert main(["bench", "run", "--curator", "b2", "--release", rel, "--out", str(out),
                 "--size", "small", "--quiet"]) == 0
    assert P.read_package(out)["size"] == "small"
    entry = tmp_path / "entry.json"
    assert main(["bench", "verify", str(out), "--release", rel, "--write-entry",
                 str(entry), "--date", "2026-12-06"]) == 0
    assert "verified" in capsys.readouterr().out
    assert json.loads(entry.read_text())["size"] == "small"
    assert main(["bench", "verify", str(out), "--release", rel, "--entry", str(entry),
                 "--quiet"]) == 0
    for argv, message in (
            (["bench", "run", "--curator", "b2", "--release", rel, "--out", str(out)],
             "is not empty; pass --resume"),
            (["bench", "run", "--curator", "b2", "--release", rel, "--out",
              str(tmp_path / "x"), "--size", "huge"], "no size 'huge'"),
            (["bench", "run", "--curator", "b3", "--model", "m", "--release", rel, "--out",
              str(tmp_path / "y")], "takes no endpoint flags"),
            (["bench", "verify", str(tmp_path / "nothing")], "not a folder"),
            (["bench", "run", "--curator", "b2", "--release", "nope", "--out",
              str(tmp_path / "z")], "unknown release")):
        capsys.readouterr()
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    shutil.rmtree(out)


def test_oracle_builds_on_a_universe_without_people(tiny_release):
    """The oracle indexes people; on the policies seed it adds nothing instead of failing,
    so an oracle package covers every seed of the release."""
    from kbgym.baselines import build_baseline

    u = tiny_release.universe("policies-1")
    lib, meta = build_baseline("oracle", u, {})
    assert not u.people and meta["nodes_added"] == 0 and len(lib) == len(u.nodes)
    people = tiny_release.universe("people-1")
    _, meta = build_baseline("oracle", people, {})
    assert meta["nodes_added"] >= len(people.people)  # a hub per person, as before
