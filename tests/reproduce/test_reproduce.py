"""``kbgym reproduce``: the verdict rule, the settings, the CLI's one-line errors, and a tiny
reproduction end to end (every claim a row with a figure, a navigator column and a verdict;
a re-run skips every finished run and writes the same table). The ``--quick`` run itself is
the slow test at the bottom."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbgym.cli import main
from kbgym.config import load_config
from kbgym.errors import ConfigError
from kbgym.reproduce import FULL, QUICK, Settings, reproduce
from kbgym.reproduce.table import VERDICTS, verdict
from kbgym.runs.plots import NO_PLOTS, plotting_available
from kbgym.worlds.people import UniverseConfig

ROOT = Path(__file__).resolve().parents[2]
SMALL = {"n_people": 60, "n_cities": 8, "sizes": [40, 30, 20], "eval_sizes": [10, 6]}
TINY = Settings(seeds=(0, 1), universe=SMALL, train_size=20, per_group=5, resamples=200,
                growth_universe=SMALL, growth_sizes=(5, 10, 20, 40), growth_base=10,
                repeat_distinct=10, repeat_epochs=2, held_out_limit=10)
CLAIMS = ["exact_rho", "exact_f1", "share2_f1", "share1_f1", "share0_f1", "share2_rho",
          "share1_rho", "share0_rho", "per_point_steps", "per_point_f1", "links", "precision",
          "pw_exact_rho", "coverage_100", "coverage_linear", "coverage_repeats", "gap_4x",
          "decay_coverage"]


# -- the verdict -----------------------------------------------------------------------------
def test_verdict_rule():
    assert verdict(0.686, (0.52, 0.84), 0.70, [0.60, 0.80], True) == "within CI"
    assert verdict(0.686, (0.52, 0.84), 0.80, [0.79, 0.81], True) == "within CI"  # in theirs
    assert verdict(0.686, None, 0.80, [0.79, 0.81], True) == "same direction"
    assert verdict(0.935, None, 0.70, [0.65, 0.75], False) == "differs"
    assert verdict(1.0, None, None, None, False) == "not measured"
    assert verdict(None, None, -0.04, None, True) == "same direction"  # a qualitative claim


finite = st.floats(-10, 10, allow_nan=False)


@given(paper=finite, value=finite, lo=finite, width=st.floats(0, 5), holds=st.booleans())
def test_verdict_properties(paper, value, lo, width, holds):
    ci = [lo, lo + width]
    v = verdict(paper, None, value, ci, holds)
    assert v in VERDICTS
    assert (v == "within CI") == (ci[0] <= paper <= ci[1])
    if v != "within CI":
        assert v == ("same direction" if holds else "differs")


# -- settings and the CLI --------------------------------------------------------------------
def test_coverage_config_is_the_growth_universe():
    """configs/coverage.yaml is the universe the full run's growth experiment generates."""
    cfg = load_config(ROOT / "configs" / "coverage.yaml").universe
    assert cfg == UniverseConfig.make(**FULL.growth_universe)
    assert cfg.sizes[0] >= 4 * 100 and max(FULL.growth_sizes) <= cfg.sizes[0]
    assert FULL.growth_base == 100 and 4 * FULL.growth_base in FULL.growth_sizes


@pytest.mark.parametrize("update, word", [
    ({"growth_sizes": (25, 50, 100)}, "4x"),
    ({"tight_m": 15}, "tight budget"),
    ({"growth_sizes": (50, 100, 200, 800)}, "train split"),
    ({"seeds": ()}, "seeds"),
])
def test_bad_settings_are_one_line(update, word):
    with pytest.raises(ConfigError, match=word) as err:
        QUICK.replace(**update)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("argv, word", [
    (["--seeds", "3-1"], "seeds"),
    (["--seeds", "0,0"], "distinct"),
    (["--tight-m", "15"], "between 1 and 14"),
    (["--address", "auto"], "ray executor only"),
    (["--quick", "--seeds", "0", "--phantomwiki", "x", "--tight-m", "7", "--jobs", "0"],
     "between 1 and 4096"),
])
def test_cli_bad_input_writes_nothing(tmp_path, capsys, argv, word):
    out = tmp_path / "r"
    with pytest.raises(SystemExit) if "--address" not in argv else _no_exit():
        code = main(["reproduce", "--out", str(out), *argv])
        assert code == 2
    err = capsys.readouterr().err
    assert word in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


class _no_exit:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# -- a tiny reproduction, end to end ---------------------------------------------------------
@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    # Slow (~25 s on CI), once for the module: every experiment of the reproduction (8 runs,
    # the growth series, plots), each already at its smallest useful size (TINY).
    out = tmp_path_factory.mktemp("repro")
    lines: list[str] = []
    rep = reproduce(out, TINY, executor="serial", say=lines.append)
    return out, rep, lines


def test_every_claim_has_a_row(tiny):
    out, rep, lines = tiny
    assert [r["id"] for r in rep["table"]] == CLAIMS
    for r in rep["table"]:
        assert r["verdict"] in VERDICTS and r["verdict"] != "not measured", r["id"]
        assert r["kbgym"] is not None and r["kbgym_text"] not in ("", "–"), r["id"]
        assert r["navigator"] not in ("", "–"), r["id"]  # the ideal navigator's ρ, every row
        assert r["paper_text"] and r["test"] and r["where"]
        assert (r["why"] == "") == (r["verdict"] == "within CI"), r["id"]
    assert rep["runs"] == {"total": 8, "done": 8, "ran": 8, "skipped": 0, "failed": 0}
    for name in ("reproduction.md", "reproduction.json"):
        assert (out / name).stat().st_size > 0
    if plotting_available():  # a core install (no plot extra) writes the tables and says so
        assert rep["plots"] == ["gradient.png", "coverage_growth.png"]
        for name in rep["plots"]:
            assert (out / name).stat().st_size > 0
    else:
        assert rep["plots"] == [] and NO_PLOTS in lines
    md = (out / "reproduction.md").read_text(encoding="utf-8")
    assert md.startswith("# Does KBGym reproduce the paper?")
    for r in rep["table"]:
        assert r["verdict"] in md and r["paper_text"].replace("|", "\\|") in md


def test_figures_match_their_sources(tiny):
    """The table's figures are the sweep's: exact ρ is the sweep report's mean ρ, the growth
    coverage is the curator's series at that iteration, and the held-out set is untrained."""
    out, rep, _ = tiny
    row = {r["id"]: r for r in rep["table"]}
    cell = rep["gradient"][str(TINY.m)]["arms"]["trained"]["exact"]
    assert row["exact_rho"]["kbgym"] == cell["rho_mean"]["mean"]
    assert row["exact_rho"]["kbgym_ci"] == cell["rho_mean"]["ci"]
    growth = [json.loads(p.read_text()) for p in sorted((out / "runs").glob("*/result.json"))
              if json.loads(p.read_text())["kind"] == "kbgym.reproduce.growth"]
    assert len(growth) == 2
    for g in growth:
        from kbgym.worlds.people import generate

        u = generate(UniverseConfig.make(**TINY.growth_universe, seed=g["spec"]["seed"]))
        assert not set(g["held_out"]) & set(u.splits["train"])
        d = g["series"]["distinct"]
        assert d["distinct"][:41] == list(range(41))  # one pass: iteration n has seen n
        cov = [d["index_coverage"][d["iterations"].index(n)] for n in TINY.growth_sizes]
        assert [g["states"][f"distinct@{n}"]["index_coverage"] for n in TINY.growth_sizes] == cov
        r = g["series"]["repeat"]
        assert max(r["distinct"]) == TINY.repeat_distinct
        timing = json.loads((out / "runs" / g["id"] / "timing.json").read_text())
        stages = [k for k in timing if k != "total" and not k.startswith("cpu_")]
        assert {"build", "baselines"} <= set(stages)
        assert all(f"cpu_{k}" in timing for k in stages)
        assert timing["total"] >= sum(timing[k] for k in stages) - 1e-3
    mean10 = sum(g["states"]["distinct@10"]["index_coverage"] for g in growth) / 2
    assert row["coverage_100"]["kbgym"] == pytest.approx(mean10)


def test_rerun_skips_and_writes_the_same_table(tiny):
    out, rep, _ = tiny
    lines: list[str] = []
    again = reproduce(out, TINY, executor="serial", say=lines.append)
    assert again["runs"]["skipped"] == 8 and again["runs"]["ran"] == 0
    assert again["table"] == rep["table"]
    assert all("skipped" in ln for ln in lines[1:])


@pytest.mark.slow
def test_quick_run(tmp_path):
    """The --quick reproduction (the CI-sized one; a benchmark's time, not a unit test's)."""
    code = main(["reproduce", "--quick", "--out", str(tmp_path), "--quiet"])
    assert code == 0
    rep = json.loads((tmp_path / "reproduction.json").read_text())
    assert [r["id"] for r in rep["table"]] == CLAIMS
    assert all(r["verdict"] != "not measured" for r in rep["table"])


def test_readme_quotes_every_claim():
    """The documented reproduction table (docs/guide/reproduction.md, linked from the README) is
    the full run's: every claim of the table is there."""
    from kbgym.reproduce.table import rows

    readme = (ROOT / "docs/guide/reproduction.md").read_text(encoding="utf-8")
    empty = rows({"gradient": {}, "per_point": {}, "phantomwiki": [], "growth": None}, FULL)
    assert [r["id"] for r in empty] == CLAIMS
    assert all(r["verdict"] == "not measured" for r in empty)
    section = readme.split("# Does KBGym reproduce the paper?")[1].split("\n## ")[0]
    for r in empty:
        assert r["claim"].replace("|", "\\|") in section, r["id"]
        assert r["paper_text"].replace("|", "\\|") in section, r["id"]


def test_two_seeds_give_no_within_ci_wider_than_the_claims_margin(tiny):
    """TINY has 2 seeds: a row is "within CI" only when KBGym's CI is narrower than the
    claim's margin; ratio CIs (ρ included) never go below 0."""
    from kbgym.reproduce.table import NULL_MARGIN

    _, rep, _ = tiny
    for r in rep["table"]:
        ci = r["kbgym_ci"]
        if r["id"] in ("per_point_steps", "per_point_f1", "links", "coverage_linear",
                       "coverage_repeats") and ci:
            assert ci[0] >= 0, r["id"]
        if r["id"].endswith("rho") and ci:
            assert ci[0] >= 0, r["id"]
        if r["verdict"] == "within CI" and ci and r["test"] in ("ρ CI reaches 1",
                                                                "ΔF1 CI holds 0"):
            assert (ci[1] - ci[0]) / 2 <= NULL_MARGIN, r["id"]
        if r["verdict"] == "undecided":
            assert "2 seeds" in r["why"] and "cannot decide" in r["why"], r["id"]


def test_the_few_seeds_rule():
    from kbgym.reproduce.table import _above, _few_seeds, _no_gain, _ratio_stat, _row

    def row(value, ci, holds, paper=0.1, paper_ci=None):
        return _row("x", "claim", paper=paper, paper_text="", value=value, ci=ci, nav="",
                    holds=holds, test="t", why="because", where="", paper_ci=paper_ci)

    wide = row(0.06, [-0.01, 0.13], _above)  # holds the paper's 0.1 and 0, where ΔF1 > 0 fails
    assert _few_seeds(dict(wide), 2)["verdict"] == "undecided"
    assert _few_seeds(dict(wide), 5)["verdict"] == "within CI"
    narrow = row(0.09, [0.05, 0.13], _above)  # every value in the CI passes: decided
    assert _few_seeds(narrow, 2)["verdict"] == "within CI"
    theirs = row(0.09, [-0.5, 0.6], _above, paper_ci=(0.05, 0.12))  # in the paper's own CI,
    assert _few_seeds(theirs, 2)["verdict"] == "undecided"  # but 2 seeds cannot tell
    assert _few_seeds(row(0.09, [0.01, 0.2], _above, paper_ci=(0.05, 0.12)), 2)["verdict"] \
        == "within CI"
    null = row(0.0, [-0.2, 0.2], _no_gain, paper=0.0)
    assert _few_seeds(null, 2)["verdict"] == "undecided"
    assert _few_seeds(row(0.0, [-0.01, 0.01], _no_gain, paper=0.0), 2)["verdict"] == "within CI"
    assert _ratio_stat({"mean": 0.787, "ci": [-1.213, 2.787]}) == (0.787, [0.0, 2.787])
    assert _ratio_stat({"mean": -0.3, "ci": [-1.0, 0.4]}) == (-0.3, [-1.0, 0.4])
