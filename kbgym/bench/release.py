"""A KBGym-Bench release: a named, frozen set of universes, train slices, probes, budgets and
the pinned reader, with one content hash over all of it (docs/bench.md).

A release is a folder holding ``release.json`` and the files it names (probe files, imported
universe files). ``release.json`` lists every file with its sha256 and ends in ``hash``, the
content hash of everything else in it, so one value pins the whole release. Generated
universes are stored as their recipe (generator overrides and seed) and the universe hash the
recipe must give; imported ones as the universe file itself.

Shipped releases live in ``kbgym/bench/releases/<id>/`` and are frozen by :data:`FROZEN`: a
shipped folder whose hash is not the frozen one is refused, so a later KBGym that changes a
release must ship it under a new id, and the old one keeps its hash.

The **reader** is pinned by name per seed, with the KBGym version that made the release and
a fingerprint of its behaviour: the content hash of B1's exam rows on each probe at each
budget. A KBGym whose reader examines B1 differently cannot run or verify the release.

The **examiner** (reader, ideal navigator and the library metrics the scores use) is pinned
on a curated library too, since B1 has no authored notes: ``examiner`` in release.json names
a size; for every seed, the release's reference library (the seed's own scripted curator
trained on that size's train slice, as ``bench run --curator scripted`` does; rebuilt
deterministically) is recorded by its digest, with the content hash of its library metrics
and of its exam rows on that size's probe at each budget. :func:`check_examiner` rebuilds and
re-examines it; run, verify and rescore refuse a KBGym that does not reproduce it. A release
made before examiner pinning (:data:`LEGACY_EXAMINER`) is refused by them in one line.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from kbgym.errors import ConfigError
from kbgym.jsonio import content_hash, write_canonical

KIND = "kbgym.bench.release"
SCHEMA_VERSION = 1
#: Where shipped releases live (package data).
RELEASES_DIR = Path(__file__).parent / "releases"
#: Shipped release id -> the hash it was frozen with. A release never changes under its id.
FROZEN: dict[str, str] = {
    "kbgym-bench-2026.12":
        "sha256:8e8ad37414a181aab4597cf8b799ab363b4ac005ceac6c0337c9c82bb02751a8",
    # 2026.12 plus the examiner's fingerprints (made after issue 34 changed the exam reader
    # and incomplete_sets; 2026.12's packages reach it by ``kbgym bench rescore``)
    "kbgym-bench-2026.12.1":
        "sha256:07f7a676b2a46c9d9eca550a4b7dd7fd8a49c73a3311fd7f9f64da564630c637",
    # 2026.12.1's recipe with the examiner's fingerprints made again: issue 34 changed the exam
    # reader (7d577a2, 71ca242: a published 2026.12.1 package stopped verifying, though the
    # reference libraries' exams did not change) and the library metrics report wrong_members
    # (which the fingerprints see); 2026.12.1's packages reach it by ``kbgym bench rescore``
    "kbgym-bench-2026.12.2":
        "sha256:d4a87e47b368e89a1b4a8f1333aa173eda645b78a85517bf58f644d97907c9cb",
    # the same recipe, the fingerprints made again: issue 34 changed the claim reader
    # (9d8cf08), the exam reader (ba37dfd, 8a08ace, b637725: a published 2026.12.2 package,
    # B2 full, stopped verifying while the reference libraries' exams did not change) and the
    # ideal navigator's vocabulary (ddce1be: every exam row's navigator figures); 2026.12.2's
    # packages reach it by ``kbgym bench rescore``
    "kbgym-bench-2026.12.3":
        "sha256:25ce3ff2ee30ecedda37041bb092a684a67f564703dad4a4a566b7a5f8461b2b",
    # the same recipe, the fingerprints made again and on a chained reference library too:
    # the exam rows of a library with chains carry the navigator's steps with them cut, and
    # the probe table flags a library relying on chains the reader does not credit;
    # 2026.12.3's packages reach it by ``kbgym bench rescore``
    "kbgym-bench-2026.12.4":
        "sha256:03c1fc4a6d4effcbbd5fa1c42f8ee7c32a73b1969f3dcf325f0df354bf1b24fa",
    # the same recipe and fingerprints (they came out as 2026.12.4's), plus the version each
    # seed's exam reader declares: issue 34 changed what the reader reads in joins and parts,
    # which no reference library shows, and published 2026.12.4 packages examine differently;
    # 2026.12.4's packages reach it by ``kbgym bench rescore``
    "kbgym-bench-2026.12.5":
        "sha256:5c9543ef39ec9d06973ab546931b0ebdfe51d35b1db698d502ca7667fd06c5d6",
    # the same recipe and fingerprints again, under the exam reader of 2026-12-07.2 (how a
    # join asks about a value whose pages authored notes crowd), which no reference library
    # shows; 2026.12.5's packages reach it by ``kbgym bench rescore``
    "kbgym-bench-2026.12.6":
        "sha256:2f592cac765edd2ea4b31d9a4a9230368b9b5a61407c9349c7676c580341a0c6",
}
#: The release ``kbgym bench`` uses when none is named.
DEFAULT = "kbgym-bench-2026.12.6"
#: Shipped releases made before the examiner was pinned on a curated library: id -> the
#: examiner they were made with. Their packages verify only with that KBGym; run, verify and
#: rescore refuse them here (a newer release takes their packages by ``bench rescore``).
LEGACY_EXAMINER: dict[str, str] = {
    "kbgym-bench-2026.12": "KBGym 0.2.0 at commit 3928d31, with the examiner before "
                           "2026-12-06's changes: issue 34's exam reader and incomplete_sets",
}
#: Shipped releases whose examiner fingerprints this KBGym no longer reproduces: id -> the KBGym
#: that made them (named in the refusal; their packages verify with it, or are rescored).
MADE_WITH: dict[str, str] = {
    "kbgym-bench-2026.12.1": "KBGym 0.2.0 at commit 22f71c7, with the examiner before issue "
                             "34's exam reader changes 7d577a2 and 71ca242",
    "kbgym-bench-2026.12.2": "KBGym 0.2.0 at commit d79afc6, with the examiner before issue "
                             "34's claim reader change 9d8cf08, exam reader changes ba37dfd, "
                             "8a08ace and b637725 and the navigator's joint query ddce1be",
    "kbgym-bench-2026.12.3": "KBGym 0.2.0 at commit 6380381, with the examiner before issue "
                             "34's chain figures (nav_steps_unchained and the chain line of "
                             "the blind spots)",
    "kbgym-bench-2026.12.4": "KBGym 0.2.0 at commit 5c726e6, with the exam reader before issue "
                             "34's join and parts changes of 2026-12-07",
    "kbgym-bench-2026.12.5": "KBGym 0.2.0 at commit a79732b, with the exam reader of "
                             "2026-12-07, before a join's crowded values (2026-12-07.2)",
}


def file_hash(path: str | Path) -> str:
    return "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()


def release_hash(data: Mapping) -> str:
    """The content hash of a release.json object (everything but ``hash``)."""
    return content_hash({k: v for k, v in data.items() if k != "hash"})


class Release:
    """A loaded release: ``release.json`` checked against its files and its own hash."""

    def __init__(self, root: str | Path, data: dict):
        self.root = Path(root)
        self.data = data
        self._universes: dict[str, Any] = {}

    # -- loading -------------------------------------------------------------------------
    @classmethod
    def from_dir(cls, root: str | Path) -> "Release":
        root = Path(root)
        path = root / "release.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise ConfigError(f"{path}: not a readable release.json ({err})") from None
        if not isinstance(data, dict) or data.get("kind") != KIND:
            raise ConfigError(f"{path}: not a {KIND} file")
        got = release_hash(data)
        if data.get("hash") != got:
            raise ConfigError(f"{path}: release {data.get('id')} records hash {data.get('hash')} "
                              f"but its content hashes to {got} - the release was edited")
        for name, digest in sorted(data["files"].items()):
            f = root / name
            if not f.is_file():
                raise ConfigError(f"release {data['id']}: file {name} is missing")
            if file_hash(f) != digest:
                raise ConfigError(f"release {data['id']}: file {name} differs from the sha256 "
                                  "the release records - the release was edited")
        frozen = FROZEN.get(data["id"])
        if frozen is not None and frozen != data["hash"]:
            raise ConfigError(f"release {data['id']} hashes to {data['hash']}, but it was frozen "
                              f"as {frozen}: a changed release needs a new release id")
        return cls(root, data)

    # -- what it pins --------------------------------------------------------------------
    @property
    def id(self) -> str:
        return self.data["id"]

    @property
    def hash(self) -> str:
        return self.data["hash"]

    @property
    def budgets(self) -> dict:
        """n1, n2 (training) and m, tight_m (the two exam budgets)."""
        return self.data["budgets"]

    @property
    def exam_budgets(self) -> list[int]:
        return [self.budgets["m"], self.budgets["tight_m"]]

    @property
    def sizes(self) -> list[str]:
        return list(self.data["sizes"])

    @property
    def seed_names(self) -> list[str]:
        return [s["name"] for s in self.data["seeds"]]

    @cached_property
    def _seeds(self) -> dict[str, dict]:
        return {s["name"]: s for s in self.data["seeds"]}

    def seed(self, name: str) -> dict:
        try:
            return self._seeds[name]
        except KeyError:
            raise ConfigError(f"release {self.id} has no seed {name!r}; its seeds: "
                              f"{', '.join(self.seed_names)}") from None

    def check_size(self, size: str) -> None:
        if size not in self.data["sizes"]:
            raise ConfigError(f"release {self.id} has no size {size!r}; its sizes: "
                              f"{', '.join(self.sizes)}")

    def reader(self, name: str) -> str:
        """The pinned exam reader (plugin name) of seed ``name``."""
        return self.seed(name)["reader"]

    def sized(self, name: str, size: str) -> dict:
        """Seed ``name`` at ``size``: train_size, probe file, probe hash, B1 fingerprints."""
        self.check_size(size)
        return self.seed(name)["sizes"][size]

    def universe(self, name: str):
        """Seed ``name``'s universe, built from the recipe (or read) and checked by hash."""
        if name not in self._universes:
            self._universes[name] = load_seed_universe(self.seed(name), self.root)
        return self._universes[name]

    def probe(self, name: str, size: str) -> dict:
        return json.loads((self.root / self.sized(name, size)["probe"]).read_text(
            encoding="utf-8"))

    @property
    def examiner(self) -> dict | None:
        """{size, fingerprints: {seed: {library, metrics, exams: {m: hash}}}}, or None for a
        release made before examiner pinning."""
        return self.data.get("examiner")

    def summary(self) -> str:
        lines = [f"{self.id}  {self.hash}",
                 f"budgets: train n1={self.budgets['n1']} n2={self.budgets['n2']}, exam "
                 f"m={self.budgets['m']} and tight m={self.budgets['tight_m']}; "
                 f"epochs {self.data['train']['epochs']}"]
        for s in self.data["seeds"]:
            sizes = ", ".join(f"{z}: train {v['train_size']}, probe {v['n_questions']}"
                              for z, v in s["sizes"].items())
            lines.append(f"{s['name']:16s} {s['world']:12s} reader {s['reader']}, "
                         f"curator {s['curator']}; {sizes}")
        return "\n".join(lines)


def load_seed_universe(seed: Mapping, root: Path):
    from kbgym.bench.worlds import generate

    spec = seed["universe"]
    if "file" in spec:
        from kbgym.env.env import load_universe

        u, _ = load_universe(root / spec["file"])
    else:
        u = generate(spec["generate"], spec["seed"])
    if u.hash != spec["hash"]:
        raise ConfigError(f"seed {seed['name']}: this KBGym builds universe {u.hash}, the "
                          f"release pins {spec['hash']} - the generator changed; this release "
                          "cannot run here")
    return u


def shipped() -> dict[str, Path]:
    """Shipped release id -> its folder."""
    if not RELEASES_DIR.is_dir():
        return {}
    return {p.name: p for p in sorted(RELEASES_DIR.iterdir()) if (p / "release.json").is_file()}


def load_release(spec: str | Path | None = None) -> Release:
    """A shipped release by id (default :data:`DEFAULT`), or a release folder by path."""
    spec = DEFAULT if spec is None else spec
    known = shipped()
    if str(spec) in known:
        return Release.from_dir(known[str(spec)])
    if Path(spec).is_dir():
        return Release.from_dir(spec)
    raise ConfigError(f"unknown release {spec!r}; shipped: {', '.join(known) or 'none'} "
                      "(or give a release folder)")


# -- making a release (scripts/bench/make_release.py, and the tests' tiny release) ---------
def exam_config(budgets: Mapping, m: int):
    """The environment config every bench exam and training run uses."""
    from kbgym.env.config import KBGymConfig

    return KBGymConfig.make(n1=budgets["n1"], n2=budgets["n2"], m=m)


def b1_fingerprint(universe, probe: Mapping, reader_name: str, budgets: Mapping, m: int) -> str:
    """The content hash of B1's exam rows on ``probe`` at budget ``m``: the reader's
    behaviour, pinned."""
    from kbgym.library.graph import Library
    from kbgym.plugins import make_agent
    from kbgym.runs.gradient import examine_probe

    rows = examine_probe(universe, Library.from_universe(universe), make_agent(reader_name),
                         probe, exam_config(budgets, m), label="B1")
    return content_hash(rows)


class ExaminerError(ConfigError):
    """This KBGym's examiner is not the release's."""


def examiner_refusal(release: "Release", why: str) -> ExaminerError:
    made = LEGACY_EXAMINER.get(release.id) or MADE_WITH.get(release.id) or \
        f"version {release.data.get('made_with', {}).get('kbgym_version', '?')}"
    newer = f"--release {DEFAULT} " if DEFAULT != release.id else ""
    return ExaminerError(f"this KBGym's examiner is not release {release.id}'s ({why}): verify "
                         f"with the KBGym that made it ({made}), or rescore into a newer release "
                         f"(kbgym bench rescore PACKAGE {newer}--out DIR)")


def reference_library(universe, curator: str, budgets: Mapping, epochs: int, train_size: int):
    """The release's reference curated library of a seed: its scripted curator ``curator``
    trained on ``train[:train_size]`` exactly as ``bench run`` trains (deterministic)."""
    import tempfile

    from kbgym.library.snapshot import load_snapshot
    from kbgym.plugins import make_agent
    from kbgym.runs.train import TrainConfig, train

    with tempfile.TemporaryDirectory() as tmp:
        train(universe, make_agent(curator), tmp, env_config=exam_config(budgets, budgets["m"]),
              config=TrainConfig.make(epochs=epochs, train_size=train_size,
                                      snapshot_every=10**6),
              agent_spec={"name": curator, "options": {}})
        return load_snapshot(Path(tmp) / f"kb_epoch_{epochs}.json")[0]


#: The chained reference library links each original note to the next CHAIN_SPAN originals
#: in id order: chains in every world, which the ideal navigator uses on some questions
#: (a quarter of people-1's full probe), so the fingerprints see its figures with chains cut.
CHAIN_SPAN = 10


def chained(lib):
    """A copy of ``lib`` with chains: each original note linked to the next
    :data:`CHAIN_SPAN` originals in id order."""
    from kbgym.library.graph import id_num

    out = lib.copy()
    originals = sorted((n.id for n in out if n.origin is not None), key=id_num)
    for i, source in enumerate(originals):
        for target in originals[i + 1:i + 1 + CHAIN_SPAN]:
            if target not in out[source].links:
                out.link(source, target)
    return out


def examiner_fingerprint(universe, seed: Mapping, size: Mapping, probe: Mapping,
                         budgets: Mapping, epochs: int, chains: bool = False) -> dict:
    """The examiner's behaviour on seed's reference library: the library's digest, the
    content hash of its library metrics (what scores.json reports) and of its exam rows at
    each budget; with ``chains``, also of the exam rows of the :func:`chained` reference
    library at each budget (``chained_exams``)."""
    from kbgym.bench.scores import exam_row, library_metrics
    from kbgym.plugins import make_agent
    from kbgym.runs.gradient import examine_probe

    lib = reference_library(universe, seed["curator"], budgets, epochs, size["train_size"])
    out = {"library": lib.digest(), "metrics": content_hash(library_metrics(lib, universe)),
           "exams": {}}
    libs = {"exams": lib}
    if chains:
        out["chained_exams"] = {}
        libs["chained_exams"] = chained(lib)
    for key, examined in libs.items():
        for m in (budgets["m"], budgets["tight_m"]):
            rows = examine_probe(universe, examined, make_agent(seed["reader"]), probe,
                                 exam_config(budgets, m), label="reference")
            out[key][str(m)] = content_hash([exam_row(r) for r in rows])
    return out


def reader_version(name: str) -> str | None:
    """The version an exam reader declares (its ``version`` attribute), None if it declares
    none. A reader's author bumps it with every change to what the reader reads or searches:
    the fingerprints see only the reference libraries, and a change that other libraries'
    notes alone show (a join's parts, a hub in two halves) leaves them as they were."""
    from kbgym.plugins import make_agent

    version = getattr(make_agent(name), "version", None)
    return str(version) if version is not None else None


_CHECKED: set[tuple[str, str]] = set()


def check_examiner(release: "Release", seeds=None) -> None:
    """Refuse (one line, :class:`ExaminerError`) a KBGym whose examiner does not reproduce
    the release's fingerprints on ``seeds`` (default all), or whose exam readers declare
    other versions than the release pins (:func:`reader_version`); a release made before
    examiner pinning is refused outright. Checked once per seed and process."""
    exm = release.examiner
    if exm is None:
        raise examiner_refusal(release, "it was made before releases pinned the examiner")
    size = exm["size"]
    names = seeds if isinstance(seeds, (list, tuple)) and seeds else release.seed_names
    for name in names:
        if name not in exm["fingerprints"] or (release.hash, name) in _CHECKED:
            continue
        want = exm["fingerprints"][name]
        got = examiner_fingerprint(release.universe(name), release.seed(name),
                                   release.sized(name, size), release.probe(name, size),
                                   release.budgets, release.data["train"]["epochs"],
                                   chains=bool(exm.get("chains")))
        if got["library"] != want["library"]:
            raise examiner_refusal(release, f"seed {name}: the reference curator "
                                            f"{release.seed(name)['curator']} builds another "
                                            "library, so the examiner cannot be checked")
        if got["metrics"] != want["metrics"]:
            raise examiner_refusal(release, f"seed {name}: the library metrics of the "
                                            "reference library differ")
        for m, h in want["exams"].items():
            if got["exams"].get(m) != h:
                raise examiner_refusal(release, f"seed {name}: the exam of the reference "
                                                f"library at m = {m} differs")
        for m, h in want.get("chained_exams", {}).items():
            if got["chained_exams"].get(m) != h:
                raise examiner_refusal(release, f"seed {name}: the exam of the chained "
                                                f"reference library at m = {m} differs")
        if not exm.get("chains"):
            raise examiner_refusal(release, f"seed {name}: its fingerprints predate the ideal "
                                            "navigator's figures with a library's chains cut, "
                                            "which this examiner writes for libraries with "
                                            "links between original notes")
        if "reader_versions" not in exm:
            raise examiner_refusal(release, f"seed {name}: it predates the pinning of the exam "
                                            "reader's version, which catches a reader change "
                                            "that the reference libraries do not show")
        reader = release.seed(name)["reader"]
        have, pinned = reader_version(reader), exm["reader_versions"].get(name)
        if have != pinned:
            raise examiner_refusal(release, f"seed {name}: the exam reader {reader} is version "
                                            f"{have}, the release's is {pinned}")
        _CHECKED.add((release.hash, name))


def build_release(recipe: Mapping, out: str | Path) -> Release:
    """Write the release ``recipe`` describes into the empty folder ``out``.

    ``recipe``: id, name, version, budgets {n1, n2, m, tight_m}, train {epochs}, bootstrap
    {seed, resamples}, sizes {NAME: {train_size, per_group, description}}, seeds [{name,
    world, reader, curator, universe: {generate: {world, ...}, seed} or {file: PATH,
    made_by: TEXT}}]. Each size trains on ``train[:train_size]`` (at most the split) and its
    probe is the world's probe of that slice, drawn with the universe's seed.
    """
    import kbgym
    from kbgym.bench.worlds import slice_probe
    from kbgym.runs.gradient import probe_hash

    out = Path(out)
    if out.exists() and any(out.iterdir()):
        raise ConfigError(f"{out}: not empty; a release is written into an empty folder")
    (out / "probes").mkdir(parents=True)
    budgets = dict(recipe["budgets"])
    seeds, built = [], {}
    for s in recipe["seeds"]:
        spec = dict(s["universe"])
        if "file" in spec:
            from kbgym.env.env import load_universe

            u, _ = load_universe(spec["file"])
            rel = f"universes/{s['name']}.json"
            (out / "universes").mkdir(exist_ok=True)
            shutil.copyfile(spec["file"], out / rel)
            uni = {"file": rel, "made_by": spec.get("made_by"), "hash": u.hash}
        else:
            from kbgym.bench.worlds import generate

            u = generate(spec["generate"], spec["seed"])
            uni = {"generate": dict(spec["generate"]), "seed": spec["seed"], "hash": u.hash}
        built[s["name"]] = u
        train = list(u.splits["train"])
        sizes = {}
        for size, z in recipe["sizes"].items():
            n = min(z["train_size"], len(train))
            probe = slice_probe(u, train[:n], z["per_group"])
            rel = f"probes/{s['name']}.{size}.json"
            write_canonical(out / rel, probe)
            sizes[size] = {
                "train_size": n, "probe": rel, "probe_hash": probe_hash(probe),
                "n_questions": len(probe["questions"]),
                "groups": {g: len(v) for g, v in probe["splits"].items()},
                "b1_exams": {str(m): b1_fingerprint(u, probe, s["reader"], budgets, m)
                             for m in (budgets["m"], budgets["tight_m"])},
            }
        seeds.append({"name": s["name"], "world": s["world"], "reader": s["reader"],
                      "curator": s["curator"], "universe": uni, "sizes": sizes})
    data = {
        "schema_version": SCHEMA_VERSION, "kind": KIND, "id": recipe["id"],
        "name": recipe["name"], "version": recipe["version"],
        "description": recipe.get("description", ""),
        "made_with": {"kbgym_version": kbgym.__version__},
        "reader": {"kbgym_version": kbgym.__version__,
                   "note": "each seed names its reader; sizes[*].b1_exams pin its behaviour"},
        "budgets": budgets, "train": dict(recipe["train"]),
        "bootstrap": dict(recipe["bootstrap"]),
        "sizes": {k: dict(v) for k, v in recipe["sizes"].items()},
        "seeds": seeds,
    }
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    if recipe.get("examiner"):
        size = recipe["examiner"]["size"]
        if size not in recipe["sizes"]:
            raise ConfigError(f"examiner size {size!r} is not one of the recipe's sizes")
        chains = bool(recipe["examiner"].get("chains"))
        versions = bool(recipe["examiner"].get("reader_versions"))
        data["examiner"] = {
            "size": size, "kbgym_version": kbgym.__version__,
            "note": "per seed: the digest of the reference library (the seed's curator trained "
                    "on the size's train slice), the hash of its library metrics and of its "
                    "exam rows on the size's probe at each budget" + (
                        "; chained_exams: the same for the reference library with each "
                        f"original linked to the next {CHAIN_SPAN} originals in id order"
                        if chains else "") + (
                        "; reader_versions: the version each seed's exam reader declares"
                        if versions else ""),
            "fingerprints": {}}
        if chains:
            data["examiner"]["chains"] = True
        if versions:
            data["examiner"]["reader_versions"] = {
                s["name"]: reader_version(s["reader"]) for s in seeds}
        for s in seeds:
            u = built[s["name"]]
            probe = json.loads((out / s["sizes"][size]["probe"]).read_text(encoding="utf-8"))
            data["examiner"]["fingerprints"][s["name"]] = examiner_fingerprint(
                u, s, s["sizes"][size], probe, budgets, recipe["train"]["epochs"], chains)
    data["files"] = {f: file_hash(out / f) for f in files}
    data["hash"] = release_hash(data)
    write_canonical(out / "release.json", data)
    return Release.from_dir(out)
