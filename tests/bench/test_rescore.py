"""``kbgym bench rescore``: a package of an older release with the same universes, slices,
probes and budgets becomes a package of the newer one that verifies; anything else, and a
tampered trace, is refused naming what differs."""

from __future__ import annotations

import json

import pytest

from kbgym.bench import package as P
from kbgym.bench.release import build_release
from kbgym.bench.rescore import rescore_package
from kbgym.bench.run import curator_spec, run_bench
from kbgym.bench.verify import VerifyError, verify_package
from kbgym.cli import main
from kbgym.errors import ConfigError
from kbgym.jsonio import write_canonical

from .conftest import tiny_recipe


@pytest.fixture(scope="session")
def older(tmp_path_factory, pw_file):
    """An older release with tiny-bench-0.1's content, and its scripted and b3 packages."""
    root = tmp_path_factory.mktemp("older")
    rel = build_release(tiny_recipe(str(pw_file), "tiny-bench-0.0"), root / "rel")
    pkgs = {}
    for spec in ("scripted", "b3"):
        pkgs[spec] = root / spec
        run_bench(rel, curator_spec(spec), pkgs[spec])
    return rel, pkgs


@pytest.mark.parametrize("spec", ["scripted", "b3"])
def test_a_rescored_package_verifies(older, tiny_release, tmp_path, spec):
    _, pkgs = older
    src = pkgs[spec]
    res = rescore_package(src, tiny_release, tmp_path / "new")
    new = P.read_package(tmp_path / "new")
    assert new["release"] == {"id": tiny_release.id, "hash": tiny_release.hash}
    assert new["rescored_from"]["package_hash"] == P.package_hash(src)
    assert new["rescored_from"]["release"]["id"] == "tiny-bench-0.0"
    assert new["curator"] == P.read_package(src)["curator"]
    ver = verify_package(tmp_path / "new", tiny_release)
    assert ver["package_hash"] == res["package_hash"] == P.package_hash(tmp_path / "new")
    from kbgym.bench.board import make_entry

    entry = make_entry(ver, tmp_path / "new", date="2026-12-06")
    assert entry["rescored_from"] == {"package_hash": P.package_hash(src),
                                      "release": "tiny-bench-0.0"}
    # the same examiner: the rescored scores are the old ones, curation and tokens kept
    old_scores = json.loads((src / "scores.json").read_text())
    assert ver["headline"] == old_scores["headline"]
    if spec == "scripted":
        a = src / "seeds/people-1/train/trace.jsonl"
        b = tmp_path / "new/seeds/people-1/train/trace.jsonl"
        assert a.read_bytes() == b.read_bytes()
    # the old package does not verify against the new release, the new one is not the old's
    with pytest.raises(VerifyError, match="not tiny-bench-0.1"):
        verify_package(src, tiny_release)


def test_rescore_refuses_a_release_with_other_probes(older, tiny_release, tmp_path, pw_file):
    _, pkgs = older
    recipe = tiny_recipe(str(pw_file), "tiny-bench-0.2")
    recipe["sizes"]["full"]["per_group"] = 2  # other probe questions
    other = build_release(recipe, tmp_path / "rel")
    with pytest.raises(ConfigError, match=r"cannot rescore a package of tiny-bench-0.0 into "
                                          r"tiny-bench-0.2: seed people-1's probe differs"):
        rescore_package(pkgs["b3"], other, tmp_path / "new")
    assert not (tmp_path / "new").exists()
    with pytest.raises(ConfigError, match="already of that release"):
        rescore_package(pkgs["b3"], older[0], tmp_path / "new")


def test_rescore_refuses_a_tampered_trace(older, tiny_release, copy_of, tmp_path):
    src = copy_of(older[1]["scripted"])
    trace = src / "seeds/people-1/train/trace.jsonl"
    rows = [json.loads(line) for line in trace.read_text().splitlines()]
    i = next(i for i, r in enumerate(rows) if r.get("action") == "add")
    rows[i]["input"] = {**rows[i]["input"], "text": "Someone else entirely."}
    trace.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(VerifyError, match="trace.jsonl: differs from the sha256"):
        rescore_package(src, tiny_release, tmp_path / "new")
    P.write_manifest(src)  # the package's manifest redone: the run's own chain still refuses
    with pytest.raises(VerifyError, match="seed people-1 training run"):
        rescore_package(src, tiny_release, tmp_path / "new2")
    assert not (tmp_path / "new").exists() and not (tmp_path / "new2").exists()


def test_cli_rescore(older, tiny_release, tmp_path, capsys):
    out = tmp_path / "new"
    assert main(["bench", "rescore", str(older[1]["b3"]), "--release", str(tiny_release.root),
                 "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "into release tiny-bench-0.1" in said and P.package_hash(out) in said
    assert main(["bench", "verify", str(out), "--release", str(tiny_release.root),
                 "--quiet"]) == 0
    tampered = json.loads((out / "package.json").read_text())
    tampered["rescored_from"] = {"package_hash": "x"}
    write_canonical(out / "package.json", tampered)
    P.write_manifest(out)
    with pytest.raises(VerifyError, match="rescored_from must name"):
        verify_package(out, tiny_release)
