"""The leaderboard: entries from verified packages, the markdown table, the frontier and the
static HTML page (the page in headless Chromium: a slow test)."""

from __future__ import annotations

import json
import re

import pytest

from kbgym.bench import board as B
from kbgym.bench.verify import verify_package
from kbgym.errors import ConfigError


@pytest.fixture(scope="module")
def entries_dir(packages, tiny_release, tmp_path_factory):
    d = tmp_path_factory.mktemp("board")
    for spec, pkg in packages.items():
        entry = B.make_entry(verify_package(pkg, tiny_release), pkg, date="2026-12-06")
        B.write_entry(d / f"{spec}.json", entry)
    return d


def test_frontier_keeps_only_undominated_points():
    pts = [(1, 0.5, "B1"), (1, 0.6, "B3"), (10, 0.55, "slow"), (100, 0.9, "llm"),
           (50, 0.9, "cheap")]
    assert B.frontier(pts) == [(1, 0.6, "B3"), (50, 0.9, "cheap")]


def test_markdown_table_best_first_with_gain(entries_dir):
    entries = B.load_entries(entries_dir)
    md = B.render_markdown(entries)
    rows = [line for line in md.splitlines() if line.startswith("| ") and "curator" not in line]
    assert len(rows) == len(entries) == 3
    f1 = [float(r.split(" | ")[2]) for r in rows]
    assert f1 == sorted(f1, reverse=True)
    by_name = {r.split(" | ")[0][2:]: r for r in rows}
    scripted = next(e for e in entries if e["curator"] == "scripted")
    best_baseline = max(e["scores"]["f1_tight"] for e in entries if e["curator"] in ("B1", "B3"))
    assert f"{scripted['scores']['f1_tight'] - best_baseline:+.3f}" in by_name["scripted"]
    assert by_name["B1"].split(" | ")[4] == "–"  # a baseline has no gain over baselines


def test_table_goes_between_the_markers(entries_dir, tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(f"intro\n{B.BEGIN}\nold table\n{B.END}\noutro\n")
    md = B.render_markdown(B.load_entries(entries_dir))
    B.replace_table(doc, md)
    B.replace_table(doc, md)  # idempotent
    text = doc.read_text()
    assert text.startswith("intro\n") and text.endswith("outro\n") and "old table" not in text
    assert text.count(B.BEGIN) == 1 and md in text and B.COMMAND.format(path=doc) in text
    (tmp_path / "bare.md").write_text("no markers")
    with pytest.raises(ConfigError, match="no <!-- leaderboard:begin -->"):
        B.replace_table(tmp_path / "bare.md", md)


def test_html_is_self_contained(entries_dir):
    page = B.render_html(B.load_entries(entries_dir))
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert page.count('class="point"') == 3 and "<table class=\"board\"" in page


def test_committed_entries_are_well_formed():
    """leaderboard/: every entry names the shipped release and a package hash."""
    from pathlib import Path

    from kbgym.bench.release import load_release

    folder = Path(__file__).parents[2] / "leaderboard"
    entries = B.load_entries(folder)
    rel = load_release()
    assert entries, "leaderboard/ has no entry"
    for e in entries:
        assert e["release"] == {"id": rel.id, "hash": rel.hash}
        assert re.fullmatch(r"sha256:[0-9a-f]{64}", e["package_hash"])
        assert e["size"] in rel.sizes
    assert {"B1", "B2", "B3", "B4", "oracle"} <= {e["curator"] for e in entries}


@pytest.mark.slow
def test_page_sorts_and_plots_in_chromium(entries_dir, tmp_path):
    from kbgym.view.browser import chromium, file_url, missing

    if missing() is not None:
        pytest.skip(missing())
    from selenium.webdriver.common.by import By

    entries = B.load_entries(entries_dir)
    page = tmp_path / "board.html"
    page.write_text(B.render_html(entries), encoding="utf-8")
    with chromium() as d:
        d.get(file_url(page))

        def column(i):
            return [r.find_elements(By.TAG_NAME, "td")[i].text
                    for r in d.find_elements(By.CSS_SELECTOR, "table.board tbody tr")]

        names = column(0)
        assert sorted(names) == sorted(e["curator"] for e in entries)
        header = d.find_elements(By.CSS_SELECTOR, "table.board th")[B.HEAD.index(
            "curation steps")]
        header.click()  # ascending
        steps = [int(x) for x in column(B.HEAD.index("curation steps"))]
        assert steps == sorted(steps)
        header.click()  # descending
        steps = [int(x) for x in column(B.HEAD.index("curation steps"))]
        assert steps == sorted(steps, reverse=True)
        points = d.find_elements(By.CSS_SELECTOR, "svg#frontier circle.point")
        assert sorted(p.get_attribute("data-name") for p in points) == sorted(names)
        assert all(p.size["width"] > 0 for p in points)  # drawn, not just in the DOM
        assert not [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
