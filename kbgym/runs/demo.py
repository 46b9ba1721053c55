"""``kbgym demo``: the whole pipeline with scripted agents and no model or network.

Build the default universe; train the scripted index curator (100 questions × 2 epochs);
make the gradient probe from what was trained; examine B1 and the trained library with the
scripted reader, and the ``prior`` arm (each template's top training answer, one step); print
the rho table and library metrics; write the curve and the plots.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from kbgym.jsonio import write_canonical
from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.plugins import make_agent
from kbgym.runs.gradient import examine_probe, training_curve
from kbgym.runs.logs import read_jsonl
from kbgym.runs.prior import examine_prior
from kbgym.runs.probe import format_table, make_probe_from_run, probe_table
from kbgym.runs.report import misinformation_line, write_report
from kbgym.runs.train import TrainConfig, train
from kbgym.universe import UniverseConfig, generate


def run_demo(out: str | Path = "runs/demo", *, seed: int = 0, n_people: int = 500,
             train_size: int = 100, epochs: int = 2, per_group: int = 30, curve_every: int = 20,
             curator: str = "scripted-index", reader_name: str = "scripted-reader",
             plots: bool = True, say=print) -> dict:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    timings = {}
    t = time.perf_counter()
    u = generate(UniverseConfig(seed=seed, n_people=n_people))
    write_canonical(out / "universe.json", u.to_json())
    timings["build"] = time.perf_counter() - t
    say(f"universe: {len(u.people)} people, {len(u.nodes)} notes, seed {seed}  ({u.hash[:19]})")

    t = time.perf_counter()
    run = out / "train"
    agent = make_agent(curator, seed=seed)
    reader = make_agent(reader_name)
    meta = train(u, agent, run, config=TrainConfig(epochs=epochs, train_size=train_size,
                                                   snapshot_every=curve_every),
                 universe_path=str(out / "universe.json"))
    timings["train"] = time.perf_counter() - t
    rows = read_jsonl(run / "kb_stats.jsonl")
    say(f"trained {curator}: {train_size} questions x {epochs} epochs -> "
        f"{rows[-1]['authored_statements']} index notes, {rows[-1]['n_links']} links, "
        f"index_coverage {rows[-1]['index_coverage']:.3f}")

    t = time.perf_counter()
    probe = make_probe_from_run(u, run, per_group=per_group, seed=seed)
    write_canonical(out / "probe.json", probe)
    trained, _ = load_snapshot(run / f"kb_epoch_{epochs}.json")
    for arm in ("B1", "trained", "prior"):  # exams append; a rerun starts them afresh
        shutil.rmtree(out / f"exam_{arm}", ignore_errors=True)
    arms = {"B1": examine_probe(u, Library.from_universe(u), reader, probe, label="B1",
                                out=out / "exam_B1"),
            "trained": examine_probe(u, trained, reader, probe, label="trained",
                                     out=out / "exam_trained"),
            # the guess floor: each template's top training answer in one step (F1 it gives away)
            "prior": examine_prior(u, probe, out=out / "exam_prior")}
    table = probe_table(arms, probe, seed=seed)
    write_canonical(out / "probe_table.json", table)
    timings["probe"] = time.perf_counter() - t

    t = time.perf_counter()
    curve = training_curve(u, run, reader, probe, every=curve_every)
    write_canonical(run / "curve.json", curve)
    timings["curve"] = time.perf_counter() - t

    t = time.perf_counter()
    report = write_report(run, u, out / "probe_table.json")
    written = []
    if plots:
        from kbgym.runs.plots import plot_run

        written = plot_run(run, out, out / "probe_table.json")
    timings["report"] = time.perf_counter() - t

    say("")
    say("gradient probe (rho = steps(arm)/steps(B1) on the same questions)")
    say(format_table(table))
    s = report["structure"]
    say("")
    say(f"index precision {s['precision'] if s['precision'] is None else round(s['precision'], 3)}"
        f", recall {s['recall'] if s['recall'] is None else round(s['recall'], 3)}, "
        f"character {s['character']}")
    say(misinformation_line(report["misinformation"])[2:])
    say(f"report: {run / 'report.md'}" + (f"; plots: {', '.join(str(p) for p in written)}"
                                          if written else ""))
    say("time: " + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items()))
    return {"table": table, "report": report, "timings": timings, "meta": meta, "universe": u}
