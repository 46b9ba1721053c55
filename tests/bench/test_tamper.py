"""Tampered packages are refused, each naming what differs. Most cases rewrite the package's
manifest and reseal the training runs' own manifests (meta.json's, kbgym.runs.manifest) after
tampering, as a forger would, so the check that catches them is the deep one: replay,
rebuild, re-run or re-score."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kbgym.bench import package as P
from kbgym.bench.verify import VerifyError, verify_package
from kbgym.jsonio import write_canonical
from kbgym.runs.logs import chained, line_hash, read_jsonl, rewrite_jsonl

SEED = "people-1"


def _json(path: Path, edit) -> None:
    data = json.loads(path.read_text())
    edit(data)
    write_canonical(path, data)


def _rechain_run(tdir: Path, trace: list[dict]) -> None:
    """Rewrite a training run's trace with valid chains, and train_log's anchors to match:
    what a careful forger does so that the chain check passes."""
    text, _ = chained(trace)
    (tdir / "trace.jsonl").write_text(text)
    heads = {}
    for row, line in zip(trace, text.splitlines(keepends=True)):
        if row.get("kind") == "train":
            heads[row["iteration"]] = line_hash(line.encode())
    log = read_jsonl(tdir / "train_log.jsonl")
    for r in log:
        r["trace_head"] = heads[r["iteration"]]
    rewrite_jsonl(tdir / "train_log.jsonl", log)


def _reseal_runs(root: Path) -> None:
    """Rewrite each training run's file manifest and meta.json seal to match its files."""
    from kbgym.runs.manifest import file_manifest, seal

    for meta_path in root.glob("seeds/*/train/meta.json"):
        meta = json.loads(meta_path.read_text())
        if "files" in meta:
            meta["files"] = file_manifest(meta_path.parent)
        write_canonical(meta_path, seal(meta) if "meta_sha256" in meta else meta)


def _edit_note_text(root: Path) -> None:
    tdir = P.seed_dir(root, SEED) / "train"
    trace = read_jsonl(tdir / "trace.jsonl")
    row = next(r for r in trace if r.get("kind") == "train" and r["action"] == "add")
    row["input"]["text"] += " Forged."
    _rechain_run(tdir, trace)


def _drop_trace_row(root: Path) -> None:
    tdir = P.seed_dir(root, SEED) / "train"
    lines = (tdir / "trace.jsonl").read_text().splitlines(keepends=True)
    (tdir / "trace.jsonl").write_text("".join(lines[:-1]))


def _swap_snapshot(root: Path) -> None:
    shutil.copyfile(P.seed_dir(root, SEED) / "train" / "kb_epoch_0.json",
                    P.seed_dir(root, SEED) / "train" / "kb_epoch_1.json")


def _edit_snapshot_rehashed(root: Path) -> None:
    from kbgym.jsonio import content_hash

    def edit(snap):
        node = next(n for n in snap["library"]["nodes"] if n.get("text"))
        node["text"] = node["text"] + " Also true."
        snap["content_hash"] = content_hash(snap["library"])
    _json(P.seed_dir(root, SEED) / "train" / "kb_epoch_1.json", edit)


def _edit_score(root: Path) -> None:
    _json(root / "scores.json", lambda s: s["headline"].update(f1_tight=0.999))


def _edit_seed_score(root: Path) -> None:
    def edit(s):
        s["seeds"][SEED]["budgets"]["8"]["score"]["curator"]["f1"] = 1.0
        s["seeds"][SEED]["budgets"]["8"]["score"]["curator"]["n"] += 0
        s["seeds"][SEED]["curation"]["steps"] -= 1
    _json(root / "scores.json", edit)


def _edit_exam_row(root: Path) -> None:
    d = P.exam_dir(root, SEED, "curator", 4)
    rows = read_jsonl(d / "test_log.jsonl")
    rows[0]["f1"], rows[0]["status"] = 1.0, "correct"
    rows[0]["answer"] = "forged"
    rewrite_jsonl(d / "test_log.jsonl", rows)


def _edit_tokens(root: Path) -> None:
    tdir = P.seed_dir(root, SEED) / "train"
    log = read_jsonl(tdir / "train_log.jsonl")
    log[0]["tokens_in"] += 1000
    rewrite_jsonl(tdir / "train_log.jsonl", log)


def _edit_release_hash(root: Path) -> None:
    _json(root / "package.json", lambda p: p["release"].update(hash="sha256:" + "0" * 64))


def _edit_reader(root: Path) -> None:
    _json(root / "package.json", lambda p: p["seeds"][SEED].update(reader="scripted-reader-strict"))


def _edit_budget(root: Path) -> None:
    _json(root / "package.json", lambda p: p["budgets"].update(tight_m=5))


def _edit_probe(root: Path) -> None:
    _json(P.exam_dir(root, SEED, "curator", 8) / "test_meta.json",
          lambda m: m.update(questions_hash="sha256:" + "1" * 64))


def _edit_train_budget(root: Path) -> None:
    _json(P.seed_dir(root, SEED) / "train" / "meta.json", lambda m: m.update(n2=30))


def _edit_train_search(root: Path) -> None:
    _json(P.seed_dir(root, SEED) / "train" / "meta.json",
          lambda m: m["search"].update(page_size=3))


def _add_file(root: Path) -> None:
    (P.seed_dir(root, SEED) / "train" / "kb_iter_0001.json").write_text("{}")


def _remove_exam_trace(root: Path) -> None:
    (P.exam_dir(root, SEED, "B1", 8) / "trace.jsonl").unlink()


CASES = {
    # name: (tamper, rewrite the manifests afterwards: False, True (package and runs) or
    #        "package" (the package's only), what the refusal must name)
    "file edited, manifest untouched": (_edit_score, False,
                                        "scores.json: differs from the sha256 the manifest"),
    "trace row edited and re-chained": (_edit_note_text, True, f"seed {SEED} training run"),
    "trace cut short": (_drop_trace_row, True, "the trace was cut"),
    "snapshot swapped": (_swap_snapshot, True, "kb_epoch_1.json is not byte-identical"),
    "snapshot edited, content hash redone": (_edit_snapshot_rehashed, True,
                                             "kb_epoch_1.json is not byte-identical"),
    "headline score edited": (_edit_score, True, "scores.json differs from the recomputed "
                                                 "scores: /headline/f1_tight"),
    "seed score edited": (_edit_seed_score, True, f"/seeds/{SEED}/budgets/8/score/curator/f1"),
    "exam row edited": (_edit_exam_row, True, "exam curator at m = 4: test_log.jsonl differs"),
    "token count edited": (_edit_tokens, True, "records tokens [1000, 0, 0]"),
    "release hash edited": (_edit_release_hash, True, "release hash differs"),
    "reader swapped": (_edit_reader, True, f"seed {SEED}: reader differs"),
    "budget edited": (_edit_budget, True, "budgets differ"),
    "probe swapped": (_edit_probe, True, "probe differs"),
    "training budget edited": (_edit_train_budget, True, "meta.json n2 is 30"),
    "training search settings edited": (_edit_train_search, True, "meta.json search is"),
    "file added": (_add_file, True, "kb_iter_0001.json is not a snapshot bench run writes"),
    "run folder edited, its own manifest not redone": (
        _edit_note_text, "package", "trace.jsonl"),
    "exam trace removed": (_remove_exam_trace, False, "trace.jsonl: listed in the manifest "
                                                      "but missing"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_tampered_package_is_refused(packages, tiny_release, copy_of, case):
    tamper, remanifest, names = CASES[case]
    root = copy_of(packages["scripted"])
    tamper(root)
    if remanifest is True:
        _reseal_runs(root)
    if remanifest:
        P.write_manifest(root)
    with pytest.raises(VerifyError) as err:
        verify_package(root, tiny_release)
    assert names in str(err.value), str(err.value)
    assert "\n" not in str(err.value)


def test_untampered_copy_verifies(packages, tiny_release, copy_of):
    root = copy_of(packages["scripted"])
    P.write_manifest(root)  # rewriting an honest manifest changes nothing
    assert verify_package(root, tiny_release)["package_hash"] == P.package_hash(
        packages["scripted"])


def test_a_leaderboard_entry_must_match_its_package(packages, tiny_release, tmp_path):
    from kbgym.bench.board import check_entry, make_entry, write_entry

    res = verify_package(packages["b3"], tiny_release)
    entry = make_entry(res, packages["b3"], date="2026-12-06")
    path = tmp_path / "b3.json"
    write_entry(path, entry)
    check_entry(path, res)
    entry["scores"]["rho"] = 0.5
    write_entry(path, entry)
    with pytest.raises(VerifyError, match="scores differ from the verified ones: scores/rho"):
        check_entry(path, res)
    entry = make_entry(res, packages["b3"], date="2026-12-06")
    entry["package_hash"] = P.package_hash(packages["B1"])
    write_entry(path, entry)
    with pytest.raises(VerifyError, match="names package"):
        check_entry(path, res)
