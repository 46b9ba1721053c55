"""``kbgym demo``: the whole pipeline with scripted agents and no model or network.

Build the default universe of a world (``people``, or ``policies``); train the world's
scripted index curator (100 questions × 2 epochs); make the gradient probe from what was
trained; examine B1 and the trained library with the world's scripted reader, and the
``prior`` arm (each template's top training answer, one step); print the rho table and library
metrics; write the curve and the plots. The policies world adds the arm ``trained+graph``: the
trained library plus the evidence graph derived from its references (baseline ``evidence``),
examined by the evidence reader on the ``evidence`` toolset.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from kbgym.env.config import KBGymConfig
from kbgym.jsonio import write_canonical
from kbgym.library.graph import Library
from kbgym.library.snapshot import load_snapshot
from kbgym.plugins import make_agent
from kbgym.runs.gradient import exam_key, examine_probe, training_curve
from kbgym.runs.logs import read_jsonl
from kbgym.runs.prior import examine_prior
from kbgym.runs.probe import format_table, legend, make_probe_from_run, probe_table
from kbgym.runs.report import misinformation_line, write_report, wrong_members_line
from kbgym.runs.train import TrainConfig, train
from kbgym.worlds import default_world
from kbgym.worlds import world as world_named


def run_demo(out: str | Path = "runs/demo", *, world: str | None = None, seed: int = 0,
             n_people: int = 500, train_size: int = 100, epochs: int = 2, per_group: int = 30,
             curve_every: int = 20, curator: str | None = None, reader_name: str | None = None,
             plots: bool = True, say=print, overwrite: bool = False) -> dict:
    """The demo into ``out``: a folder an earlier demo wrote (its ``demo.json``) is rewritten,
    any other folder holding kbgym files only with ``overwrite`` (nothing else is deleted)."""
    from kbgym.runs.outdir import DEMO_FILES, RUN_FILES, check_out, clear

    out = Path(out)
    fam = world_named(world) if world else default_world()
    world, demo = fam.name, fam.demo
    curator = curator or fam.curator
    reader_name = reader_name or fam.reader
    files = RUN_FILES + DEMO_FILES
    again = (out / "demo.json").is_file()
    check_out(out, what="files of an earlier kbgym command", flags="--overwrite to replace "
              "them", overwrite=overwrite or again, patterns=files)
    config = fam.config({"n_people": n_people} if demo.takes_people else {}, seed)
    n_train = config.sizes[0]
    if train_size > n_train:  # refused before anything is written
        from kbgym.errors import ConfigError

        raise ConfigError(f"--train-size {train_size}: the demo universe's train split "
                          f"has {n_train} questions")
    clear(out, files)
    out.mkdir(parents=True, exist_ok=True)
    write_canonical(out / "demo.json", {
        "schema_version": 1, "kind": "kbgym.demo", "world": world, "seed": seed,
        "n_people": n_people, "train_size": train_size, "epochs": epochs,
        "per_group": per_group, "curve_every": curve_every, "curator": curator,
        "reader": reader_name})
    timings = {}
    t = time.perf_counter()
    u = fam.generate(config)
    write_canonical(out / "universe.json", u.to_json())
    timings["build"] = time.perf_counter() - t
    say(f"universe ({world}): {fam.headline(u)}, {len(u.nodes)} notes, seed {seed}  "
        f"({u.hash[:19]})")
    exam_cfg = KBGymConfig.make(m=demo.m) if demo.m else None

    t = time.perf_counter()
    run = out / "train"
    agent = make_agent(curator, offered={"seed": seed})
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
    for arm in ("B1", "trained", *demo.extra_arms, "prior"):  # exams append; reruns start afresh
        shutil.rmtree(out / f"exam_{arm}", ignore_errors=True)
    snapshot = str(run / f"kb_epoch_{epochs}.json")
    b1 = Library.from_universe(u)
    arms = {"B1": examine_probe(u, b1, reader, probe, exam_cfg,
                                label="B1", out=out / "exam_B1", reader_name=reader_name,
                                library_name="B1"),
            "trained": examine_probe(u, trained, reader, probe, exam_cfg, label="trained",
                                     out=out / "exam_trained", reader_name=reader_name,
                                     library_name=snapshot)}
    for arm, (baseline, arm_reader, env) in demo.extra_arms.items():  # e.g. trained+graph
        from kbgym.baselines import build_baseline  # (only worlds with extra arms need it)

        graph, _ = build_baseline(baseline, u, library=trained)
        arms[arm] = examine_probe(
            u, graph, make_agent(arm_reader), probe, KBGymConfig.make(m=demo.m, **env),
            label=arm, out=out / f"exam_{arm}", reader_name=arm_reader,
            library_name=f"{snapshot}+{arm.rpartition('+')[2]}")
    # the guess floor: each template's top training answer in one step (F1 it gives away)
    arms["prior"] = examine_prior(u, probe, out=out / "exam_prior")
    table = probe_table(arms, probe, seed=seed, m=demo.m or KBGymConfig().m)
    write_canonical(out / "probe_table.json", table)
    timings["probe"] = time.perf_counter() - t

    t = time.perf_counter()
    # (neither the plots nor the view show the curve's navigator figures: not computed; its
    # first and last states are B1 and the trained library, examined above by this reader)
    curve = training_curve(u, run, reader, probe, every=curve_every, env_config=exam_cfg,
                           navigate=False, examined={exam_key(b1): arms["B1"],
                                                     exam_key(trained): arms["trained"]})
    write_canonical(run / "curve.json", curve)
    timings["curve"] = time.perf_counter() - t

    t = time.perf_counter()
    report = write_report(run, u, out / "probe_table.json", library=trained)
    written = []
    from kbgym.runs.plots import plot_run, want_plots

    if want_plots(plots, say):
        written = plot_run(run, out, out / "probe_table.json")
    timings["report"] = time.perf_counter() - t

    say("")
    say("gradient probe (rho = steps(arm)/steps(B1) on the same questions"
        + (f"; exam budget m = {demo.m})" if demo.m else ")"))
    say(format_table(table))
    for line in legend(table):
        say(line)
    s = report["structure"]
    say("")
    if demo.metrics_lines:  # the structure and misinformation metrics read the world's facts
        say(f"index precision {s['precision'] if s['precision'] is None else round(s['precision'], 3)}"
            f", recall {s['recall'] if s['recall'] is None else round(s['recall'], 3)}, "
            f"character {s['character']}")
        say(misinformation_line(report["misinformation"])[2:])
        wrong = wrong_members_line(report["misinformation"])
        if wrong:
            say(wrong[2:])
    say(f"report: {run / 'report.md'}" + (f"; plots: {', '.join(str(p) for p in written)}"
                                          if written else ""))
    say("time: " + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items()))
    return {"table": table, "report": report, "timings": timings, "meta": meta, "universe": u,
            "library": trained}
