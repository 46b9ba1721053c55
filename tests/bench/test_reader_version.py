"""The exam reader's declared version moves with what it does: a bench release pins the
version each seed's exam reader declares (``kbgym.bench.release.reader_version``), because the
fingerprints see only the reference libraries, and four reader changes went past them (a
join's notes, chains, parts; docs/bench.md). This guard examines a fixed battery of generated
libraries in every rendering and shape (``kbgym_agents.zoo``, a few seconds) and pins its rows'
hash to the declared version: a change to what the reader reads or searches on any of them
fails here until the version is bumped and the hash recorded again, which then ships under a
new release id."""

from __future__ import annotations

from kbgym.bench.release import reader_version
from kbgym.jsonio import content_hash
from kbgym.plugins import make_agent
from kbgym.runs.exam import examine
from kbgym.worlds.people import UniverseConfig, generate
from kbgym_agents.zoo.generated import generate_libraries

#: (declared version, hash of the battery's rows) of the exam reader.
PINNED = ("2026-12-07.2",
          "sha256:f8dcd05264ec00a6195f780361477e434352ffaa4ff8a90f9a8406ab1795f6a4")


def battery_rows() -> list:
    u = generate(UniverseConfig(seed=3, n_people=150))
    rows = []
    for g in generate_libraries(u, 0, 20, questions=u.split("train")[:40]):
        for r in examine(u, g.library, make_agent("scripted-reader"), split="train", limit=30,
                         navigate=False):
            rows.append((g.name, r["qid"], r["steps"], r.get("answer")))
    return rows


def test_the_battery_covers_every_rendering_and_shape():
    from kbgym_agents.zoo.generated import SHAPES
    from kbgym_agents.zoo.renderings import RENDERINGS

    u = generate(UniverseConfig(seed=3, n_people=150))
    libs = generate_libraries(u, 0, 20, questions=u.split("train")[:40])
    assert {g.rendering for g in libs} >= set(RENDERINGS) - {"initials"}
    assert {s for g in libs for s in g.shapes} == set(SHAPES)


def test_the_exam_readers_version_moves_with_what_it_reads():
    got = (reader_version("scripted-reader"), content_hash(battery_rows()))
    assert got == PINNED, (
        "the exam reader reads otherwise on the battery: bump ScriptedReader.version, record "
        f"{got} here, and ship a new bench release (docs/bench.md)")
